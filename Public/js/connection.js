import { replaceChildren } from './dom.js';
import { t } from './i18n.js';

/**
 * Whether this page reaches the server: down while the browser says it is offline (the phone left the Wi-Fi:
 * an open event stream would only notice much later), the event stream is down, or the last request failed
 * for the network. Shows one "offline – reconnecting" banner with the reason, disables the page's buttons (and
 * enables them again when it is back), marks the page (`<html data-offline>`) and tells listeners (the progress
 * bar stops), so nothing pretends to be live.
 */
let streamUp = true;
let streamReason = null;
let requestFailed = false;
let requestReason = null;
let browserOffline = typeof navigator !== 'undefined' && navigator.onLine === false;
let shown = null;
const listeners = new Set();
const timeoutListeners = new Set();

export const isOffline = () => browserOffline || !streamUp || requestFailed;

/** Why, most telling first: no network at all, then a server that stays silent, then one that refuses. */
function currentReason() {
  if (browserOffline) return 'noNetwork';
  const reasons = [requestFailed && requestReason, !streamUp && streamReason];
  return reasons.includes('timeout') ? 'timeout' : 'unreachable';
}

addEventListener('offline', () => { browserOffline = true; render(); });
addEventListener('online', () => { browserOffline = false; render(); });

export function onConnectionChange(listener) { listeners.add(listener); }

/** Told when a request got no answer in time: a hint that other open connections may be dead too. */
export function onRequestTimeout(listener) { timeoutListeners.add(listener); }

/** `reason`: `timeout` (nothing came back in time) or `unreachable` (the connection failed). */
export function streamStatus(up, reason = 'unreachable') {
  streamUp = up;
  streamReason = up ? null : reason;
  render();
}

export function requestOutcome(reachedServer, reason = 'unreachable') {
  requestFailed = !reachedServer;
  requestReason = reachedServer ? null : reason;
  render();
  if (reason === 'timeout' && !reachedServer) for (const listener of timeoutListeners) listener();
}

/**
 * The server refused this page a live stream for its limits: the page works over plain requests and reloads its
 * state every few seconds. A quiet note says so (no outage: nothing is disabled).
 */
export function streamLimited(limited) {
  let note = document.getElementById('limited-note');
  if (!note && !limited) return;
  if (!note) {
    note = document.createElement('p');
    note.id = 'limited-note';
    note.className = 'limited-note';
    note.setAttribute('role', 'status');
    document.body.prepend(note);
  }
  note.textContent = limited ? t('net.limited') : '';
  note.hidden = !limited;
}

let renderedWhileOffline = null;

function disableButtons() {
  for (const button of document.querySelectorAll('main button:not(:disabled):not(#autoplay-start)')) {
    button.disabled = true;
    button.dataset.offlineDisabled = 'true';
  }
}

function render() {
  const offline = isOffline();
  const state = offline ? currentReason() : null;
  if (state === shown) return;
  const changed = offline !== (shown !== null);
  shown = state;
  let banner = document.getElementById('offline-banner');
  if (!banner) {
    banner = document.createElement('p');
    banner.id = 'offline-banner';
    banner.className = 'offline-banner';
    banner.setAttribute('role', 'status');
    banner.hidden = true;
    document.body.prepend(banner);
  }
  if (offline) {
    const title = document.createElement('strong');
    title.textContent = t('net.offline');
    const why = document.createElement('span');
    why.className = 'offline-reason';
    why.textContent = t(`net.reason.${state}`);
    replaceChildren(banner, title, ' ', why);
  } else {
    replaceChildren(banner);
  }
  banner.hidden = !offline;
  if (!changed) return;
  if (offline) document.documentElement.dataset.offline = 'true'; else delete document.documentElement.dataset.offline;
  if (offline) {
    disableButtons();
    // Rows rendered while offline (a reply that was already on its way) get disabled buttons too.
    if (!renderedWhileOffline) renderedWhileOffline = new MutationObserver(disableButtons);
    renderedWhileOffline.observe(document.body, { childList: true, subtree: true });
  } else {
    if (renderedWhileOffline) renderedWhileOffline.disconnect();
    for (const button of document.querySelectorAll('[data-offline-disabled]')) {
      button.disabled = false;
      delete button.dataset.offlineDisabled;
    }
  }
  for (const listener of listeners) listener(offline);
}
