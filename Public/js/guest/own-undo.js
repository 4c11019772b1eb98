import { t } from '../i18n.js';
import { focusFirst } from '../dom.js';

/**
 * R18b: a removed own song can be added again for a few seconds (it queues anew: its likes and place are gone).
 * `addAgain(entry)` adds it again.
 */
export function ownUndo(addAgain) {
  const bar = document.getElementById('undo-bar');
  let offered = null;
  let timer;
  const close = () => {
    clearTimeout(timer);
    offered = null;
    const hadFocus = bar.contains(document.activeElement);
    bar.hidden = true;
    if (hadFocus) focusFirst('#queue-heading');
  };
  document.getElementById('undo').addEventListener('click', () => {
    const entry = offered;
    close();
    if (entry) addAgain(entry);
  });
  document.getElementById('undo-dismiss').addEventListener('click', close);
  return {
    /** Offers to add `entry` again, for six seconds. */
    offer(entry) {
      offered = entry;
      document.getElementById('undo-text').textContent = t('guest.ownRemoved', { name: entry.name });
      bar.hidden = false;
      clearTimeout(timer);
      timer = setTimeout(close, 6000);
    },
  };
}
