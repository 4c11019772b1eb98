import { api, partyPath } from '../api.js';
import { t } from '../i18n.js';
import { showError } from '../dom.js';
import { pinForm } from '../pin-input.js';
import { save } from '../storage.js';
import { tvPairing } from '../tv-pairing.js';

for (const label of document.querySelectorAll('[data-provider-label]')) {
  label.textContent = t(`start.provider.${label.dataset.providerLabel}`) || label.dataset.providerLabel;
}

pinForm('join', async (pin) => {
  await api('GET', `/api/party/join/${pin}`);
  location.href = `/join/${pin}`;
}, t('start.join.notFound'));

pinForm('host', async (hostPin) => {
  const party = await api('GET', `/api/party/host-join/${hostPin}`);
  // R24a: the host page signs in with the host token, which nobody's PIN guessing locks out.
  save('musicvoting.host', { partyId: party.id, hostToken: party.hostToken || hostPin });
  location.href = '/host';
}, t('host.wrongPin'));

const OFFERED_VETO_SHARE = 0.4;

document.getElementById('create-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  showError('create', '');
  const form = new FormData(event.target);
  const provider = form.get('provider');
  // R9b: the start page offers fair order switched on (the API default stays off for the older clients).
  const fairQueue = form.get('fairQueue') === 'on';
  // R17a: and the crowd veto at the share SPEC names (0.4); off is 0, the API default.
  const vetoShare = form.get('veto') === 'on' ? OFFERED_VETO_SHARE : 0;
  // R33: and remembering what played, for the recap at the end (the API default keeps no history, R14).
  const history = form.get('history') === 'on';
  const button = event.target.querySelector('button[type="submit"]');
  button.disabled = true;
  try {
    // R35: whose songs wait for the host (off unless the host picks it, as for the older clients).
    const approval = form.get('approval') || 'off';
    // R36: guests stay anonymous unless the host lets them name themselves.
    const nicknames = form.get('nicknames') === 'on';
    const party = await api('POST', '/api/party', { body: { provider, fairQueue, vetoShare, history, approval, nicknames } });
    save('musicvoting.host', { partyId: party.id, hostToken: party.hostToken });
    showCreated(party);
  } catch (error) {
    showError('create', error.message);
  } finally {
    button.disabled = false;
  }
});

/**
 * The ready screen: what the guests scan, what the TV opens (its short address and the code it then shows),
 * and the host PIN only on request: a laptop turned toward the guests must not hand over the party.
 */
function showCreated(party) {
  document.getElementById('created-pin').textContent = party.pin;
  const link = document.getElementById('created-join');
  link.href = party.joinUrl;
  link.textContent = party.joinUrl;
  document.getElementById('created-qr').src = `${partyPath(party.id)}/qr`;
  tvPairing(party, party.hostPin, {
    address: document.getElementById('created-tv-address'), status: document.getElementById('created-tv-paired'),
  });
  // The fragment never reaches the server or its logs; the monitor pairs with it once and forgets it.
  document.getElementById('created-monitor').href = `/monitor#party=${party.id}&hostPin=${party.hostPin}`;

  const hostPin = document.getElementById('created-host-pin');
  const reveal = document.getElementById('show-host-pin');
  reveal.addEventListener('click', () => {
    const show = hostPin.hidden;
    hostPin.textContent = show ? party.hostPin : '';
    hostPin.hidden = !show;
    reveal.setAttribute('aria-expanded', String(show));
    reveal.textContent = show ? t('start.created.hideHostPin') : t('start.created.showHostPin');
  });

  // The ready screen is the page now: the join and login cards would only compete with it.
  for (const section of document.querySelectorAll('.start > section:not(#create)')) section.hidden = true;
  document.getElementById('create-form').hidden = true;
  document.getElementById('create-heading').hidden = true;
  document.getElementById('created').hidden = false;
  document.getElementById('created-heading').focus();
}
