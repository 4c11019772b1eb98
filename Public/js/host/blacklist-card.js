import { api } from '../api.js';
import { t } from '../i18n.js';
import { el, showError, toast, replaceChildren, warnOnFailure } from '../dom.js';
import { ask } from '../dialog.js';

/** R12 on the host page: the party's blocked words, added and removed; `reloadQueue()` reads the queue again. */
export class BlacklistCard {
  constructor(base, credential, reloadQueue) {
    this.base = base;
    this.credential = credential;
    this.reloadQueue = reloadQueue;
    this.chips = document.getElementById('blacklist');
    document.getElementById('blacklist-form').addEventListener('submit', (event) => this.submit(event));
  }

  async load() {
    const { words } = await api('GET', `${this.base}/blacklist`, { token: this.credential });
    this.render(words);
  }

  render(words) {
    document.getElementById('blacklist-empty').hidden = words.length > 0;
    replaceChildren(this.chips, ...words.map((word, index) => el('li', {}, [
      el('span', { text: word }),
      el('button', { type: 'button', className: 'icon-button', 'aria-label': `${t('host.blacklist.removeWord')}: ${word}`, text: '✕',
        onclick: () => this.unblock(word, index) }),
    ])));
  }

  /** After an unblock, focus goes to the word now in its place, else the one before, else the heading. */
  async unblock(word, index) {
    showError('blacklist', '');
    try {
      this.render((await api('DELETE', `${this.base}/blacklist`, { token: this.credential, body: { word } })).words);
    } catch (error) {
      showError('blacklist', error.message);
      return;
    }
    const buttons = this.chips.querySelectorAll('button');
    (buttons[Math.min(index, buttons.length - 1)] || document.getElementById('blacklist-heading')).focus();
  }

  async submit(event) {
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
      answer = await api('PUT', `${this.base}/blacklist`, { token: this.credential, body: { word: input.value } });
    } catch (error) {
      showError('blacklist', error.message);
      return;
    }
    this.render(answer.words);
    input.value = '';
    await this.offerToRemove(answer.matching || []);
  }

  /** The waiting songs the new word blocks (the server's rule, `matching`), removed when the host says so. */
  async offerToRemove(uris) {
    if (!uris.length) return;
    const message = uris.length === 1 ? t('host.blacklist.matchingOne') : t('host.blacklist.matchingMany', { count: uris.length });
    if (!await ask({ message, confirm: t('host.remove'), cancel: t('host.blacklist.keep') })) return;
    let removed = 0;
    for (const uri of uris) {
      try {
        await api('DELETE', `${this.base}/track/remove`, { token: this.credential, body: { uri } });
        removed += 1;
      } catch (error) {
        // Gone meanwhile (played, removed elsewhere) is fine; anything else is said and stops the round.
        if (error.code !== 'not_in_queue') { toast(error.message); break; }
      }
    }
    if (removed) toast(t('host.blacklist.removedMatching', { count: removed }));
    await this.reloadQueue().catch(warnOnFailure('Reading the queue after the blocked songs'));
  }
}
