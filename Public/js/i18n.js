// UI strings come from the page (the server picked the language and filled English gaps with German).
const strings = JSON.parse((document.getElementById('strings') || {}).textContent || '{}');

/** The string for `key` with `{name}` placeholders filled; never the raw key. */
export function t(key, values = {}) {
  const text = strings[key];
  if (text === undefined) {
    console.warn('missing string', key);
    return '';
  }
  return text.replace(/\{(\w+)\}/g, (_, name) => String(values[name] == null ? '' : values[name]));
}

/** Whether the page has a string for `key` (a lookup that may miss, such as an error code). */
export const has = (key) => Object.prototype.hasOwnProperty.call(strings, key);

/** `t` for a count: the key's `.one` form for exactly one where the page has it (German and English both say
 * "1 Song", "2 Songs"), else the key itself. */
export function tn(key, count, values = {}) {
  const all = Object.assign({ count }, values);
  return count === 1 && has(`${key}.one`) ? t(`${key}.one`, all) : t(key, all);
}
