import { api } from './api.js';
import { t } from './i18n.js';
import { el, artistsOf, replaceChildren, showError, toast } from './dom.js';

/**
 * The host page's "waiting for approval" card (R35): the guests' songs the party's approval holds, each with approve
 * and decline, read again on every `pending-updated` (another host tab, or a co-host, decided one). The card shows
 * while approval is on or songs still wait (turning approval off leaves them for the host to decide).
 */
export function pendingList(base, credential) {
  const card = document.getElementById('pending-card');
  const list = document.getElementById('pending-list');
  const empty = document.getElementById('pending-empty');
  const count = document.getElementById('pending-count');
  let songs = [];
  let mode = 'off';

  const decide = async (song, verdict) => {
    showError('pending', '');
    try {
      await api('POST', `${base}/pending/${encodeURIComponent(song.id)}/${verdict}`, { token: credential });
      toast(t(verdict === 'approve' ? 'host.pending.approved' : 'host.pending.declined', { name: song.name }));
    } catch (error) {
      showError('pending', error.message);
    }
    await load();
  };

  const row = (song) => el('li', { className: 'pending-song', 'data-pending-id': song.id }, [
    el('span', { className: 'pending-text' }, [
      el('span', { className: 'pending-title', text: song.name }),
      el('span', { className: 'pending-meta', text: artistsOf(song) + (song.addedBy ? ` · ${t('addedBy', { name: song.addedBy })}` : '') }),
    ]),
    el('span', { className: 'pending-actions' }, [
      el('button', { type: 'button', className: 'button small primary', 'data-action': 'approve',
        'aria-label': `${t('host.pending.approve')}: ${song.name}`, text: t('host.pending.approve'), onclick: () => decide(song, 'approve') }),
      el('button', { type: 'button', className: 'button small', 'data-action': 'decline',
        'aria-label': `${t('host.pending.decline')}: ${song.name}`, text: t('host.pending.decline'), onclick: () => decide(song, 'decline') }),
    ]),
  ]);

  const render = () => {
    card.hidden = mode === 'off' && songs.length === 0;
    empty.hidden = songs.length > 0;
    count.textContent = songs.length ? ` (${songs.length})` : '';
    const hadFocus = list.contains(document.activeElement);
    replaceChildren(list, ...songs.map(row));
    // The decided row is gone: focus moves to the next song's approve button, or to the heading.
    if (hadFocus) (list.querySelector('button') || document.getElementById('pending-heading')).focus();
  };

  async function load() {
    try {
      songs = (await api('GET', `${base}/pending`, { token: credential })).items;
    } catch (error) {
      showError('pending', error.message);
    }
    render();
  }
  let loadTimer;
  const loadSoon = () => { clearTimeout(loadTimer); loadTimer = setTimeout(load, 60); };

  return {
    load,
    loadSoon,
    /** The party's `approval` setting as the rules card read or changed it. */
    setMode(value) {
      mode = value || 'off';
      render();
    },
  };
}
