import { call } from '../dom.js';
/**
 * The `<audio>` player adapter (demo and local files). Every adapter offers the same surface:
 * load(track, positionMs, play) · play() · pause() · seek(ms) · positionMs() · durationMs() · isPaused()
 * and calls onEnded / onBlocked / onError.
 */
export class AudioPlayer {
  constructor(element, sourceOf, { onEnded, onBlocked, onError }) {
    this.element = element;
    this.sourceOf = sourceOf;
    this.handlers = { onEnded, onBlocked, onError };
    element.addEventListener('ended', () => call(this.handlers.onEnded));
    element.addEventListener('error', () => { if (element.getAttribute('src')) call(this.handlers.onError); });
  }

  async load(track, positionMs, play) {
    const source = this.sourceOf(track);
    if (this.element.getAttribute('src') !== source) {
      this.element.src = source;
      await new Promise((resolve) => {
        if (this.element.readyState >= 1) return resolve();
        this.element.addEventListener('loadedmetadata', resolve, { once: true });
        this.element.addEventListener('error', resolve, { once: true });
      });
    }
    this.seek(positionMs);
    if (play) await this.play(); else this.element.pause();
  }

  async play() {
    try {
      await this.element.play();
      return true;
    } catch (error) {
      if (error && error.name === 'NotAllowedError') call(this.handlers.onBlocked);
      return false;
    }
  }

  pause() { this.element.pause(); }
  stop() { this.element.pause(); this.element.removeAttribute('src'); this.element.load(); }
  seek(positionMs) {
    const seconds = Math.max(0, positionMs / 1000);
    if (Number.isFinite(this.element.duration) && seconds >= this.element.duration) {
      this.element.currentTime = Math.max(0, this.element.duration - 0.05);
    } else {
      this.element.currentTime = seconds;
    }
  }
  positionMs() { return Math.round(this.element.currentTime * 1000); }
  durationMs() { return Number.isFinite(this.element.duration) ? Math.round(this.element.duration * 1000) : 0; }
  isPaused() { return this.element.paused; }
  currentSource() { return this.element.getAttribute('src'); }
}
