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
export function connectEvents(partyId, handlers) {
  const connection = new EventConnection(partyId, handlers);
  connection.open();
  return { stop: () => connection.stop() };
}

class EventConnection {
  constructor(partyId, { monitorToken, hostPin, onEvent, onResync, onEnded, onStatus }) {
    const query = new URLSearchParams({ partyId, source: 'web' });
    if (monitorToken) query.set('monitorToken', monitorToken);
    // The host's stream proves the PIN, so a flood of guest streams never takes its place.
    if (hostPin) query.set('hostPin', hostPin);
    this.url = `/api/spotify/events?${query}`;
    this.partyId = partyId;
    this.handlers = { onEvent, onResync, onEnded, onStatus };
    /** The current try at a stream: how to abort it, when it last heard a byte, and whether it got any. */
    this.attempt = null;
    this.failures = 0;
    this.retryTimer = null;
    this.pollTimer = null;
    this.stopped = false;
    this.connectedOnce = false;
    /** Until the first stream announces it; only used once a stream is live, and so has announced it. */
    this.keepaliveMs = OPEN_TIMEOUT_MS;
    /** When a draining server said to come back (a `retry:` of its own before it ends the stream), in ms. */
    this.comeBackMs = null;
    this.flushedAt = 0;
    this.watch();
  }

