// Table talk: the chat panel (lines, a box to type in, a row of reactions), reactions floating
// over the sender's plate, and the host's mute buttons. Everything said is put on the page as
// text nodes, never as markup: "<b>" arrives as those three characters and stays them.

import { api } from './api.js';
import { fill, h, reducedMotion } from './dom.js';
import { language, t } from './i18n.js';
import { me } from './me.js';

// The reactions the server accepts, in the order of its enum in /schema.
export const EMOJI = ['👍', '👏', '😂', '😮', '😬', '🤔', '🔥', '🎉'];
const MAX_TEXT = 500; // characters (code points, as the server counts them: domain/talk.py)
const KEEP = 200; // lines kept on the page
const FLOAT_MS = 1800;

export class Talk {
  constructor(ctx) {
    this.ctx = ctx;
    this.lines = new Map(); // seq -> line, drawn in seq order
    this.people = new Map(); // player id -> name, everyone seen at the table or talking
    this.unread = 0;
    this.open = false;
    this.busy = false;

    this.toggle = h('button.ghost.small.talk-toggle', {
      type: 'button', 'aria-expanded': 'false', 'aria-controls': 'talk-panel', title: t('Table chat'),
      onclick: () => this.show(!this.open),
    }, t('Chat'), this.badge = h('span.talk-unread', { hidden: true }));
    // A log, not a list: a list's role would be lost under it, and its items left without one.
    this.list = h('div.talk-lines', { role: 'log', 'aria-live': 'polite', 'aria-label': t('Chat lines') });
    // No maxlength: it would cut a long paste silently. A line over the limit stays whole in
    // the box, the count said beside it, and isn't sent until it is short enough.
    this.input = h('input.talk-input', {
      name: 'chat', autocomplete: 'off', enterkeyhint: 'send',
      placeholder: t('Say something to the table'), 'aria-label': t('Say something to the table'),
      'aria-describedby': 'talk-limit', oninput: () => this.measure(),
    });
    this.limitEl = h('p.talk-limit', { id: 'talk-limit', role: 'status', 'aria-live': 'polite' });
    this.sendButton = h('button.primary.talk-send', { type: 'submit' }, t('Send'));
    this.form = h('form.talk-form', { onsubmit: (e) => { e.preventDefault(); this.say(); } }, this.input, this.sendButton);
    this.reactions = h('div.talk-reactions', { role: 'group', 'aria-label': t('Reactions') },
      EMOJI.map((emoji) => h('button.talk-react', {
        type: 'button', 'data-emoji': emoji, title: t('React {emoji}', { emoji }), 'aria-label': t('React {emoji}', { emoji }),
        onclick: () => this.react(emoji),
      }, emoji)));
    this.mutesEl = h('div.talk-mutes', { hidden: true });
    this.hint = h('p.talk-hint', { hidden: true }, t('Pick a name to chat.'));
    this.el = h('aside.talk', { id: 'talk-panel', hidden: true, 'aria-label': t('Table chat'), onkeydown: (e) => this.onKey(e) },
      h('div.talk-head', {}, h('h2', {}, t('Table talk')),
        h('button.ghost.talk-close', { type: 'button', 'aria-label': t('Close the chat'), onclick: () => this.show(false) }, '×')),
      this.reactions, this.list, this.mutesEl, this.hint, this.limitEl, this.form);
    this.loadHistory();
  }

  show(open) {
    this.open = open;
    this.el.hidden = !open;
    this.toggle.setAttribute('aria-expanded', String(open));
    if (open) {
      this.unread = 0;
      this.drawBadge();
      this.list.scrollTop = this.list.scrollHeight;
      if (!this.input.disabled) this.input.focus({ preventScroll: true });
    } else {
      this.toggle.focus({ preventScroll: true });
    }
  }

  onKey(event) {
    if (event.key === 'Escape') {
      event.preventDefault();
      this.show(false);
    }
  }

  /** The table's view changed: who sits where, who is muted, whether we may talk. */
  update(v) {
    this.view = v;
    for (const s of v.seats) if (s.player && s.name) this.people.set(s.player, s.name);
    const who = me();
    const muted = !!who && v.muted.includes(who.id);
    this.input.disabled = !who || muted;
    this.sendButton.disabled = this.input.disabled;
    for (const b of this.reactions.children) b.disabled = this.input.disabled;
    this.hint.hidden = !!who && !muted;
    this.hint.textContent = muted ? t('The host has muted you at this table.') : t('Pick a name to chat.');
    this.drawMutes();
  }

