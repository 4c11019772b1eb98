import { api, partyPath } from '../api.js';
import { t } from '../i18n.js';
import { el, coverImage, showError, toast, coverOf, replaceChildren } from '../dom.js';
import { connectEvents } from '../events.js';
import { NowPlaying } from '../playback-clock.js';
import { renderTracks } from '../track-list.js';
import { applyVeto, vetoSummary } from '../veto.js';
import { banControls } from '../ban.js';
import { load, save, forget, takeHashParameters } from '../storage.js';
import { pinForm } from '../pin-input.js';
import { ask } from '../dialog.js';
import { tvPairing } from '../tv-pairing.js';
import { hostSearch } from '../host-search.js';
import { undoableRemovals } from '../undo-removals.js';
import { focusTvCode, setUpDeviceHint, setUpHostPin } from '../host-access.js';
import { applyVote } from '../queue-order.js';
import { applyTrackChange, currentFromTrackChange } from '../track-change.js';
import { errorText } from '../error-text.js';
import { partySettings } from '../party-settings.js';
import { playedList } from '../played-list.js';
import { pendingList } from '../pending-list.js';
import { showRecap } from '../recap.js';
import { COHOST_KEY, isCohostPage, cohostSession, showCohostGone, namesCohost, setUpCohostLeave, readSettings, cohostsCard } from '../cohosts.js';

const STORAGE_KEY = 'musicvoting.host';
/** Set while the page reloads after a new host PIN, so it shows the new PIN once. */
const ROTATED_KEY = 'musicvoting.hostPinRotated';
const login = document.getElementById('login');
const view = document.getElementById('controls-view');
/** R34: the co-host page is this page without the cards only the host may use (the server leaves them out). */
const asCohost = isCohostPage();
/** A listener on a control only the host's page has. */
const hostOnly = (id, type, handler) => { if (!asCohost) document.getElementById(id).addEventListener(type, handler); };

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

