import { api, partyPath } from '../api.js';
import { t } from '../i18n.js';
import { el, coverImage, toast, coverOf, warnOnFailure } from '../dom.js';
import { connectEvents } from '../events.js';
import { NowPlaying } from '../playback-clock.js';
import { renderTracks } from '../track-list.js';
import { vetoSummary } from '../veto.js';
import { banControls } from '../ban.js';
import { hostSearch } from '../host-search.js';
import { undoableRemovals } from '../undo-removals.js';
import { LiveQueue } from '../live-queue.js';
import { showCohostGone } from '../cohosts.js';
import { asCohost, ended } from './host-session.js';
import { PlaybackControls } from './playback-controls.js';
import { setUpHostCards, showParty, hostEvent } from './host-cards.js';

/**
 * The host's page model (the co-host's too, R34): the party as the host controls it, how it is drawn, and how each
 * live event changes it. `party` is the party's answer for the host; `credential` the host token (or co-host link).
 */
export class HostPage {
  constructor(partyId, party, credential) {
    this.party = party;
    this.partyId = partyId;
    this.credential = credential;
    this.base = partyPath(partyId);
    this.now = new NowPlaying();
    this.queueList = document.getElementById('queue-list');
    this.live = new LiveQueue({
      reload: () => {
        this.loadCurrent().catch(warnOnFailure('Reading the current song'));
        this.loadQueue().catch(warnOnFailure('Reading the queue'));
      },
      // Every event the page neither applied nor handled otherwise; the position's ticks change nothing here.
      reloadsOn: (type) => type !== 'progress',
      delayMs: 60,
    });
    this.live.current = { isPlaying: false, deviceActive: false };
    this.shownCover = null;
    /** The row whose actions are open (one at a time; survives live re-renders). */
    this.openRow = null;
  }

  /** Shows the party, wires the controls and the live events, and reads everything the page shows. */
  async start(pendingTvCode) {
    showParty(this.base, this.party, this.credential, pendingTvCode);
    this.controls = new PlaybackControls({ current: () => this.live.current, command: (method, path) => this.command(method, path) });
    this.search = hostSearch(this.base, this.party.provider, () => this.live.queue, () => this.loadQueue(), this.credential);
    // R30: the row menu's ban and the card's "lift all"; the page never learns who it was.
    this.ban = banControls({
      base: this.base, hostPin: this.credential, lift: document.getElementById('lift-bans'),
      done: () => { this.openRow = null; this.loadQueue().catch(warnOnFailure('Reading the queue after a ban')); },
    });
    this.removals = undoableRemovals({
      list: this.queueList,
      heading: document.getElementById('queue-heading'),
      shown: () => this.live.queue,
      render: () => this.renderQueue(),
      remove: (uri) => this.command('DELETE', '/track/remove', { uri }),
      removeOnLeave: (uri) => api('DELETE', `${this.base}/track/remove`, { token: this.credential, body: { uri }, keepalive: true })
        .catch(warnOnFailure('Removing a song as the page closes')),
    });
    this.cards = setUpHostCards(this);
    this.events = connectEvents(this.partyId, {
      hostPin: this.credential,
      onEvent: (event) => this.apply(event),
      onResync: () => { this.live.reloadSoon(); this.cards.pending.loadSoon(); },
      onEnded: () => ended(this.partyId),
    });
    await Promise.all([this.loadCurrent(), this.loadQueue(), this.cards.load()]);
  }

  /** One live event: applied where it carries what the page shows; otherwise the page reads the party again. */
  apply(event) {
    if (hostEvent(this, event)) return;
    if (event.type === 'playback-error') {
      this.controls.playerError(event.payload);
      this.live.reloadSoon();
    } else if (event.type === 'device-changed') {
      this.live.current.deviceActive = event.payload.deviceActive === 'true';
      this.controls.render();
      this.renderQueue(); // "play now" in the row menus follows the TV
    } else if (this.live.apply(event)) {
      if (event.type === 'track-changed') this.showCurrent(this.live.current);
      this.renderQueue();
      // A like or a song change moves rows; the search's ✓ follows the queue.
      if (event.type !== 'veto-updated') this.search.render();
    }
  }

