import { t, has } from './i18n.js';

/**
 * A refused call in the page's language, chosen by the error's stable `code` (the `error` text of every
 * error body is German); the server's own text only for a code no page knows yet. `retryAfter` fills `{seconds}`.
 */
export function errorText(code, serverText, retryAfter) {
  const key = `error.code.${code}`;
  return code && has(key) ? t(key, { seconds: retryAfter == null ? '' : retryAfter }) : serverText;
}
