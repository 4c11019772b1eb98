import { retime } from './start-times.js';
/**
 * `track-changed` carries the new current entry (id, name, artist, length, cover, position), so a page
 * shows the next song without fetching the queue and the current track. The `queue-updated` with reason
 * `advance` that follows it says nothing more: pages that apply this may ignore it.
 */

/**
 * The body of GET …/track/current the event describes; `previous` supplies what the event does not change. Null
 * when the page showed a stall (R20a): whether it still holds for the new song only the server knows, so the page
 * reloads.
 */
export function currentFromTrackChange(event, previous) {
  if (!previous || previous.state === 'stalled') return null;
  const payload = event.payload;
  const isPlaying = payload.isPlaying === 'true';
  const current = {
    isPlaying,
    state: payload.entryId ? (isPlaying ? 'playing' : 'paused') : 'idle',
    stallReason: null,
    progressMs: Number(payload.progressMs) || 0,
    serverTime: event.timestamp,
    deviceActive: previous && previous.deviceActive != null ? previous.deviceActive : true,
  };
  if (payload.playbackStartedAt) current.playbackStartedAt = Number(payload.playbackStartedAt);
  if (payload.entryId) {
    current.track = {
      id: payload.uri.split(':').pop(),
      uri: payload.uri,
      name: payload.name,
      artists: [{ name: payload.artist }],
      album: { images: payload.imageUrl ? [{ url: payload.imageUrl }] : [] },
      duration_ms: Number(payload.durationMs) || 0,
    };
  }
  return current;
}

/**
 * The queue after the change: the song that played leaves, the new one moves to the top as playing, the rest keep
 * their order (R9 does not change when one entry leaves). Null when the event does not match what the page holds
 * (a song the page never saw, such as a refill): the page reloads.
 */
export function applyTrackChange(queue, payload) {
  const id = payload.entryId;
  const waiting = queue.filter((entry) => !entry.isCurrentlyPlaying || String(entry.id) === id);
  if (!id) return waiting.length ? null : [];
  const next = waiting.find((entry) => String(entry.id) === id);
  if (!next) return null;
  // R18a: the new song just began, so the next one starts after its whole duration.
  return retime([{ ...next, isCurrentlyPlaying: true }, ...waiting.filter((entry) => entry !== next)], next.duration_ms || 0);
}
