import { api, partyPath } from '../api.js';
import { t, tn } from '../i18n.js';
import { el, coverImage, guardCovers, toast, coverOf, replaceChildren, focusFirst } from '../dom.js';
import { connectEvents } from '../events.js';
import { NowPlaying } from '../playback-clock.js';
import { renderTracks, updateStartTimes } from '../track-list.js';
import { minutesUntil } from '../start-times.js';
import { deviceId } from '../storage.js';
import { ask } from '../dialog.js';
import { tabs } from '../tabs.js';
import { applyVote } from '../queue-order.js';
import { applyTrackChange, currentFromTrackChange } from '../track-change.js';
import { vetoIsOn, applyVeto } from '../veto.js';
import { StartClock } from '../start-times.js';
import { showRecap } from '../recap.js';
import { ownPending } from '../own-pending.js';
import { nicknameForm } from '../nickname-form.js';

const root = document.getElementById('guest');
const partyId = root.dataset.party;
guardCovers();

if (partyId) start();

function start() {
  const device = deviceId();
  const base = partyPath(partyId);
  const now = new NowPlaying();
  // R18a: the times count down while the song plays (the server's are from when the queue was read).
  const times = new StartClock(now);
  const queueList = document.getElementById('queue-list');
  const queueEmpty = document.getElementById('queue-empty');
  const results = document.getElementById('results');
  const caption = document.getElementById('results-caption');
  const search = document.getElementById('search');
  const queueCount = document.getElementById('queue-count');
  tabs(document.querySelector('.tabs'));
  let queue = [];
  let lastResults = [];
  /** Likes the guest just toggled, shown before the server confirms (rolled back on error). */
  const pendingLikes = new Map();
  /** R17a: vetoes the guest just toggled, shown before the server confirms. */
  const pendingVetoes = new Map();

  // An auto-filled song can be asked for: the server promotes it to a guest song (R9). Only guest songs show ✓.
  const requestedUris = () => new Set(queue.filter((entry) => !entry.isCurrentlyPlaying && !entry.autofilled).map((entry) => entry.uri));
  const autofilledUris = () => new Set(queue.filter((entry) => !entry.isCurrentlyPlaying && entry.autofilled).map((entry) => entry.uri));
  /** R35: this guest's songs waiting for the host's approval, and their fate. */
  const waitingSongs = ownPending();
  /** R36: the nickname field, while the party shows nicknames. */
  const nickname = nicknameForm(base, device, () => loadQueue());
  const loadSettings = () => api('GET', `${base}/settings`).then((settings) => nickname.setEnabled(Boolean(settings.nicknames)),
    (error) => console.error('settings', error));
  /** Songs the server refused for the blacklist (R12), besides those the search marks `blocked`. */
  const refused = new Set();
  /** R11: after a 429 the "+" buttons wait for `Retry-After`, with a countdown. */
  let addsAllowedAt = 0;
  const addWait = document.getElementById('add-wait');
  let addWaitTimer;

  const likeButton = (entry) => {
    const pending = pendingLikes.get(entry.uri);
    const liked = pending ? pending.liked : entry.hasVoted;
    const count = pending ? pending.likeCount : entry.likeCount;
    return el('button', {
      type: 'button', className: `icon-button like-button${liked ? ' liked' : ''}`, 'data-action': 'like',
      'aria-pressed': liked ? 'true' : 'false', 'aria-label': `${liked ? t('guest.unlike') : t('guest.like')}: ${entry.name} (${count} ${tn('queue.likes', count)})`,
      text: `♥ ${count}`, onclick: () => toggleLike(entry),
    });
  };

  /** R17a: "⏭ 1/3" beside the like; never on the guest's own song. `large`: the button under the playing song. */
  const vetoButton = (entry, large = false) => {
    const pending = pendingVetoes.get(entry.id);
    const vetoed = pending ? pending.vetoed : entry.hasVetoed;
    const count = pending ? pending.vetoCount : entry.vetoCount;
    const tally = t('veto.count', { count, needed: entry.vetoNeeded });
    return el('button', {
      type: 'button', className: `icon-button veto-button${vetoed ? ' vetoed' : ''}${large ? ' large' : ''}`, 'data-action': 'veto',
      'aria-pressed': vetoed ? 'true' : 'false', title: t('veto.hint'),
      'aria-label': `${vetoed ? t('veto.undo') : t('veto.button')}: ${entry.name} (${tally})`, onclick: () => toggleVeto(entry),
    }, [skipIcon(), large ? `${t('veto.button')} · ${tally}` : `${count}/${entry.vetoNeeded}`]);
  };
  /** The host's skip icon (an SVG: the ⏭ character needs an emoji font many TVs and Linux boxes lack). */
  const skipIcon = () => {
    const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
    svg.setAttribute('viewBox', '0 0 24 24');
    svg.setAttribute('aria-hidden', 'true');
    svg.setAttribute('class', 'veto-icon');
    const path = document.createElementNS('http://www.w3.org/2000/svg', 'path');
    path.setAttribute('d', 'M6 5l9 7-9 7zM16 5h2.5v14H16z');
    svg.append(path);
    return svg;
  };
  const mayVeto = (entry) => vetoIsOn(entry) && !entry.mine;

  /** R17a: the playing song's veto, under its progress (the queue list shows only the waiting songs). */
  const nowVeto = document.getElementById('now-veto');
  const renderNowVeto = () => {
    const playing = queue.find((entry) => entry.isCurrentlyPlaying);
    const hadFocus = nowVeto.contains(document.activeElement);
    nowVeto.hidden = !playing || !mayVeto(playing);
    replaceChildren(nowVeto, ...(nowVeto.hidden ? [] : [vetoButton(playing, true)]));
    // The button is drawn anew (or gone with its song): focus stays on it, or moves to the song now playing.
    if (hadFocus) focusFirst(nowVeto.hidden ? '#now-title' : 'button', nowVeto.hidden ? document : nowVeto);
  };

  let lastCurrent = null;
  /** R16/R20a: songs wait and nothing plays: say whether for a TV or for the host's start. */
  const renderWaiting = () => {
    if (!lastCurrent || lastCurrent.track || !queue.length) return;
    now.artist.textContent = lastCurrent.deviceActive ? t('now.waitingForHost') : t('now.waitingForTv');
  };

  /** R18a: this guest's own waiting songs (the server marks them `mine`), with their place and time. */
  const mySongs = document.getElementById('my-songs');
  const renderMySongs = (waiting) => {
    const mine = waiting.map((entry, index) => ({ entry, place: index + 1 })).filter(({ entry }) => entry.mine);
    mySongs.hidden = mine.length === 0;
    replaceChildren(document.getElementById('my-songs-list'), ...mine.map(({ entry, place }) => el('li', {
      text: t('guest.mySongs.entry', { name: entry.name, place, minutes: minutesUntil(times.remaining(entry.startsInMs || 0)) }),
    })));
  };

  /** R18b: ✕ on the guest's own waiting songs. */
  const removeButton = (entry) => el('button', {
    type: 'button', className: 'icon-button remove-own-button', 'data-action': 'remove',
    'aria-label': `${t('guest.removeOwn')}: ${entry.name}`, title: t('guest.removeOwn'), text: '✕', onclick: () => removeOwn(entry),
  });

  const renderQueue = () => {
    renderWaiting();
    const waiting = queue.filter((entry) => !entry.isCurrentlyPlaying);
    renderTracks(queueList, waiting, {
      actions: (entry) => [likeButton(entry), mayVeto(entry) ? vetoButton(entry) : null, entry.mine ? removeButton(entry) : null],
      showStart: true, startClock: times,
    });
    renderMySongs(waiting);
    renderNowVeto();
    queueEmpty.hidden = waiting.length > 0;
    queueCount.textContent = String(waiting.length);
    renderResults(lastResults);
  };

  /** A state shown as a button so keyboards and screen readers reach it; pressing it explains. */
  const stateButton = (track, symbol, label, explanation) => el('button', {
    type: 'button', className: 'icon-button state-button', 'data-action': 'add', 'aria-disabled': 'true',
    'aria-label': `${label}: ${track.name}`, text: symbol, onclick: () => toast(explanation),
  });

  const renderResults = (tracks) => {
    lastResults = tracks;
    const requested = requestedUris();
    const autofilled = autofilledUris();
    const waitingForHost = waitingSongs.uris();
    const waiting = Date.now() < addsAllowedAt;
    renderTracks(results, tracks.map((track) => ({ ...track, autofilled: autofilled.has(track.uri) })), {
      actions: (track) => {
        if (requested.has(track.uri)) return [stateButton(track, '✓', t('guest.queued'), t('guest.queued'))];
        if (waitingForHost.has(track.uri)) return [stateButton(track, '…', t('guest.pending.state'), t('guest.pending.added'))];
        if (track.blocked || refused.has(track.uri)) return [stateButton(track, '⊘', t('guest.blocked'), t('guest.blockedHint'))];
        const label = track.autofilled ? t('guest.promote') : t('guest.add');
        return [el('button', {
          type: 'button', className: 'icon-button add-button', 'data-action': 'add', 'aria-label': `${label}: ${track.name}`,
          'aria-disabled': waiting ? 'true' : null, text: '+', onclick: () => add(track),
        })];
      },
    });
    if (!tracks.length) replaceChildren(results, el('li', { className: 'empty', text: t('guest.search.none') }));
  };

  const holdAdds = (seconds) => {
    addsAllowedAt = Date.now() + seconds * 1000;
    clearInterval(addWaitTimer);
    const tick = () => {
      const left = Math.ceil((addsAllowedAt - Date.now()) / 1000);
      addWait.hidden = left <= 0;
      if (left <= 0) {
        clearInterval(addWaitTimer);
        renderResults(lastResults);
      } else {
        addWait.textContent = t('guest.addWait', { seconds: left });
      }
    };
    tick();
    addWaitTimer = setInterval(tick, 1000);
    renderResults(lastResults);
  };

  /** R18b: the add budget of the last queue read ("noch N Songs, nächster in ~S s"), counted down from then. */
  let budget = null;
  let budgetReadAt = 0;
  const budgetLine = document.getElementById('add-budget');
  const renderBudget = () => {
    const waitMs = budget ? budget.nextAddInMs - (Date.now() - budgetReadAt) : 0;
    budgetLine.hidden = !budget || budget.addsLeft === 0 || waitMs <= 0;
    if (!budgetLine.hidden) budgetLine.textContent = tn('guest.budget', budget.addsLeft, { seconds: Math.ceil(waitMs / 1000) });
    // An add came back: read the budget again (at most once per add, so ten reads a minute at most).
    if (budget && budget.nextAddInMs > 0 && waitMs <= 0) {
      budget.nextAddInMs = 0;
      loadQueue();
    }
  };
  const applyBudget = (next) => {
    if (!next) return;
    budget = next;
    budgetReadAt = Date.now();
    if (budget.addsLeft === 0 && budget.nextAddInMs > 0) holdAdds(Math.ceil(budget.nextAddInMs / 1000));
    renderBudget();
  };
  setInterval(renderBudget, 1000);

  const loadQueue = async () => {
    try {
      const body = await api('GET', `${base}/track/queue?deviceId=${encodeURIComponent(device)}`);
      queue = body.queue;
      waitingSongs.update(body.pending);
      nickname.setKnown(body.nickname);
      times.mark();
      renderQueue();
      applyBudget(body.budget);
    } catch (error) {
      if (error.status === 404) ended();
    }
  };

  const showCurrent = (current) => {
    const image = current.track ? coverOf(current.track) : null;
    now.update(current, image ? coverImage(image) : null);
    lastCurrent = current;
    renderWaiting();
  };

  const loadCurrent = async () => {
    try {
      showCurrent(await api('GET', `${base}/track/current`));
    } catch (error) {
      if (error.status === 404) ended();
    }
  };

  let searchTimer;
  let searchSequence = 0;
  const runSearch = async () => {
    const sequence = ++searchSequence;
    const query = search.value.trim();
    try {
      const body = await api('GET', `${base}/track/search?q=${encodeURIComponent(query)}`);
      if (sequence !== searchSequence) return;
      caption.textContent = query ? t('guest.search.results') : t('guest.search.top');
      renderResults(body.tracks.items);
    } catch (error) {
      if (sequence === searchSequence) {
        replaceChildren(results, el('li', { className: 'error', text: error.message }));
      }
    }
  };
  // Remote catalogues cost quota per search (YouTube: about 100 a day): wait for a pause in typing
  // and for at least two characters there; the in-memory ones answer as you type.
  const remote = ['youtube', 'spotify'].includes(root.dataset.provider);
  search.addEventListener('input', () => {
    clearTimeout(searchTimer);
    const query = search.value.trim();
    if (remote && query.length === 1) return;
    searchTimer = setTimeout(runSearch, remote ? 700 : 250);
  });

  async function add(track) {
    if (Date.now() < addsAllowedAt) return toast(addWait.textContent);
    try {
      const answer = await api('POST', `${base}/track/addToPlaylist`, { body: { uri: track.uri, deviceId: device } });
      // R35: the party's approval holds this guest's add until the host decides.
      toast(answer && answer.status === 'pending' ? t('guest.pending.added') : t('guest.added'));
      await loadQueue();
    } catch (error) {
      if (error.status === 409 && error.code === 'duplicate') {
        // Someone queued it (or another version of it, R10a) a moment ago: say where it waits, offer the like instead.
        const existingUri = error.body.existingUri || track.uri;
        const message = error.body.position ? t('guest.duplicate.questionAt', { position: error.body.position }) : t('guest.duplicate.question');
        const likeInstead = await ask({ message, confirm: t('guest.duplicate.like'), cancel: t('dialog.cancel') });
        await loadQueue();
        const entry = queue.find((candidate) => candidate.uri === existingUri && !candidate.isCurrentlyPlaying);
        if (likeInstead && entry && !entry.hasVoted) await toggleLike(entry);
      } else if (error.status === 429 && error.code === 'rate_limited') {
        toast(t('guest.rateLimited'));
        holdAdds(error.retryAfter || 60);
      } else if (error.status === 403 && error.code === 'blacklisted') {
        refused.add(track.uri);
        toast(t('guest.blockedHint'));
        renderResults(lastResults);
      } else {
        toast(error.message);
      }
    }
  }

  /** R18b: a removed own song can be added again for a few seconds (it queues anew: its likes and place are gone). */
  const undoBar = document.getElementById('undo-bar');
  let undoEntry = null;
  let undoTimer;
  const closeUndo = () => {
    clearTimeout(undoTimer);
    undoEntry = null;
    const hadFocus = undoBar.contains(document.activeElement);
    undoBar.hidden = true;
    if (hadFocus) focusFirst('#queue-heading');
  };
  document.getElementById('undo').addEventListener('click', () => {
    const entry = undoEntry;
    closeUndo();
    if (entry) add(entry);
  });
  document.getElementById('undo-dismiss').addEventListener('click', closeUndo);

  async function removeOwn(entry) {
    try {
      await api('DELETE', `${base}/track/remove`, { body: { uri: entry.uri, deviceId: device } });
    } catch (error) {
      toast(error.message);
      await loadQueue();
      return;
    }
    queue = queue.filter((candidate) => candidate.id !== entry.id);
    renderQueue();
    undoEntry = entry;
    document.getElementById('undo-text').textContent = t('guest.ownRemoved', { name: entry.name });
    undoBar.hidden = false;
    clearTimeout(undoTimer);
    undoTimer = setTimeout(closeUndo, 6000);
  }

  async function toggleLike(entry) {
    const current = pendingLikes.get(entry.uri) || { liked: entry.hasVoted, likeCount: entry.likeCount };
    const optimistic = { liked: !current.liked, likeCount: current.likeCount + (current.liked ? -1 : 1) };
    pendingLikes.set(entry.uri, optimistic);
    renderQueue();
    try {
      // The wanted state, not a toggle: a like sent again after a 503 (the database away) counts once.
      const body = { uri: entry.uri, deviceId: device, liked: optimistic.liked };
      const result = await api('POST', `${base}/track/vote`, { body }).catch((error) => {
        if (error.status !== 503) throw error;
        return new Promise((resolve) => { setTimeout(resolve, 2000); }).then(() => api('POST', `${base}/track/vote`, { body }));
      });
      entry.hasVoted = result.liked;
      entry.likeCount = result.likeCount;
      pendingLikes.delete(entry.uri);
      // The new order arrives with the like's event (applied without a fetch).
      renderQueue();
    } catch (error) {
      toast(error.message);
      // A like that failed (offline too) shows what the server has, not the optimistic guess.
      pendingLikes.delete(entry.uri);
      renderQueue();
      await loadQueue().catch(() => {});
    }
  }

  async function toggleVeto(entry) {
    const current = pendingVetoes.get(entry.id) || { vetoed: entry.hasVetoed, vetoCount: entry.vetoCount };
    pendingVetoes.set(entry.id, { vetoed: !current.vetoed, vetoCount: current.vetoCount + (current.vetoed ? -1 : 1) });
    renderQueue();
    try {
      const result = await api('POST', `${base}/track/veto`, { body: { uri: entry.uri, deviceId: device } });
      entry.hasVetoed = result.vetoed;
      entry.vetoCount = result.vetoCount;
      entry.vetoNeeded = result.vetoNeeded;
    } catch (error) {
      toast(error.message);
    } finally {
      pendingVetoes.delete(entry.id);
      renderQueue();
      await loadQueue().catch(() => {});
    }
  }

  function ended() {
    if (events) events.stop();
    document.getElementById('party-view').hidden = true;
    // The old PIN leads nowhere now: the header stops showing it.
    const pinBar = document.getElementById('bar-pin');
    if (pinBar) pinBar.remove();
    document.getElementById('ended').hidden = false;
    showRecap(partyId);
  }

  /** A song of this guest's left by the crowd's veto, the host or a ban: said once, in the page's language. */
  const toldRemovals = new Set();
  const tellRemoval = (payload) => {
    const own = queue.some((entry) => String(entry.id) === payload.entryId && entry.mine);
    if (!own || toldRemovals.has(payload.entryId)) return;
    toldRemovals.add(payload.entryId);
    toast(t(payload.reason === 'crowd' ? 'guest.removed.crowd' : 'guest.removed.host', { name: payload.name }));
  };

  let reloadTimer;
  const reloadSoon = () => {
    clearTimeout(reloadTimer);
    reloadTimer = setTimeout(() => { loadQueue(); loadCurrent(); }, 80);
  };

  const events = connectEvents(partyId, {
    onEvent: (event) => {
      // Likes and song changes are applied from the event; a page that holds something else reloads.
      if (event.type === 'entry-removed') tellRemoval(event.payload);
      // R35: only this guest's own waiting songs concern the page (an approved one arrives with `queue-updated`).
      if (event.type === 'pending-updated') {
        if (waitingSongs.apply(event.payload)) renderResults(lastResults);
        return;
      }
      if (event.type === 'veto-updated' && applyVeto(queue, event.payload)) { renderQueue(); return; }
      if (event.type === 'vote-updated') {
        times.settle(queue);
        const reordered = applyVote(queue, event.payload);
        if (reordered) { queue = reordered; renderQueue(); return; }
      }
      if (event.type === 'track-changed') {
        const advanced = applyTrackChange(queue, event.payload);
        const shown = currentFromTrackChange(event, lastCurrent);
        if (advanced && shown) {
          queue = advanced;
          times.mark();
          showCurrent(shown);
          renderQueue();
          return;
        }
      }
      if (event.type === 'queue-updated' && event.payload.reason === 'advance') return;
      // R36: the host turned nicknames on or off.
      if (event.type === 'queue-updated' && event.payload.reason === 'settings') loadSettings();
      if (['queue-updated', 'vote-updated', 'veto-updated', 'entry-removed', 'track-changed', 'playback-changed', 'playback-stalled', 'device-changed'].includes(event.type)) reloadSoon();
    },
    onResync: reloadSoon,
    onEnded: ended,
  });

  setInterval(() => {
    updateStartTimes(queueList, queue, times);
    renderMySongs(queue.filter((entry) => !entry.isCurrentlyPlaying));
  }, 5000);

  // R17a: this guest counts as active from the moment it opens the party.
  if (root.dataset.pin) api('GET', `/api/party/join/${encodeURIComponent(root.dataset.pin)}?deviceId=${encodeURIComponent(device)}`).catch(() => {});
  loadQueue();
  loadCurrent();
  loadSettings();
  runSearch();
}
