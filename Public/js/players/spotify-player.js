import { call } from '../dom.js';
import { api } from '../api.js';
import { vendorScript } from './vendor-script.js';

/**
 * The Spotify Web Playback SDK adapter. The server drives playback (it starts each track on this device
 * by uri and position through the Web API), so load/seek are no-ops here; the adapter registers the
 * device, reports position and the natural end, and unlocks audio on a click.
 */
/** The uri of the track a player state holds, if any. */
const currentUri = (state) => state.track_window && state.track_window.current_track && state.track_window.current_track.uri;

const loadSdk = () => vendorScript('https://sdk.scdn.co/spotify-player.js', 'onSpotifyWebPlaybackSDKReady', () => window.Spotify && window.Spotify.Player && window.Spotify);

export class SpotifyPlayer {
  static async create(handlers, { base, token }) {
    const Spotify = await loadSdk();
    const adapter = new SpotifyPlayer(handlers);
    adapter.player = new Spotify.Player({
      name: 'MusicVoting',
      volume: 0.9,
      // R28: the access token comes from the server, for the registered monitor only.
      getOAuthToken: (callback) => {
        fetch(`${base}/spotify/token`, { headers: { Authorization: `Bearer ${token}` }, cache: 'no-store' })
          .then((response) => (response.ok ? response.text() : Promise.reject(response.status)))
          .then(callback)
          .catch(() => call(handlers.onUnavailable));
      },
    });
    adapter.player.addListener('ready', ({ device_id: deviceId }) => {
      api('PUT', `${base}/spotify/deviceId`, { token, text: deviceId }).catch(() => call(handlers.onUnavailable));
    });
    adapter.player.addListener('player_state_changed', (state) => adapter.stateChanged(state));
    adapter.player.addListener('autoplay_failed', () => call(handlers.onBlocked));
    // A song that fails moves on; a player that cannot work at all (no Premium, bad token) must not skip
    // through the whole queue, so it only says so on the screen.
    adapter.player.addListener('playback_error', () => call(handlers.onError));
    for (const failure of ['initialization_error', 'authentication_error', 'account_error']) {
      adapter.player.addListener(failure, () => call(handlers.onUnavailable));
    }
    if (!(await adapter.player.connect())) throw new Error('Spotify player did not connect');
    return adapter;
  }

  constructor(handlers) {
    this.handlers = handlers;
    this.state = null;
    this.stateAt = 0;
  }

  stateChanged(state) {
    const previous = this.state;
    this.state = state;
    this.stateAt = performance.now();
    if (!state || !previous) return;
    // The SDK's end of a track: it stops at 0 with the finished track moved to previous_tracks.
    const finished = state.paused && state.position === 0 && !previous.paused
      && (state.track_window && state.track_window.previous_tracks || []).some((track) => track.uri === currentUri(previous));
    if (finished) call(this.handlers.onEnded);
  }

  async load() {}
  async play() {
    await call(this.player.activateElement, this.player);
    return true;
  }
  pause() {}
  stop() {}
  seek() {}
  positionMs() {
    if (!this.state) return 0;
    return this.state.paused ? this.state.position : Math.round(this.state.position + performance.now() - this.stateAt);
  }
  durationMs() { return (this.state && this.state.duration) || 0; }
  isPaused() { return this.state ? this.state.paused : true; }
}