  /** The host's mute button for each person at the table or in the chat, but themselves. */
  drawMutes() {
    const v = this.view;
    const who = me();
    const host = !!who && v && v.host === who.id;
    this.mutesEl.hidden = !host;
    if (!host) return;
    const others = [...this.people].filter(([id]) => id !== who.id);
    fill(this.mutesEl, others.length ? h('span.talk-mutes-label', {}, t('Mute:')) : null,
      others.map(([id, name]) => {
        const muted = v.muted.includes(id);
        return h('button.small.toggle.talk-mute', {
          type: 'button', 'data-player': id, 'aria-pressed': String(muted),
          title: muted ? t('Let {name} chat again', { name }) : t('Mute {name} at this table', { name }),
          onclick: () => this.run(() => (muted ? api.unmute(v.code, id) : api.mute(v.code, id))),
        }, muted ? t('{name} (muted)', { name }) : name);
      }));
  }

  async run(call) {
    if (this.busy) return;
    this.busy = true;
    try {
      await this.ctx.act(call);
    } catch { /* the status line says why */ } finally {
      this.busy = false;
    }
  }

  /** Whether the line in the box is short enough to send; says so beside it when it isn't. */
  measure() {
    const count = [...this.input.value.trim()].length;
    const over = count > MAX_TEXT;
    const words = over ? t('Messages are at most {most} characters; this one has {count}. Shorten it to send.', { most: MAX_TEXT, count: count.toLocaleString(language()) }) : '';
    if (this.limitEl.textContent !== words) this.limitEl.textContent = words;
    this.input.setAttribute('aria-invalid', String(over));
    return !over;
  }

  async say() {
    const text = this.input.value.trim();
    if (!text || this.input.disabled) return;
    if (!this.measure()) { this.input.focus(); return; }
    try {
      await this.ctx.act(() => api.chat(this.ctx.code, text));
      this.input.value = '';
      this.measure();
    } catch { /* kept in the box to try again */ }
  }

  react(emoji) { this.run(() => api.react(this.ctx.code, emoji)); }

  /** A line (`chat`) or reaction from the stream or the log; each seq is shown once. */
  add(kind, line, live = true) {
    if (this.lines.has(line.seq)) return;
    this.lines.set(line.seq, { kind, ...line });
    this.people.set(line.player, line.name);
    while (this.lines.size > KEEP) this.lines.delete(Math.min(...this.lines.keys()));
    this.drawLines();
    if (this.view) this.drawMutes();
    if (!live) return;
    if (kind === 'reaction') this.float(line);
    if (!this.open && line.player !== me()?.id) {
      this.unread += 1;
      this.drawBadge();
    }
  }

  drawBadge() {
    this.badge.hidden = this.unread === 0;
    this.badge.textContent = this.unread > 9 ? '9+' : String(this.unread);
  }

  drawLines() {
    const atEnd = this.list.scrollHeight - this.list.scrollTop - this.list.clientHeight < 40;
    const sorted = [...this.lines.values()].sort((a, b) => a.seq - b.seq);
    fill(this.list, sorted.map((l) => h('p.talk-line', { 'data-seq': l.seq, 'data-kind': l.kind },
      h('strong.talk-who', {}, l.name),
      l.kind === 'chat' ? h('span.talk-text', {}, l.text) : h('span.talk-emoji', { role: 'img', 'aria-label': t('reacted {emoji}', { emoji: l.emoji }) }, l.emoji))));
    if (atEnd || !this.open) this.list.scrollTop = this.list.scrollHeight;
  }

  /** The emoji rises over the sender's plate (or seat in the waiting room), else the chat
   * button. It floats on the page, not in the plate, so a plate redrawn meanwhile keeps it. */
  float(line) {
    const seat = Number.isInteger(line.seat) ? line.seat : null;
    const over = (seat !== null && document.querySelector(`.plate[data-seat="${seat}"], .seat-card[data-seat="${seat}"]`))
      || this.toggle;
    const box = over.getBoundingClientRect();
    const bubble = h('span.talk-float', {
      'aria-hidden': 'true', 'data-player': line.player, 'data-seat': seat ?? 'none',
      style: { left: `${box.left + box.width / 2}px`, top: `${box.top + box.height / 2}px` },
    }, line.emoji);
    document.body.append(bubble);
    const remove = () => bubble.remove();
    if (reducedMotion()) setTimeout(remove, FLOAT_MS);
    else bubble.addEventListener('animationend', remove, { once: true });
    setTimeout(remove, FLOAT_MS + 500);
  }

  /** Earlier talk comes from the table's public log; the stream carries it on from there. */
  async loadHistory() {
    try {
      const response = await fetch(`/api/tables/${encodeURIComponent(this.ctx.code)}/log`, { credentials: 'same-origin' });
      if (!response.ok) return;
      for (const text of (await response.text()).split('\n')) {
        if (!text.includes('"ChatSaid"') && !text.includes('"ReactionShown"')) continue;
        let e;
        try { e = JSON.parse(text); } catch { continue; }
        if (e.type === 'ChatSaid') this.add('chat', e, false);
        else if (e.type === 'ReactionShown') this.add('reaction', e, false);
      }
    } catch { /* offline: the stream still brings what is said from now on */ }
  }
}
