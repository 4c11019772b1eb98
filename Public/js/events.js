import { api, partyPath } from './api.js';
import { streamStatus } from './connection.js';

/**
 * The party's live events. Reconnects with backoff (1 s doubling to 4 s, plus up to ½ s so a restarted server
 * is not hit by every phone at once: a TV back on the network resumes within seconds) and calls `onResync` after
 * every reconnect so the page reloads the state it may have missed. A party that is gone calls `onEnded`.
 */
export function connectEvents(partyId, { monitorToken, hostPin, onEvent, onResync, onEnded, onStatus }) {
  let source;
  let delay = 1000;
  let timer;
  let stopped = false;
  let connectedOnce = false;

  const open = () => {
    const query = new URLSearchParams({ partyId, source: 'web' });
    if (monitorToken) query.set('monitorToken', monitorToken);
    // The host's stream proves the PIN, so a flood of guest streams never takes its place (issue 23).
    if (hostPin) query.set('hostPin', hostPin);
    source = new EventSource(`/api/spotify/events?${query}`);
    source.onopen = () => {
      delay = 1000;
      streamStatus(true);
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
      streamStatus(false);
      onStatus?.(false);
      try {
        await api('GET', partyPath(partyId));
      } catch (error) {
        if (error.status === 404) { stop(); onEnded?.(); return; }
      }
      timer = setTimeout(open, delay + Math.random() * 500);
      delay = Math.min(delay * 2, 4000);
    };
  };

  const stop = () => {
    stopped = true;
    streamStatus(true);
    clearTimeout(timer);
    source?.close();
  };

  // Back on the network: a stream that looked open may have missed events, so open a fresh one (its
  // `onopen` resyncs the page).
  addEventListener('online', () => {
    if (stopped) return;
    source?.close();
    clearTimeout(timer);
    delay = 1000;
    open();
  });

  open();
  return { stop };
}
