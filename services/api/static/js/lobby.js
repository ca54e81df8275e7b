// The lobby: pick a name (with a password, to keep a rating), open a table with house rules,
// or join one by code or from the list.

import { api } from './api.js';
import { h, fill, Parts } from './dom.js';
import { t, tn } from './i18n.js';
import { becomeGuest, becomePlayer, forget, me, signOut } from './me.js';
import { bar, go, StatusLine } from './nav.js';
import { DEFAULT_RULES, HOUSE_RULES, LEVELS, levelName, ruleChips } from './rules.js';

const REFRESH = 5000;
const CODE = /^[A-Za-z0-9-]{4,32}$/;

/** "Play bots now": a table of bots at `level` under `settings`, started at once, and on to it. */
export async function playBots(settings, level) {
  const view = await api.open({ settings, bots: level });
  await api.start(view.code);
  go(`/t/${view.code}`);
}

export function mountLobby(root) {
  root.dataset.view = 'lobby';
  const status = new StatusLine('lobby-status');
  const parts = new Parts();
  const listEl = h('div.waiting-list', { 'aria-live': 'polite' });
  let timer = null;
  let gone = false;

  // ---- who you are
  const nameInput = h('input', { name: 'name', autocomplete: 'username', maxlength: 40, placeholder: t('Your name'), 'aria-label': t('Your name'), required: true });
  const passwordInput = h('input', { type: 'password', name: 'password', autocomplete: 'current-password', minlength: 8, placeholder: t('Optional'), 'aria-describedby': 'password-hint' });
  const signInButton = h('button', { type: 'submit', name: 'sign-in' }, t('Save name'));
  passwordInput.addEventListener('input', () => { signInButton.textContent = passwordInput.value ? t('Sign in') : t('Save name'); });
  const whoEl = h('form.card-panel.who', {
    onsubmit: async (event) => {
      event.preventDefault();
      signInButton.disabled = true;
      try {
        await ensurePlayer(true);
        drawWho();
      } catch (err) {
        status.error(err);
      } finally {
        signInButton.disabled = false;
      }
    },
  });
  let header = bar();
  const drawWho = () => {
    const who = me();
    // The bar links to the player's record, so it changes with who they are.
    const fresh = bar();
    header.replaceWith(fresh);
    header = fresh;
    if (who) {
      fill(whoEl,
        h('p.who-line', {}, t('Playing as'), ' ', h('strong', {}, who.name), who.registered ? h('span.chip', {}, t('Rated')) : null),
        h('button.link', { type: 'button', onclick: () => { signOut(); passwordInput.value = ''; drawWho(); nameInput.focus(); } }, who.registered ? t('Sign out') : t('Change name')));
    } else {
      fill(whoEl,
        h('label.field', {}, h('span', {}, t('What should the table call you?')), nameInput),
        h('label.field', {}, h('span', {}, t('Password')), passwordInput),
        signInButton,
        h('p.hint', { id: 'password-hint' }, t('No account needed: a name is enough to play. Add a password (8 characters or more, not an easy one to guess: a few uncommon words make a good one) to register the name and keep a rating; the same name and password sign you in again.')));
    }
  };

  /** Make sure we are a player; a name typed in the box becomes one, registered with a
   * password. Signing in from the box is `returning`; opening a table is likelier a first visit.
   * `anyName` lets a first visit with the box empty play at once, as a guest named for them. */
  const ensurePlayer = async (returning = false, anyName = false) => {
    if (me()) return me();
    const name = nameInput.value.trim();
    if (!name && anyName && !passwordInput.value) return becomeGuest();
    if (!name) {
      nameInput.focus();
      throw new Error(t('Type a name first, so the table knows who you are.'));
    }
    const password = passwordInput.value;
    if (password && password.length < 8) {
      passwordInput.focus();
      throw new Error(t('A password has 8 characters or more; leave it empty to play as a guest.'));
    }
    return becomePlayer(name, password, returning);
  };

  // ---- open a table
  const rules = { ...DEFAULT_RULES };
  let level = 'medium';
  const segmented = (name, choices, current, onpick, extra = {}) => h('div.seg', { role: 'radiogroup', 'aria-label': name },
    choices.map(([value, label, hint]) => h('label', { title: hint || null },
      h('input', { type: 'radio', name, value, checked: current === value, onchange: () => onpick(value), ...extra }),
      h('span', {}, label))));
  const row = (label, hint, control, attrs = {}) => h('div.rule-row', attrs,
    h('div.rule-words', {}, h('strong', {}, label), h('span.hint', {}, hint)), control);
  const ruleRows = HOUSE_RULES.map((r) => row(r.label, r.hint,
    segmented(`rule-${r.key}`, r.choices, rules[r.key], (value) => { rules[r.key] = value; }, { 'data-rule': r.key }),
    { 'data-rule': r.key }));
  // The bots' level is one choice shown twice: beside "Play bots now", and with the house
  // rules of a table to open. Picking it in one place picks it in both.
  const levelPickers = [];
  const pickLevel = (value) => {
    level = value;
    for (const group of levelPickers) group.querySelector(`input[value=${value}]`).checked = true;
  };
  const levelPicker = (name, label) => {
    const group = segmented(name, LEVELS, level, pickLevel);
    group.setAttribute('aria-label', label);
    levelPickers.push(group);
    return group;
  };
  const levelRow = row(t('Bots'), t('They fill every seat nobody takes.'),
    levelPicker('bot-level', t('Bots at the table you open')), { 'data-rule': 'bots' });
  const codeInput = h('input', { name: 'new-code', maxlength: 32, placeholder: t('Optional, e.g. FAMILY-1'), 'aria-label': t('Table code (optional)'), autocapitalize: 'characters', spellcheck: 'false' });
  const openButton = h('button.primary.big', { type: 'submit', name: 'open' }, t('Open a table'));
  const openForm = h('form.card-panel.open', {
    onsubmit: async (event) => {
      event.preventDefault();
      const code = codeInput.value.trim();
      if (code && !CODE.test(code)) { status.say(t('A table code is 4 to 32 letters, digits or dashes.'), 'error'); codeInput.focus(); return; }
      openButton.disabled = true;
      try {
        await ensurePlayer();
        const view = await api.open({ settings: { ...rules }, bots: level, ...(code ? { code } : {}) });
        go(`/t/${view.code}`);
      } catch (err) {
        status.error(err);
        if (err.status === 401) { forget(); drawWho(); }
      } finally {
        openButton.disabled = false;
      }
    },
  },
  h('h2', {}, t('Open a table')),
  h('p.lede', {}, t('You host: choose the house rules, then invite friends or let bots take the seats.')),
  h('div.rules-list', {}, ruleRows, levelRow),
  h('label.field.inline', {}, h('span', {}, t('Table code')), codeInput),
  openButton);

  // ---- one click to a game: a table of bots at the level chosen beside the button and the
  // house rules under "Open a table", started at once, for whoever just wants to play: a
  // first visit needs no name for it.
  const playButton = h('button.primary.big', {
    type: 'button',
    name: 'play-bots',
    onclick: async () => {
      playButton.disabled = true;
      try {
        await ensurePlayer(false, true);
        drawWho();
        await playBots({ ...rules }, level);
      } catch (err) {
        status.error(err);
        if (err.status === 401) { forget(); drawWho(); }
      } finally {
        playButton.disabled = false;
      }
    },
  }, t('Play bots now'));

  // ---- join by code
  const joinInput = h('input', { name: 'join-code', maxlength: 32, placeholder: t('Code'), 'aria-label': t('Table code to join'), autocapitalize: 'characters', spellcheck: 'false' });
  const joinForm = h('form.card-panel.join', {
    onsubmit: (event) => {
      event.preventDefault();
      const code = joinInput.value.trim();
      if (!CODE.test(code)) { status.say(t('A table code is 4 to 32 letters, digits or dashes.'), 'error'); joinInput.focus(); return; }
      go(`/t/${code.toUpperCase()}`);
    },
  },
  h('h2', {}, t('Join a table')),
  h('div.join-row', {}, joinInput, h('button.primary', { type: 'submit', name: 'join' }, t('Join'))),
  h('h3', {}, t('Waiting for players')),
  listEl);

  const drawList = (tables) => {
    if (!parts.changed('list', tables, more)) return;
    if (!tables.length) {
      fill(listEl, h('p.empty', {}, t('No table is waiting right now. Open one, and share its link.')));
      return;
    }
    fill(listEl, tables.map((table) => h('div.waiting', { 'data-code': table.code },
      h('div.waiting-head', {},
        h('strong.code', {}, table.code),
        h('span.host', {}, table.host_name ? t('{name}’s table', { name: table.host_name }) : t('A table')),
        h('span.open-seats', {}, tn('{count} seat open', '{count} seats open', table.open_seats))),
      h('ul.waiting-seats', {}, table.seats.map((s) => h('li', { class: s.name ? 'taken' : s.bot ? 'bot' : 'free' },
        s.name || (s.bot ? t('{level} bot', { level: levelName(s.bot) }) : t('Open'))))),
      h('div.waiting-foot', {},
        h('span.chips', {}, [...ruleChips(table.settings), t('{level} bots', { level: levelName(table.bots) })].map((c) => h('span.chip', {}, c))),
        h('a.button.ghost', { href: `#/t/${encodeURIComponent(table.code)}`, 'data-action': 'watch' }, t('Watch')),
        h('button.primary', { type: 'button', onclick: () => go(`/t/${table.code}`) }, t('Join'))))));
    if (more) listEl.append(h('button.ghost.more', { type: 'button', name: 'more', onclick: () => { pages += 1; clearTimeout(timer); refresh(); } }, t('More tables')));
  };

  // The list comes a page at a time; "More tables" keeps one more page in view.
  let pages = 1;
  let more = false;
  const refresh = async () => {
    try {
      const tables = [];
      let before = null;
      for (let n = 0; n < pages; n += 1) {
        const body = await api.waiting(before);
        tables.push(...(body.tables || []));
        before = body.next;
        if (before === null) break;
      }
      more = before !== null;
      if (!gone) drawList(tables);
    } catch (err) {
      if (!gone && parts.changed('list-error', err.message)) fill(listEl, h('p.empty', {}, err.message));
    }
    if (!gone) timer = setTimeout(refresh, REFRESH);
  };

  fill(root,
    header,
    h('main.lobby', {},
      h('section.hero', {},
        h('h1', {}, t('The family’s Euchre')),
        h('p', {}, t('Four players, two teams, and one jack that isn’t what it looks like. Play friends, bots, or both.')),
        h('div.play-now', {}, playButton,
          h('div.play-level', {}, h('span', { 'aria-hidden': 'true' }, t('Bots')), levelPicker('play-level', t('Bots to play against'))),
          h('p.hint', {}, t('Three bots and you, straight to the table, no name needed (you can pick one below). The house rules are the ones under “Open a table”.')),
          h('a.button.learn', { href: '#/learn' }, t('Learn Euchre in a minute')))),
      status.el,
      whoEl,
      h('div.lobby-grid', {}, openForm, joinForm)));
  drawWho();
  // A registered host's last house rules are where the next table starts from.
  if (me()) {
    api.whoAmI().then((who) => {
      if (gone || !who.house_rules) return;
      for (const r of HOUSE_RULES) {
        const value = who.house_rules[r.key];
        const input = openForm.querySelector(`input[data-rule=${r.key}][value="${value}"]`);
        if (!input) continue;
        rules[r.key] = value;
        input.checked = true;
      }
    }).catch(() => {});
  }
  fill(listEl, h('p.empty', {}, t('Looking for tables…')));
  refresh();
  return () => { gone = true; clearTimeout(timer); };
}
