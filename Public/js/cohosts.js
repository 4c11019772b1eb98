import { api } from './api.js';
import { t } from './i18n.js';
import { el, replaceChildren, showError, toast } from './dom.js';
import { ask } from './dialog.js';
import { load, save, forget } from './storage.js';

/** Where a co-host's phone keeps its link (R34): apart from the host's own session on the same phone. */
export const COHOST_KEY = 'musicvoting.cohost';

/** Whether this is the co-host page: `/cohost` renders the host page without the cards only the host may use. */
export const isCohostPage = () => document.getElementById('host').dataset.role === 'cohost';

/**
 * The co-host's link: from the fragment the host's link carries (`#party=ID&cohost=TOKEN`, kept on this phone from
 * then on), else the one this phone kept; null when there is none.
 */
export function cohostSession(hash) {
  const partyId = hash.get('party');
  const token = hash.get('cohost') || '';
  if (partyId && /^[0-9a-f]{32}$/.test(token)) save(COHOST_KEY, { partyId, token });
  const saved = load(COHOST_KEY);
  return saved && saved.partyId && saved.token ? saved : null;
}

/** The co-host page without access (`revoked`, `invalid`, `missing`): the controls go, and the page says why. */
export function showCohostGone(reason) {
  forget(COHOST_KEY);
  document.getElementById('controls-view').hidden = true;
  document.getElementById('cohost-gone').hidden = false;
  document.getElementById('cohost-gone-message').textContent = t(`cohost.gone.${reason}`);
  document.getElementById('cohost-gone-heading').focus();
}

/** Whether a `cohost-revoked` event names this co-host (its handle among `cohostIds`). */
export const namesCohost = (payload, cohostId) => String(payload.cohostIds || '').split(',').indexOf(cohostId) >= 0;

/** The co-host's way out: forgets the link on this phone, after asking. */
export function setUpCohostLeave(stop) {
  document.getElementById('cohost-leave').addEventListener('click', async () => {
    if (!await ask({ message: t('cohost.leaveConfirm'), confirm: t('cohost.leave'), cancel: t('dialog.cancel') })) return;
    stop();
    forget(COHOST_KEY);
    location.href = '/';
  });
}

/** A co-host reads the party's settings but never changes them: whether it keeps its history (R33's card) and its approval (R35's card). */
export function readSettings(base, onHistory, onApproval) {
  return {
    load: async () => {
      const settings = await api('GET', `${base}/settings`);
      onHistory(Boolean(settings.history));
      // R35: a co-host decides the waiting songs too; its card follows the party's approval.
      onApproval(settings.approval || 'off');
    },
  };
}

const clock = (ms) => new Date(ms).toLocaleTimeString(document.documentElement.lang, { hour: '2-digit', minute: '2-digit' });

/**
 * The host's co-host card (R34): a new link as a QR code and a link to pass on, the live links in the order their
 * co-hosts joined, and revoking one or all. `load` reads the list again (`cohosts-updated`, `cohost-revoked`).
 */
export function cohostsCard(base, credential) {
  const list = document.getElementById('cohost-list');
  const revokeAll = document.getElementById('cohosts-revoke-all');
  const fresh = document.getElementById('cohost-new');
  const share = document.getElementById('cohost-share');
  let shownUrl = '';

  const render = (cohosts) => {
    document.getElementById('cohosts-empty').hidden = cohosts.length > 0;
    revokeAll.hidden = cohosts.length === 0;
    replaceChildren(list, ...cohosts.map((cohost, index) => {
      const name = t('host.cohosts.name', { number: index + 1 });
      const since = cohost.joinedAt ? t('host.cohosts.joined', { time: clock(cohost.joinedAt) }) : t('host.cohosts.waiting', { time: clock(cohost.createdAt) });
      return el('li', { className: 'cohost', 'data-cohost': cohost.id }, [
        el('span', { className: 'cohost-name', text: name }),
        el('span', { className: 'cohost-meta', text: since }),
        el('button', { type: 'button', className: 'button small danger', 'data-action': 'revoke-cohost', 'aria-label': `${t('host.cohosts.revoke')}: ${name}`,
          text: t('host.cohosts.revoke'), onclick: () => revoke(cohost.id, name) }),
      ]);
    }));
  };
  // Events come in bursts (a link made, then joined): of overlapping reads only the newest is shown, so an older answer
  // that arrives last never hides a co-host who joined.
  let reads = 0;
  const reload = async () => {
    const read = ++reads;
    const answer = await api('GET', `${base}/cohosts`, { token: credential });
    if (read === reads) render(answer.cohosts);
  };
  /** The list again; a failure is said in the card. */
  const refresh = () => reload().catch((error) => showError('cohosts', error.message));

  /** Revokes one link (`id`) or, without one, all; the list follows and focus returns to the card's heading. */
  async function revoke(id, name) {
    const message = id ? t('host.cohosts.revokeConfirm', { name }) : t('host.cohosts.revokeAllConfirm');
    if (!await ask({ message, confirm: t(id ? 'host.cohosts.revoke' : 'host.cohosts.revokeAll'), cancel: t('dialog.cancel'), danger: true })) return;
    showError('cohosts', '');
    try {
      await api('DELETE', id ? `${base}/cohosts/${encodeURIComponent(id)}` : `${base}/cohosts`, { token: credential });
      toast(t(id ? 'host.cohosts.revoked' : 'host.cohosts.revokedAll'));
    } catch (error) {
      showError('cohosts', error.message);
    }
    await refresh();
    document.getElementById('cohosts-heading').focus();
  }

  document.getElementById('cohost-create').addEventListener('click', async () => {
    showError('cohosts', '');
    try {
      const made = await api('POST', `${base}/cohosts`, { token: credential });
      shownUrl = made.url;
      document.getElementById('cohost-qr').src = made.qr;
      const link = document.getElementById('cohost-url');
      link.href = made.url;
      link.textContent = made.url;
      share.hidden = typeof navigator.share !== 'function';
      fresh.hidden = false;
      fresh.scrollIntoView({ block: 'nearest' });
    } catch (error) {
      showError('cohosts', error.message);
    }
    await refresh();
  });
  share.addEventListener('click', () => {
    navigator.share({ title: t('host.cohosts.heading'), url: shownUrl }).catch((error) => console.info('co-host link not shared', error));
  });
  // The link is a secret: once passed on it leaves the page.
  document.getElementById('cohost-done').addEventListener('click', () => {
    fresh.hidden = true;
    shownUrl = '';
    document.getElementById('cohost-qr').removeAttribute('src');
    document.getElementById('cohost-url').removeAttribute('href');
    document.getElementById('cohost-url').textContent = '';
    document.getElementById('cohost-create').focus();
  });
  revokeAll.addEventListener('click', () => revoke(null));
  return { load: reload, refresh };
}
