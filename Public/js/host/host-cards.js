import { api, partyPath } from '../api.js';
import { t } from '../i18n.js';
import { toast, showError, warnOnFailure } from '../dom.js';
import { load, save, forget } from '../storage.js';
import { ask } from '../dialog.js';
import { tvPairing } from '../tv-pairing.js';
import { setUpDeviceHint, setUpHostPin } from '../host-access.js';
import { partySettings } from '../party-settings.js';
import { playedList } from '../played-list.js';
import { pendingList } from '../pending-list.js';
import { showCohostGone, namesCohost, setUpCohostLeave, readSettings, cohostsCard } from '../cohosts.js';
import { STORAGE_KEY, ROTATED_KEY, asCohost, hostOnly, ended } from './host-session.js';
import { BlacklistCard } from './blacklist-card.js';
import { spotifyCard } from './spotify-card.js';

/** The party's PINs, join link and QR code, and the TV card (a code from the TV's QR code is claimed at once). */
export function showParty(base, party, credential, pendingTvCode) {
  document.getElementById('host-guest-pin').textContent = party.pin;
  const joinLink = document.getElementById('host-join-link');
  joinLink.href = party.joinUrl;
  joinLink.textContent = party.joinUrl;
  setUpDeviceHint(party, credential);
  if (!asCohost) showHostAccess(party, credential);
  const qr = document.getElementById('host-qr');
  qr.addEventListener('load', () => {
    document.getElementById('qr-spinner').hidden = true;
    document.getElementById('qr-frame').setAttribute('aria-busy', 'false');
    qr.hidden = false;
  }, { once: true });
  qr.src = `${base}/qr`;
  // The TV shows a code; the host types it here or scanned the TV's QR code (`#pairTv=CODE`).
  const pairTv = tvPairing(party, credential, {
    address: document.getElementById('host-tv-address'), status: document.getElementById('tv-paired'), onPaired: () => toast(t('tv.paired')),
  });
  if (pendingTvCode) {
    document.getElementById('tv-card').scrollIntoView({ block: 'center' });
    pairTv(pendingTvCode);
  }
}

/** The host PIN card; R24a: a new host PIN, and the page starts again with the new token (every part of it holds the old one). */
function showHostAccess(party, credential) {
  const hostPinCard = setUpHostPin(party.hostPin, async () => {
    const rotated = await api('POST', `${partyPath(party.id)}/host-pin`, { token: credential });
    save(STORAGE_KEY, { partyId: party.id, hostToken: rotated.hostToken });
    save(ROTATED_KEY, true);
    location.reload();
  });
  if (load(ROTATED_KEY)) {
    forget(ROTATED_KEY);
    hostPinCard.show(true);
    toast(t('host.access.rotated', { pin: party.hostPin }));
  }
}

/**
 * The cards around the queue on the host page `page` (a HostPage): blocked words, Spotify, the rules, the played
 * songs, the songs waiting for approval, the co-hosts, and ending the party or logging out. `load()` reads them all.
 */
export function setUpHostCards(page) {
  const { base, credential, party } = page;
  const blacklist = new BlacklistCard(base, credential, () => page.loadQueue());
  const spotify = spotifyCard(base, party.provider, credential);
  setUpLeaving(page);
  const played = playedList(base, credential, party.provider);
  const onHistory = (history) => played.setHistory(history);
  // R35: the host and its co-hosts decide the songs waiting for approval.
  const pending = pendingList(base, credential);
  const onApproval = (mode) => pending.setMode(mode);
  const settings = asCohost ? readSettings(base, onHistory, onApproval) : partySettings(base, credential, onHistory, onApproval);
  const cohosts = asCohost ? null : cohostsCard(base, credential);
  if (asCohost) setUpCohostLeave(() => page.events.stop());
  return {
    spotify, played, pending, settings, cohosts,
    load: () => Promise.all([blacklist.load(), spotify.loadPlaylists(), settings.load().catch(warnOnFailure('Reading the party\'s rules')),
      spotify.loadStatus().catch(warnOnFailure('Reading the Spotify login')), cohosts && cohosts.refresh(), pending.load()]),
  };
}

/** The host's "end the party" and "log out", each asked first. */
function setUpLeaving(page) {
  hostOnly('end-party', 'click', async () => {
    if (!await ask({ message: t('host.endConfirm'), confirm: t('host.end'), cancel: t('dialog.cancel'), danger: true })) return;
    try {
      await api('DELETE', page.base, { token: page.credential });
      page.events.stop();
      ended(page.partyId);
    } catch (error) {
      showError('end', error.message);
    }
  });
  // Logging out asks first and shows the PIN the way back needs.
  hostOnly('logout', 'click', async () => {
    if (!await ask({ message: t('host.logoutConfirm', { pin: page.party.hostPin }), confirm: t('host.logout'), cancel: t('dialog.cancel') })) return;
    forget(STORAGE_KEY);
    location.href = '/';
  });
}

/**
 * The events that concern the cards rather than the queue; true when the event needs nothing more from the page.
 * R33: a song that left the stage joins the played list while the party keeps its history. R35: a guest asked for a
 * song, or a host decided one (this tab or another).
 */
export function hostEvent(page, event) {
  const { type, payload } = event;
  const cards = page.cards;
  if (type === 'cohosts-updated' || type === 'cohost-revoked') {
    cohostEvent(page, event);
    return true;
  }
  if (type === 'queue-updated' && payload.reason === 'settings') cards.settings.load().catch(warnOnFailure('Reading the party\'s rules'));
  if (type === 'track-changed') cards.played.loadSoon();
  if (type === 'entry-removed' && payload.reason === 'crowd') {
    toast(t(payload.wasPlaying === 'true' ? 'host.crowdSkipped' : 'host.crowdRemoved', { name: payload.name }));
  }
  if (type === 'pending-updated') {
    cards.pending.loadSoon();
  } else if (type === 'pin-guessing') {
    toast(t('host.pinGuessing', { failures: payload.failures }));
  } else if (type === 'login-success') {
    cards.spotify.loadStatus().catch(warnOnFailure('Reading the Spotify login'));
    cards.spotify.loadPlaylists();
  } else {
    return false;
  }
  return true;
}

/** R34: the host's list follows its co-hosts; a co-host whose link was revoked stops. */
function cohostEvent(page, event) {
  if (!asCohost) {
    if (event.type === 'cohosts-updated' && event.payload.reason === 'joined') toast(t('host.cohosts.joinedToast'));
    page.cards.cohosts.refresh();
  } else if (event.type === 'cohost-revoked' && namesCohost(event.payload, page.party.cohostId)) {
    page.events.stop();
    showCohostGone('revoked');
  }
}
