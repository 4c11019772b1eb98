import { api } from '../api.js';
import { t } from '../i18n.js';
import { toast } from '../dom.js';
import { ask } from '../dialog.js';

/** What the guest's buttons do on the page `page` (a GuestPage): add, remove an own song, like, veto. */

export async function add(page, track) {
  if (page.limits.waiting()) return toast(page.limits.waitText());
  try {
    const answer = await api('POST', `${page.base}/track/addToPlaylist`, { body: { uri: track.uri, deviceId: page.device } });
    // R35: the party's approval holds this guest's add until the host decides.
    toast(answer && answer.status === 'pending' ? t('guest.pending.added') : t('guest.added'));
    await page.loadQueue();
  } catch (error) {
    await addRefused(page, track, error);
  }
}

async function addRefused(page, track, error) {
  if (error.status === 409 && error.code === 'duplicate') {
    // Someone queued it (or another version of it, R10a) a moment ago: say where it waits, offer the like instead.
    const existingUri = error.body.existingUri || track.uri;
    const message = error.body.position ? t('guest.duplicate.questionAt', { position: error.body.position }) : t('guest.duplicate.question');
    const likeInstead = await ask({ message, confirm: t('guest.duplicate.like'), cancel: t('dialog.cancel') });
    await page.loadQueue();
    const entry = page.live.queue.find((candidate) => candidate.uri === existingUri && !candidate.isCurrentlyPlaying);
    if (likeInstead && entry && !entry.hasVoted) await toggleLike(page, entry);
  } else if (error.status === 429 && error.code === 'rate_limited') {
    toast(t('guest.rateLimited'));
    page.limits.hold(error.retryAfter || 60);
  } else if (error.status === 403 && error.code === 'blacklisted') {
    page.refused.add(track.uri);
    toast(t('guest.blockedHint'));
    page.search.render();
  } else {
    toast(error.message);
  }
}

/** R18b: the guest removes an own waiting song; it can add it again for a few seconds. */
export async function removeOwn(page, entry) {
  try {
    await api('DELETE', `${page.base}/track/remove`, { body: { uri: entry.uri, deviceId: page.device } });
  } catch (error) {
    toast(error.message);
    await page.loadQueue();
    return;
  }
  page.live.queue = page.live.queue.filter((candidate) => candidate.id !== entry.id);
  page.renderQueue();
  page.undo.offer(entry);
}

export async function toggleLike(page, entry) {
  const current = page.likeShown(entry);
  const optimistic = { liked: !current.liked, likeCount: current.likeCount + (current.liked ? -1 : 1) };
  page.pendingLikes.set(entry.uri, optimistic);
  page.renderQueue();
  try {
    // The wanted state, not a toggle: a like sent again after a 503 (the database away) counts once.
    const body = { uri: entry.uri, deviceId: page.device, liked: optimistic.liked };
    const result = await api('POST', `${page.base}/track/vote`, { body }).catch((error) => {
      if (error.status !== 503) throw error;
      return new Promise((resolve) => { setTimeout(resolve, 2000); }).then(() => api('POST', `${page.base}/track/vote`, { body }));
    });
    entry.hasVoted = result.liked;
    entry.likeCount = result.likeCount;
    page.pendingLikes.delete(entry.uri);
    // The new order arrives with the like's event (applied without a fetch).
    page.renderQueue();
  } catch (error) {
    toast(error.message);
    // A like that failed (offline too) shows what the server has, not the optimistic guess.
    page.pendingLikes.delete(entry.uri);
    page.renderQueue();
    await page.loadQueue();
  }
}

/** R17a: the guest's veto on a song, shown at once and corrected by the server's answer. */
export async function toggleVeto(page, entry) {
  const current = page.vetoShown(entry);
  page.pendingVetoes.set(entry.id, { vetoed: !current.vetoed, vetoCount: current.vetoCount + (current.vetoed ? -1 : 1) });
  page.renderQueue();
  try {
    const result = await api('POST', `${page.base}/track/veto`, { body: { uri: entry.uri, deviceId: page.device } });
    entry.hasVetoed = result.vetoed;
    entry.vetoCount = result.vetoCount;
    entry.vetoNeeded = result.vetoNeeded;
  } catch (error) {
    toast(error.message);
  } finally {
    page.pendingVetoes.delete(entry.id);
    page.renderQueue();
    await page.loadQueue();
  }
}
