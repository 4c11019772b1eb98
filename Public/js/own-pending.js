import { t } from './i18n.js';
import { el, replaceChildren, toast } from './dom.js';

/** How many decided songs the guest page keeps showing. */
const SHOWN_FATES = 5;

/**
 * R35 on the guest page: this guest's songs waiting for the host's approval (its queue answer's `pending`), and what
 * became of them, approved or declined, live from `pending-updated`. The event names only the waiting song's id; the
 * page knows which ids are its own.
 */
export function ownPending() {
  const section = document.getElementById('my-pending');
  const list = document.getElementById('my-pending-list');
  let waiting = [];
  const fates = [];

  const render = () => {
    section.hidden = waiting.length === 0 && fates.length === 0;
    replaceChildren(list,
      ...waiting.map((song) => el('li', { className: 'pending-own waiting', 'data-pending-id': song.id, text: t('guest.pending.waiting', { name: song.name }) })),
      ...fates.map((fate) => el('li', { className: `pending-own ${fate.fate}`, 'data-pending-id': fate.id, text: t(`guest.pending.${fate.fate}`, { name: fate.name }) })));
  };

  return {
    /** The queue answer's `pending` (absent: nothing waits). */
    update(pending) {
      waiting = pending || [];
      render();
    },
    /** Uris of the songs that wait, for the search results' state. */
    uris() { return new Set(waiting.map((song) => song.uri)); },
    /** Applies a `pending-updated`; true when it was about one of this guest's songs. */
    apply(payload) {
      const song = waiting.find((candidate) => candidate.id === payload.pendingId);
      if (!song) return false;
      waiting = waiting.filter((candidate) => candidate !== song);
      if (payload.reason === 'approved' || payload.reason === 'declined') {
        fates.unshift({ id: song.id, name: song.name, fate: payload.reason });
        fates.splice(SHOWN_FATES);
        toast(t(`guest.pending.${payload.reason}Toast`, { name: song.name }));
      }
      render();
      return true;
    },
  };
}