/** The party is over: the end screen, with the recap where the party kept its history (R33). */
function ended(partyId) {
  forget(asCohost ? COHOST_KEY : STORAGE_KEY);
  view.hidden = true;
  document.getElementById('ended').hidden = false;
  // The controls are gone: focus goes to the message, not to the page's top.
  document.getElementById('ended-message').focus();
  showRecap(partyId);
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
  const base = partyPath(partyId);
  let party;
  try {
    party = await api('GET', base, { token: secret });
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
  const now = new NowPlaying();
  const playPause = document.getElementById('play-pause');
  const skip = document.getElementById('skip');
  const deviceHint = document.getElementById('device-hint');
  const stallBanner = document.getElementById('stall-banner');
  /** The provider's last message (`playback-error`), shown with a `provider-error` stall. */
  let lastPlayerError = '';
  let lastPlayerErrorAt = 0;
  const queueList = document.getElementById('queue-list');
  const queueEmpty = document.getElementById('queue-empty');
  let current = { isPlaying: false, deviceActive: false };
  let shownCover = null;

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

  const renderControls = () => {
    const enabled = Boolean(current.deviceActive);
    playPause.disabled = !enabled;
    skip.disabled = !enabled || !current.track;
    // R20a: why nobody hears the song, in one banner (it covers "no device" too).
    const stalled = current.state === 'stalled' && current.track;
    if (stalled) {
      const away = current.stallReason === 'no-monitor' && current.tvPaired;
      const reason = away ? t('host.stall.reconnecting') : (t(`host.stall.${current.stallReason}`) || t('host.stall.no-monitor'));
      replaceChildren(stallBanner, current.stallReason === 'provider-error' && lastPlayerError ? `${reason} ${lastPlayerError}` : reason);
      // Re-pairing only helps a party without a paired TV; a paired one comes back by itself.
      if (!enabled && !away) stallBanner.append(' ', el('a', { href: '#tv-card', text: t('host.enterCode'), onclick: focusTvCode }));
    }
    stallBanner.hidden = !stalled;
    // A host in another tab sees the stall in the tab's title.
    document.title = stalled ? `⚠ ${t(`now.stalled.${current.stallReason}`) || t('now.stalled.no-monitor')} · ${t('app.name')}` : pageTitle;
    deviceHint.hidden = enabled || stalled;
    const playing = Boolean(current.isPlaying && current.track);
    playPause.setAttribute('aria-label', playing ? t('host.pause') : t('host.play'));
    playPause.dataset.state = playing ? 'playing' : 'stopped';
  };

  const loadCurrent = async () => showCurrent(await api('GET', `${base}/track/current`));
  const showCurrent = (shown) => {
    current = shown;
    const image = current.track ? coverOf(current.track) : null;
    now.update(current, image === shownCover ? undefined : (image ? coverImage(image) : null));
    shownCover = image;
    renderControls();
  };

  /** The row whose actions are open (one at a time; survives live re-renders). */
  let openRow = null;
  let lastQueue = [];
  const search = hostSearch(base, party.provider, () => lastQueue, () => loadQueue(), credential);
  const renderQueue = () => {
    const shown = lastQueue.filter((entry) => !removals.pending(entry.uri));
    renderNowVeto();
    renderTracks(queueList, shown, {
      showLikes: true, showCurrent: true, extra: vetoSummary,
      actions: (entry) => {
        const open = openRow === entry.uri;
        const menuId = `actions-${entry.id}`;
        const toggle = el('button', {
          type: 'button', className: 'icon-button menu-button', 'data-action': 'menu', 'aria-expanded': String(open), 'aria-controls': menuId,
          'aria-label': `${t('host.rowActions')}: ${entry.name}`, text: '⋯',
          onclick: () => { openRow = open ? null : entry.uri; renderQueue(); },
        });
        const menu = el('div', { className: 'row-actions', id: menuId, hidden: !open }, [
          entry.isCurrentlyPlaying ? null : el('button', {
            type: 'button', className: 'button small play-now-button', 'data-action': 'play-now', text: t('host.playNow'),
            'aria-disabled': current.deviceActive ? null : 'true',
            onclick: () => (current.deviceActive ? command('PUT', '/track/play', { uri: entry.uri }) : toast(t('host.noDevice'))),
          }),
          el('button', {
            type: 'button', className: 'button small remove-button', 'data-action': 'remove', text: t('host.remove'),
            onclick: (event) => { openRow = null; removals.add(entry, { byKeyboard: event.detail === 0 }); },
          }),
          // R30: bans whoever added it without the host learning who; auto-filled songs have nobody to ban, and the
          // playing song finishes (a ban takes the waiting ones), so the ban is offered on waiting songs only.
          entry.autofilled || entry.isCurrentlyPlaying ? null : el('button', {
            type: 'button', className: 'button small danger ban-button', 'data-action': 'ban', text: t('host.ban'),
            onclick: () => ban(entry),
          }),
        ]);
        return [toggle, menu];
      },
    });
    queueEmpty.hidden = shown.length > 0;
  };
  // R30: the row menu's ban and the card's "lift all"; the page never learns who it was.
  const ban = banControls({ base, hostPin: credential, lift: document.getElementById('lift-bans'), done: () => { openRow = null; loadQueue().catch(() => {}); } });
  /** R17a: the playing song's vetoes, under its progress. */
  const nowVeto = document.getElementById('now-veto');
  const renderNowVeto = () => {
    const note = vetoSummary(lastQueue.find((entry) => entry.isCurrentlyPlaying));
    nowVeto.textContent = note;
    nowVeto.hidden = !note;
  };
  const loadQueue = async () => {
    lastQueue = (await api('GET', `${base}/track/queue`)).queue;
    renderQueue();
    search.render();
  };
  /** A like's event applied to the rows shown; false when the page must reload instead. */
  const applyLike = (payload) => {
    const reordered = applyVote(lastQueue, payload);
    if (!reordered) return false;
    lastQueue = reordered;
    renderQueue();
    search.render();
    return true;
  };
  /** A song change applied from its event; false when the page must reload instead. */
  const applySongChange = (event) => {
    const advanced = applyTrackChange(lastQueue, event.payload);
    const shown = currentFromTrackChange(event, current);
    if (!advanced || !shown) return false;
    lastQueue = advanced;
    showCurrent(shown);
    renderQueue();
    search.render();
    return true;
  };

  const removals = undoableRemovals({
    list: queueList,
    heading: document.getElementById('queue-heading'),
    shown: () => lastQueue,
    render: () => renderQueue(),
    remove: (uri) => command('DELETE', '/track/remove', { uri }),
    removeOnLeave: (uri) => api('DELETE', `${base}/track/remove`, { token: credential, body: { uri }, keepalive: true }).catch(() => {}),
  });

  const loadBlacklist = async () => {
    const { words } = await api('GET', `${base}/blacklist`, { token: credential });
    renderBlacklist(words);
  };
  const chips = document.getElementById('blacklist');
  const renderBlacklist = (words) => {
    document.getElementById('blacklist-empty').hidden = words.length > 0;
    replaceChildren(chips, ...words.map((word, index) => el('li', {}, [
      el('span', { text: word }),
      el('button', { type: 'button', className: 'icon-button', 'aria-label': `${t('host.blacklist.removeWord')}: ${word}`, text: '✕',
        onclick: () => unblock(word, index) }),
    ])));
  };
  /** After an unblock, focus goes to the word now in its place, else the one before, else the heading. */
  const unblock = async (word, index) => {
    showError('blacklist', '');
    try {
      renderBlacklist((await api('DELETE', `${base}/blacklist`, { token: credential, body: { word } })).words);
    } catch (error) {
      showError('blacklist', error.message);
      return;
    }
    const buttons = chips.querySelectorAll('button');
    (buttons[Math.min(index, buttons.length - 1)] || document.getElementById('blacklist-heading')).focus();
  };

  const spotifyCard = document.getElementById('spotify-card');
  const loadSpotify = async () => {
    if (asCohost || party.provider !== 'spotify') return;
    spotifyCard.hidden = false;
    const { loggedIn } = await api('GET', `${base}/spotify/status`);
    document.getElementById('spotify-connected').hidden = !loggedIn;
    const login = document.getElementById('spotify-login');
    login.hidden = loggedIn;
    // The browser follows the server's redirect to Spotify; the PIN proves the host (only the route is logged).
    login.href = `${base}/spotify/login?source=web&hostPin=${encodeURIComponent(credential)}`;
  };
  const outcome = new URLSearchParams(location.search).get('spotify');
  if (outcome) {
    toast(outcome === 'connected' ? t('host.spotify.connected') : t('host.spotify.denied'));
    history.replaceState(null, '', location.pathname);
  }

  const loadPlaylists = async () => {
    if (asCohost) return;
    const select = document.getElementById('playlist');
    replaceChildren(select, select.options[0]);
    showError('playlist', '');
    try {
      const { playlists } = await api('GET', `${base}/spotify/playlists`, { token: credential });
      for (const playlist of playlists) select.append(el('option', { value: playlist.id, text: playlist.name }));
    } catch (error) {
      showError('playlist', error.message);
    }
  };

  /** A host command, then the fresh state: its answer (true when it has none); false (and why) when refused. */
  async function command(method, path, body) {
    try {
      const answer = await api(method, `${base}${path}`, { token: credential, body });
      await Promise.all([loadCurrent(), loadQueue()]);
      return answer == null ? true : answer;
    } catch (error) {
      if (asCohost && error.code === 'cohost_revoked') {
        events.stop();
        showCohostGone('revoked');
        return false;
      }
      toast(error.message);
      if (error.status === 404) ended(partyId);
      return false;
    }
  }

  playPause.addEventListener('click', async () => {
    if (current.isPlaying && current.track) return command('POST', '/track/pause');
    if (current.track) return command('POST', '/track/resume');
    // Start on an empty queue refills first (R15); `{"status":"empty"}` means the refill had nothing either: say
    // so instead of nothing, with the provider's reason when a `playback-error` just gave one.
    const answer = await command('POST', '/track/start');
    if (answer && answer.status === 'empty') toast(Date.now() - lastPlayerErrorAt < 5000 ? `${t('host.startEmpty')} ${lastPlayerError}` : t('host.startEmpty'));
    return answer;
  });
  // Say what the skip did: the next song, an empty queue, or why it was refused (the toast of `command`).
  skip.addEventListener('click', async () => {
    const before = current.track ? current.track.id : undefined;
    if (!await command('POST', '/track/next')) return;
    if (!current.track) toast(t('host.skippedToEmpty'));
    else if (current.track.id === before) toast(t('host.skipNotTaken'));
    // The TV cannot hear right now; the skip waits for it (it plays what the server says when back).
    else if (current.state === 'stalled') toast(t('host.skipPending', { name: current.track.name }));
    else toast(t('host.skippedTo', { name: current.track.name }));
  });

  document.getElementById('blacklist-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const input = document.getElementById('blacklist-word');
    showError('blacklist', '');
    // A blank word is the page's own mistake to name, in its language (the server's "Missing word" is for the API).
    if (!input.value.trim()) {
      showError('blacklist', t('host.blacklist.missing'));
      input.focus();
      return;
    }
    let answer;
    try {
      answer = await api('PUT', `${base}/blacklist`, { token: credential, body: { word: input.value } });
    } catch (error) {
      showError('blacklist', error.message);
      return;
    }
    renderBlacklist(answer.words);
    input.value = '';
    await offerToRemove(answer.matching || []);
  });

  /** The waiting songs the new word blocks (the server's rule, `matching`), removed when the host says so. */
  async function offerToRemove(uris) {
    if (!uris.length) return;
    const message = uris.length === 1 ? t('host.blacklist.matchingOne') : t('host.blacklist.matchingMany', { count: uris.length });
    if (!await ask({ message, confirm: t('host.remove'), cancel: t('host.blacklist.keep') })) return;
    let removed = 0;
    for (const uri of uris) {
      try {
        await api('DELETE', `${base}/track/remove`, { token: credential, body: { uri } });
        removed += 1;
      } catch (error) {
        // Gone meanwhile (played, removed elsewhere) is fine; anything else is said and stops the round.
        if (error.code !== 'not_in_queue') { toast(error.message); break; }
      }
    }
    if (removed) toast(t('host.blacklist.removedMatching', { count: removed }));
    await loadQueue().catch(() => {});
  }

  hostOnly('playlist', 'change', async (event) => {
    showError('playlist', '');
    try {
      await api('PUT', `${base}/default-playlist`, { token: credential, body: { playlistId: event.target.value } });
    } catch (error) {
      showError('playlist', error.message);
    }
  });

  hostOnly('end-party', 'click', async () => {
    if (!await ask({ message: t('host.endConfirm'), confirm: t('host.end'), cancel: t('dialog.cancel'), danger: true })) return;
    try {
      await api('DELETE', base, { token: credential });
      events.stop();
      ended(partyId);
    } catch (error) {
      showError('end', error.message);
    }
  });

  // Logging out asks first and shows the PIN the way back needs.
  hostOnly('logout', 'click', async () => {
    if (!await ask({ message: t('host.logoutConfirm', { pin: party.hostPin }), confirm: t('host.logout'), cancel: t('dialog.cancel') })) return;
    forget(STORAGE_KEY);
    location.href = '/';
  });

  let reloadTimer;
  const reloadSoon = () => {
    clearTimeout(reloadTimer);
    reloadTimer = setTimeout(() => { loadCurrent().catch(() => {}); loadQueue().catch(() => {}); }, 60);
  };
  const played = playedList(base, credential, party.provider);
  const onHistory = (history) => played.setHistory(history);
  // R35: the host and its co-hosts decide the songs waiting for approval.
  const pending = pendingList(base, credential);
  const onApproval = (mode) => pending.setMode(mode);
  const settings = asCohost ? readSettings(base, onHistory, onApproval) : partySettings(base, credential, onHistory, onApproval);
  const cohosts = asCohost ? null : cohostsCard(base, credential);
  if (asCohost) setUpCohostLeave(() => events.stop());
  /** R34: the host's list follows its co-hosts; a co-host whose link was revoked stops. */
  const onCohostEvent = (event) => {
    if (!asCohost) {
      if (event.type === 'cohosts-updated' && event.payload.reason === 'joined') toast(t('host.cohosts.joinedToast'));
      cohosts.refresh();
    } else if (event.type === 'cohost-revoked' && namesCohost(event.payload, party.cohostId)) {
      events.stop();
      showCohostGone('revoked');
    }
  };
  const events = connectEvents(partyId, {
    hostPin: credential,
    onEvent: (event) => {
      if (event.type === 'cohosts-updated' || event.type === 'cohost-revoked') return onCohostEvent(event);
      if (event.type === 'queue-updated' && event.payload.reason === 'settings') settings.load().catch(() => {});
      // R33: a song left the stage; while the party keeps its history it joins the played list.
      if (event.type === 'track-changed') played.loadSoon();
      if (event.type === 'entry-removed' && event.payload.reason === 'crowd') {
        toast(t(event.payload.wasPlaying === 'true' ? 'host.crowdSkipped' : 'host.crowdRemoved', { name: event.payload.name }));
      }
      // R35: a guest asked for a song, or a host decided one (this tab or another).
      if (event.type === 'pending-updated') return pending.loadSoon();
      if (event.type === 'playback-error') {
        lastPlayerError = errorText(event.payload.code, event.payload.message || '');
        lastPlayerErrorAt = Date.now();
        toast(lastPlayerError);
        reloadSoon();
      } else if (event.type === 'pin-guessing') {
        toast(t('host.pinGuessing', { failures: event.payload.failures }));
      } else if (event.type === 'login-success') {
        loadSpotify().catch(() => {});
        loadPlaylists();
      } else if (event.type === 'device-changed') {
        current.deviceActive = event.payload.deviceActive === 'true';
        renderControls();
        renderQueue(); // "play now" in the row menus follows the TV
      } else if (event.type === 'veto-updated' && applyVeto(lastQueue, event.payload)) {
        renderQueue();
        renderNowVeto();
      } else if (event.type === 'vote-updated' && applyLike(event.payload)) {
        // Applied from the event: no queue fetch per like.
      } else if (event.type === 'track-changed' && applySongChange(event)) {
        // Applied from the event too; the `queue-updated` (advance) that follows says nothing more.
      } else if (event.type === 'queue-updated' && event.payload.reason === 'advance') {
        // See above: a page that could not apply the song change reloaded already.
      } else if (event.type !== 'progress') {
        reloadSoon();
      }
    },
    onResync: () => { reloadSoon(); pending.loadSoon(); },
    onEnded: () => ended(partyId),
  });

  await Promise.all([loadCurrent(), loadQueue(), loadBlacklist(), loadPlaylists(), settings.load().catch(() => {}), loadSpotify().catch(() => {}),
    cohosts && cohosts.refresh(), pending.load()]);
}

const pageTitle = document.title;

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
