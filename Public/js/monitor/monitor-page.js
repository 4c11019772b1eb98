import { api, partyPath } from '../api.js';
import { t, tn } from '../i18n.js';
import { coverImage, coverOf, replaceChildren } from '../dom.js';
import { connectEvents } from '../events.js';
import { NowPlaying } from '../playback-clock.js';
import { renderTracks, updateStartTimes } from '../track-list.js';
import { StartClock } from '../start-times.js';
import { vetoSummary } from '../veto.js';
import { createPlayer } from '../players/index.js';
import { forget } from '../storage.js';
import { errorText } from '../error-text.js';
import { showRecap } from '../recap.js';
import { LiveQueue } from '../live-queue.js';
import { STORAGE_KEY, register, sleep } from './registration.js';

const stage = document.getElementById('stage');
const notice = document.getElementById('monitor-notice');
const overlay = document.getElementById('autoplay');
const entryIdOf = (current) => (current && current.track ? current.track.id : undefined);

/** The events after which the TV fetches its state again (those it cannot apply from their payload). */
const RELOADING_EVENTS = ['track-changed', 'playback-changed', 'playback-stalled', 'queue-updated', 'vote-updated', 'veto-updated', 'entry-removed'];

/** The TV's page model: the party's state as the TV shows and plays it, and how each event changes it. */
export class Monitor {
  constructor(partyId, token) {
    this.partyId = partyId;
    this.token = token;
    this.base = partyPath(partyId);
    this.now = new NowPlaying();
    // R18a: up-next times count down while the song plays.
    this.times = new StartClock(this.now);
    // The TV plays what the server says: a song change is read, never applied from its event.
    this.live = new LiveQueue({ reload: () => this.sync(), reloadsOn: (type) => RELOADING_EVENTS.includes(type), delayMs: 60, songChanges: false });
    this.endedEntry = null;
    this.loadedEntry = null;
    this.shownCover = null;
    // R20a: what the TV tells the server besides its position: autoplay refused, or a player that cannot play.
    this.blocked = false;
    this.playerError = null;
    this.player = null;
    this.waitingCount = 0;
    this.queueList = document.getElementById('queue-list');
    this.queueMore = document.getElementById('queue-more');
  }

  async start() {
    this.party = await api('GET', this.base);
    this.showJoin();
    setInterval(() => updateStartTimes(this.queueList, this.live.queue, this.times), 5000);
    this.player = await this.createPlayer();
    if (!document.getElementById('video').hidden) document.querySelector('.now-cover').hidden = true;
    document.getElementById('autoplay-start').addEventListener('click', () => this.startAfterGesture());
    addEventListener('resize', () => this.fitUpNext());
    this.events = connectEvents(this.partyId, {
      monitorToken: this.token,
      onEvent: (event) => this.apply(event),
      onResync: () => this.resync(),
      // Offline, the page's banner says why (connection.js), in type the room can read.
      onEnded: () => this.partyEnded(),
    });
    // R23: about once a second, the position the TV really plays; R20a: and whether it can play at all.
    this.reporter = setInterval(() => this.report(), 1000);
    // A TV tab that is hidden for the back/forward cache or closed says it leaves (deviceActive false at once,
    // the song stalls as no-monitor); one that comes back from the cache starts afresh.
    addEventListener('pagehide', () => this.leave());
    addEventListener('pageshow', (event) => { if (event.persisted) location.reload(); });
    await this.sync();
  }

  /** The party's QR code, address and PIN, for the room to join. */
  showJoin() {
    stage.hidden = false;
    document.getElementById('monitor-qr').src = `${this.base}/qr`;
    // Break the address after host:port if it must wrap, never inside "join".
    const joinAddress = new URL(this.party.joinUrl);
    replaceChildren(document.getElementById('monitor-url'), joinAddress.host, document.createElement('wbr'), joinAddress.pathname);
    document.getElementById('monitor-pin').textContent = this.party.pin;
  }

