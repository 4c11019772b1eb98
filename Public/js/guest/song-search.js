import { api } from '../api.js';
import { t } from '../i18n.js';
import { el, replaceChildren } from '../dom.js';

/**
 * The guest's search: the field, and the results list drawn by `renderRows(list, tracks)` (the page knows each
 * song's state). An empty field shows the catalogue's top songs.
 */
export class SongSearch {
  constructor(base, provider, renderRows) {
    this.base = base;
    this.renderRows = renderRows;
    this.input = document.getElementById('search');
    this.list = document.getElementById('results');
    this.caption = document.getElementById('results-caption');
    this.results = [];
    this.sequence = 0;
    this.timer = undefined;
    // Remote catalogues cost quota per search (YouTube: about 100 a day): wait for a pause in typing
    // and for at least two characters there; the in-memory ones answer as you type.
    // While a typed query waits for its results, the list says it is busy: its rows are the last query's, about to
    // be replaced (a tap then could land on another song), and a screen reader waits for the new ones.
    const remote = ['youtube', 'spotify'].includes(provider);
    this.input.addEventListener('input', () => {
      clearTimeout(this.timer);
      const query = this.input.value.trim();
      if (remote && query.length === 1) { this.settled(); return; }
      this.list.setAttribute('aria-busy', 'true');
      this.timer = setTimeout(() => this.run(), remote ? 700 : 250);
    });
  }

  settled() { this.list.removeAttribute('aria-busy'); }

  /** Draws `tracks` (by default the last results again, their states may have changed). */
  render(tracks = this.results) {
    this.results = tracks;
    this.renderRows(this.list, tracks);
    if (!tracks.length) replaceChildren(this.list, el('li', { className: 'empty', text: t('guest.search.none') }));
  }

  async run() {
    const sequence = ++this.sequence;
    const query = this.input.value.trim();
    try {
      const body = await api('GET', `${this.base}/track/search?q=${encodeURIComponent(query)}`);
      if (sequence !== this.sequence) return;
      this.caption.textContent = query ? t('guest.search.results') : t('guest.search.top');
      this.render(body.tracks.items);
      this.settled();
    } catch (error) {
      if (sequence === this.sequence) {
        replaceChildren(this.list, el('li', { className: 'error', text: error.message }));
        this.settled();
      }
    }
  }
}
