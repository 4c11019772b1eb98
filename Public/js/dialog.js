import { el } from './dom.js';

/**
 * An in-page question instead of `confirm()` (which looks foreign on phones and shows the page's address as its
 * title): a modal `<dialog>` (the browser keeps focus inside and makes the page inert), Escape or "cancel"
 * answers false. Focus goes back where it was. Resolves true for the confirming button.
 */
export function ask({ message, confirm, cancel, danger = false }) {
  return new Promise((resolve) => {
    const returnFocus = document.activeElement;
    const text = el('p', { className: 'dialog-message', id: `dialog-message-${Date.now()}`, text: message });
    const yes = el('button', { type: 'button', className: `button ${danger ? 'danger-solid' : 'primary'}`, 'data-answer': 'yes', text: confirm });
    const no = el('button', { type: 'button', className: 'button', 'data-answer': 'no', text: cancel });
    const dialog = el('dialog', { className: 'dialog', 'aria-describedby': text.id, 'aria-label': message }, [text, el('div', { className: 'actions' }, [no, yes])]);
    const close = (answer) => {
      dialog.close();
      dialog.remove();
      if (returnFocus && returnFocus.isConnected) returnFocus.focus();
      resolve(answer);
    };
    yes.addEventListener('click', () => close(true));
    no.addEventListener('click', () => close(false));
    dialog.addEventListener('cancel', (event) => { event.preventDefault(); close(false); });
    document.body.append(dialog);
    dialog.showModal();
    (danger ? no : yes).focus();
  });
}
