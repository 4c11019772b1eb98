import { api } from './api.js';
import { t, tn } from './i18n.js';
import { toast } from './dom.js';
import { ask } from './dialog.js';

/**
 * R30 on the host page: "ban whoever added this" on a queue row, after an in-page question, and "lift all bans"
 * (`lift`, a button). The server answers how many songs left, never who it was. Returns the row action; `done`
 * runs after a ban was asked for (the page closes the row and reloads the queue).
 */
export function banControls({ base, hostPin, lift, done }) {
  lift.addEventListener('click', async () => {
    try {
      await api('DELETE', `${base}/bans`, { token: hostPin });
      toast(t('host.bansLifted'));
    } catch (error) {
      toast(error.message);
    }
  });
  return async (entry) => {
    if (!await ask({ message: t('host.banConfirm'), confirm: t('host.ban'), cancel: t('dialog.cancel'), danger: true })) return;
    try {
      const { removed } = await api('POST', `${base}/ban`, { token: hostPin, body: { entryId: entry.id } });
      toast(tn('host.banned', removed));
    } catch (error) {
      toast(error.message);
    }
    done();
  };
}
