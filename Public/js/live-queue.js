import { applyVote } from './queue-order.js';
import { applyVeto } from './veto.js';
import { applyTrackChange, currentFromTrackChange } from './track-change.js';

/**
 * What a page holds of the party (its queue and the playing song, the bodies of GET …/track/queue and
 * …/track/current) and the one rule every page follows for a live event: apply it when it carries what the page
 * shows (a like's new order, a veto's count, a song change), and read the state again when it cannot be applied (the
 * page missed an event, the song is one it never saw, a stall only the server can judge) or carries nothing to
 * apply. Reads are gathered: a burst of events costs one read, `delayMs` after the last of them.
 */
export class LiveQueue {
  /**
   * `reload()` reads the state again. `reloadsOn(type)`: the events after which the page reads again when it did not
   * apply them. `songChanges`: the page applies `track-changed` itself (the TV reads instead: it plays what the server
   * says). `beforeLike(queue)` runs before a like's new order is applied (R18a: the guest's start times settle first).
   */
  constructor({ reload, reloadsOn, delayMs, songChanges = true, beforeLike = () => {} }) {
    this.queue = [];
    this.current = null;
    this.reload = reload;
    this.reloadsOn = reloadsOn;
    this.delayMs = delayMs;
    this.songChanges = songChanges;
    this.beforeLike = beforeLike;
    this.reloadTimer = null;
  }

  /** Applies `event`: true when it changed what the page holds (the page draws it again); else a read follows if due. */
  apply(event) {
    if (this.applied(event)) return true;
    if (this.reloadsOn(event.type) && !this.saysNothingNew(event)) this.reloadSoon();
    return false;
  }

  applied(event) {
    if (event.type === 'vote-updated') {
      this.beforeLike(this.queue);
      const reordered = applyVote(this.queue, event.payload);
      if (reordered) this.queue = reordered;
      return Boolean(reordered);
    }
    if (event.type === 'veto-updated') return applyVeto(this.queue, event.payload);
    if (event.type === 'track-changed' && this.songChanges) {
      const advanced = applyTrackChange(this.queue, event.payload);
      const shown = currentFromTrackChange(event, this.current);
      if (!advanced || !shown) return false;
      this.queue = advanced;
      this.current = shown;
      return true;
    }
    return false;
  }

  /** The `queue-updated` (advance) that follows a song change tells a page that applied the change nothing more. */
  saysNothingNew(event) {
    return this.songChanges && event.type === 'queue-updated' && event.payload.reason === 'advance';
  }

  reloadSoon() {
    clearTimeout(this.reloadTimer);
    this.reloadTimer = setTimeout(() => this.reload(), this.delayMs);
  }
}
