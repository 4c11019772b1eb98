import { api } from '../api.js';
import { t } from '../i18n.js';
import { pinForm } from '../pin-input.js';
import { register, sleep } from './registration.js';

/**
 * An unpaired TV shows a code and a QR code of the host page that claims it, and asks the server every
 * 1.5 s whether the host did; an expired code is replaced. The host PIN typed with the remote stays the fallback.
 * `onPaired(partyId, monitorToken)` runs once the TV is registered.
 */
export async function showPairing(onPaired) {
  const pairSection = document.getElementById('pair');
  document.getElementById('stage').hidden = true;
  pairSection.hidden = false;
  let paired = false;
  const finish = async (partyId, credential) => {
    const token = await register(partyId, credential);
    paired = true;
    pairSection.hidden = true;
    onPaired(partyId, token);
  };
  const pin = pinForm('pair', async (hostPin) => {
    const party = await api('GET', `/api/party/host-join/${hostPin}`);
    await finish(party.id, hostPin);
  }, t('host.wrongPin'));
  document.getElementById('pair-fallback').addEventListener('toggle', (event) => { if (event.target.open) pin.focus(); });
  let pairing = null;
  while (!paired) {
    try {
      if (!pairing) pairing = await showCode();
      const status = await api('GET', '/api/tv/pairing', { token: pairing.secret });
      if (status.status === 'paired') await finish(status.partyId, status.monitorToken);
      else say(document.getElementById('pair-expiry'), t('monitor.pair.expires', { minutes: Math.max(1, Math.ceil(status.expiresIn / 60)) }));
    } catch (error) {
      // Expired or already used: a fresh code. Too many opens: wait as told. Offline: the banner says so; keep asking.
      if ([401, 404].includes(error.status)) pairing = null;
      if (error.status === 429) await sleep((error.retryAfter || 10) * 1000);
    }
    if (!paired) await sleep(1500);
  }
}

/** A fresh pairing code, shown with its QR code. */
async function showCode() {
  const pairing = await api('POST', '/api/tv/pairing');
  say(document.getElementById('pair-code'), `${pairing.code.slice(0, 3)} ${pairing.code.slice(3)}`);
  const qr = document.getElementById('pair-qr');
  qr.src = pairing.qr;
  qr.hidden = false;
  return pairing;
}

/** Sets a text only when it changed. */
function say(node, text) {
  if (node.textContent !== text) node.textContent = text;
}
