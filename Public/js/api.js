import { t } from './i18n.js';
import { requestOutcome } from './connection.js';
import { errorText } from './error-text.js';

/**
 * How long a request may take, answer included. Generous for a phone on a weak network; short enough that a
 * connection that died silently (a network switch) is given up and leaves the browser's connection pool.
 */
export const REQUEST_TIMEOUT_MS = 8000;
/**
 * Calls whose answer waits on the party's music service: the server gives each of its calls there up to 11 s and
 * then answers with its own message, which should reach the page rather than our timeout.
 */
const PROVIDER_TIMEOUT_MS = 15000;
const WAITS_ON_PROVIDER = /\/track\/(search|addToPlaylist|start|next|play|pause|resume|prepare-next)\b|\/playlists\b|\/default-playlist\b|\/spotify\//;

/** A refused API call; `message` says why in the page's language (`errorText`). */
export class ApiError extends Error {
  constructor(status, message, code, retryAfter, body) {
    super(message);
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter;
    // The whole error body: some answers tell how to go on (R10a: `existingUri`, `position` of a duplicate).
    this.body = body || {};
  }
}

/**
 * JSON over fetch. Throws ApiError with the server's message, or with status 0 and code `network` (no connection)
 * or `timeout` (no answer within `timeout` ms): both worth retrying. `keepalive` lets the request outlive the page
 * (what a page sends on `pagehide`).
 */
export async function api(method, path, { body, token, text, keepalive = false, timeout = defaultTimeout(path) } = {}) {
  const headers = {};
  if (token) headers.Authorization = `Bearer ${token}`;
  let payload;
  if (text !== undefined) {
    headers['Content-Type'] = 'text/plain';
    payload = text;
  } else if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => { timedOut = true; controller.abort(); }, timeout);
  let response;
  let raw;
  try {
    response = await fetch(path, { method, headers, body: payload, cache: 'no-store', keepalive, signal: controller.signal });
    raw = await response.text();
  } catch {
    requestOutcome(false, timedOut ? 'timeout' : 'unreachable');
    throw timedOut ? new ApiError(0, t('error.timeout'), 'timeout') : new ApiError(0, t('error.network'), 'network');
  } finally {
    clearTimeout(timer);
  }
  requestOutcome(true);
  let data = null;
  if (raw) {
    try { data = JSON.parse(raw); } catch { data = raw; }
  }
  if (!response.ok) {
    const retryAfter = Number(response.headers.get('Retry-After')) || undefined;
    const message = errorText(data && data.code, data && data.error, retryAfter) || t('error.network');
    throw new ApiError(response.status, message, data && data.code, retryAfter, data);
  }
  return data;
}

function defaultTimeout(path) {
  return WAITS_ON_PROVIDER.test(path) ? PROVIDER_TIMEOUT_MS : REQUEST_TIMEOUT_MS;
}

export const partyPath = (partyId) => `/api/party/${encodeURIComponent(partyId)}`;
