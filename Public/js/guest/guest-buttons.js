import { t, tn } from '../i18n.js';
import { el, toast } from '../dom.js';

/**
 * The buttons of the guest's rows. `shown` is what the button shows: the server's state, or the guest's own toggle
 * while the server has not confirmed it yet.
 */
export function likeButton(entry, shown, onToggle) {
  const { liked, likeCount: count } = shown;
  return el('button', {
    type: 'button', className: `icon-button like-button${liked ? ' liked' : ''}`, 'data-action': 'like',
    'aria-pressed': liked ? 'true' : 'false', 'aria-label': `${liked ? t('guest.unlike') : t('guest.like')}: ${entry.name} (${count} ${tn('queue.likes', count)})`,
    text: `♥ ${count}`, onclick: () => onToggle(entry),
  });
}

/** R17a: "⏭ 1/3" beside the like; never on the guest's own song. `large`: the button under the playing song. */
export function vetoButton(entry, shown, onToggle, large = false) {
  const { vetoed, vetoCount: count } = shown;
  const tally = t('veto.count', { count, needed: entry.vetoNeeded });
  return el('button', {
    type: 'button', className: `icon-button veto-button${vetoed ? ' vetoed' : ''}${large ? ' large' : ''}`, 'data-action': 'veto',
    'aria-pressed': vetoed ? 'true' : 'false', title: t('veto.hint'),
    'aria-label': `${vetoed ? t('veto.undo') : t('veto.button')}: ${entry.name} (${tally})`, onclick: () => onToggle(entry),
  }, [skipIcon(), large ? `${t('veto.button')} · ${tally}` : `${count}/${entry.vetoNeeded}`]);
}

/** The host's skip icon (an SVG: the ⏭ character needs an emoji font many TVs and Linux boxes lack). */
function skipIcon() {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('class', 'veto-icon');
  const path = document.createElementNS('http://www.w3.org/2000/svg', 'path');
  path.setAttribute('d', 'M6 5l9 7-9 7zM16 5h2.5v14H16z');
  svg.append(path);
  return svg;
}

/** R18b: ✕ on the guest's own waiting songs. */
export function removeButton(entry, onRemove) {
  return el('button', {
    type: 'button', className: 'icon-button remove-own-button', 'data-action': 'remove',
    'aria-label': `${t('guest.removeOwn')}: ${entry.name}`, title: t('guest.removeOwn'), text: '✕', onclick: () => onRemove(entry),
  });
}

/** A search result's "+" (`waiting`: the add limit holds it for now, R11). */
export function addButton(track, label, waiting, onAdd) {
  return el('button', {
    type: 'button', className: 'icon-button add-button', 'data-action': 'add', 'aria-label': `${label}: ${track.name}`,
    'aria-disabled': waiting ? 'true' : null, text: '+', onclick: () => onAdd(track),
  });
}

/** A state shown as a button so keyboards and screen readers reach it; pressing it explains. */
export function stateButton(track, symbol, label, explanation) {
  return el('button', {
    type: 'button', className: 'icon-button state-button', 'data-action': 'add', 'aria-disabled': 'true',
    'aria-label': `${label}: ${track.name}`, text: symbol, onclick: () => toast(explanation),
  });
}
