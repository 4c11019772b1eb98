import { el, cover, artistsOf, coverOf } from './dom.js';
import { t } from './i18n.js';

/**
 * Renders queue entries (or search results) into `list`. `actions(track)` returns the buttons of a row.
 * Rows are keyed by uri so focus and scroll survive live updates.
 */
export function renderTracks(list, tracks, { actions, showLikes = false, showCurrent = false } = {}) {
  const rows = tracks.map((track) => {
    const text = el('div', { className: 'track-text' }, [
      el('span', { className: 'track-name', text: track.name }),
      el('span', { className: 'track-artist', text: artistsOf(track) }),
    ]);
    if (track.autofilled) text.firstChild.append(el('span', { className: 'track-badge', text: t('queue.autofilled') }));
    const row = el('li', { className: 'track', 'data-uri': track.uri }, [cover(coverOf(track)), text]);
    if (showCurrent && track.isCurrentlyPlaying) row.classList.add('is-current');
    if (showLikes) {
      row.append(el('span', { className: 'like-count', text: `♥ ${track.likeCount ?? 0}`, 'aria-label': `${track.likeCount ?? 0} ${t('queue.likes')}` }));
    }
    for (const action of actions ? actions(track) : []) row.append(action);
    return row;
  });
  const focusedUri = document.activeElement?.closest?.('.track')?.dataset.uri;
  const focusedClass = document.activeElement?.className;
  list.replaceChildren(...rows);
  if (focusedUri) {
    const again = [...list.children].find((row) => row.dataset.uri === focusedUri);
    const button = again && [...again.querySelectorAll('button')].find((candidate) => candidate.className === focusedClass);
    button?.focus();
  }
}
