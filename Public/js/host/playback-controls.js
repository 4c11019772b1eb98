import { t } from '../i18n.js';
import { el, toast, replaceChildren } from '../dom.js';
import { errorText } from '../error-text.js';
import { focusTvCode } from '../host-access.js';
import { pageTitle } from './host-session.js';

/**
 * The host's play/pause and skip buttons and the stall banner (R20a), following the current song (`current()`, the
 * body of GET …/track/current). `command(method, path)` sends a host command and reads the party again.
 */
export class PlaybackControls {
  constructor({ current, command }) {
    this.current = current;
    this.command = command;
    this.playPause = document.getElementById('play-pause');
    this.skip = document.getElementById('skip');
    this.deviceHint = document.getElementById('device-hint');
    this.stallBanner = document.getElementById('stall-banner');
    /** The provider's last message (`playback-error`), shown with a `provider-error` stall. */
    this.lastPlayerError = '';
    this.lastPlayerErrorAt = 0;
    this.playPause.addEventListener('click', () => this.playOrPause());
    this.skip.addEventListener('click', () => this.skipSong());
  }

  /** A `playback-error` event: its message, in the page's language, said now and kept for the stall banner. */
  playerError(payload) {
    this.lastPlayerError = errorText(payload.code, payload.message || '');
    this.lastPlayerErrorAt = Date.now();
    toast(this.lastPlayerError);
  }

  render() {
    const current = this.current();
    const enabled = Boolean(current.deviceActive);
    this.playPause.disabled = !enabled;
    this.skip.disabled = !enabled || !current.track;
    // R20a: why nobody hears the song, in one banner (it covers "no device" too).
    const stalled = current.state === 'stalled' && current.track;
    if (stalled) this.renderStall(current, enabled);
    this.stallBanner.hidden = !stalled;
    // A host in another tab sees the stall in the tab's title.
    document.title = stalled ? `⚠ ${t(`now.stalled.${current.stallReason}`) || t('now.stalled.no-monitor')} · ${t('app.name')}` : pageTitle;
    this.deviceHint.hidden = enabled || stalled;
    const playing = Boolean(current.isPlaying && current.track);
    this.playPause.setAttribute('aria-label', playing ? t('host.pause') : t('host.play'));
    this.playPause.dataset.state = playing ? 'playing' : 'stopped';
  }

  renderStall(current, enabled) {
    const away = current.stallReason === 'no-monitor' && current.tvPaired;
    const reason = away ? t('host.stall.reconnecting') : (t(`host.stall.${current.stallReason}`) || t('host.stall.no-monitor'));
    replaceChildren(this.stallBanner, current.stallReason === 'provider-error' && this.lastPlayerError ? `${reason} ${this.lastPlayerError}` : reason);
    // Re-pairing only helps a party without a paired TV; a paired one comes back by itself.
    if (!enabled && !away) this.stallBanner.append(' ', el('a', { href: '#tv-card', text: t('host.enterCode'), onclick: focusTvCode }));
  }

  async playOrPause() {
    const current = this.current();
    if (current.isPlaying && current.track) return this.command('POST', '/track/pause');
    if (current.track) return this.command('POST', '/track/resume');
    // Start on an empty queue refills first (R15); `{"status":"empty"}` means the refill had nothing either: say
    // so instead of nothing, with the provider's reason when a `playback-error` just gave one.
    const answer = await this.command('POST', '/track/start');
    if (answer && answer.status === 'empty') {
      toast(Date.now() - this.lastPlayerErrorAt < 5000 ? `${t('host.startEmpty')} ${this.lastPlayerError}` : t('host.startEmpty'));
    }
    return answer;
  }

  /** Says what the skip did: the next song, an empty queue, or why it was refused (the toast of `command`). */
  async skipSong() {
    const before = this.current().track ? this.current().track.id : undefined;
    if (!await this.command('POST', '/track/next')) return;
    const current = this.current();
    if (!current.track) toast(t('host.skippedToEmpty'));
    else if (current.track.id === before) toast(t('host.skipNotTaken'));
    // The TV cannot hear right now; the skip waits for it (it plays what the server says when back).
    else if (current.state === 'stalled') toast(t('host.skipPending', { name: current.track.name }));
    else toast(t('host.skippedTo', { name: current.track.name }));
  }
}