  /** The timers and browser signals that find a stream dead before the network says so. */
  watch() {
    this.watchdog = setInterval(() => this.dropIfSilent(silenceLimit(this.keepaliveMs)), 250);
    // A request that got no answer while the stream has missed a keepalive: the network probably switched; do not
    // wait for the second keepalive.
    onRequestTimeout(() => {
      this.flushDeadConnections();
      this.dropIfSilent(this.keepaliveMs + 1000);
    });
    // Timers sleep in a hidden tab (a phone's locked screen): check at once when it shows again.
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'visible') this.dropIfSilent(silenceLimit(this.keepaliveMs));
    });
    // Back on the network: a stream that looked open may have missed events, so open a fresh one (it resyncs the page).
    addEventListener('online', () => {
      if (this.stopped) return;
      this.failures = 0;
      this.open();
    });
  }

  async open() {
    clearTimeout(this.retryTimer);
    this.comeBackMs = null;
    if (this.attempt) this.attempt.abort();
    const ours = { abort: () => {}, lastByteAt: Date.now(), live: false, reason: 'unreachable' };
    this.attempt = ours;
    let pending = '';
    const status = await readStream(this.url, ours, (text) => {
      if (this.attempt !== ours) return;
      ours.lastByteAt = Date.now();
      if (!ours.live) this.connected(ours);
      pending = this.dispatch(pending + text);
    });
    if (status === 429) ours.reason = 'refused';
    if (this.attempt === ours && !this.stopped) this.failed(ours.reason);
  }

  connected(ours) {
    ours.live = true;
    this.failures = 0;
    clearInterval(this.pollTimer);
    this.pollTimer = null;
    streamLimited(false);
    streamStatus(true);
    call(this.handlers.onStatus, null, true);
    if (this.connectedOnce) call(this.handlers.onResync);
    this.connectedOnce = true;
  }

  /** Hands every complete message (up to a blank line) to the page; returns the incomplete rest. */
  dispatch(text) {
    const messages = text.split(/\r?\n\r?\n/);
    const rest = messages.pop();
    for (const message of messages) {
      const event = this.read(message);
      if (!event || this.stopped) continue;
      if (event.type === 'party-ended') {
        this.stop();
        call(this.handlers.onEnded);
        return '';
      }
      call(this.handlers.onEvent, null, event);
    }
    return rest;
  }

  /**
   * One message's event, or null. SPEC: one `data:` line of JSON per message; comments (`: ping`), `id:` and
   * `retry:` lines carry nothing for the page, except the interval a stream announces first and the time a server
   * going away names to come back (drawn for each page, so a party's phones return spread out).
   */
  read(message) {
    const announced = /^: ?keepalive-ms (\d+)$/m.exec(message);
    if (announced) this.keepaliveMs = Math.max(1000, Number(announced[1]));
    const comeBack = !announced && /^retry: ?(\d+)$/m.exec(message);
    if (comeBack) this.comeBackMs = Math.min(Number(comeBack[1]), LAST_RETRY_MS * 2);
    const data = message.split(/\r?\n/).filter((line) => line.startsWith('data:')).map((line) => line.slice(5).replace(/^ /, '')).join('\n');
    if (!data) return null;
    try {
      return JSON.parse(data);
    } catch (error) {
      console.warn('An event that is not JSON was skipped', error);
      return null;
    }
  }

  /** Refused for the limits: the page stays usable over plain requests and reloads its state every `POLL_MS`. */
  refused() {
    this.attempt = null;
    streamStatus(true);
    streamLimited(true);
    if (!this.pollTimer) {
      call(this.handlers.onResync);
      this.pollTimer = setInterval(() => call(this.handlers.onResync), POLL_MS);
    }
    this.retryTimer = setTimeout(() => this.open(), REFUSED_RETRY_MS * (0.75 + Math.random() / 2));
  }

  failed(reason) {
    if (reason === 'refused') return this.refused();
    this.attempt = null;
    streamStatus(false, reason);
    call(this.handlers.onStatus, null, false);
    if (this.comeBackMs !== null) {
      this.retryTimer = setTimeout(() => this.open(), this.comeBackMs);
      return;
    }
    const ceiling = Math.min(FIRST_RETRY_MS * 2 ** this.failures, LAST_RETRY_MS);
    this.failures += 1;
    this.retryTimer = setTimeout(() => this.open(), ceiling * (0.5 + Math.random() / 2));
    // A party that ended meanwhile answers 404: stop instead of reopening. Any other failure is the outage the
    // status line already shows.
    api('GET', partyPath(this.partyId)).catch((error) => {
      if (error.status === 404 && !this.stopped) { this.stop(); call(this.handlers.onEnded); }
    });
  }

  /** Drops the stream now if it has been silent longer than `limit` ms (counted from its open while it opens). */
  dropIfSilent(limit) {
    const attempt = this.attempt;
    if (!attempt || this.stopped) return;
    if (Date.now() - attempt.lastByteAt <= (attempt.live ? limit : Math.min(limit, OPEN_TIMEOUT_MS))) return;
    attempt.reason = 'timeout';
    attempt.abort();
    this.flushDeadConnections();
  }

  /** Sends `PROBES` requests before the stream reopens, so it and the resync get live connections (see `PROBES`). */
  flushDeadConnections() {
    if (Date.now() - this.flushedAt < silenceLimit(this.keepaliveMs)) return;
    this.flushedAt = Date.now();
    for (let count = 0; count < PROBES; count += 1) probe(PROBE_TIMEOUT_MS);
  }

  stop() {
    this.stopped = true;
    clearInterval(this.watchdog);
    clearInterval(this.pollTimer);
    streamLimited(false);
    clearTimeout(this.retryTimer);
    if (this.attempt) this.attempt.abort();
    this.attempt = null;
    streamStatus(true);
  }
}

/** One cheap request on a connection of its own, never answered from a cache, given up after `timeoutMs`. */
function probe(timeoutMs) {
  if (typeof AbortController === 'function') {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    // A probe that fails has done its job: it took a dead connection out of the browser's pool.
    fetch('/healthz', { cache: 'no-store', signal: controller.signal }).then((response) => response.arrayBuffer())
      .then(() => clearTimeout(timer), () => clearTimeout(timer));
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
  } catch (error) {
    // Refused, cut, or aborted on purpose (by the watchdog, which set the reason first, or a reopen): the status line
    // shows an outage; only a failure that was not ours is worth the console's while.
    if (error.name !== 'AbortError') console.warn('The live stream failed', error);
  }
  return status;
}
