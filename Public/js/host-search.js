import { api } from './api.js';
import { t } from './i18n.js';
import { el, toast, replaceChildren } from './dom.js';
import { renderTracks } from './track-list.js';
import { deviceId } from './storage.js';

/**
 * The host adds songs too, with the guest page's search and add. Its own device id (kept in this browser)
 * counts toward the add limit like a guest's; its `credential` goes along, so its songs never wait for approval
 * (R35). `queue()` is the last queue, for the ✓ of songs already waiting.
 */
export function hostSearch(base, provider, queue, reloadQueue, credential) {
  const device = deviceId('musicvoting.hostDeviceId');
  const input = document.getElementById('host-search');
  const list = document.getElementById('host-results');
  let results = [];
  let timer;
  let sequence = 0;
  const render = () => {
    const waiting = new Set(queue().filter((entry) => !entry.isCurrentlyPlaying && !entry.autofilled).map((entry) => entry.uri));
    renderTracks(list, results, {
      actions: (track) => {
        if (waiting.has(track.uri) || track.blocked) {
          const label = track.blocked ? t('guest.blocked') : t('guest.queued');
          return [el('button', { type: 'button', className: 'icon-button state-button', 'data-action': 'add', 'aria-disabled': 'true',
            'aria-label': `${label}: ${track.name}`, text: track.blocked ? '⊘' : '✓', onclick: () => toast(label) })];
        }
        return [el('button', { type: 'button', className: 'icon-button add-button', 'data-action': 'add',
          'aria-label': `${t('guest.add')}: ${track.name}`, text: '+', onclick: () => add(track) })];
      },
    });
    if (input.value.trim() && !results.length) replaceChildren(list, el('li', { className: 'empty', text: t('guest.search.none') }));
  };
  const run = async () => {
    const mine = ++sequence;
    const query = input.value.trim();
    if (!query) { results = []; render(); settled(); return; }
    try {
      const body = await api('GET', `${base}/track/search?q=${encodeURIComponent(query)}`);
      if (mine !== sequence) return;
      // Compact: the best five; the guest page has room for the rest.
      results = body.tracks.items.slice(0, 5);
      render();
      settled();
    } catch (error) {
      if (mine === sequence) { replaceChildren(list, el('li', { className: 'error', text: error.message })); settled(); }
    }
  };
  // As on the guest page: remote catalogues cost quota per search, so wait for a pause and two characters; while a
  // typed query waits for its results, the list says it is busy (its rows are about to be replaced).
  const remote = ['youtube', 'spotify'].includes(provider);
  const settled = () => list.removeAttribute('aria-busy');
  input.addEventListener('input', () => {
    clearTimeout(timer);
    if (remote && input.value.trim().length === 1) { settled(); return; }
    list.setAttribute('aria-busy', 'true');
    timer = setTimeout(run, remote ? 700 : 250);
  });
  async function add(track) {
    try {
      await api('POST', `${base}/track/addToPlaylist`, { token: credential, body: { uri: track.uri, deviceId: device } });
      toast(t('guest.added'));
      await reloadQueue();
    } catch (error) {
      toast(error.message);
    }
  }
  return { render };
}

