import { guardCovers } from '../dom.js';
import { GuestPage } from '../guest/guest-page.js';

const root = document.getElementById('guest');
guardCovers();

if (root.dataset.party) new GuestPage(root).start();
