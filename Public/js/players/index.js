import { AudioPlayer } from './audio-player.js';

/** The audio file of a track, for the providers the `<audio>` adapter plays. */
const audioSources = {
  demo: (track) => `/demo/audio/${encodeURIComponent(track.trackId)}.wav`,
  local: (track) => `/local/audio/${encodeURIComponent(track.trackId)}`,
};

/** The monitor's player adapter for a party's provider (Spotify and YouTube adapters join here). */
export function createPlayer(provider, element, handlers) {
  const source = audioSources[provider];
  return source ? new AudioPlayer(element, source, handlers) : null;
}
