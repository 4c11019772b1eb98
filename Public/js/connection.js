import { t } from './i18n.js';

/**
 * Whether this page reaches the server: down while the browser says it is offline (the phone left the Wi-Fi:
 * an open event stream would only notice much later), the event stream is down, or the last request failed
 * for the network. Shows one "offline – reconnecting" banner, disables the page's buttons (and enables them again
 * when it is back), marks the page (`<html data-offline>`) and tells listeners (the progress bar stops), so
 * nothing pretends to be live.
 */
let streamUp = true;
let requestFailed = false;
let browserOffline = typeof navigator !== 'undefined' && navigator.onLine === false;
let shown = false;
const listeners = new Set();

export const isOffline = () => browserOffline || !streamUp || requestFailed;

addEventListener('offline', () => { browserOffline = true; render(); });
addEventListener('online', () => { browserOffline = false; render(); });

export function onConnectionChange(listener) { listeners.add(listener); }

export function streamStatus(up) { streamUp = up; render(); }

export function requestOutcome(reachedServer) { requestFailed = !reachedServer; render(); }

function render() {
  const offline = isOffline();
  if (offline === shown) return;
  shown = offline;
  let banner = document.getElementById('offline-banner');
  if (!banner) {
    banner = document.createElement('p');
    banner.id = 'offline-banner';
    banner.className = 'offline-banner';
    banner.setAttribute('role', 'status');
    banner.hidden = true;
    document.body.prepend(banner);
  }
  banner.textContent = offline ? t('net.offline') : '';
  banner.hidden = !offline;
  if (offline) document.documentElement.dataset.offline = 'true'; else delete document.documentElement.dataset.offline;
  if (offline) {
    for (const button of document.querySelectorAll('main button:not(:disabled):not(#autoplay-start)')) {
      button.disabled = true;
      button.dataset.offlineDisabled = 'true';
    }
  } else {
    for (const button of document.querySelectorAll('[data-offline-disabled]')) {
      button.disabled = false;
      delete button.dataset.offlineDisabled;
    }
  }
  for (const listener of listeners) listener(offline);
}
