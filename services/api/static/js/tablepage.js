// One table's page: its view from the stream, drawn as the waiting room or as the game.

import { api } from './api.js';
import { copyText, fill, h } from './dom.js';
import { Game } from './game.js';
import { t } from './i18n.js';
import { keepHead } from './heads.js';
import { forget } from './me.js';
import { bar, missingPage, noTablePage, tableLink } from './nav.js';
import { Room } from './room.js';
import { watch } from './stream.js';
import { HostMenu } from './hostmenu.js';
import { optionsMenu } from './options.js';
import { Talk } from './talk.js';

export function mountTablePage(root, code) {
  root.dataset.view = 'loading';
  let view = null;
  let screen = null;
  let stop = null;
  let gone = false;

  const linkEl = h('span.link-state', { 'data-link': 'connecting', title: t('Connection to the table') }, t('Connecting…'));
  const copyButton = h('button.ghost.small', {
    type: 'button',
    title: t('Copy a link to this table'),
    onclick: async () => {
      const ok = await copyText(tableLink(code));
      ctx.say(ok ? t('Link copied: send it to whoever you want at the table.') : t('The link is {link}', { link: tableLink(code) }), 'info');
    },
  }, t('Copy link'));
  const talk = new Talk({ code, act: (call) => ctx.act(call) });
  // Who watches without a seat: how many for everyone, and their names for the host.
  const watchingEl = h('span.watching-count', { 'aria-live': 'polite' });
  let watchTimer = null;
  const countWatchers = async () => {
    try {
      const { count, names } = await api.spectators(code);
      watchingEl.textContent = count ? t('{count} watching', { count }) : '';
      watchingEl.title = names?.length ? names.join(', ') : '';
    } catch {
      return; // the table's own page says what went wrong; asking again won't help
    }
    if (!gone) watchTimer = setTimeout(countWatchers, 10000);
  };
  const hostMenu = new HostMenu({ act: (call) => ctx.act(call) });
  const options = optionsMenu(() => screen?.redraw?.());
  // A phone's or a tablet's bar has no room for every tool: at 900 px and under they fold
  // behind "⋯" (base.css), leaving the code, the chat and the connection in view.
  const tools = h('div.bar-tools', { id: 'bar-tools' }, copyButton, hostMenu.el, options, watchingEl);
  const fold = h('button.ghost.small.bar-fold', {
    type: 'button', title: t('More: the link, the host’s tools, options and leaving'),
    'aria-expanded': 'false', 'aria-controls': 'bar-tools', onclick: () => setFold(!tools.classList.contains('open')),
  }, h('span', { 'aria-hidden': 'true' }, '⋯'), h('span.sr-only', {}, t('More')));
  const setFold = (open) => {
    tools.classList.toggle('open', open);
    fold.setAttribute('aria-expanded', String(open));
  };
  copyButton.addEventListener('click', () => setFold(false));
  tools.addEventListener('keydown', (e) => {
    if (e.key !== 'Escape' || !tools.classList.contains('open')) return;
    e.stopPropagation();
    setFold(false);
    fold.focus();
  });
  const outside = (e) => { if (!tools.contains(e.target) && !fold.contains(e.target)) setFold(false); };
  document.addEventListener('click', outside);
  const header = bar(h('span.table-code', {}, h('span.table-word', {}, t('Table'), ' '), h('strong', { 'data-code': code }, code)), tools, talk.toggle, fold, linkEl);
  const body = h('div.page');
  fill(root, header, body, talk.el);

  const setLink = (state) => {
    const words = { live: t('Live'), reconnecting: t('Reconnecting…'), lost: t('Offline: retrying…'), connecting: t('Connecting…') };
    if (linkEl.dataset.link !== state) {
      linkEl.dataset.link = state;
      linkEl.textContent = words[state] || state;
    }
  };

  const ctx = {
    code,
    tools, // the bar's tools, where a game puts "Leave table"

    get view() { return view; },
    accept,
    /** Run an API call that answers with our view; a refusal's detail goes to the status line. */
    async act(call, { quiet = false } = {}) {
      try {
        const answer = await call();
        if (answer && answer.code === code) accept(answer);
        return answer;
      } catch (err) {
        if (err.status === 401) {
          forget();
          screen?.signedOut?.();
        }
        if (!quiet) ctx.error(err);
        throw err;
      }
    },
    say: (text, tone) => screen?.status.say(text, tone),
    error: (err) => screen?.status.error(err),
    /** After signing in the stream must be reopened: it knows who we are from the cookie. */
    restream() { stop?.(); stop = watch(code, streamed); },
  };

  function accept(next) {
    if (gone || !next || next.code !== code) return;
    if (view && next.seq < view.seq) return;
    // The same view again, unless it is the table's own answer saying how long the decision
    // under way has waited, which the stream's, come first, didn't (clocks.js).
    const news = typeof next.waited === 'number' && typeof view?.waited !== 'number';
    if (view && next.seq === view.seq && next.you === view.you && !news) return;
    if (view && next.seq === view.seq && next.you === null) return;
    view = next;
    keepHead(view);
    if (watchTimer === null) { // once the table shows itself to us
      watchTimer = 0;
      countWatchers();
    }
    const kind = view.status === 'waiting' ? 'room' : 'game';
    if (!screen || screen.kind !== kind) {
      const focus = document.activeElement;
      const lost = !focus || focus === document.body || body.contains(focus);
      screen?.destroy();
      screen = kind === 'room' ? new Room(ctx) : new Game(ctx);
      if (presence) screen.presence?.(...presence);
      fill(body, screen.el);
      root.dataset.view = kind;
      // Focus on the view just replaced (or on nothing, the lobby gone) would fall to the
      // page's body, and a keyboard or screen reader would start again from the top.
      if (lost) screen.el.querySelector('h1')?.focus({ preventScroll: true });
    }
    screen.update(view);
    talk.update(view);
    hostMenu.update(view);
  }

  // Nothing of the table stays: its link, connection and chat belong to a table there is not.
  function shut(page) {
    gone = true;
    clearTimeout(watchTimer);
    stop?.();
    screen?.destroy();
    screen = null;
    root.dataset.view = 'missing';
    fill(root, bar(), page);
  }
  const banned = () => shut(missingPage(t('You’ve been banned from this room.'), t('The host asked you to leave: you can’t sit or watch here again.')));

  // Who is disconnected, kept for a game screen made after the stream said so.
  let presence = null;
  const onPresence = (frame) => { presence = [frame, Date.now()]; screen?.presence?.(...presence); };
  const streamed = { onView: accept, onLink: setLink, onTalk: (kind, line) => talk.add(kind, line), onBanned: banned, onPresence };
  api.table(code).then(accept, (err) => {
    if (gone) return;
    shut(err.status === 404 ? noTablePage(code) : missingPage(t('That table can’t be shown'), err.message));
  });
  stop = watch(code, streamed);

  return () => {
    document.removeEventListener('click', outside);
    gone = true;
    clearTimeout(watchTimer);
    stop?.();
    screen?.destroy();
  };
}
