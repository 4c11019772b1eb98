import { api } from './api.js';
import { t } from './i18n.js';
import { showError, toast } from './dom.js';

/**
 * The host page's rules card (R9b, R17a, R33, R35, R36): the fair-order switch, the veto share, the history, the
 * approval and the nicknames, applied on the server at once. `load` reads the settings again (another host tab changed them:
 * `queue-updated` with reason `settings`); `onHistory` and `onApproval` hear those settings whenever they are read or
 * changed.
 */
export function partySettings(base, hostPin, onHistory, onApproval) {
  const fairQueue = document.getElementById('fair-queue');
  const history = document.getElementById('history');
  const approval = document.getElementById('approval');
  const nicknames = document.getElementById('nicknames');
  const vetoShare = document.getElementById('veto-share');
  /** A share set through the API that the list does not offer is shown as it is. */
  const showShare = (share) => {
    const value = String(share);
    if (![...vetoShare.options].some((option) => option.value === value)) {
      vetoShare.append(new Option(`${Math.round(share * 100)} %`, value));
    }
    vetoShare.value = value;
  };
  let shownShare = 0;
  const load = async () => {
    const settings = await api('GET', `${base}/settings`);
    fairQueue.checked = settings.fairQueue;
    history.checked = Boolean(settings.history);
    onHistory(history.checked);
    approval.value = settings.approval || 'off';
    nicknames.checked = Boolean(settings.nicknames);
    onApproval(approval.value);
    shownShare = settings.vetoShare;
    showShare(shownShare);
  };
  vetoShare.addEventListener('change', async () => {
    showError('settings', '');
    try {
      const settings = await api('PUT', `${base}/settings`, { token: hostPin, body: { vetoShare: Number(vetoShare.value) } });
      shownShare = settings.vetoShare;
      showShare(shownShare);
      toast(settings.vetoShare > 0 ? t('host.rules.vetoOn', { percent: Math.round(settings.vetoShare * 100) }) : t('host.rules.vetoIsOff'));
    } catch (error) {
      showShare(shownShare);
      showError('settings', error.message);
    }
  });
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
  history.addEventListener('change', async () => {
    showError('settings', '');
    const wanted = history.checked;
    try {
      const settings = await api('PUT', `${base}/settings`, { token: hostPin, body: { history: wanted } });
      history.checked = settings.history;
      onHistory(settings.history);
      toast(settings.history ? t('host.rules.historyOn') : t('host.rules.historyOff'));
    } catch (error) {
      history.checked = !wanted;
      showError('settings', error.message);
    }
  });
  approval.addEventListener('change', () => changeApproval(base, hostPin, approval, onApproval));
  nicknames.addEventListener('change', () => changeNicknames(base, hostPin, nicknames));
  return { load };
}

/** R35: the locale keys of the approval modes. */
const APPROVAL_KEYS = { off: 'off', 'new-guests': 'newGuests', all: 'all' };

/** R35: the host picks whose adds wait for approval; the select shows what the server keeps. */
async function changeApproval(base, hostPin, select, onApproval) {
  showError('settings', '');
  try {
    const settings = await api('PUT', `${base}/settings`, { token: hostPin, body: { approval: select.value } });
    select.value = settings.approval;
    onApproval(settings.approval);
    toast(t(`host.rules.approvalSet.${APPROVAL_KEYS[settings.approval] || 'off'}`));
  } catch (error) {
    showError('settings', error.message);
    const settings = await api('GET', `${base}/settings`).catch((reread) => {
      console.error('settings', reread);
      return { approval: 'off' };
    });
    select.value = settings.approval || 'off';
  }
}

/** R36: the host lets guests name themselves, or hides every nickname at once. */
async function changeNicknames(base, hostPin, box) {
  showError('settings', '');
  const wanted = box.checked;
  try {
    const settings = await api('PUT', `${base}/settings`, { token: hostPin, body: { nicknames: wanted } });
    box.checked = Boolean(settings.nicknames);
    toast(t(box.checked ? 'host.rules.nicknamesOn' : 'host.rules.nicknamesOff'));
  } catch (error) {
    box.checked = !wanted;
    showError('settings', error.message);
  }
}
