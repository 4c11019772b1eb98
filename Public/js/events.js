import { call } from './dom.js';
import { api, partyPath } from './api.js';
import { streamStatus, streamLimited, onRequestTimeout } from './connection.js';

/**
 * The server writes a keepalive comment (`: ping`) every `keepaliveMs`, which each stream announces in its first
 * bytes (`: keepalive-ms 4000`, from EventHub.keepaliveInterval). Two keepalives and half a second without a byte:
 * the connection is dead, though nothing said so (a network switch). Until a stream has said, it is opening, and
 * `OPEN_TIMEOUT_MS` applies.
 */
const silenceLimit = (keepaliveMs) => 2 * keepaliveMs + 500;
/** The server answers a new stream with its retry hint at once; a stream silent this long sits on a dead connection. */
const OPEN_TIMEOUT_MS = 5000;
/**
 * After a silent death the browser's idle keep-alive connections to the server are dead too, and it would hand them
 * to the next requests (each then hangs until its timeout). This many cheap requests, sent at once, take them all
 * (a browser holds at most six per server over HTTP/1.1); those on a dead connection are aborted, which closes it.
 */
const PROBES = 6;
const PROBE_TIMEOUT_MS = 2000;
/** Reopening waits 1 s doubling to 6 s, each wait drawn from its upper half so phones do not all come back at once. */
const FIRST_RETRY_MS = 1000;
const LAST_RETRY_MS = 6000;
/**
 * A stream the server refuses for its limits (429: the party's or the network's streams are taken) is no outage:
 * the page reloads its state this often over plain requests, says so, and asks for a stream again now and then.
 */
const POLL_MS = 5000;
const REFUSED_RETRY_MS = 20000;

/**
 * The party's live events over fetch, not EventSource: EventSource hides the keepalive comments from JavaScript,
 * so a stream that died silently would look open for good. Every byte counts as a sign of life; a stream silent
 * past two keepalive intervals (or `OPEN_TIMEOUT_MS` while it opens) is dropped and reopened with backoff. `onResync`
 * follows every reopen so the page reloads the state it may have missed; a party that is gone calls `onEnded`.
 */
export function connectEvents(partyId, { monitorToken, hostPin, onEvent, onResync, onEnded, onStatus }) {
  const query = new URLSearchParams({ partyId, source: 'web' });
  if (monitorToken) query.set('monitorToken', monitorToken);
  // The host's stream proves the PIN, so a flood of guest streams never takes its place.
  if (hostPin) query.set('hostPin', hostPin);
  const url = `/api/spotify/events?${query}`;

  let attempt = null;
  let failures = 0;
  let retryTimer;
  let stopped = false;
  let connectedOnce = false;
  /** Until the first stream announces it; only used once a stream is live, and so has announced it. */
  let keepaliveMs = OPEN_TIMEOUT_MS;
  /** When a draining server said to come back (a `retry:` of its own before it ends the stream), in ms. */
  let comeBackMs = null;

  /** One try at a stream: how to abort it, when it last heard a byte, and whether it got any. */
  async function open() {
    clearTimeout(retryTimer);
    comeBackMs = null;
    if (attempt) attempt.abort();
    const ours = { abort: () => {}, lastByteAt: Date.now(), live: false, reason: 'unreachable' };
    attempt = ours;
    let pending = '';
    const status = await readStream(url, ours, (text) => {
      if (attempt !== ours) return;
      ours.lastByteAt = Date.now();
      if (!ours.live) connected(ours);
      pending = dispatch(pending + text);
    });
    if (status === 429) ours.reason = 'refused';
    if (attempt === ours && !stopped) failed(ours.reason);
  }

  function connected(ours) {
    ours.live = true;
    failures = 0;
    clearInterval(pollTimer);
    pollTimer = null;
    streamLimited(false);
    streamStatus(true);
    call(onStatus, null, true);
    if (connectedOnce) call(onResync);
    connectedOnce = true;
  }

  /** Hands every complete message (up to a blank line) to the page; returns the incomplete rest. */
  function dispatch(text) {
    const messages = text.split(/\r?\n\r?\n/);
    const rest = messages.pop();
    for (const message of messages) {
      // SPEC: one `data:` line of JSON per message; comments (`: ping`), `id:` and `retry:` lines carry nothing for
      // us, except the interval a stream announces first.
      const announced = /^: ?keepalive-ms (\d+)$/m.exec(message);
      if (announced) keepaliveMs = Math.max(1000, Number(announced[1]));
      // A server going away names when to come back, drawn for each page so a party's phones return spread out.
      const comeBack = !announced && /^retry: ?(\d+)$/m.exec(message);
      if (comeBack) comeBackMs = Math.min(Number(comeBack[1]), LAST_RETRY_MS * 2);
      const data = message.split(/\r?\n/).filter((line) => line.startsWith('data:')).map((line) => line.slice(5).replace(/^ /, '')).join('\n');
      if (!data || stopped) continue;
      let event;
      try { event = JSON.parse(data); } catch { continue; }
      if (event.type === 'party-ended') {
        stop();
        call(onEnded);
        return '';
      }
      call(onEvent, null, event);
    }
    return rest;
  }

  let pollTimer = null;
  /** Refused for the limits: the page stays usable over plain requests and reloads its state every `POLL_MS`. */
  function refused() {
    attempt = null;
    streamStatus(true);
    streamLimited(true);
    if (!pollTimer) {
      call(onResync);
      pollTimer = setInterval(() => call(onResync), POLL_MS);
    }
    retryTimer = setTimeout(open, REFUSED_RETRY_MS * (0.75 + Math.random() / 2));
  }

  function failed(reason) {
    if (reason === 'refused') return refused();
    attempt = null;
    streamStatus(false, reason);
    call(onStatus, null, false);
    if (comeBackMs !== null) {
      retryTimer = setTimeout(open, comeBackMs);
      return;
    }
    const ceiling = Math.min(FIRST_RETRY_MS * 2 ** failures, LAST_RETRY_MS);
    failures += 1;
    retryTimer = setTimeout(open, ceiling * (0.5 + Math.random() / 2));
    // A party that ended meanwhile answers 404: stop instead of reopening.
    api('GET', partyPath(partyId)).catch((error) => {
      if (error.status === 404 && !stopped) { stop(); call(onEnded); }
    });
  }

  /** Drops the stream now if it has been silent longer than `limit` ms (counted from its open while it opens). */
  function dropIfSilent(limit) {
    if (!attempt || stopped) return;
    if (Date.now() - attempt.lastByteAt <= (attempt.live ? limit : Math.min(limit, OPEN_TIMEOUT_MS))) return;
    attempt.reason = 'timeout';
    attempt.abort();
    flushDeadConnections();
  }

  let flushedAt = 0;
  /** Sends `PROBES` requests before the stream reopens, so it and the resync get live connections (see `PROBES`). */
  function flushDeadConnections() {
    if (Date.now() - flushedAt < silenceLimit(keepaliveMs)) return;
    flushedAt = Date.now();
    for (let count = 0; count < PROBES; count += 1) probe(PROBE_TIMEOUT_MS);
  }

  const watchdog = setInterval(() => dropIfSilent(silenceLimit(keepaliveMs)), 250);
  // A request that got no answer while the stream has missed a keepalive: the network probably switched; do not
  // wait for the second keepalive.
  onRequestTimeout(() => {
    flushDeadConnections();
    dropIfSilent(keepaliveMs + 1000);
  });
  // Timers sleep in a hidden tab (a phone's locked screen): check at once when it shows again.
  document.addEventListener('visibilitychange', () => { if (document.visibilityState === 'visible') dropIfSilent(silenceLimit(keepaliveMs)); });

  // Back on the network: a stream that looked open may have missed events, so open a fresh one (it resyncs the page).
  addEventListener('online', () => {
    if (stopped) return;
    failures = 0;
    open();
  });

  function stop() {
    stopped = true;
    clearInterval(watchdog);
    clearInterval(pollTimer);
    streamLimited(false);
    clearTimeout(retryTimer);
    if (attempt) attempt.abort();
    attempt = null;
    streamStatus(true);
  }

  open();
  return { stop };
}

