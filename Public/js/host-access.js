import { t } from './i18n.js';
import { ask } from './dialog.js';
import { showError, focusFirst } from './dom.js';

/** The TV-code boxes of the "connect the TV" card, scrolled to and focused. */
export function focusTvCode(event) {
  if (event) event.preventDefault();
  document.getElementById('tv-card').scrollIntoView({ block: 'center' });
  focusFirst('[data-pin="tv"] input');
}

/**
 * No TV yet. The hint names the TV's address and the code card; playing from this phone is a second,
 * explicit choice that asks first (it turns this page into the monitor).
 */
export function setUpDeviceHint(party, hostPin) {
  document.getElementById('device-hint-address').textContent = `${new URL(party.joinUrl).origin}/tv`;
  document.querySelector('#device-hint [data-action="enter-code"]').addEventListener('click', focusTvCode);
  document.querySelector('#device-hint [data-action="play-here"]').addEventListener('click', async () => {
    if (!await ask({ message: t('host.playHereConfirm'), confirm: t('host.playHereConfirmButton'), cancel: t('dialog.cancel') })) return;
    location.href = `/monitor#party=${encodeURIComponent(party.id)}&hostPin=${encodeURIComponent(hostPin)}`;
  });
}

/**
 * The host PIN behind a button, so a host can always find the way back in (and no one reads it by chance), and
 * (R24a) a new one on request: `rotate` asks the server for it and starts the page again.
 */
export function setUpHostPin(hostPin, rotate) {
  const reveal = document.getElementById('show-host-pin');
  const value = document.getElementById('host-pin');
  const show = (shown) => {
    value.textContent = shown ? hostPin : '';
    value.hidden = !shown;
    reveal.setAttribute('aria-expanded', String(shown));
    reveal.textContent = shown ? t('host.access.hide') : t('host.access.show');
  };
  reveal.addEventListener('click', () => show(value.hidden));
  document.getElementById('rotate-host-pin').addEventListener('click', async () => {
    if (!await ask({ message: t('host.access.rotateConfirm'), confirm: t('host.access.rotate'), cancel: t('dialog.cancel') })) return;
    try {
      await rotate();
    } catch (error) {
      showError('rotate', error.message);
    }
  });
  return { show };
}
