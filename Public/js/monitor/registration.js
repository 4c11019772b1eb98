import { api, partyPath } from '../api.js';
import { t } from '../i18n.js';
import { load, save } from '../storage.js';
import { ask } from '../dialog.js';

/** Where the TV keeps its party and monitor token, so a reload needs no PIN (R22). */
export const STORAGE_KEY = 'musicvoting.monitor';

export const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

function monitorDeviceId() {
  let id = load('musicvoting.monitorDevice');
  if (!id) {
    id = crypto.randomUUID ? crypto.randomUUID() : `tv-${Date.now().toString(36)}`;
    save('musicvoting.monitorDevice', id);
  }
  return id;
}

/** Registers this TV. With the host PIN while another TV is connected, the TV asks first (never silently). */
export async function register(partyId, credential) {
  const put = (replace) => api('PUT', `${partyPath(partyId)}/device`, {
    token: credential, body: { deviceId: monitorDeviceId(), kind: 'monitor', replace },
  });
  let result;
  try {
    result = await put(false);
  } catch (error) {
    if (error.code !== 'monitor_connected') throw error;
    if (!await ask({ message: t('tv.replaceConfirm'), confirm: t('tv.replace'), cancel: t('dialog.cancel'), danger: true })) throw error;
    result = await put(true);
  }
  save(STORAGE_KEY, { partyId, token: result.monitorToken });
  return result.monitorToken;
}