  async loadCurrent() {
    this.showCurrent(await api('GET', `${this.base}/track/current`));
  }

  showCurrent(current) {
    this.live.current = current;
    const image = current.track ? coverOf(current.track) : null;
    this.now.update(current, image === this.shownCover ? undefined : (image ? coverImage(image) : null));
    this.shownCover = image;
    this.controls.render();
  }

  async loadQueue() {
    this.live.queue = (await api('GET', `${this.base}/track/queue`)).queue;
    this.renderQueue();
    this.search.render();
  }

  renderQueue() {
    const shown = this.live.queue.filter((entry) => !this.removals.pending(entry.uri));
    this.renderNowVeto();
    renderTracks(this.queueList, shown, {
      showLikes: true, showCurrent: true, extra: vetoSummary, actions: (entry) => this.rowActions(entry),
    });
    document.getElementById('queue-empty').hidden = shown.length > 0;
  }

  /** R17a: the playing song's vetoes, under its progress. */
  renderNowVeto() {
    const nowVeto = document.getElementById('now-veto');
    const note = vetoSummary(this.live.queue.find((entry) => entry.isCurrentlyPlaying));
    nowVeto.textContent = note;
    nowVeto.hidden = !note;
  }

  /** A row's "⋯" and the menu it opens: play now, remove (with an undo), ban whoever added it. */
  rowActions(entry) {
    const open = this.openRow === entry.uri;
    const menuId = `actions-${entry.id}`;
    const deviceActive = this.live.current.deviceActive;
    const toggle = el('button', {
      type: 'button', className: 'icon-button menu-button', 'data-action': 'menu', 'aria-expanded': String(open), 'aria-controls': menuId,
      'aria-label': `${t('host.rowActions')}: ${entry.name}`, text: '⋯',
      onclick: () => { this.openRow = open ? null : entry.uri; this.renderQueue(); },
    });
    const menu = el('div', { className: 'row-actions', id: menuId, hidden: !open }, [
      entry.isCurrentlyPlaying ? null : el('button', {
        type: 'button', className: 'button small play-now-button', 'data-action': 'play-now', text: t('host.playNow'),
        'aria-disabled': deviceActive ? null : 'true',
        onclick: () => (this.live.current.deviceActive ? this.command('PUT', '/track/play', { uri: entry.uri }) : toast(t('host.noDevice'))),
      }),
      el('button', {
        type: 'button', className: 'button small remove-button', 'data-action': 'remove', text: t('host.remove'),
        onclick: (event) => { this.openRow = null; this.removals.add(entry, { byKeyboard: event.detail === 0 }); },
      }),
      // R30: bans whoever added it without the host learning who; auto-filled songs have nobody to ban, and the
      // playing song finishes (a ban takes the waiting ones), so the ban is offered on waiting songs only.
      entry.autofilled || entry.isCurrentlyPlaying ? null : el('button', {
        type: 'button', className: 'button small danger ban-button', 'data-action': 'ban', text: t('host.ban'),
        onclick: () => this.ban(entry),
      }),
    ]);
    return [toggle, menu];
  }

  /** A host command, then the fresh state: its answer (true when it has none); false (and why) when refused. */
  async command(method, path, body) {
    try {
      const answer = await api(method, `${this.base}${path}`, { token: this.credential, body });
      await Promise.all([this.loadCurrent(), this.loadQueue()]);
      return answer == null ? true : answer;
    } catch (error) {
      if (asCohost && error.code === 'cohost_revoked') {
        this.events.stop();
        showCohostGone('revoked');
        return false;
      }
      toast(error.message);
      if (error.status === 404) ended(this.partyId);
      return false;
    }
  }
}
