import { focusFirst } from './dom.js';
import { t } from './i18n.js';

/**
 * The host's removals: one waits 5 s with an "Undo" before `remove(uri)` runs (its row is hidden meanwhile, see
 * `pending`); leaving the page sends what is pending at once (`removeOnLeave`), so nothing removed comes back.
 * Focus moves to "Undo" (17 Tab presses away before); after a removal made with the keyboard nothing is
 * sent while focus stays in the bar, and Escape or ✕ sends at once. A tap keeps the 5 s: a phone user never moves
 * focus out of the bar, so holding it there would keep the song in every guest's queue. Closing the bar moves
 * focus to the removed row's neighbour in `list` (the next row, else the previous, else `heading`).
 * `shown()` is the list's entries; `render()` draws them again.
 */
export function undoableRemovals({ list, heading, shown, render, remove, removeOnLeave }) {
  const waiting = new Map();
  const bar = document.getElementById('undo-bar');
  const undo = document.getElementById('undo');
  let neighbour = null;
  let holdWhileFocused = false;
  const focused = () => bar.contains(document.activeElement);
  const holding = () => holdWhileFocused && focused();
  const close = () => {
    const hadFocus = focused();
    bar.hidden = true;
    if (!hadFocus) return;
    const row = neighbour && list.querySelector(`[data-uri="${CSS.escape(neighbour)}"] [data-action="menu"]`);
    (row || heading).focus();
  };
  const send = (uri) => {
    const pending = waiting.get(uri);
    if (!pending) return;
    clearTimeout(pending.timer);
    waiting.delete(uri);
    if (!waiting.size) close();
    remove(uri);
  };
  const schedule = (uri) => {
    clearTimeout(waiting.get(uri).timer);
    waiting.get(uri).timer = setTimeout(() => { if (!holding()) send(uri); }, 5000);
  };
  const sendAll = () => { for (const uri of [...waiting.keys()]) send(uri); };
  undo.addEventListener('click', () => {
    const last = [...waiting.keys()].pop();
    if (!last) return;
    clearTimeout(waiting.get(last).timer);
    waiting.delete(last);
    bar.hidden = waiting.size === 0;
    render();
    focusFirst(`[data-uri="${CSS.escape(last)}"] [data-action="menu"]`, list);
  });
  document.getElementById('undo-dismiss').addEventListener('click', sendAll);
  bar.addEventListener('keydown', (event) => { if (event.key === 'Escape') sendAll(); });
  // Focus left the bar: the 5 s start again from now.
  bar.addEventListener('focusout', (event) => {
    if (!bar.contains(event.relatedTarget)) for (const uri of waiting.keys()) schedule(uri);
  });
  addEventListener('pagehide', () => {
    for (const uri of waiting.keys()) removeOnLeave(uri);
    waiting.clear();
  });
  return {
    pending: (uri) => waiting.has(uri),
    add(entry, { byKeyboard = false } = {}) {
      const rows = shown().filter((candidate) => !waiting.has(candidate.uri));
      const index = rows.findIndex((candidate) => candidate.uri === entry.uri);
      const next = rows[index + 1] || rows[index - 1];
      neighbour = (next && next.uri) || null;
      holdWhileFocused = byKeyboard;
      waiting.set(entry.uri, {});
      schedule(entry.uri);
      document.getElementById('undo-text').textContent = t('host.removed', { name: entry.name });
      bar.hidden = false;
      render();
      undo.focus();
    },
  };
}
