// Moving a card to another place in the hand: dragging it with a mouse or a finger, or Shift
// and an arrow key on the focused card. Pointer events, not HTML drag and drop, which touch
// screens don't start. A press that moves less than a few pixels is still a tap (it plays or
// picks the card); one that moves further is a drag, and the click its release makes is
// swallowed, so a drag never plays a card.

const SLOP = 8; // px

/** `active()`: whether cards may be moved now; `drop(card, to, byKey)`: the card was put at
 * place `to` of the hand. */
export function reorderHand(handEl, { active, drop }) {
  let drag = null;
  let swallow = false;
  const cards = () => [...handEl.querySelectorAll('.card[data-card]')];

  // The hand may be redrawn under a drag (a card played elsewhere lights this one), so each
  // move finds the cards again by what they are, not by the elements the drag began on.
  const show = () => {
    for (const el of cards()) {
      const mine = el.dataset.card === drag.card;
      const i = drag.order.indexOf(el.dataset.card);
      // The cards between the two places move over by one to make room.
      const shift = drag.from < i && i <= drag.to ? -drag.step : drag.to <= i && i < drag.from ? drag.step : 0;
      el.classList.toggle('dragging', mine);
      el.style.translate = mine ? `${drag.dx}px ${drag.dy}px` : shift ? `${shift}px 0` : '';
    }
  };

  const end = (event) => {
    if (event.pointerId !== drag.pointer) return;
    window.removeEventListener('pointermove', move);
    window.removeEventListener('pointerup', end);
    window.removeEventListener('pointercancel', end);
    const done = drag;
    drag = null;
    for (const el of cards()) {
      el.classList.remove('dragging');
      el.style.translate = '';
    }
    if (!done?.moving) return;
    // The click this release makes comes in the same task; a later one is a new tap.
    swallow = true;
    setTimeout(() => { swallow = false; });
    if (event.type === 'pointerup' && done.to !== done.from) drop(done.card, done.to);
  };

  const move = (event) => {
    if (!drag || event.pointerId !== drag.pointer) return;
    drag.dx = event.clientX - drag.x;
    drag.dy = event.clientY - drag.y;
    if (!drag.moving && Math.hypot(drag.dx, drag.dy) < SLOP) return;
    drag.moving = true;
    drag.to = Math.max(0, Math.min(drag.order.length - 1, drag.from + Math.round(drag.dx / drag.step)));
    show();
  };

  handEl.addEventListener('pointerdown', (event) => {
    const el = event.target.closest('.card[data-card]');
    const all = cards();
    if (drag || !el || !event.isPrimary || event.button !== 0 || all.length < 2 || !active()) return;
    const [a, b] = all.map((c) => c.getBoundingClientRect());
    drag = {
      card: el.dataset.card,
      order: all.map((c) => c.dataset.card),
      from: all.indexOf(el),
      pointer: event.pointerId,
      x: event.clientX,
      y: event.clientY,
      step: b.left - a.left, // one card and the gap after it
      moving: false,
    };
    drag.to = drag.from;
    window.addEventListener('pointermove', move);
    window.addEventListener('pointerup', end);
    window.addEventListener('pointercancel', end);
  });

  handEl.addEventListener('keydown', (event) => {
    const step = { ArrowLeft: -1, ArrowRight: 1 }[event.key];
    const el = event.target.closest('.card[data-card]');
    if (!step || !event.shiftKey || event.ctrlKey || event.metaKey || event.altKey || !el || !active()) return;
    const all = cards();
    const to = all.indexOf(el) + step;
    if (to < 0 || to >= all.length) return;
    event.preventDefault();
    drop(el.dataset.card, to, true);
  });

  handEl.addEventListener('click', (event) => {
    if (!swallow) return;
    event.stopPropagation();
    event.preventDefault();
  }, true);
}
