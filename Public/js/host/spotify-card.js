import { api } from '../api.js';
import { t } from '../i18n.js';
import { el, showError, toast, replaceChildren } from '../dom.js';
import { asCohost, hostOnly } from './host-session.js';

/**
 * The Spotify login card and the default playlist (the host's only). Back from Spotify's login, the page says how it
 * went once (`?spotify=connected|denied`) and drops it from the address.
 */
export function spotifyCard(base, provider, credential) {
  const outcome = new URLSearchParams(location.search).get('spotify');
  if (outcome) {
    toast(outcome === 'connected' ? t('host.spotify.connected') : t('host.spotify.denied'));
    history.replaceState(null, '', location.pathname);
  }
  hostOnly('playlist', 'change', async (event) => {
    showError('playlist', '');
    try {
      await api('PUT', `${base}/default-playlist`, { token: credential, body: { playlistId: event.target.value } });
    } catch (error) {
      showError('playlist', error.message);
    }
  });
  return {
    loadStatus: () => loadStatus(base, provider, credential),
    loadPlaylists: () => loadPlaylists(base, credential),
  };
}

async function loadStatus(base, provider, credential) {
  if (asCohost || provider !== 'spotify') return;
  document.getElementById('spotify-card').hidden = false;
  const { loggedIn } = await api('GET', `${base}/spotify/status`);
  document.getElementById('spotify-connected').hidden = !loggedIn;
  const login = document.getElementById('spotify-login');
  login.hidden = loggedIn;
  // The browser follows the server's redirect to Spotify; the PIN proves the host (only the route is logged).
  login.href = `${base}/spotify/login?source=web&hostPin=${encodeURIComponent(credential)}`;
}

async function loadPlaylists(base, credential) {
  if (asCohost) return;
  const select = document.getElementById('playlist');
  replaceChildren(select, select.options[0]);
  showError('playlist', '');
  try {
    const { playlists } = await api('GET', `${base}/spotify/playlists`, { token: credential });
    for (const playlist of playlists) select.append(el('option', { value: playlist.id, text: playlist.name }));
  } catch (error) {
    showError('playlist', error.message);
  }
}
