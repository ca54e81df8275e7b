// Seats as a person sees them: names, teams, where each sits on screen, "us" and "them".

import { t } from './i18n.js';

// Bots have no names of their own; each seat's bot gets a short, plainly robotic one.
const BOT_NAMES = ['Tin', 'Cog', 'Bolt', 'Dot'];

export const POSITIONS = ['bottom', 'left', 'top', 'right'];

/** The seat drawn at the bottom: yours, or seat 0 for someone watching. */
export const viewer = (v) => (v.you ?? 0);

/** Where a seat sits on screen: bottom (you), left, top (partner), right; seats run clockwise. */
export const positionOf = (v, seat) => POSITIONS[(seat - viewer(v) + 4) % 4];

export const teamOf = (seat) => seat % 2;

export function nameOf(v, seat) {
  const s = v.seats[seat];
  if (!s) return t('Seat {number}', { number: seat + 1 });
  if (s.player && s.name) return s.name;
  if (s.bot) return BOT_NAMES[seat];
  return t('Open seat');
}

export function shortName(v, seat) {
  if (v.you === seat) return t('You');
  return nameOf(v, seat);
}

export const isBot = (v, seat) => !!v.seats[seat]?.bot && (!v.seats[seat].player || v.seats[seat].away);

/** "Us"/"Them" for someone seated; the partners' names for someone watching. */
export function teamName(v, team) {
  if (v.you !== null && v.you !== undefined) return teamOf(v.you) === team ? t('Us') : t('Them');
  return `${nameOf(v, team)} & ${nameOf(v, team + 2)}`;
}

export function teamMembers(v, team) {
  return `${shortName(v, team)} & ${shortName(v, team + 2)}`;
}

/** Our team (the viewer's), 0 for someone watching. */
export const ourTeam = (v) => teamOf(viewer(v));

/** A sentence subject with the right verb: "You call" / "Ada calls". */
export function subject(v, seat) {
  return v.you === seat ? t('You') : nameOf(v, seat);
}
