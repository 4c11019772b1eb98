import { t } from './i18n.js';

/**
 * R17a on the pages. Entries carry `vetoCount` and `vetoNeeded` only while the party has the veto on (and
 * `hasVetoed` for the asking device); a `veto-updated` event carries the entry's new count and the threshold now.
 */
export const vetoIsOn = (entry) => Boolean(entry) && typeof entry.vetoNeeded === 'number';

/** Applies a `veto-updated` event to the entries the page holds; false when it names none of them (reload). */
export function applyVeto(queue, payload) {
  const target = queue.find((entry) => String(entry.id) === payload.entryId);
  if (!target) return false;
  const needed = Number(payload.vetoNeeded);
  target.vetoCount = Number(payload.vetoCount);
  for (const entry of queue) if (vetoIsOn(entry)) entry.vetoNeeded = needed;
  return true;
}

/** "2 of 3 want to skip" (TV, host); empty when nobody vetoed it or the veto is off. */
export function vetoSummary(entry) {
  if (!vetoIsOn(entry) || !entry.vetoCount) return '';
  return t('veto.summary', { count: entry.vetoCount, needed: entry.vetoNeeded });
}
