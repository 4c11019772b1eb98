import { AudioPlayer } from './audio-player.js';

/** The monitor's player adapter for a party's provider (Spotify and YouTube adapters join here). */
export function createPlayer(provider, element, handlers) {
  switch (provider) {
    case 'demo':
      return new AudioPlayer(element, (track) => `/demo/audio/${encodeURIComponent(track.trackId)}.wav`, handlers);
    default:
      return null;
  }
}
