import { api, partyPath } from '../api.js';
import { t } from '../i18n.js';
import { showError, toast } from '../dom.js';
import { load, save, forget, takeHashParameters } from '../storage.js';
import { pinForm } from '../pin-input.js';
import { ask } from '../dialog.js';
import { cohostSession, showCohostGone } from '../cohosts.js';
import { STORAGE_KEY, asCohost, ended } from '../host/host-session.js';
import { HostPage } from '../host/host-page.js';

const login = document.getElementById('login');
const view = document.getElementById('controls-view');

function showLogin() {
  view.hidden = true;
  login.hidden = false;
  document.getElementById('login-tv-hint').hidden = !pendingTvCode;
  const pin = pinForm('login', async (hostPin) => {
    const party = await api('GET', `/api/party/host-join/${hostPin}`);
    login.hidden = true;
    run(party.id, party.hostToken || hostPin);
  }, t('host.wrongPin'));
  pin.focus();
}

/** R34: the co-host's link was refused: revoked, not valid, or its party is over. */
function cohostRefused(partyId, error) {
  if (error.status === 404) return ended(partyId);
  if (error.status === 403) return showCohostGone(error.code === 'cohost_revoked' ? 'revoked' : 'invalid');
  toast(error.message);
}

/**
 * The host's page for the party, signed in with `secret`: the host PIN or (R24a) the host token. The page keeps the
 * token from then on: nobody's PIN guessing on this network ever locks it out.
 */
async function run(partyId, secret) {
  let party;
  try {
    party = await api('GET', partyPath(partyId), { token: secret });
  } catch (error) {
    if (asCohost) return cohostRefused(partyId, error);
    forget(STORAGE_KEY);
    if (error.status === 404 || error.status === 403) return showLogin();
    toast(error.message);
    return;
  }
  if (asCohost && party.role !== 'cohost') return showCohostGone('invalid');
  if (!asCohost && !party.hostPin) { forget(STORAGE_KEY); return showLogin(); }
  const credential = party.hostToken || secret;
  if (!asCohost) save(STORAGE_KEY, { partyId, hostToken: credential });
  view.hidden = false;
  await new HostPage(partyId, party, credential).start(pendingTvCode);
}

const hash = takeHashParameters();
/** A TV's pairing code from its QR code, claimed once the host is logged in. */
const pendingTvCode = /^\d{6}$/.test(hash.get('pairTv') || '') ? hash.get('pairTv') : null;
start();

/** The saved session's secret: the host token, or the host PIN of a session saved before tokens existed. */
function secretOf(session) {
  return session && session.partyId && (session.hostToken || session.hostPin);
}

/**
 * A link may name a party: `#party=ID&hostPin=PIN`, or (R24a) `#party=ID&recovery=TOKEN` from the server's console
 * (`musicvoting host-link`). It never replaces the saved session of another party without asking: a guest could
 * send the host a link into the guest's own party.
 */
async function start() {
  if (asCohost) {
    const session = cohostSession(hash);
    return session ? run(session.partyId, session.token) : showCohostGone('missing');
  }
  const saved = load(STORAGE_KEY);
  const linked = hash.get('party');
  if (!linked || !(hash.get('hostPin') || hash.get('recovery'))) return secretOf(saved) ? run(saved.partyId, secretOf(saved)) : showLogin();
  if (secretOf(saved) && saved.partyId !== linked
      && !await ask({ message: t('host.switchPartyConfirm'), confirm: t('host.switchParty'), cancel: t('dialog.cancel') })) {
    return run(saved.partyId, secretOf(saved));
  }
  if (!hash.get('recovery')) return run(linked, hash.get('hostPin'));
  try {
    const recovered = await api('POST', `${partyPath(linked)}/host-recovery`, { body: { token: hash.get('recovery') } });
    toast(t('host.recovered'));
    return run(recovered.id, recovered.hostToken);
  } catch (error) {
    const message = error.status === 403 ? t('host.recoveryUsed') : error.message;
    if (secretOf(saved)) {
      toast(message);
      return run(saved.partyId, secretOf(saved));
    }
    showLogin();
    return showError('login', message);
  }
}
