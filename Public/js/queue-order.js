import { retime, firstStart } from './start-times.js';

/**
 * A like's `vote-updated` event carries the entry's new count and the new order of the waiting entries
 * (R9, decided by the server), so a page applies it instead of fetching the queue after every like. Returns the
 * queue in its new order, or null when the event does not match what the page holds (it missed something) and
 * the page must reload.
 */
export function applyVote(queue, payload) {
  const order = (payload.order || '').split(',').filter(Boolean);
  const waiting = queue.filter((entry) => !entry.isCurrentlyPlaying);
  const byId = new Map(waiting.map((entry) => [String(entry.id), entry]));
  if (!payload.entryId || order.length !== waiting.length || order.some((id) => !byId.has(id))) return null;
  const target = byId.get(payload.entryId);
  if (!target) return null;
  target.likeCount = Number(payload.likeCount);
  // R18a: the new order has new start times, counted from where the first waiting song started.
  return retime([...queue.filter((entry) => entry.isCurrentlyPlaying), ...order.map((id) => byId.get(id))], firstStart(queue));
}
