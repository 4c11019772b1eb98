import { AudioPlayer } from './audio-player.js';
import { YouTubePlayer } from './youtube-player.js';
import { SpotifyPlayer } from './spotify-player.js';

/** The audio file of a track, for the providers the `<audio>` adapter plays. */
const audioSources = {
  demo: (track) => `/demo/audio/${encodeURIComponent(track.trackId)}.wav`,
  local: (track) => `/local/audio/${encodeURIComponent(track.trackId)}`,
};

/**
 * The monitor's player adapter for a party's provider. Every adapter offers
 * load · play · pause · stop · seek · positionMs · durationMs · isPaused.
 */
export async function createPlayer(provider, elements, handlers, context) {
  const source = audioSources[provider];
  if (source) return new AudioPlayer(elements.audio, source, handlers);
  if (provider === 'youtube') return YouTubePlayer.create(elements.video, handlers);
  if (provider === 'spotify') return SpotifyPlayer.create(handlers, context);
  return null;
}
