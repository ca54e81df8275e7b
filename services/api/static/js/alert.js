// Your turn, told when the table isn't what the player is looking at: a short chime if they
// turned sound on (it is off until they do: a page that beeps unasked is a page people mute
// or close), and a mark on the tab's title while another tab is in front, gone when they
// come back or the turn passes.

import { t } from './i18n.js';
import { option } from './options.js';

const MARK = '● ' + t('Your turn') + ' · ';
const NOTES = [660, 880]; // Hz, one after the other
const NOTE = 0.14; // seconds each

let audio = null;

function chime() {
  try {
    audio ??= new AudioContext();
    audio.resume?.();
    const start = audio.currentTime;
    NOTES.forEach((pitch, i) => {
      const at = start + i * NOTE;
      const tone = audio.createOscillator();
      const level = audio.createGain();
      tone.type = 'sine';
      tone.frequency.value = pitch;
      level.gain.setValueAtTime(0.0001, at);
      level.gain.exponentialRampToValueAtTime(0.2, at + 0.02);
      level.gain.exponentialRampToValueAtTime(0.0001, at + NOTE);
      tone.connect(level).connect(audio.destination);
      tone.start(at);
      tone.stop(at + NOTE);
    });
  } catch {
    // No audio in this browser: the title still tells.
  }
}

function mark(on) {
  const marked = document.title.startsWith(MARK);
  if (on && !marked) document.title = MARK + document.title;
  if (!on && marked) document.title = document.title.slice(MARK.length);
}

document.addEventListener('visibilitychange', () => {
  if (!document.hidden) mark(false);
});

/** One table's alerts: `update(mine)` at each redraw, told once as a turn becomes the player's. */
export class TurnAlert {
  constructor() { this.mine = false; }

  update(mine) {
    if (mine && !this.mine) {
      if (option('sound')) chime();
      if (document.hidden) mark(true);
    }
    if (!mine) mark(false);
    this.mine = mine;
  }

  stop() { mark(false); }
}
