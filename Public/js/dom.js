import { t } from './i18n.js';

/** Builds an element; text goes in as text, so provider data can never become markup. */
export function el(tag, attributes = {}, children = []) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'text') node.textContent = value;
    else if (name === 'className') node.className = value;
    else if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? '' : value);
  }
  for (const child of [].concat(children)) if (child) node.append(child);
  return node;
}

/** A cover box: the image, or the placeholder when there is none or it fails to load. */
export function cover(url, className = 'cover') {
  const box = el('div', { className });
  if (url) box.append(coverImage(url));
  return box;
}

export function coverImage(url) {
  const image = el('img', { src: ownPath(url), alt: '', loading: 'lazy' });
  image.addEventListener('error', () => image.remove(), { once: true });
  return image;
}

/**
 * Track JSON carries covers of this server as absolute URLs on the public URL (SPEC, for the iOS app).
 * A page opened under another of the server's names would fetch them from another origin, which the page's CSP
 * (img-src 'self') blocks and which that browser may not even reach; as a path they load from wherever the page
 * came from. Other covers (Spotify, YouTube) stay as they are.
 */
const publicOrigin = (() => {
  try { return new URL((document.querySelector('meta[name="musicvoting-public-url"]') || {}).content || '').origin; } catch { return null; }
})();

export function ownPath(url) {
  try {
    const parsed = new URL(url, location.href);
    return parsed.origin === publicOrigin || parsed.origin === location.origin ? parsed.pathname + parsed.search : url;
  } catch {
    return url;
  }
}

/** Server-rendered covers get the same fallback. */
export function guardCovers(root = document) {
  for (const image of root.querySelectorAll('img[data-cover]')) {
    if (image.complete && image.naturalWidth === 0) image.remove();
    else image.addEventListener('error', () => image.remove(), { once: true });
  }
}

/** The artists, or "unknown" in the page's language (an untagged local file has none). */
export const artistsOf = (track) => (track.artists || []).map((artist) => artist.name).join(', ') || t('track.unknownArtist');
export const coverOf = (track) => {
  const image = track && track.album && track.album.images && track.album.images[0];
  return (image && image.url) || null;
};

let toastTimer;
export function toast(message) {
  const node = document.getElementById('toast');
  if (!node) return;
  node.textContent = message;
  node.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { node.hidden = true; }, 4000);
}

export function showError(name, message) {
  const node = document.querySelector(`[data-error="${name}"]`);
  if (node) node.textContent = message || '';
}

/** Calls `fn` when there is one (a handler a page may leave out); the TV's older browsers lack `?.()`. */
export function call(fn, self, ...args) {
  return typeof fn === 'function' ? fn.apply(self, args) : undefined;
}

/** Focuses the first match of `selector` under `root`, if there is one. */
export function focusFirst(selector, root = document) {
  const node = root.querySelector(selector);
  if (node) node.focus();
}

/** `node.replaceChildren(...children)`, also where a TV's browser predates it. */
export function replaceChildren(node, ...children) {
  while (node.firstChild) node.removeChild(node.firstChild);
  node.append(...children);
}

/** A rejection handler for work nobody waits on (a reload, a refresh): the failure goes to the console, named. */
export function warnOnFailure(what) {
  return (error) => console.warn(`${what} failed`, error);
}
