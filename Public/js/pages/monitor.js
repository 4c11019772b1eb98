import { api, partyPath } from '../api.js';
import { t, tn } from '../i18n.js';
import { coverImage, coverOf, replaceChildren } from '../dom.js';
import { connectEvents } from '../events.js';
import { NowPlaying } from '../playback-clock.js';
import { renderTracks, updateStartTimes } from '../track-list.js';
import { StartClock } from '../start-times.js';
import { vetoSummary, applyVeto } from '../veto.js';
import { applyVote } from '../queue-order.js';
import { createPlayer } from '../players/index.js';
import { load, save, forget, takeHashParameters } from '../storage.js';
import { pinForm } from '../pin-input.js';
import { ask } from '../dialog.js';
import { errorText } from '../error-text.js';
import { showRecap } from '../recap.js';

const STORAGE_KEY = 'musicvoting.monitor';
const pairSection = document.getElementById('pair');
const stage = document.getElementById('stage');
const notice = document.getElementById('monitor-notice');
const overlay = document.getElementById('autoplay');
const entryIdOf = (current) => (current && current.track ? current.track.id : undefined);
const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

function monitorDeviceId() {
  let id = load('musicvoting.monitorDevice');
  if (!id) {
    id = crypto.randomUUID ? crypto.randomUUID() : `tv-${Date.now().toString(36)}`;
    save('musicvoting.monitorDevice', id);
  }
  return id;
}

/** Registers this TV. With the host PIN while another TV is connected, the TV asks first (never silently). */
async function register(partyId, credential) {
  const put = (replace) => api('PUT', `${partyPath(partyId)}/device`, {
    token: credential, body: { deviceId: monitorDeviceId(), kind: 'monitor', replace },
  });
  let result;
  try {
    result = await put(false);
  } catch (error) {
    if (error.code !== 'monitor_connected') throw error;
    if (!await ask({ message: t('tv.replaceConfirm'), confirm: t('tv.replace'), cancel: t('dialog.cancel'), danger: true })) throw error;
    result = await put(true);
  }
  save(STORAGE_KEY, { partyId, token: result.monitorToken });
  return result.monitorToken;
}

/**
 * An unpaired TV shows a code and a QR code of the host page that claims it, and asks the server every
 * 1.5 s whether the host did; an expired code is replaced. The host PIN typed with the remote stays the fallback.
 */
async function showPairing() {
  stage.hidden = true;
  pairSection.hidden = false;
  let paired = false;
  const finish = async (partyId, credential) => {
    const token = await register(partyId, credential);
    paired = true;
    pairSection.hidden = true;
    run(partyId, token);
  };
  const pin = pinForm('pair', async (hostPin) => {
    const party = await api('GET', `/api/party/host-join/${hostPin}`);
    await finish(party.id, hostPin);
  }, t('host.wrongPin'));
  document.getElementById('pair-fallback').addEventListener('toggle', (event) => { if (event.target.open) pin.focus(); });

  const code = document.getElementById('pair-code');
  const qr = document.getElementById('pair-qr');
  const expiry = document.getElementById('pair-expiry');
  const say = (node, text) => { if (node.textContent !== text) node.textContent = text; };
  let pairing = null;
  while (!paired) {
    try {
      if (!pairing) {
        pairing = await api('POST', '/api/tv/pairing');
        say(code, `${pairing.code.slice(0, 3)} ${pairing.code.slice(3)}`);
        qr.src = pairing.qr;
        qr.hidden = false;
      }
      const status = await api('GET', '/api/tv/pairing', { token: pairing.secret });
      if (status.status === 'paired') await finish(status.partyId, status.monitorToken);
      else say(expiry, t('monitor.pair.expires', { minutes: Math.max(1, Math.ceil(status.expiresIn / 60)) }));
    } catch (error) {
      // Expired or already used: a fresh code. Too many opens: wait as told. Offline: the banner says so; keep asking.
      if ([401, 404].includes(error.status)) pairing = null;
      if (error.status === 429) await sleep((error.retryAfter || 10) * 1000);
    }
    if (!paired) await sleep(1500);
  }
}

