// Euchre Tables in the browser: the lobby at #/, a table at #/t/CODE, a player at
// #/players/ID and the leaderboard at #/leaderboard.

import { fill } from './dom.js';
import { installKeys } from './keys.js';
import { mountLeaderboard } from './leaderboard.js';
import { mountLobby } from './lobby.js';
import { checkMe } from './me.js';
import { mountProfile } from './profile.js';
import { mountTablePage } from './tablepage.js';

const TABLE = /^t\/([A-Za-z0-9-]{4,32})$/;
const PLAYER = /^players\/([A-Za-z0-9_-]{1,64})$/;

const app = document.getElementById('app');
let unmount = null;

function route() {
  const hash = decodeURIComponent(location.hash.replace(/^#\/?/, ''));
  const table = TABLE.exec(hash);
  const player = PLAYER.exec(hash);
  unmount?.();
  unmount = null;
  fill(app);
  window.scrollTo(0, 0);
  if (table) {
    const code = table[1].toUpperCase();
    if (table[1] !== code) { location.replace(`#/t/${code}`); return; }
    unmount = mountTablePage(app, code);
  } else if (player) {
    unmount = mountProfile(app, player[1]);
  } else if (hash === 'leaderboard') {
    unmount = mountLeaderboard(app);
  } else {
    if (hash) history.replaceState(null, '', '#/');
    unmount = mountLobby(app);
  }
}

installKeys();
window.addEventListener('hashchange', route);
route();
checkMe().then((changed) => { if (changed) route(); });
