import { api, partyPath } from '../api.js';
import { t } from '../i18n.js';
import { el, coverImage, showError, toast } from '../dom.js';
import { connectEvents } from '../events.js';
import { NowPlaying } from '../playback-clock.js';
import { renderTracks } from '../track-list.js';
import { load, save, forget, takeHashParameters } from '../storage.js';
import { pinForm } from '../pin-input.js';

const STORAGE_KEY = 'musicvoting.host';
const login = document.getElementById('login');
const view = document.getElementById('controls-view');
const logout = document.getElementById('logout');

function showLogin() {
  view.hidden = true;
  logout.hidden = true;
  login.hidden = false;
  document.getElementById('login-tv-hint').hidden = !pendingTvCode;
  const pin = pinForm('login', async (hostPin) => {
    const party = await api('GET', `/api/party/host-join/${hostPin}`);
    save(STORAGE_KEY, { partyId: party.id, hostPin });
    login.hidden = true;
    run(party.id, hostPin);
  }, t('host.wrongPin'));
  pin.focus();
}

function ended() {
  forget(STORAGE_KEY);
  view.hidden = true;
  logout.hidden = true;
  document.getElementById('ended').hidden = false;
}

async function run(partyId, hostPin) {
  const base = partyPath(partyId);
  let party;
  try {
    party = await api('GET', base, { token: hostPin });
  } catch (error) {
    forget(STORAGE_KEY);
    if (error.status === 404 || error.status === 403) return showLogin();
    toast(error.message);
    return;
  }
  if (party.hostPin !== hostPin) { forget(STORAGE_KEY); return showLogin(); }
  view.hidden = false;
  logout.hidden = false;
  const now = new NowPlaying();
  const playPause = document.getElementById('play-pause');
  const skip = document.getElementById('skip');
  const deviceHint = document.getElementById('device-hint');
  const stallBanner = document.getElementById('stall-banner');
  /** The provider's last message (`playback-error`), shown with a `provider-error` stall. */
  let lastPlayerError = '';
  const queueList = document.getElementById('queue-list');
  const queueEmpty = document.getElementById('queue-empty');
  let current = { isPlaying: false, deviceActive: false };
  let shownCover = null;

  document.getElementById('host-guest-pin').textContent = party.pin;
  const joinLink = document.getElementById('host-join-link');
  joinLink.href = party.joinUrl;
  joinLink.textContent = party.joinUrl;
  document.getElementById('host-monitor-link').href = `/monitor#party=${partyId}&hostPin=${hostPin}`;
  const qr = document.getElementById('host-qr');
  qr.addEventListener('load', () => {
    document.getElementById('qr-spinner').hidden = true;
    document.getElementById('qr-frame').setAttribute('aria-busy', 'false');
    qr.hidden = false;
  }, { once: true });
  qr.src = `${base}/qr`;

  // Issue 14: the TV shows a code; the host types it here or scanned the TV's QR code (`#pairTv=CODE`).
  document.getElementById('host-tv-address').textContent = `${new URL(party.joinUrl).origin}/tv`;
  const tvPaired = document.getElementById('tv-paired');
  const pairTv = async (code) => {
    tvPaired.textContent = '';
    await api('POST', `${base}/tv/pair`, { token: hostPin, body: { code } });
    tvPaired.textContent = t('tv.paired');
    toast(t('tv.paired'));
  };
  pinForm('tv', pairTv, t('tv.codeUnknown'));
  if (pendingTvCode) {
    document.getElementById('tv-card').scrollIntoView({ block: 'center' });
    pairTv(pendingTvCode).catch((error) => showError('tv', error.status === 404 ? t('tv.codeUnknown') : error.message));
  }

  const renderControls = () => {
    const enabled = Boolean(current.deviceActive);
    playPause.disabled = !enabled;
    skip.disabled = !enabled || !current.track;
    // R20a: why nobody hears the song, in one banner (it covers "no device" too).
    const stalled = current.state === 'stalled' && current.track;
    if (stalled) {
      const reason = t(`host.stall.${current.stallReason}`) || t('host.stall.no-monitor');
      stallBanner.replaceChildren(current.stallReason === 'provider-error' && lastPlayerError ? `${reason} ${lastPlayerError}` : reason);
      if (!enabled) stallBanner.append(' ', el('a', { href: document.getElementById('host-monitor-link').href, text: t('host.openMonitor') }));
    }
    stallBanner.hidden = !stalled;
    deviceHint.hidden = enabled || stalled;
    const playing = Boolean(current.isPlaying && current.track);
    playPause.setAttribute('aria-label', playing ? t('host.pause') : t('host.play'));
    playPause.dataset.state = playing ? 'playing' : 'stopped';
  };

  const loadCurrent = async () => {
    current = await api('GET', `${base}/track/current`);
    const image = current.track?.album?.images?.[0]?.url || null;
    now.update(current, image === shownCover ? undefined : (image ? coverImage(image) : null));
    shownCover = image;
    renderControls();
  };

  const loadQueue = async () => {
    const { queue } = await api('GET', `${base}/track/queue`);
    renderTracks(queueList, queue, {
      showLikes: true, showCurrent: true,
      actions: (entry) => [
        entry.isCurrentlyPlaying ? null : el('button', {
          type: 'button', className: 'icon-button play-now-button', 'aria-label': `${t('host.playNow')}: ${entry.name}`, text: '▶',
          disabled: !current.deviceActive, onclick: () => command('PUT', '/track/play', { uri: entry.uri }),
        }),
        el('button', {
          type: 'button', className: 'icon-button remove-button', 'aria-label': `${t('host.remove')}: ${entry.name}`, text: '✕',
          onclick: () => command('DELETE', '/track/remove', { uri: entry.uri }),
        }),
      ].filter(Boolean),
    });
    queueEmpty.hidden = queue.length > 0;
  };

  const loadBlacklist = async () => {
    const { words } = await api('GET', `${base}/blacklist`, { token: hostPin });
    renderBlacklist(words);
  };
  const renderBlacklist = (words) => {
    document.getElementById('blacklist-empty').hidden = words.length > 0;
    document.getElementById('blacklist').replaceChildren(...words.map((word) => el('li', {}, [
      el('span', { text: word }),
      el('button', { type: 'button', className: 'icon-button', 'aria-label': `${t('host.blacklist.removeWord')}: ${word}`, text: '✕',
        onclick: async () => renderBlacklist((await api('DELETE', `${base}/blacklist`, { token: hostPin, body: { word } })).words) }),
    ])));
  };

  const spotifyCard = document.getElementById('spotify-card');
  const loadSpotify = async () => {
    if (party.provider !== 'spotify') return;
    spotifyCard.hidden = false;
    const { loggedIn } = await api('GET', `${base}/spotify/status`);
    document.getElementById('spotify-connected').hidden = !loggedIn;
    const login = document.getElementById('spotify-login');
    login.hidden = loggedIn;
    // The browser follows the server's redirect to Spotify; the PIN proves the host (only the route is logged).
    login.href = `${base}/spotify/login?source=web&hostPin=${encodeURIComponent(hostPin)}`;
  };
  const outcome = new URLSearchParams(location.search).get('spotify');
  if (outcome) {
    toast(outcome === 'connected' ? t('host.spotify.connected') : t('host.spotify.denied'));
    history.replaceState(null, '', location.pathname);
  }

  const loadPlaylists = async () => {
    const select = document.getElementById('playlist');
    select.replaceChildren(select.options[0]);
    showError('playlist', '');
    try {
      const { playlists } = await api('GET', `${base}/spotify/playlists`, { token: hostPin });
      for (const playlist of playlists) select.append(el('option', { value: playlist.id, text: playlist.name }));
    } catch (error) {
      showError('playlist', error.message);
    }
  };

  async function command(method, path, body) {
    try {
      const result = await api(method, `${base}${path}`, { token: hostPin, body });
      await Promise.all([loadCurrent(), loadQueue()]);
      return result;
    } catch (error) {
      toast(error.message);
      if (error.status === 404) ended();
      return null;
    }
  }

  playPause.addEventListener('click', () => {
    if (current.isPlaying && current.track) return command('POST', '/track/pause');
    return command('POST', current.track ? '/track/resume' : '/track/start');
  });
  skip.addEventListener('click', () => command('POST', '/track/next'));

  document.getElementById('blacklist-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const input = document.getElementById('blacklist-word');
    showError('blacklist', '');
    try {
      renderBlacklist((await api('PUT', `${base}/blacklist`, { token: hostPin, body: { word: input.value } })).words);
      input.value = '';
    } catch (error) {
      showError('blacklist', error.message);
    }
  });

  document.getElementById('playlist').addEventListener('change', async (event) => {
    showError('playlist', '');
    try {
      await api('PUT', `${base}/default-playlist`, { token: hostPin, body: { playlistId: event.target.value } });
    } catch (error) {
      showError('playlist', error.message);
    }
  });

  document.getElementById('end-party').addEventListener('click', async () => {
    if (!confirm(t('host.endConfirm'))) return;
    try {
      await api('DELETE', base, { token: hostPin });
      events.stop();
      ended();
    } catch (error) {
      showError('end', error.message);
    }
  });

  logout.addEventListener('click', () => { forget(STORAGE_KEY); location.href = '/'; });

  let reloadTimer;
  const reloadSoon = () => {
    clearTimeout(reloadTimer);
    reloadTimer = setTimeout(() => { loadCurrent().catch(() => {}); loadQueue().catch(() => {}); }, 60);
  };
  const events = connectEvents(partyId, {
    onEvent: (event) => {
      if (event.type === 'playback-error') {
        lastPlayerError = event.payload.message || '';
        toast(event.payload.message);
        reloadSoon();
      } else if (event.type === 'pin-guessing') {
        toast(t('host.pinGuessing', { failures: event.payload.failures }));
      } else if (event.type === 'login-success') {
        loadSpotify().catch(() => {});
        loadPlaylists();
      } else if (event.type === 'device-changed') {
        current.deviceActive = event.payload.deviceActive === 'true';
        renderControls();
        loadQueue().catch(() => {});
      } else if (event.type !== 'progress') {
        reloadSoon();
      }
    },
    onResync: reloadSoon,
    onEnded: ended,
  });

  await Promise.all([loadCurrent(), loadQueue(), loadBlacklist(), loadPlaylists(), loadSpotify().catch(() => {})]);
}

const hash = takeHashParameters();
/** A TV's pairing code from its QR code, claimed once the host is logged in. */
const pendingTvCode = /^\d{6}$/.test(hash.get('pairTv') || '') ? hash.get('pairTv') : null;
const stored = hash.get('party') && hash.get('hostPin') ? { partyId: hash.get('party'), hostPin: hash.get('hostPin') } : load(STORAGE_KEY);
if (stored?.partyId && stored?.hostPin) {
  save(STORAGE_KEY, stored);
  run(stored.partyId, stored.hostPin);
} else {
  showLogin();
}
