// Euchre Tables in the browser: the lobby at #/ and a table at #/t/CODE.

import { fill } from './dom.js';
import { installKeys } from './keys.js';
import { mountLobby } from './lobby.js';
import { checkMe } from './me.js';
import { mountTablePage } from './tablepage.js';

const app = document.getElementById('app');
let unmount = null;

function route() {
  const hash = decodeURIComponent(location.hash.replace(/^#\/?/, ''));
  const match = /^t\/([A-Za-z0-9-]{4,32})$/.exec(hash);
  unmount?.();
  unmount = null;
  fill(app);
  window.scrollTo(0, 0);
  if (match) {
    const code = match[1].toUpperCase();
    if (match[1] !== code) { location.replace(`#/t/${code}`); return; }
    unmount = mountTablePage(app, code);
  } else {
    if (hash) history.replaceState(null, '', '#/');
    unmount = mountLobby(app);
  }
}

installKeys();
window.addEventListener('hashchange', route);
route();
checkMe().then((changed) => { if (changed) route(); });
