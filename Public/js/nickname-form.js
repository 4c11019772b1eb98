import { api } from './api.js';
import { t } from './i18n.js';
import { toast } from './dom.js';

/** R36: what the server takes (it checks again, in characters and bytes). */
const MAX_CHARACTERS = 24;

/**
 * R36 on the guest page: the nickname field, shown while the party shows nicknames. The server decides (blacklist,
 * taken, hidden characters) and answers in the page's language; the field shows the name the party knows.
 */
export function nicknameForm(base, device, onSaved) {
  const form = document.getElementById('nickname-form');
  const input = document.getElementById('nickname');
  const error = document.getElementById('nickname-error');
  let known = '';

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.textContent = '';
    const wanted = input.value.trim();
    if ([...wanted].length > MAX_CHARACTERS) { error.textContent = t('error.code.invalid_nickname'); return; }
    try {
      const answer = await api('PUT', `${base}/nickname`, { body: { deviceId: device, nickname: wanted || null } });
      known = answer.nickname || '';
      input.value = known;
      toast(known ? t('guest.nickname.saved', { name: known }) : t('guest.nickname.cleared'));
      onSaved();
    } catch (failure) {
      error.textContent = failure.message;
    }
  });

  return {
    /** Whether the party shows nicknames (its settings). */
    setEnabled(enabled) { form.hidden = !enabled; },
    /** The nickname the queue answer names for this device; a field being edited keeps what is typed. */
    setKnown(nickname) {
      const next = nickname || '';
      if (document.activeElement !== input && input.value.trim() === known) input.value = next;
      known = next;
    },
  };
}
