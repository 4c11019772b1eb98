import { api, partyPath } from '../api.js';
import { t } from '../i18n.js';
import { showError } from '../dom.js';
import { pinForm } from '../pin-input.js';
import { save } from '../storage.js';

for (const label of document.querySelectorAll('[data-provider-label]')) {
  label.textContent = t(`start.provider.${label.dataset.providerLabel}`) || label.dataset.providerLabel;
}

pinForm('join', async (pin) => {
  await api('GET', `/api/party/join/${pin}`);
  location.href = `/join/${pin}`;
}, t('start.join.notFound'));

pinForm('host', async (hostPin) => {
  const party = await api('GET', `/api/party/host-join/${hostPin}`);
  save('musicvoting.host', { partyId: party.id, hostPin });
  location.href = '/host';
}, t('host.wrongPin'));

document.getElementById('create-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  showError('create', '');
  const provider = new FormData(event.target).get('provider');
  const button = event.target.querySelector('button[type="submit"]');
  button.disabled = true;
  try {
    const party = await api('POST', '/api/party', { body: { provider } });
    save('musicvoting.host', { partyId: party.id, hostPin: party.hostPin });
    document.getElementById('created-pin').textContent = party.pin;
    document.getElementById('created-host-pin').textContent = party.hostPin;
    const link = document.getElementById('created-join');
    link.href = party.joinUrl;
    link.textContent = party.joinUrl;
    document.getElementById('created-qr').src = `${partyPath(party.id)}/qr`;
    // The fragment never reaches the server or its logs; the monitor pairs with it once and forgets it.
    document.getElementById('created-monitor').href = `/monitor#party=${party.id}&hostPin=${party.hostPin}`;
    document.getElementById('created').hidden = false;
    event.target.hidden = true;
    document.getElementById('created-monitor').focus();
  } catch (error) {
    showError('create', error.message);
  } finally {
    button.disabled = false;
  }
});
