import { api, partyPath } from './api.js';
import { t } from './i18n.js';
import { showError } from './dom.js';
import { pinForm } from './pin-input.js';

/**
 * Issue 14, for the ready screen and the host page: shows the TV's short address (on the address guests reach,
 * not this tab's) and makes the six digit boxes `[data-pin=tv]` pair the TV showing that code with the party;
 * `status` then says so, and `onPaired` runs. Returns `pair(code)` for a code from the TV's QR code.
 */
export function tvPairing(party, hostPin, { address, status, onPaired = () => {} }) {
  address.textContent = `${new URL(party.joinUrl).origin}/tv`;
  const pair = async (code) => {
    status.textContent = '';
    await api('POST', `${partyPath(party.id)}/tv/pair`, { token: hostPin, body: { code } });
    status.textContent = t('tv.paired');
    onPaired();
  };
  pinForm('tv', pair, t('tv.codeUnknown'));
  return (code) => pair(code).catch((error) => showError('tv', error.status === 404 ? t('tv.codeUnknown') : error.message));
}
