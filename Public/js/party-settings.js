import { api } from './api.js';
import { t } from './i18n.js';
import { showError, toast } from './dom.js';

/**
 * The host page's rules card (R9b): the fair-order switch, applied on the server at once. `load` reads the
 * settings again (another host tab changed them: `queue-updated` with reason `settings`).
 */
export function partySettings(base, hostPin) {
  const fairQueue = document.getElementById('fair-queue');
  const load = async () => {
    const settings = await api('GET', `${base}/settings`);
    fairQueue.checked = settings.fairQueue;
  };
  fairQueue.addEventListener('change', async () => {
    showError('settings', '');
    const wanted = fairQueue.checked;
    try {
      const settings = await api('PUT', `${base}/settings`, { token: hostPin, body: { fairQueue: wanted } });
      fairQueue.checked = settings.fairQueue;
      toast(settings.fairQueue ? t('host.rules.fairQueueOn') : t('host.rules.fairQueueOff'));
    } catch (error) {
      fairQueue.checked = !wanted;
      showError('settings', error.message);
    }
  });
  return { load };
}
