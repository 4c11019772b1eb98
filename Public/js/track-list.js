import { el, cover, artistsOf, coverOf } from './dom.js';
import { t, tn } from './i18n.js';
import { minutesUntil } from './start-times.js';

/**
 * Renders queue entries (or search results) into `list`. `actions(track)` returns the buttons of a row; each
 * carries `data-action`. A row that did not change stays the same node (focus, an open menu and a screen reader's
 * place stay with it; only changed rows are replaced). When the focused row changed, focus goes to its new row's
 * button with the same action (or its first button); a row that left moves focus to the row now at its place, so
 * a keyboard user never falls back to the top of the page.
 */
export function renderTracks(list, tracks, { actions, showLikes = false, showCurrent = false, showStart = false, startClock = null, extra = null } = {}) {
  const rows = tracks.map((track) => {
    // The "auto" badge sits on the artist line: beside the title it squeezed the title on phones.
    const meta = el('div', { className: 'track-meta' }, [el('span', { className: 'track-artist', text: artistsOf(track) })]);
    if (track.autofilled) meta.prepend(el('span', { className: 'track-badge', text: t('queue.autofilled') }));
    // R18a: the asking guest's own songs, in every list that holds them.
    if (track.mine) meta.prepend(el('span', { className: 'track-badge mine', text: t('queue.mine') }));
    // R18a: when a waiting song starts, if nothing changes.
    if (showStart && !track.isCurrentlyPlaying && typeof track.startsInMs === 'number') {
      meta.append(el('span', { className: 'track-start', text: startText(track, startClock) }));
    }
    // R36: the nickname of whoever asked for it, while the party shows nicknames (text, never markup).
    if (track.addedBy) meta.append(el('span', { className: 'track-added-by', text: t('addedBy', { name: track.addedBy }) }));
    // R17a: what the TV and the host show beside the likes ("2 of 3 want to skip").
    const note = extra ? extra(track) : '';
    if (note) meta.append(el('span', { className: 'track-note', text: note }));
    const text = el('div', { className: 'track-text' }, [el('span', { className: 'track-name', text: track.name }), meta]);
    // The entry's id too: a song added again after it played is another entry (its buttons act on that one).
    const row = el('li', { className: 'track', 'data-uri': track.uri, 'data-id': track.id }, [cover(coverOf(track)), text]);
    if (showCurrent && track.isCurrentlyPlaying) row.classList.add('is-current');
    if (showLikes) row.append(likeCount(track.likeCount || 0));
    for (const action of actions ? actions(track) : []) if (action) row.append(action);
    return row;
  });
  const focused = document.activeElement;
  const focusedRow = list.contains(focused) ? focused.closest('.track') : null;
  const focusedIndex = focusedRow ? [...list.children].indexOf(focusedRow) : -1;
  const focusedAction = focused && focused.dataset ? focused.dataset.action : undefined;
  const next = keepUnchanged(list, rows);
  if (!focusedRow || list.contains(document.activeElement)) return;
  const again = next.find((row) => row.dataset.uri === focusedRow.dataset.uri)
    || next[Math.min(focusedIndex, next.length - 1)];
  // Only a button that shows: a closed row menu still holds its (hidden) buttons.
  const buttons = again ? [...again.querySelectorAll('button')].filter(isShown) : [];
  const target = buttons.find((button) => button.dataset.action === focusedAction) || buttons[0];
  if (target) target.focus();
  else {
    const heading = list.closest('section') && list.closest('section').querySelector('h2, [tabindex="-1"]');
    if (heading) heading.focus();
  }
}

/**
 * Puts `rows` into `list`, keeping each shown row that equals its new rendering (same attributes and text; a
 * listener is not compared, and a row shows all its entry's state) and moving only what must move. Returns the rows
 * now in the list.
 */
function keepUnchanged(list, rows) {
  const shownByUri = new Map();
  for (const shown of list.children) shownByUri.set(shown.dataset.uri, [...(shownByUri.get(shown.dataset.uri) || []), shown]);
  const next = rows.map((row) => {
    const shown = shownByUri.get(row.dataset.uri) || [];
    const index = shown.findIndex((candidate) => candidate.isEqualNode(row));
    return index < 0 ? row : shown.splice(index, 1)[0];
  });
  next.forEach((row, index) => {
    if (list.children[index] !== row) list.insertBefore(row, list.children[index] || null);
  });
  while (list.children.length > next.length) list.lastElementChild.remove();
  return next;
}

const isShown = (node) => (node.checkVisibility ? node.checkVisibility() : node.offsetParent !== null);

/** "♥ 3" that a screen reader reads as "3 Likes" (text, not an aria-label on a span that readers may skip). */
export function likeCount(count) {
  return el('span', { className: 'like-count' }, [
    el('span', { 'aria-hidden': 'true', text: '♥ ' }), String(count), el('span', { className: 'visually-hidden', text: ` ${tn('queue.likes', count)}` }),
  ]);
}

const startText = (track, startClock) => t('queue.startsIn', {
  minutes: minutesUntil(startClock ? startClock.remaining(track.startsInMs) : track.startsInMs),
});

/** R18a: the rows' "in ~N min" brought up to date without re-rendering them (focus and scroll stay). */
export function updateStartTimes(list, tracks, startClock) {
  const byUri = new Map(tracks.filter((track) => !track.isCurrentlyPlaying).map((track) => [track.uri, track]));
  for (const label of list.querySelectorAll('.track-start')) {
    const row = label.closest('.track');
    const track = row && byUri.get(row.dataset.uri);
    if (!track || typeof track.startsInMs !== 'number') continue;
    const text = startText(track, startClock);
    if (label.textContent !== text) label.textContent = text;
  }
}