async function boot() {
  const hash = takeHashParameters();
  const stored = load(STORAGE_KEY);
  try {
    if (hash.get('party') && hash.get('hostPin')) {
      const token = await register(hash.get('party'), hash.get('hostPin'));
      return run(hash.get('party'), token);
    }
    if (stored && stored.partyId && stored.token) {
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
  // Break the address after host:port if it must wrap, never inside "join".
  const joinAddress = new URL(party.joinUrl);
  replaceChildren(document.getElementById('monitor-url'), joinAddress.host, document.createElement('wbr'), joinAddress.pathname);
  document.getElementById('monitor-pin').textContent = party.pin;

  const now = new NowPlaying();
  // R18a: up-next times count down while the song plays.
  const times = new StartClock(now);
  let lastQueue = [];
  setInterval(() => updateStartTimes(queueList, lastQueue, times), 5000);
  // R17a: "2 of 3 want to skip" under the playing song.
  const nowVeto = document.getElementById('now-veto');
  const queueList = document.getElementById('queue-list');
  const queueEmpty = document.getElementById('queue-empty');
  let current = null;
  let endedEntry = null;
  let loadedEntry = null;
  let shownCover = null;
  // R20a: what the TV tells the server besides its position: autoplay refused, or a player that cannot play.
  let blocked = false;
  let playerError = null;

  const firstSong = document.getElementById('first-song');
  let noticeTimer;
  /** A short line under the song for six seconds. */
  function say(text) {
    notice.textContent = text;
    notice.hidden = false;
    clearTimeout(noticeTimer);
    noticeTimer = setTimeout(() => { notice.hidden = true; }, 6000);
  }

  const videoBox = document.getElementById('video');
  const player = await createPlayer(party.provider, { audio: document.getElementById('player'), video: videoBox }, {
    onEnded: () => advance(),
    onBlocked: () => {
      overlay.hidden = false;
      // The remote's OK presses the focused button.
      document.getElementById('autoplay-start').focus();
      blocked = true;
      report();
    },
    onUnavailable: () => {
      notice.textContent = t('monitor.playerUnavailable');
      notice.hidden = false;
      playerError = t('monitor.playerUnavailable');
      report();
    },
    onError: () => {
      say(t('monitor.playbackFailed'));
      advance();
    },
  }, { base, token }).catch(() => {
    notice.textContent = t('monitor.playerUnavailable');
    notice.hidden = false;
    playerError = t('monitor.playerUnavailable');
    return null;
  });
  if (!videoBox.hidden) document.querySelector('.now-cover').hidden = true;

  /**
   * R20: the song end names the entry it finished, so the server ignores a late or repeated report, and it is
   * retried (1 s doubling to 3 s) until the server took it or the song changed otherwise: a Wi-Fi drop across a
   * song end no longer freezes the TV on "0:29 / 0:29".
   */
  async function advance() {
    const entryId = entryIdOf(current);
    if (!entryId || endedEntry === entryId) return;
    endedEntry = entryId;
    for (let delay = 1000; ; delay = Math.min(delay * 2, 3000)) {
      try {
        await api('POST', `${base}/track/next`, { token, body: { entryId } });
        break;
      } catch (error) {
        if (error.status === 404) return partyEnded();
        if (stopIfReplaced(error)) return;
        const worthRetrying = !error.status || error.status >= 500 || error.status === 409 || error.status === 429;
        if (!worthRetrying) break;
      }
      await sleep(delay);
      if (entryIdOf(current) !== entryId) break;
    }
    sync();
  }

  document.getElementById('autoplay-start').addEventListener('click', async () => {
    overlay.hidden = true;
    if (player && await player.play()) {
      blocked = false;
      report();
      sync();
    }
  });

  async function sync() {
    let queue;
    try {
      [current, { queue }] = await Promise.all([api('GET', `${base}/track/current`), api('GET', `${base}/track/queue`)]);
    } catch (error) {
      if (error.status === 404) partyEnded();
      return;
    }
    const image = current.track ? coverOf(current.track) : null;
    now.update(current, image === shownCover ? undefined : (image ? coverImage(image) : null));
    shownCover = image;
    // Nothing plays: the stage turns to the next guest, with the party's QR code large and how to add a song.
    stage.classList.toggle('is-idle', !current.track);
    firstSong.hidden = Boolean(current.track);
    times.mark();
    renderQueue(queue);
    if (!player) return;
    if (!current.track) { player.stop(); loadedEntry = null; return; }
    const position = now.positionMs();
    // R20a: a stalled song should play: the TV plays it from the frozen position unless its audio still runs
    // (then its own position is the truth and its next report un-stalls the party there).
    const state = current.state || (current.isPlaying ? 'playing' : 'paused');
    const shouldPlay = state === 'playing' || state === 'stalled';
    if (current.track.id !== loadedEntry) {
      loadedEntry = current.track.id;
      endedEntry = null;
      await player.load(current.track, position, shouldPlay);
    } else if (endedEntry === current.track.id) {
      // This song ended here and its end is being reported: never play its last second again.
    } else if (shouldPlay) {
      if (state === 'playing' && Math.abs(player.positionMs() - position) > 2000) player.seek(position);
      if (player.isPaused()) {
        if (state === 'stalled') player.seek(position);
        await player.play();
      }
    } else {
      player.pause();
      if (Math.abs(player.positionMs() - position) > 1000) player.seek(position);
    }
  }

  function renderQueue(queue) {
    lastQueue = queue;
    const waiting = queue.filter((entry) => !entry.isCurrentlyPlaying);
    renderTracks(queueList, waiting.slice(0, 40), { showLikes: true, showStart: true, startClock: times, extra: vetoSummary });
    const skipNote = vetoSummary(queue.find((entry) => entry.isCurrentlyPlaying));
    nowVeto.textContent = skipNote;
    nowVeto.hidden = !skipNote;
    queueEmpty.hidden = waiting.length > 0;
    fitUpNext(waiting.length);
  }

  /** As many whole up-next rows as the screen holds (720p to 4K), and "+ N more" for the rest. */
  const queueMore = document.getElementById('queue-more');
  let waitingCount = 0;
  function fitUpNext(count = waitingCount) {
    waitingCount = count;
    const rows = [...queueList.children];
    for (const row of rows) row.hidden = false;
    queueMore.textContent = tn('monitor.more', count);
    queueMore.hidden = false;
    const reserve = queueMore.getBoundingClientRect().height + parseFloat(getComputedStyle(queueMore).marginTop);
    queueMore.hidden = true;
    const bottom = queueList.parentElement.getBoundingClientRect().bottom;
    let shown = rows.length;
    while (shown > 0 && rows[shown - 1].getBoundingClientRect().bottom > bottom - (count > shown ? reserve : 0)) {
      shown -= 1;
      rows[shown].hidden = true;
    }
    if (count > shown) {
      queueMore.textContent = tn('monitor.more', count - shown);
      queueMore.hidden = false;
    }
  }
  addEventListener('resize', () => fitUpNext());

  let syncTimer;
  const syncSoon = () => { clearTimeout(syncTimer); syncTimer = setTimeout(sync, 60); };

  /** The TV says the party is over (a screen for the room, not the start page). */
  function partyEnded() {
    clearInterval(reporter);
    events.stop();
    if (player) player.stop();
    forget(STORAGE_KEY);
    stage.hidden = true;
    overlay.hidden = true;
    document.getElementById('ended').hidden = false;
    showRecap(partyId);
  }

  /** The host paired another TV; this one stops, says so, and never competes. */
  function replaced() {
    partyEnded();
    document.querySelector('#ended h1').textContent = t('monitor.replaced');
  }
  const stopIfReplaced = (error) => { if (error.code === 'monitor_replaced') replaced(); return error.code === 'monitor_replaced'; };

  const events = connectEvents(partyId, {
    monitorToken: token,
    onEvent: (event) => {
      // A web login gives the Spotify player its token: start it afresh (an iOS login leaves it alone).
      if (event.type === 'login-success' && event.payload.source === 'web' && party.provider === 'spotify') location.reload();
      if (event.type === 'playback-error') {
        notice.textContent = errorText(event.payload.code, event.payload.message);
        notice.hidden = false;
      }
      if (event.type === 'entry-removed' && event.payload.reason === 'crowd' && event.payload.wasPlaying === 'true') {
        say(t('monitor.crowdSkipped', { name: event.payload.name }));
      }
      // A like's event carries the new order: applied here, without fetching the queue (a missed one reloads).
      if (event.type === 'vote-updated') {
        const reordered = applyVote(lastQueue, event.payload);
        if (reordered) { renderQueue(reordered); return; }
      }
      if (event.type === 'veto-updated' && applyVeto(lastQueue, event.payload)) { renderQueue(lastQueue); return; }
      if (['track-changed', 'playback-changed', 'playback-stalled', 'queue-updated', 'vote-updated', 'veto-updated', 'entry-removed'].includes(event.type)) syncSoon();
    },
    onResync: async () => {
      try { await register(partyId, token); } catch (error) { if (stopIfReplaced(error)) return; /* else the next report retries */ }
      syncSoon();
    },
    // Offline, the page's banner says why (connection.js), in type the room can read.
    onEnded: partyEnded,
  });

  // R23: about once a second, the position the TV really plays; R20a: and whether it can play at all.
  function report() {
    // Idle too: the report is the TV's heartbeat, without it the server says "no TV" within 10 s.
    const body = !current || !current.track ? { position: 0, duration: 0, paused: true } : player
      ? { position: player.positionMs(), duration: player.durationMs(), paused: player.isPaused() || blocked, blocked }
      : { position: now.positionMs(), duration: current.track.duration_ms || 0, paused: true };
    if (playerError) body.error = playerError;
    api('POST', `${base}/track/progress`, { token, body }).catch((error) => { if (error.status === 404) partyEnded(); else stopIfReplaced(error); });
  }
  const reporter = setInterval(report, 1000);

  // A TV tab that is hidden for the back/forward cache or closed says it leaves (deviceActive false at once,
  // the song stalls as no-monitor); one that comes back from the cache starts afresh.
  addEventListener('pagehide', () => {
    clearInterval(reporter);
    events.stop();
    if (player) player.pause();
    api('DELETE', `${base}/device`, { token, keepalive: true }).catch(() => {});
  });
  addEventListener('pageshow', (event) => { if (event.persisted) location.reload(); });

  await sync();
}

boot();
