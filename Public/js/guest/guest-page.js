import { api, partyPath } from '../api.js';
import { t } from '../i18n.js';
import { el, coverImage, toast, coverOf, replaceChildren, focusFirst } from '../dom.js';
import { connectEvents } from '../events.js';
import { NowPlaying } from '../playback-clock.js';
import { renderTracks, updateStartTimes } from '../track-list.js';
import { minutesUntil, StartClock } from '../start-times.js';
import { deviceId } from '../storage.js';
import { tabs } from '../tabs.js';
import { vetoIsOn } from '../veto.js';
import { showRecap } from '../recap.js';
import { ownPending } from '../own-pending.js';
import { nicknameForm } from '../nickname-form.js';
import { LiveQueue } from '../live-queue.js';
import { likeButton, vetoButton, removeButton, addButton, stateButton } from './guest-buttons.js';
import { AddLimits } from './add-limits.js';
import { SongSearch } from './song-search.js';
import { ownUndo } from './own-undo.js';
import { add, removeOwn, toggleLike, toggleVeto } from './guest-actions.js';

/** The events after which the guest's page reads the party again when it could not apply them. */
const RELOADING_EVENTS = ['queue-updated', 'vote-updated', 'veto-updated', 'entry-removed', 'track-changed', 'playback-changed', 'playback-stalled', 'device-changed'];

/** The guest's page model: the party as this phone shows it, how it is drawn, and how each live event changes it. */
export class GuestPage {
  constructor(root) {
    this.partyId = root.dataset.party;
    this.pin = root.dataset.pin;
    this.device = deviceId();
    this.base = partyPath(this.partyId);
    this.now = new NowPlaying();
    // R18a: the times count down while the song plays (the server's are from when the queue was read).
    this.times = new StartClock(this.now);
    this.live = new LiveQueue({
      reload: () => { this.loadQueue(); this.loadCurrent(); },
      reloadsOn: (type) => RELOADING_EVENTS.includes(type),
      delayMs: 80,
      beforeLike: (queue) => this.times.settle(queue),
    });
    this.queueList = document.getElementById('queue-list');
    tabs(document.querySelector('.tabs'));
    /** Likes the guest just toggled, shown before the server confirms (rolled back on error). */
    this.pendingLikes = new Map();
    /** R17a: vetoes the guest just toggled, shown before the server confirms. */
    this.pendingVetoes = new Map();
    /** R35: this guest's songs waiting for the host's approval, and their fate. */
    this.waitingSongs = ownPending();
    /** R36: the nickname field, while the party shows nicknames. */
    this.nickname = nicknameForm(this.base, this.device, () => this.loadQueue());
    /** Songs the server refused for the blacklist (R12), besides those the search marks `blocked`. */
    this.refused = new Set();
    /** Own songs whose removal the page told already (said once). */
    this.toldRemovals = new Set();
    // Every entry id this guest's own songs had (`mine`): a removal is told even when a newer queue, read before its
    // event arrived, no longer holds the song.
    this.ownEntries = new Set();
    this.limits = new AddLimits({ changed: () => this.search.render(), readBudget: () => this.loadQueue() });
    this.search = new SongSearch(this.base, root.dataset.provider, (list, tracks) => this.renderResultRows(list, tracks));
    this.undo = ownUndo((entry) => add(this, entry));
  }

  start() {
    this.events = connectEvents(this.partyId, {
      onEvent: (event) => this.apply(event),
      onResync: () => this.live.reloadSoon(),
      onEnded: () => this.ended(),
    });
    setInterval(() => {
      updateStartTimes(this.queueList, this.live.queue, this.times);
      this.renderMySongs(this.waiting());
    }, 5000);
    // R17a: this guest counts as active from the moment it opens the party.
    if (this.pin) {
      api('GET', `/api/party/join/${encodeURIComponent(this.pin)}?deviceId=${encodeURIComponent(this.device)}`)
        .catch((error) => console.warn('The guest could not be counted as active yet', error));
    }
    this.loadQueue();
    this.loadCurrent();
    this.loadSettings();
    this.search.run();
  }

  /** One live event: applied where it carries what the page shows; otherwise the page reads the party again. */
  apply(event) {
    if (event.type === 'entry-removed') this.tellRemoval(event.payload);
    // R35: only this guest's own waiting songs concern the page (an approved one arrives with `queue-updated`).
    if (event.type === 'pending-updated') {
      if (this.waitingSongs.apply(event.payload)) this.search.render();
      return;
    }
    // R36: the host turned nicknames on or off.
    if (event.type === 'queue-updated' && event.payload.reason === 'settings') this.loadSettings();
    if (!this.live.apply(event)) return;
    if (event.type === 'track-changed') {
      this.times.mark();
      this.showCurrent(this.live.current);
    }
    this.renderQueue();
  }

  async loadQueue() {
    try {
      const body = await api('GET', `${this.base}/track/queue?deviceId=${encodeURIComponent(this.device)}`);
      this.live.queue = body.queue;
      this.waitingSongs.update(body.pending);
      this.nickname.setKnown(body.nickname);
      this.times.mark();
      this.renderQueue();
      this.limits.applyBudget(body.budget);
    } catch (error) {
      this.readFailed('queue', error);
    }
  }

  async loadCurrent() {
    try {
      this.showCurrent(await api('GET', `${this.base}/track/current`));
    } catch (error) {
      this.readFailed('current song', error);
    }
  }

  loadSettings() {
    return api('GET', `${this.base}/settings`).then((settings) => this.nickname.setEnabled(Boolean(settings.nicknames)),
      (error) => console.error('settings', error));
  }

  /** A read refused with 404: the party is over. Anything else is an outage the connection banner shows. */
  readFailed(what, error) {
    if (error.status === 404) this.ended();
    else console.warn(`The ${what} could not be read`, error);
  }

