// UI strings come from the page (the server picked the language and filled English gaps with German).
const strings = JSON.parse(document.getElementById('strings')?.textContent || '{}');

/** The string for `key` with `{name}` placeholders filled; never the raw key. */
export function t(key, values = {}) {
  const text = strings[key];
  if (text === undefined) {
    console.warn('missing string', key);
    return '';
  }
  return text.replace(/\{(\w+)\}/g, (_, name) => String(values[name] ?? ''));
}

/** Whether the page has a string for `key` (a lookup that may miss, such as an error code). */
export const has = (key) => Object.hasOwn(strings, key);
