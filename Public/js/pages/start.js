import { api, partyPath } from '../api.js';
import { t } from '../i18n.js';
import { showError } from '../dom.js';
import { pinInput } from '../pin-input.js';
import { save } from '../storage.js';

for (const label of document.querySelectorAll('[data-provider-label]')) {
  label.textContent = t(`start.provider.${label.dataset.providerLabel}`) || label.dataset.providerLabel;
}

const join = pinInput(document.querySelector('[data-pin="join"]'), async (pin) => {
  showError('join', '');
  try {
    await api('GET', `/api/party/join/${pin}`);
    location.href = `/join/${pin}`;
  } catch (error) {
    showError('join', error.status === 404 ? t('start.join.notFound') : error.message);
    join.shake();
    join.clear();
  }
});

const host = pinInput(document.querySelector('[data-pin="host"]'), async (hostPin) => {
  showError('host', '');
  try {
    const party = await api('GET', `/api/party/host-join/${hostPin}`);
    save('musicvoting.host', { partyId: party.id, hostPin });
    location.href = '/host';
  } catch (error) {
    showError('host', error.status === 404 ? t('host.wrongPin') : error.message);
    host.shake();
    host.clear();
  }
});

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
