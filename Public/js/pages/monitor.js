import { api, partyPath } from '../api.js';
import { t } from '../i18n.js';
import { coverImage } from '../dom.js';
import { connectEvents } from '../events.js';
import { NowPlaying } from '../playback-clock.js';
import { renderTracks } from '../track-list.js';
import { createPlayer } from '../players/index.js';
import { load, save, forget, takeHashParameters } from '../storage.js';
import { pinForm } from '../pin-input.js';

const STORAGE_KEY = 'musicvoting.monitor';
const pairSection = document.getElementById('pair');
const stage = document.getElementById('stage');
const notice = document.getElementById('monitor-notice');
const overlay = document.getElementById('autoplay');

function monitorDeviceId() {
  let id = load('musicvoting.monitorDevice');
  if (!id) {
    id = crypto.randomUUID ? crypto.randomUUID() : `tv-${Date.now().toString(36)}`;
    save('musicvoting.monitorDevice', id);
  }
  return id;
}

async function register(partyId, credential) {
  const result = await api('PUT', `${partyPath(partyId)}/device`, {
    token: credential, body: { deviceId: monitorDeviceId(), kind: 'monitor' },
  });
  save(STORAGE_KEY, { partyId, token: result.monitorToken });
  return result.monitorToken;
}

function showPairing() {
  stage.hidden = true;
  pairSection.hidden = false;
  const pin = pinForm('pair', async (hostPin) => {
    const party = await api('GET', `/api/party/host-join/${hostPin}`);
    const token = await register(party.id, hostPin);
    pairSection.hidden = true;
    run(party.id, token);
  }, t('host.wrongPin'));
  pin.focus();
}

async function boot() {
  const hash = takeHashParameters();
  const stored = load(STORAGE_KEY);
  try {
    if (hash.get('party') && hash.get('hostPin')) {
      const token = await register(hash.get('party'), hash.get('hostPin'));
      return run(hash.get('party'), token);
    }
    if (stored?.partyId && stored?.token) {
      // R22: re-registering continues the current track where it is; no PIN needed after a reload.
      await register(stored.partyId, stored.token);
      return run(stored.partyId, stored.token);
    }
  } catch (error) {
    if (![401, 403, 404].includes(error.status)) {
      setTimeout(boot, 3000);
      return;
    }
    forget(STORAGE_KEY);
  }
  showPairing();
}

async function run(partyId, token) {
  const base = partyPath(partyId);
  const party = await api('GET', base);
  stage.hidden = false;
  document.getElementById('monitor-qr').src = `${base}/qr`;
  document.getElementById('monitor-url').textContent = party.joinUrl.replace(/^https?:\/\//, '');
  document.getElementById('monitor-pin').textContent = party.pin;

  const now = new NowPlaying();
  const queueList = document.getElementById('queue-list');
  const queueEmpty = document.getElementById('queue-empty');
  let current = null;
  let endedEntry = null;
  let loadedEntry = null;
  let shownCover = null;

  const videoBox = document.getElementById('video');
  const player = await createPlayer(party.provider, { audio: document.getElementById('player'), video: videoBox }, {
    onEnded: () => advance(),
    onBlocked: () => { overlay.hidden = false; },
    onUnavailable: () => {
      notice.textContent = t('monitor.playerUnavailable');
      notice.hidden = false;
    },
    onError: () => {
      notice.textContent = t('monitor.playbackFailed');
      notice.hidden = false;
      setTimeout(() => { notice.hidden = true; }, 6000);
      advance();
    },
  }, { base, token }).catch(() => {
    notice.textContent = t('monitor.playerUnavailable');
    notice.hidden = false;
    return null;
  });
  if (!videoBox.hidden) document.querySelector('.now-cover').hidden = true;

  /** R20: the song end names the entry it finished, so the server ignores a late or repeated report. */
  async function advance() {
    const entryId = current?.track?.id;
    if (!entryId || endedEntry === entryId) return;
    endedEntry = entryId;
    try { await api('POST', `${base}/track/next`, { token, body: { entryId } }); } catch { /* the sync below shows the truth */ }
    sync();
  }

  document.getElementById('autoplay-start').addEventListener('click', async () => {
    overlay.hidden = true;
    if (await player?.play()) sync();
  });

  async function sync() {
    let queue;
    try {
      [current, { queue }] = await Promise.all([api('GET', `${base}/track/current`), api('GET', `${base}/track/queue`)]);
    } catch (error) {
      if (error.status === 404) partyEnded();
      return;
    }
    const image = current.track?.album?.images?.[0]?.url || null;
    now.update(current, image === shownCover ? undefined : (image ? coverImage(image) : null));
    shownCover = image;
    const waiting = queue.filter((entry) => !entry.isCurrentlyPlaying);
    renderTracks(queueList, waiting.slice(0, 8), { showLikes: true });
    queueEmpty.hidden = waiting.length > 0;
    if (!player) return;
    if (!current.track) { player.stop(); loadedEntry = null; return; }
    const position = now.positionMs();
    if (current.track.id !== loadedEntry) {
      loadedEntry = current.track.id;
      endedEntry = null;
      await player.load(current.track, position, current.isPlaying);
    } else if (current.isPlaying) {
      if (Math.abs(player.positionMs() - position) > 2000) player.seek(position);
      if (player.isPaused()) await player.play();
    } else {
      player.pause();
      if (Math.abs(player.positionMs() - position) > 1000) player.seek(position);
    }
  }

  let syncTimer;
  const syncSoon = () => { clearTimeout(syncTimer); syncTimer = setTimeout(sync, 60); };

  function partyEnded() {
    clearInterval(reporter);
    events.stop();
    player?.stop();
    forget(STORAGE_KEY);
    location.href = '/';
  }

  const events = connectEvents(partyId, {
    monitorToken: token,
    onEvent: (event) => {
      // A web login gives the Spotify player its token: start it afresh (an iOS login leaves it alone).
      if (event.type === 'login-success' && event.payload.source === 'web' && party.provider === 'spotify') location.reload();
      if (event.type === 'playback-error') {
        notice.textContent = event.payload.message;
        notice.hidden = false;
      }
      if (['track-changed', 'playback-changed', 'queue-updated', 'vote-updated'].includes(event.type)) syncSoon();
    },
    onResync: async () => {
      try { await register(partyId, token); } catch { /* next report retries */ }
      syncSoon();
    },
    onEnded: partyEnded,
    onStatus: (connected) => {
      if (!connected) { notice.textContent = t('monitor.reconnecting'); notice.hidden = false; } else if (notice.textContent === t('monitor.reconnecting')) notice.hidden = true;
    },
  });

  // R23: about once a second, the position the TV really plays.
  const reporter = setInterval(() => {
    if (!player || !current?.track) return;
    api('POST', `${base}/track/progress`, {
      token, body: { position: player.positionMs(), duration: player.durationMs(), paused: player.isPaused() },
    }).catch((error) => { if (error.status === 404) partyEnded(); });
  }, 1000);

  await sync();
}

boot();
