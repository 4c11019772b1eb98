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