  /** The provider's player, or null with the reason on screen and in the next report (R20a). */
  createPlayer() {
    const unavailable = () => {
      notice.textContent = t('monitor.playerUnavailable');
      notice.hidden = false;
      this.playerError = t('monitor.playerUnavailable');
    };
    const elements = { audio: document.getElementById('player'), video: document.getElementById('video') };
    return createPlayer(this.party.provider, elements, {
      onEnded: () => this.advance(),
      onBlocked: () => {
        overlay.hidden = false;
        // The remote's OK presses the focused button.
        document.getElementById('autoplay-start').focus();
        this.blocked = true;
        this.report();
      },
      onUnavailable: () => { unavailable(); this.report(); },
      onError: () => {
        this.say(t('monitor.playbackFailed'));
        this.advance();
      },
    }, { base: this.base, token: this.token }).catch((error) => {
      console.error('The player could not start', error);
      unavailable();
      return null;
    });
  }

  async startAfterGesture() {
    overlay.hidden = true;
    if (this.player && await this.player.play()) {
      this.blocked = false;
      this.report();
      this.sync();
    }
  }

  /** A short line under the song for six seconds. */
  say(text) {
    notice.textContent = text;
    notice.hidden = false;
    clearTimeout(this.noticeTimer);
    this.noticeTimer = setTimeout(() => { notice.hidden = true; }, 6000);
  }

  /**
   * R20: the song end names the entry it finished, so the server ignores a late or repeated report, and it is
   * retried (1 s doubling to 3 s) until the server took it or the song changed otherwise: a Wi-Fi drop across a
   * song end never freezes the TV on its last second.
   */
  async advance() {
    const entryId = entryIdOf(this.live.current);
    if (!entryId || this.endedEntry === entryId) return;
    this.endedEntry = entryId;
    for (let delay = 1000; ; delay = Math.min(delay * 2, 3000)) {
      try {
        await api('POST', `${this.base}/track/next`, { token: this.token, body: { entryId } });
        break;
      } catch (error) {
        if (error.status === 404) return this.partyEnded();
        if (this.stopIfReplaced(error)) return;
        const worthRetrying = !error.status || error.status >= 500 || error.status === 409 || error.status === 429;
        if (!worthRetrying) break;
      }
      await sleep(delay);
      if (entryIdOf(this.live.current) !== entryId) break;
    }
    this.sync();
  }

  async sync() {
    let current;
    let queue;
    try {
      [current, { queue }] = await Promise.all([api('GET', `${this.base}/track/current`), api('GET', `${this.base}/track/queue`)]);
    } catch (error) {
      // Offline, the banner says so and the next event or resync reads again.
      if (error.status === 404) this.partyEnded();
      else console.warn('The TV could not read the party', error);
      return;
    }
    this.live.current = current;
    const image = current.track ? coverOf(current.track) : null;
    this.now.update(current, image === this.shownCover ? undefined : (image ? coverImage(image) : null));
    this.shownCover = image;
    // Nothing plays: the stage turns to the next guest, with the party's QR code large and how to add a song.
    stage.classList.toggle('is-idle', !current.track);
    document.getElementById('first-song').hidden = Boolean(current.track);
    this.times.mark();
    this.live.queue = queue;
    this.renderQueue();
    if (this.player) await this.play(current);
  }

