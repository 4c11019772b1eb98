import { api, partyPath } from './api.js';

/**
 * The party's live events. Reconnects with backoff (1 s doubling to 15 s) and calls `onResync` after
 * every reconnect so the page reloads the state it may have missed. A party that is gone calls `onEnded`.
 */
export function connectEvents(partyId, { monitorToken, onEvent, onResync, onEnded, onStatus }) {
  let source;
  let delay = 1000;
  let timer;
  let stopped = false;
  let connectedOnce = false;

  const open = () => {
    const query = new URLSearchParams({ partyId, source: 'web' });
    if (monitorToken) query.set('monitorToken', monitorToken);
    source = new EventSource(`/api/spotify/events?${query}`);
    source.onopen = () => {
      delay = 1000;
      onStatus?.(true);
      if (connectedOnce) onResync?.();
      connectedOnce = true;
    };
    source.onmessage = (message) => {
      let event;
      try { event = JSON.parse(message.data); } catch { return; }
      if (event.type === 'party-ended') {
        stop();
        onEnded?.();
        return;
      }
      onEvent?.(event);
    };
    source.onerror = async () => {
      source.close();
      if (stopped) return;
      onStatus?.(false);
      try {
        await api('GET', partyPath(partyId));
      } catch (error) {
        if (error.status === 404) { stop(); onEnded?.(); return; }
      }
      timer = setTimeout(open, delay);
      delay = Math.min(delay * 2, 15000);
    };
  };

  const stop = () => {
    stopped = true;
    clearTimeout(timer);
    source?.close();
  };

  open();
  return { stop };
}
