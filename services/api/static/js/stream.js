// The table's event stream: the caller's view at once and after every change, the table's
// talk (`chat` and `reaction` events) as it is said, and who is disconnected (`presence`).
//
// EventSource reconnects by itself and resumes with Last-Event-ID, so nothing is missed while
// it can. When the browser gives up (the server refused or went away), a fresh stream is
// opened after a growing pause; its first message is the table as it is now.

import { api } from './api.js';

export function watch(code, { onView, onLink, onTalk, onBanned, onPresence }) {
  let source = null;
  let stopped = false;
  let timer = null;
  let pause = 1000;

  const open = () => {
    if (stopped) return;
    source = new EventSource(api.eventsUrl(code));
    source.addEventListener('view', (event) => {
      pause = 1000;
      onLink('live');
      let view;
      try { view = JSON.parse(event.data); } catch { return; }
      onView(view);
    });
    // The table's last word to a viewer the host banned: no reconnecting after it.
    source.addEventListener('banned', () => {
      stopped = true;
      source.close();
      onBanned?.();
    });
    for (const kind of ['chat', 'reaction']) {
      source.addEventListener(kind, (event) => {
        let line;
        try { line = JSON.parse(event.data); } catch { return; }
        onTalk?.(kind, line);
      });
    }
    // Who at the table has no stream open, and how long before a bot covers them.
    source.addEventListener('presence', (event) => {
      let frame;
      try { frame = JSON.parse(event.data); } catch { return; }
      onPresence?.(frame);
    });
    source.addEventListener('open', () => onLink('live'));
    source.addEventListener('error', () => {
      if (stopped) return;
      if (source.readyState === EventSource.CLOSED) {
        source.close();
        onLink('lost');
        clearTimeout(timer);
        timer = setTimeout(open, pause);
        pause = Math.min(pause * 2, 15000);
      } else {
        onLink('reconnecting');
      }
    });
  };

  // A tab coming back to the front after a long sleep: make sure the stream is alive.
  const wake = () => {
    if (!stopped && document.visibilityState === 'visible' && source?.readyState === EventSource.CLOSED) {
      clearTimeout(timer);
      open();
    }
  };
  document.addEventListener('visibilitychange', wake);
  open();

  return () => {
    stopped = true;
    clearTimeout(timer);
    document.removeEventListener('visibilitychange', wake);
    source?.close();
  };
}