  /** Brings the player to what the server says: this entry, at this position, playing or not. */
  async play(current) {
    const player = this.player;
    if (!current.track) { player.stop(); this.loadedEntry = null; return; }
    const position = this.now.positionMs();
    // R20a: a stalled song should play: the TV plays it from the frozen position unless its audio still runs
    // (then its own position is the truth and its next report un-stalls the party there).
    const state = current.state || (current.isPlaying ? 'playing' : 'paused');
    const shouldPlay = state === 'playing' || state === 'stalled';
    if (current.track.id !== this.loadedEntry) {
      this.loadedEntry = current.track.id;
      this.endedEntry = null;
      await player.load(current.track, position, shouldPlay);
    } else if (this.endedEntry === current.track.id) {
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

  renderQueue() {
    const queue = this.live.queue;
    const waiting = queue.filter((entry) => !entry.isCurrentlyPlaying);
    renderTracks(this.queueList, waiting.slice(0, 40), { showLikes: true, showStart: true, startClock: this.times, extra: vetoSummary });
    // R17a: "2 of 3 want to skip" under the playing song.
    const nowVeto = document.getElementById('now-veto');
    const skipNote = vetoSummary(queue.find((entry) => entry.isCurrentlyPlaying));
    nowVeto.textContent = skipNote;
    nowVeto.hidden = !skipNote;
    document.getElementById('queue-empty').hidden = waiting.length > 0;
    this.fitUpNext(waiting.length);
  }

  /** As many whole up-next rows as the screen holds (720p to 4K), and "+ N more" for the rest. */
  fitUpNext(count = this.waitingCount) {
    this.waitingCount = count;
    const queueList = this.queueList;
    const queueMore = this.queueMore;
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

  /** One live event: applied where it carries what the TV shows, otherwise the state is fetched again. */
  apply(event) {
    const payload = event.payload;
    // A web login gives the Spotify player its token: start it afresh (an iOS login leaves it alone).
    if (event.type === 'login-success' && payload.source === 'web' && this.party.provider === 'spotify') location.reload();
    if (event.type === 'playback-error') {
      notice.textContent = errorText(payload.code, payload.message);
      notice.hidden = false;
    }
    if (event.type === 'entry-removed' && payload.reason === 'crowd' && payload.wasPlaying === 'true') {
      this.say(t('monitor.crowdSkipped', { name: payload.name }));
    }
    // A like's or a veto's event carries the new order or count: applied here, without fetching the queue.
    if (this.live.apply(event)) this.renderQueue();
  }

  async resync() {
    try {
      await register(this.partyId, this.token);
    } catch (error) {
      // Replaced: this TV stops. Anything else: the next report tries again, and the banner shows an outage.
      if (this.stopIfReplaced(error)) return;
      console.warn('The TV could not register again yet', error);
    }
    this.live.reloadSoon();
  }

  /** R23 and R20a: the position the TV really plays, and whether it can play at all. */
  report() {
    const current = this.live.current;
    const player = this.player;
    // Idle too: the report is the TV's heartbeat, without it the server says "no TV" within 10 s.
    const body = !current || !current.track ? { position: 0, duration: 0, paused: true } : player
      ? { position: player.positionMs(), duration: player.durationMs(), paused: player.isPaused() || this.blocked, blocked: this.blocked }
      : { position: this.now.positionMs(), duration: current.track.duration_ms || 0, paused: true };
    if (this.playerError) body.error = this.playerError;
    api('POST', `${this.base}/track/progress`, { token: this.token, body }).catch((error) => {
      if (error.status === 404) this.partyEnded();
      else this.stopIfReplaced(error);
    });
  }

  /** The TV says the party is over (a screen for the room, not the start page). */
  partyEnded() {
    clearInterval(this.reporter);
    if (this.events) this.events.stop();
    if (this.player) this.player.stop();
    forget(STORAGE_KEY);
    stage.hidden = true;
    overlay.hidden = true;
    document.getElementById('ended').hidden = false;
    showRecap(this.partyId);
  }

  /** The host paired another TV; this one stops, says so, and never competes. */
  stopIfReplaced(error) {
    if (error.code !== 'monitor_replaced') return false;
    this.partyEnded();
    document.querySelector('#ended h1').textContent = t('monitor.replaced');
    return true;
  }

  leave() {
    clearInterval(this.reporter);
    this.events.stop();
    if (this.player) this.player.pause();
    // The page is going away: a failed goodbye only means the server notices the silence instead (R20a).
    api('DELETE', `${this.base}/device`, { token: this.token, keepalive: true }).catch((error) => console.warn('The TV could not say goodbye', error));
  }
}

