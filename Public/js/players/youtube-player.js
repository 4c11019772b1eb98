import { call } from '../dom.js';
import { vendorScript } from './vendor-script.js';

/**
 * The YouTube IFrame Player adapter: same surface as AudioPlayer. The video shows on the TV
 * (YouTube requires a visible player of at least 200×200). Loads the IFrame API once.
 */
const loadApi = () => vendorScript('https://www.youtube.com/iframe_api', 'onYouTubeIframeAPIReady', () => window.YT && window.YT.Player && window.YT);

export class YouTubePlayer {
  static async create(container, handlers) {
    const YT = await loadApi();
    const player = new YouTubePlayer(handlers);
    container.hidden = false;
    await new Promise((resolve) => {
      player.player = new YT.Player(container, {
        width: '100%', height: '100%',
        playerVars: { autoplay: 1, controls: 0, disablekb: 1, modestbranding: 1, rel: 0, playsinline: 1 },
        events: {
          onReady: resolve,
          onStateChange: (event) => player.stateChanged(event.data),
          // 2 bad id, 5 HTML5 error, 100 removed, 101/150 not embeddable: this song, so move on.
          // 153 (no Referer sent) fails every video: say so instead of skipping the whole queue.
          onError: (event) => (event.data === 153 ? call(handlers.onUnavailable) : call(handlers.onError)),
        },
      });
    });
    return player;
  }

  constructor(handlers) {
    this.handlers = handlers;
    this.videoId = null;
    this.wantsPlay = false;
  }

  stateChanged(state) {
    if (state === 0) call(this.handlers.onEnded);
    // Still unstarted (-1) or cued (5) after a play request: the browser blocked autoplay.
    if ((state === -1 || state === 5) && this.wantsPlay) {
      clearTimeout(this.blockTimer);
      this.blockTimer = setTimeout(() => {
        if (this.player.getPlayerState() !== 1) call(this.handlers.onBlocked);
      }, 1500);
    }
  }

  async load(track, positionMs, play) {
    this.wantsPlay = play;
    const seconds = Math.max(0, positionMs / 1000);
    if (this.videoId !== track.trackId) {
      this.videoId = track.trackId;
      if (play) this.player.loadVideoById({ videoId: track.trackId, startSeconds: seconds });
      else this.player.cueVideoById({ videoId: track.trackId, startSeconds: seconds });
    } else {
      this.seek(positionMs);
      if (play) this.player.playVideo(); else this.player.pauseVideo();
    }
  }

  async play() { this.wantsPlay = true; this.player.playVideo(); return true; }
  pause() { this.wantsPlay = false; this.player.pauseVideo(); }
  stop() { this.wantsPlay = false; this.videoId = null; this.player.stopVideo(); }
  seek(positionMs) { this.player.seekTo(Math.max(0, positionMs / 1000), true); }
  positionMs() { return Math.round((call(this.player.getCurrentTime, this.player) || 0) * 1000); }
  durationMs() { return Math.round((call(this.player.getDuration, this.player) || 0) * 1000); }
  isPaused() { return call(this.player.getPlayerState, this.player) !== 1; }
}
