import { api, partyPath } from './api.js';
import { t, tn } from './i18n.js';
import { el, artistsOf, replaceChildren } from './dom.js';

/** One played song: title, artists, and its likes where it had any. */
function songItem(song) {
  const likes = song.likeCount > 0 ? el('span', { className: 'recap-likes', text: tn('recap.likes', song.likeCount) }) : null;
  return el('li', { className: 'recap-song' }, [
    el('span', { className: 'recap-title', text: song.name }),
    el('span', { className: 'recap-artist', text: artistsOf(song) }),
    likes,
  ]);
}

/**
 * R33: the recap of an ended party that kept its history, shown in the page's `#recap` (Templates/recap.html).
 * Resolves whether there is one: a party without history (404) keeps the plain end screen, and so does a page
 * that cannot reach the server now (it says the party is over either way).
 */
export async function showRecap(partyId) {
  const section = document.getElementById('recap');
  if (!section || !partyId) return false;
  let recap;
  try {
    recap = await api('GET', `${partyPath(partyId)}/recap`);
  } catch (error) {
    if (error.status !== 404) console.warn('recap', error.message);
    return false;
  }
  if (!recap || !recap.songs || recap.songs.length === 0) return false;
  document.getElementById('recap-counts').textContent = [
    tn('recap.songs', recap.songs.length), tn('recap.guests', recap.guests), tn('recap.likeCount', recap.likes),
  ].join(' · ');
  document.getElementById('recap-top-block').hidden = recap.mostLiked.length === 0;
  replaceChildren(document.getElementById('recap-top'), ...recap.mostLiked.map(songItem));
  replaceChildren(document.getElementById('recap-songs'), ...recap.songs.map(songItem));
  section.hidden = false;
  return true;
}
