/**
 * R18a: queue entries carry `startsInMs` from the server. When a page applies an event itself (a like reorders,
 * a song change moves the next one up), it counts the times again from the durations in the new order, starting
 * where the first waiting song started (`baseMs`), so the screen shows the new times at once.
 */
export function retime(queue, baseMs) {
  // In place: pages hold on to the entry objects (a like in flight updates the one it was given).
  let elapsed = baseMs;
  for (const entry of queue) {
    if (entry.isCurrentlyPlaying) {
      entry.startsInMs = 0;
    } else {
      entry.startsInMs = elapsed;
      elapsed += entry.duration_ms || 0;
    }
  }
  return queue;
}

/** Where the first waiting song starts, by the times the page holds (0 when it has none). */
export function firstStart(queue) {
  const times = queue.filter((entry) => !entry.isCurrentlyPlaying && typeof entry.startsInMs === 'number').map((entry) => entry.startsInMs);
  return times.length ? Math.min(...times) : 0;
}

/** "in ~N min": whole minutes, at least 1 (a song a few seconds away is "in ~1 min", not "in ~0 min"). */
export function minutesUntil(ms) {
  return Math.max(1, Math.round(ms / 60000));
}

/**
 * R18a: the server's times are from the moment it answered; while the current song plays they count down. The
 * page marks when it took its times (`mark`); `remaining` takes off how long the song has played since, measured
 * on this device's clock only while the now-playing block says it plays (paused or stalled, nothing moves).
 */
export class StartClock {
  constructor(nowPlaying) {
    this.nowPlaying = nowPlaying;
    this.mark();
    // Sampled often enough that a pause costs at most a second of error.
    setInterval(() => this.elapsedMs(), 1000);
  }

  /** The page holds fresh times from the server (or retimed from an event). */
  mark() {
    this.played = 0;
    this.sampledAt = Date.now();
  }

  elapsedMs() {
    const at = Date.now();
    if (this.nowPlaying.state && this.nowPlaying.state.isPlaying) this.played += at - this.sampledAt;
    this.sampledAt = at;
    return this.played;
  }

  /** Before the page retimes from what it holds: the time played so far goes into the entries, then a fresh mark. */
  settle(queue) {
    for (const entry of queue) if (!entry.isCurrentlyPlaying && typeof entry.startsInMs === 'number') entry.startsInMs = this.remaining(entry.startsInMs);
    this.mark();
  }

  remaining(startsInMs) {
    return Math.max(0, startsInMs - this.elapsedMs());
  }
}
