// Single-key shortcuts. Every shortcut is a button on screen showing its key (data-key), so a
// key press is exactly a click on that button, and only while it is shown and enabled.

let installed = false;

export function installKeys() {
  if (installed) return;
  installed = true;
  document.addEventListener('keydown', (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
    const target = event.target;
    if (target instanceof HTMLElement && target.closest('input, textarea, select, [contenteditable]')) return;
    let key = event.key.length === 1 ? event.key.toUpperCase() : event.key;
    if (key === 'Escape') key = 'Esc';
    const candidates = [...document.querySelectorAll(`[data-key="${CSS.escape(key)}"]`)];
    // A dialog on top takes its keys first; otherwise the first visible, enabled match.
    const layered = candidates.sort((a, b) => layer(b) - layer(a));
    const button = layered.find((el) => !el.disabled && el.getAttribute('aria-disabled') !== 'true' && visible(el));
    if (!button) return;
    event.preventDefault();
    button.click();
  });
}

const layer = (el) => (el.closest('[data-layer]') ? Number(el.closest('[data-layer]').dataset.layer) : 0);

function visible(el) {
  if (el.closest('[hidden], [inert]')) return false;
  const box = el.getBoundingClientRect();
  return box.width > 0 && box.height > 0;
}

/** The key shown on a button: a small keycap after its label. */
export function keycap(key) {
  const span = document.createElement('kbd');
  span.textContent = key;
  span.setAttribute('aria-hidden', 'true');
  return span;
}
