// Euchre Tables in the browser: the lobby at #/, a table at #/t/CODE and its game's record at
// #/t/CODE/record, a player at #/players/ID, the leaderboard at #/leaderboard, the rules at
// #/rules (a section of them at #/rules/SECTION) and a first hand walked through at #/learn.

// First: the player's language and its catalogue, before any module makes a word (i18n.js).
import './i18n.js';
import { fill } from './dom.js';
import { installKeys } from './keys.js';
import { mountLeaderboard } from './leaderboard.js';
import { mountLesson } from './lesson.js';
import { mountLobby } from './lobby.js';
import { checkMe } from './me.js';
import { mountProfile } from './profile.js';
import { mountRecord } from './record.js';
import { mountRulesPage } from './rulespage.js';
import { mountTablePage } from './tablepage.js';

const TABLE = /^t\/([A-Za-z0-9-]{4,32})(\/record)?$/;
const PLAYER = /^players\/([A-Za-z0-9_-]{1,64})$/;
const RULES = /^rules(?:\/([a-z0-9_-]{1,80}))?$/;

const app = document.getElementById('app');
let unmount = null;

function route() {
  const hash = decodeURIComponent(location.hash.replace(/^#\/?/, ''));
  const table = TABLE.exec(hash);
  const player = PLAYER.exec(hash);
  const rules = RULES.exec(hash);
  unmount?.();
  unmount = null;
  fill(app);
  window.scrollTo(0, 0);
  if (table) {
    const [, given, record] = table;
    const code = given.toUpperCase();
    if (given !== code) { location.replace(`#/t/${code}${record ?? ''}`); return; }
    unmount = record ? mountRecord(app, code) : mountTablePage(app, code);
  } else if (player) {
    unmount = mountProfile(app, player[1]);
  } else if (rules) {
    unmount = mountRulesPage(app, rules[1]);
  } else if (hash === 'leaderboard') {
    unmount = mountLeaderboard(app);
  } else if (hash === 'learn') {
    unmount = mountLesson(app);
  } else {
    if (hash) history.replaceState(null, '', '#/');
    unmount = mountLobby(app);
  }
}

installKeys();
window.addEventListener('hashchange', route);
route();
checkMe().then((changed) => { if (changed) route(); });
