import { t } from './i18n.js';
import { artistsOf, replaceChildren } from './dom.js';
import { isOffline, onConnectionChange } from './connection.js';

/** `m:ss` (or `h:mm:ss`), like the server's first paint. */
export function clock(milliseconds) {
  const total = Math.max(0, Math.floor(milliseconds / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor(total / 60) % 60;
  const seconds = String(total % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${seconds}` : `${minutes}:${seconds}`;
}

/**
 * The now-playing block of every page. The position is computed from the server's
 * `playbackStartedAt` (corrected for this device's clock skew via `serverTime`), so it never drifts.
 * R20a: a stalled song shows as paused with its reason; offline, the bar stops where it is (the page
 * resyncs when it is back).
 *
 * The page does no work per frame: the clock's text changes once a second, and a playing bar glides to the song's
 * end as one animation on the compositor (or steps once a second where the device asks for reduced motion). A phone
 * on the table and a TV playing all night stay cool.
 */
export class NowPlaying {
  constructor(root = document) {
    this.section = root.querySelector('#now');
    this.title = root.querySelector('#now-title');
    this.artist = root.querySelector('#now-artist');
    this.addedBy = root.querySelector('#now-added-by');
    this.coverBox = root.querySelector('.now-cover');
    this.progress = root.querySelector('#now-progress');
    this.fill = root.querySelector('#now-fill');
    this.bar = this.fill && this.fill.parentElement;
    this.position = root.querySelector('#now-position');
    this.duration = root.querySelector('#now-duration');
    this.pausedBadge = root.querySelector('#now-paused');
    this.state = null;
    const initial = Number(this.fill && this.fill.dataset.percent);
    if (this.fill && Number.isFinite(initial)) this.fill.style.setProperty('--progress', String(initial / 100));
    this.tick = this.tick.bind(this);
    this.glide = null;
    this.reducedMotion = window.matchMedia('(prefers-reduced-motion: reduce)');
    onConnectionChange((offline) => { if (offline) this.freeze(); });
    this.tick();
  }

  /** `current` is the body of GET …/track/current. */
  update(current, coverElement) {
    const track = current.track;
    const skew = (current.serverTime != null ? current.serverTime : Date.now()) - Date.now();
    const state = current.state || (track ? (current.isPlaying ? 'playing' : 'paused') : 'idle');
    this.state = track ? {
      isPlaying: state === 'playing' && !isOffline(),
      progressMs: current.progressMs,
      startedAt: current.playbackStartedAt,
      skew,
      durationMs: track.duration_ms || 0,
    } : null;
    this.section.dataset.state = state;
    this.title.textContent = track ? track.name : t('now.nothing');
    this.artist.textContent = track ? artistsOf(track) : '';
    // R36: who asked for it, where the party shows nicknames (a line of its own: the artist's line is cut on the TV).
    if (this.addedBy) {
      this.addedBy.hidden = !(track && track.addedBy);
      this.addedBy.textContent = track && track.addedBy ? t('addedBy', { name: track.addedBy }) : '';
    }
    this.progress.hidden = !track;
    this.pausedBadge.hidden = !track || state === 'playing';
    this.pausedBadge.textContent = state === 'stalled' ? (t(`now.stalled.${current.stallReason}`) || t('now.paused')) : t('now.paused');
    if (coverElement !== undefined) replaceChildren(this.coverBox, ...(coverElement ? [coverElement] : []));
    this.render();
    this.startGlide();
  }

  /** Stops the bar where it is (offline: the page no longer knows). */
  freeze() {
    if (!this.state || !this.state.isPlaying) return;
    this.state.progressMs = this.positionMs();
    this.state.isPlaying = false;
    this.render();
    this.startGlide();
  }

  /** A playing bar moves from where it is to the song's end in one linear animation; anything else stands still. */
  startGlide() {
    if (this.glide) this.glide.cancel();
    this.glide = null;
    const state = this.state;
    if (!state || !state.isPlaying || !state.durationMs || this.reducedMotion.matches || !this.fill.animate) return;
    const position = this.positionMs();
    if (position >= state.durationMs) return;
    this.glide = this.fill.animate(
      [{ transform: `scaleX(${position / state.durationMs})` }, { transform: 'scaleX(1)' }],
      { duration: state.durationMs - position, easing: 'linear', fill: 'forwards' });
  }

  positionMs() {
    const state = this.state;
    if (!state) return 0;
    const raw = state.isPlaying && state.startedAt ? Date.now() + state.skew - state.startedAt : state.progressMs;
    return Math.min(Math.max(0, raw), state.durationMs || raw);
  }

  render() {
    if (!this.state) return;
    const position = this.positionMs();
    const fraction = this.state.durationMs ? position / this.state.durationMs : 0;
    this.fill.style.setProperty('--progress', fraction.toFixed(4));
    this.bar.setAttribute('aria-valuenow', String(Math.round(fraction * 100)));
    const text = clock(position);
    if (this.position.textContent !== text) this.position.textContent = text;
    this.duration.textContent = clock(this.state.durationMs);
  }

  /** Once a second, just after the position's next whole second, when the clock's text changes. */
  tick() {
    this.render();
    const playing = this.state && this.state.isPlaying;
    setTimeout(this.tick, playing ? 1020 - (this.positionMs() % 1000) : 1000);
  }
}
