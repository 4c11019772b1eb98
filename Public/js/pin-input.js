import { t } from './i18n.js';
import { showError } from './dom.js';

/**
 * Digit boxes in `container` (five, or `data-length`: a TV pairing code has six): typing advances, backspace
 * goes back, a pasted code fills all, and the last digit submits. Returns { clear, shake, focus }.
 */
export function pinInput(container, onComplete) {
  const label = container.dataset.label || 'PIN';
  const length = Number(container.dataset.length) || 5;
  const complete = new RegExp(`^\\d{${length}}$`);
  container.setAttribute('role', 'group');
  container.setAttribute('aria-label', label);
  const boxes = Array.from({ length }, (_, index) => {
    const box = document.createElement('input');
    Object.assign(box, { type: 'text', inputMode: 'numeric', maxLength: 1, autocomplete: 'off' });
    box.setAttribute('pattern', '[0-9]*');
    box.setAttribute('aria-label', `${label}: ${t('pin.digit', { n: index + 1, total: length })}`);
    box.dataset.index = String(index);
    container.append(box);
    return box;
  });
  let busy = false;

  const value = () => boxes.map((box) => box.value).join('');
  const fill = (digits, from) => {
    let index = from;
    for (const digit of digits) {
      if (index >= boxes.length) break;
      boxes[index].value = digit;
      index += 1;
    }
    boxes[Math.min(index, boxes.length - 1)].focus();
    maybeSubmit();
  };
  const maybeSubmit = async () => {
    const pin = value();
    if (busy || !complete.test(pin)) return;
    busy = true;
    try { await onComplete(pin); } finally { busy = false; }
  };

  boxes.forEach((box, index) => {
    box.addEventListener('input', () => {
      const digits = box.value.replace(/\D/g, '');
      box.value = '';
      if (digits) fill(digits, index);
    });
    box.addEventListener('keydown', (event) => {
      if (event.key === 'Backspace' && !box.value && index > 0) {
        boxes[index - 1].value = '';
        boxes[index - 1].focus();
        event.preventDefault();
      } else if (event.key === 'ArrowLeft' && index > 0) boxes[index - 1].focus();
      else if (event.key === 'ArrowRight' && index < length - 1) boxes[index + 1].focus();
      else if (event.key === 'Enter') maybeSubmit();
    });
    box.addEventListener('paste', (event) => {
      const digits = ((event.clipboardData && event.clipboardData.getData('text')) || '').replace(/\D/g, '').slice(0, length);
      if (!digits) return;
      event.preventDefault();
      fill(digits, digits.length === length ? 0 : index);
    });
    box.addEventListener('focus', () => box.select());
  });

  return {
    clear() { boxes.forEach((box) => { box.value = ''; }); boxes[0].focus(); },
    shake() {
      container.classList.remove('shake');
      void container.offsetWidth;
      container.classList.add('shake');
    },
    focus() { boxes[0].focus(); },
  };
}

/**
 * The PIN boxes `[data-pin=name]` with their `[data-error=name]` line: `submit(pin)` runs on the last digit;
 * if it throws, a 404 shows `notFound`, anything else the server's own message, and the boxes shake and clear.
 */
export function pinForm(name, submit, notFound) {
  const form = pinInput(document.querySelector(`[data-pin="${name}"]`), async (pin) => {
    showError(name, '');
    try {
      await submit(pin);
    } catch (error) {
      showError(name, error.status === 404 ? notFound : error.message);
      form.shake();
      form.clear();
    }
  });
  return form;
}