/** One cheap request on a connection of its own, never answered from a cache, given up after `timeoutMs`. */
function probe(timeoutMs) {
  if (typeof AbortController === 'function') {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    fetch('/healthz', { cache: 'no-store', signal: controller.signal }).then((response) => response.arrayBuffer())
      .catch(() => {}).then(() => clearTimeout(timer));
    return;
  }
  const request = new XMLHttpRequest();
  request.open('GET', `/healthz?probe=${Date.now()}-${Math.random()}`);
  request.setRequestHeader('Cache-Control', 'no-store');
  request.timeout = timeoutMs;
  request.send();
}

/** Fetch streaming where the browser has it; XMLHttpRequest's progress events where it does not (Safari 12.0). */
const fetchStreams = typeof AbortController === 'function' && typeof ReadableStream === 'function'
  && typeof Response === 'function' && 'body' in Response.prototype;
/** A fallback stream keeps every byte in `responseText`; past this it is reopened (the page resyncs). */
const XHR_STREAM_LIMIT = 1 << 20;

/**
 * Reads `url` as text, handing each arrival to `onText`, until it ends or `handle.abort()` is called (set here).
 * Resolves with the answer's status (0 when there was none).
 */
function readStream(url, handle, onText) {
  if (fetchStreams) return readFetchStream(url, handle, onText);
  return new Promise((resolve) => {
    const request = new XMLHttpRequest();
    let seen = 0;
    handle.abort = () => request.abort();
    request.open('GET', url);
    request.setRequestHeader('Accept', 'text/event-stream');
    request.onprogress = () => {
      if (request.status !== 200) return;
      const text = request.responseText;
      if (text.length > seen) onText(text.slice(seen));
      seen = text.length;
      if (seen > XHR_STREAM_LIMIT) request.abort();
    };
    request.onloadend = () => resolve(request.status);
    request.send();
  });
}

async function readFetchStream(url, handle, onText) {
  const controller = new AbortController();
  handle.abort = () => controller.abort();
  let status = 0;
  try {
    const response = await fetch(url, { headers: { Accept: 'text/event-stream' }, cache: 'no-store', signal: controller.signal });
    status = response.status;
    if (!response.ok || !response.body) return status;
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      onText(decoder.decode(value, { stream: true }));
    }
  } catch {
    // Refused, cut, or aborted by the watchdog (which set the reason first).
  }
  return status;
}
