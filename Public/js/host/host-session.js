import { forget } from '../storage.js';
import { showRecap } from '../recap.js';
import { COHOST_KEY, isCohostPage } from '../cohosts.js';

/** Where the host's browser keeps its session (party and host token). */
export const STORAGE_KEY = 'musicvoting.host';
/** Set while the page reloads after a new host PIN, so it shows the new PIN once. */
export const ROTATED_KEY = 'musicvoting.hostPinRotated';
/** R34: the co-host page is this page without the cards only the host may use (the server leaves them out). */
export const asCohost = isCohostPage();
/** The page's own title, shown again when a stall's warning leaves it. */
export const pageTitle = document.title;

/** A listener on a control only the host's page has. */
export function hostOnly(id, type, handler) {
  if (!asCohost) document.getElementById(id).addEventListener(type, handler);
}

/** The party is over: the end screen, with the recap where the party kept its history (R33). */
export function ended(partyId) {
  forget(asCohost ? COHOST_KEY : STORAGE_KEY);
  document.getElementById('controls-view').hidden = true;
  document.getElementById('ended').hidden = false;
  // The controls are gone: focus goes to the message, not to the page's top.
  document.getElementById('ended-message').focus();
  showRecap(partyId);
}