  showCurrent(current) {
    const image = current.track ? coverOf(current.track) : null;
    this.now.update(current, image ? coverImage(image) : null);
    this.live.current = current;
    this.renderWaiting();
  }

  /** The waiting songs (the queue without the playing one). */
  waiting() {
    return this.live.queue.filter((entry) => !entry.isCurrentlyPlaying);
  }

  renderQueue() {
    this.renderWaiting();
    const waiting = this.waiting();
    renderTracks(this.queueList, waiting, {
      actions: (entry) => [
        likeButton(entry, this.likeShown(entry), (liked) => toggleLike(this, liked)),
        this.mayVeto(entry) ? vetoButton(entry, this.vetoShown(entry), (vetoed) => toggleVeto(this, vetoed)) : null,
        entry.mine ? removeButton(entry, (removed) => removeOwn(this, removed)) : null,
      ],
      showStart: true, startClock: this.times,
    });
    this.renderMySongs(waiting);
    this.renderNowVeto();
    document.getElementById('queue-empty').hidden = waiting.length > 0;
    document.getElementById('queue-count').textContent = String(waiting.length);
    this.search.render();
  }

  /** A like as the page shows it: the guest's own toggle until the server confirms it, else the server's. */
  likeShown(entry) {
    return this.pendingLikes.get(entry.uri) || { liked: entry.hasVoted, likeCount: entry.likeCount };
  }

  vetoShown(entry) {
    return this.pendingVetoes.get(entry.id) || { vetoed: entry.hasVetoed, vetoCount: entry.vetoCount };
  }

  mayVeto(entry) {
    return vetoIsOn(entry) && !entry.mine;
  }

  /** R16/R20a: songs wait and nothing plays: say whether for a TV or for the host's start. */
  renderWaiting() {
    const current = this.live.current;
    if (!current || current.track || !this.live.queue.length) return;
    this.now.artist.textContent = current.deviceActive ? t('now.waitingForHost') : t('now.waitingForTv');
  }

  /** R17a: the playing song's veto, under its progress (the queue list shows only the waiting songs). */
  renderNowVeto() {
    const nowVeto = document.getElementById('now-veto');
    const playing = this.live.queue.find((entry) => entry.isCurrentlyPlaying);
    const hadFocus = nowVeto.contains(document.activeElement);
    nowVeto.hidden = !playing || !this.mayVeto(playing);
    replaceChildren(nowVeto, ...(nowVeto.hidden ? [] : [vetoButton(playing, this.vetoShown(playing), (vetoed) => toggleVeto(this, vetoed), true)]));
    // The button is drawn anew (or gone with its song): focus stays on it, or moves to the song now playing.
    if (hadFocus) focusFirst(nowVeto.hidden ? '#now-title' : 'button', nowVeto.hidden ? document : nowVeto);
  }

  /** R18a: this guest's own waiting songs (the server marks them `mine`), with their place and time. */
  renderMySongs(waiting) {
    const mine = waiting.map((entry, index) => ({ entry, place: index + 1 })).filter(({ entry }) => entry.mine);
    mine.forEach(({ entry }) => this.ownEntries.add(String(entry.id)));
    document.getElementById('my-songs').hidden = mine.length === 0;
    replaceChildren(document.getElementById('my-songs-list'), ...mine.map(({ entry, place }) => el('li', {
      text: t('guest.mySongs.entry', { name: entry.name, place, minutes: minutesUntil(this.times.remaining(entry.startsInMs || 0)) }),
    })));
  }

  /** The search results with each song's state: waiting already (✓), for the host (…), blocked (⊘), or "+". */
  renderResultRows(list, tracks) {
    // An auto-filled song can be asked for: the server promotes it to a guest song (R9). Only guest songs show ✓.
    const waiting = this.waiting();
    const requested = new Set(waiting.filter((entry) => !entry.autofilled).map((entry) => entry.uri));
    const autofilled = new Set(waiting.filter((entry) => entry.autofilled).map((entry) => entry.uri));
    const waitingForHost = this.waitingSongs.uris();
    const held = this.limits.waiting();
    renderTracks(list, tracks.map((track) => ({ ...track, autofilled: autofilled.has(track.uri) })), {
      actions: (track) => {
        if (requested.has(track.uri)) return [stateButton(track, '✓', t('guest.queued'), t('guest.queued'))];
        if (waitingForHost.has(track.uri)) return [stateButton(track, '…', t('guest.pending.state'), t('guest.pending.added'))];
        if (track.blocked || this.refused.has(track.uri)) return [stateButton(track, '⊘', t('guest.blocked'), t('guest.blockedHint'))];
        return [addButton(track, track.autofilled ? t('guest.promote') : t('guest.add'), held, (added) => add(this, added))];
      },
    });
  }

  /** A song of this guest's left by the crowd's veto, the host or a ban: said once, in the page's language. */
  tellRemoval(payload) {
    const own = this.ownEntries.has(payload.entryId)
      || this.live.queue.some((entry) => String(entry.id) === payload.entryId && entry.mine);
    if (!own || this.toldRemovals.has(payload.entryId)) return;
    this.toldRemovals.add(payload.entryId);
    toast(t(payload.reason === 'crowd' ? 'guest.removed.crowd' : 'guest.removed.host', { name: payload.name }));
  }

  ended() {
    if (this.events) this.events.stop();
    this.limits.stop();
    document.getElementById('party-view').hidden = true;
    // The old PIN leads nowhere now: the header stops showing it.
    const pinBar = document.getElementById('bar-pin');
    if (pinBar) pinBar.remove();
    document.getElementById('ended').hidden = false;
    showRecap(this.partyId);
  }
}
