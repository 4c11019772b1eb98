import { api } from './api.js';
import { t, tn } from './i18n.js';
import { el, artistsOf, replaceChildren, showError, toast } from './dom.js';

/** R32: the most songs one save takes. */
const MAX_SAVED = 500;

/** The host page's "played" card (R33): the songs played while the party keeps its history, saved or downloaded. */
export function playedList(base, credential, provider) {
  const off = document.getElementById('played-off');
  const on = document.getElementById('played-on');
  const list = document.getElementById('played-list');
  const empty = document.getElementById('played-empty');
  const saveButton = document.getElementById('played-save');
  let songs = [];
  let historyOn = false;

  const render = () => {
    off.hidden = historyOn;
    on.hidden = !historyOn;
    empty.hidden = songs.length > 0;
    replaceChildren(list, ...songs.map((song) => el('li', { className: 'played-song' }, [
      el('span', { className: 'played-title', text: song.name }),
      el('span', { className: 'played-meta', text: `${artistsOf(song)} · ${t(`host.played.ended.${song.ended}`)}`
        + (song.likeCount > 0 ? ` · ${tn('recap.likes', song.likeCount)}` : '') }),
    ])));
    // Only Spotify keeps playlists (R32); every provider's songs download as files.
    saveButton.hidden = provider !== 'spotify' || songs.length === 0;
  };

  const load = async () => {
    if (!historyOn) { songs = []; return render(); }
    try {
      songs = (await api('GET', `${base}/history`, { token: credential })).items;
    } catch (error) {
      if (error.code === 'history_off') historyOn = false;
      else showError('played', error.message);
    }
    render();
  };
  let loadTimer;
  const loadSoon = () => { clearTimeout(loadTimer); loadTimer = setTimeout(() => { load(); }, 100); };

  saveButton.addEventListener('click', async () => {
    showError('played', '');
    saveButton.disabled = true;
    try {
      const uris = songs.map((song) => song.uri).slice(-MAX_SAVED);
      const saved = await api('POST', `${base}/track/saveToPlaylist`, { token: credential, body: uris });
      toast(tn('host.played.saved', saved.saved));
      const link = el('a', { className: 'button', href: saved.playlistUrl, target: '_blank', rel: 'noopener', text: t('host.played.open') });
      saveButton.after(link);
    } catch (error) {
      showError('played', error.message);
    } finally {
      saveButton.disabled = false;
    }
  });

  document.getElementById('played-m3u8').addEventListener('click', () => downloadExport(base, credential, 'm3u8'));
  document.getElementById('played-jspf').addEventListener('click', () => downloadExport(base, credential, 'jspf'));

  return {
    load,
    loadSoon,
    /** The party's `history` setting as the rules card read or changed it. */
    setHistory(value) {
      if (value === historyOn) return;
      historyOn = value;
      load();
    },
  };
}

/** The file comes with the host's credential in a header (never in a link), then downloads from memory. */
async function downloadExport(base, credential, format) {
  showError('played', '');
  try {
    const response = await fetch(`${base}/export.${format}`, { headers: { Authorization: `Bearer ${credential}` }, cache: 'no-store' });
    if (!response.ok) throw new Error(t('error.network'));
    const url = URL.createObjectURL(await response.blob());
    const link = el('a', { href: url, download: `musicvoting.${format}`, hidden: true });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  } catch (error) {
    showError('played', error.message);
  }
}
