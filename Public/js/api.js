import { t } from './i18n.js';
import { requestOutcome } from './connection.js';
import { errorText } from './error-text.js';

/** A refused API call; `message` says why in the page's language (`errorText`). */
export class ApiError extends Error {
  constructor(status, message, code, retryAfter) {
    super(message);
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter;
  }
}

/**
 * JSON over fetch. Throws ApiError with the server's message (or a network message). `keepalive` lets the
 * request outlive the page (what a page sends on `pagehide`).
 */
export async function api(method, path, { body, token, text, keepalive = false } = {}) {
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
  let response;
  try {
    response = await fetch(path, { method, headers, body: payload, cache: 'no-store', keepalive });
  } catch {
    requestOutcome(false);
    throw new ApiError(0, t('error.network'), 'network');
  }
  requestOutcome(true);
  const raw = await response.text();
  let data = null;
  if (raw) {
    try { data = JSON.parse(raw); } catch { data = raw; }
  }
  if (!response.ok) {
    const retryAfter = Number(response.headers.get('Retry-After')) || undefined;
    const message = errorText(data?.code, data?.error, retryAfter) || t('error.network');
    throw new ApiError(response.status, message, data && data.code, retryAfter);
  }
  return data;
}

export const partyPath = (partyId) => `/api/party/${encodeURIComponent(partyId)}`;
