import { api, partyPath } from './api.js';
import { t } from './i18n.js';
import { showError } from './dom.js';
import { pinForm } from './pin-input.js';
import { ask } from './dialog.js';

/**
 * For the ready screen and the host page: shows the TV's short address (on the address guests reach,
 * not this tab's) and makes the six digit boxes `[data-pin=tv]` pair the TV showing that code with the party;
 * `status` then says so, and `onPaired` runs. Returns `pairFromLink(code)` for a code from the TV's QR code: that
 * one asks first, showing the code to compare with the TV (a guest's own pairing link must not hand
 * them the TV). A connected TV is replaced only when the host says so.
 */
export function tvPairing(party, hostPin, { address, status, onPaired = () => {} }) {
  address.textContent = `${new URL(party.joinUrl).origin}/tv`;
  const claim = (code, replace) => api('POST', `${partyPath(party.id)}/tv/pair`, { token: hostPin, body: { code, replace } });
  const pair = async (code) => {
    status.textContent = '';
    try {
      await claim(code, false);
    } catch (error) {
      if (error.code !== 'monitor_connected') throw error;
      if (!await ask({ message: t('tv.replaceConfirm'), confirm: t('tv.replace'), cancel: t('dialog.cancel'), danger: true })) return;
      await claim(code, true);
    }
    status.textContent = t('tv.paired');
    onPaired();
  };
  pinForm('tv', pair, t('tv.codeUnknown'));
  return async (code) => {
    const spaced = `${code.slice(0, 3)} ${code.slice(3)}`;
    if (!await ask({ message: t('tv.linkConfirm', { code: spaced }), confirm: t('tv.connect'), cancel: t('dialog.cancel') })) return;
    await pair(code).catch((error) => showError('tv', error.status === 404 ? t('tv.codeUnknown') : error.message));
  };
}
