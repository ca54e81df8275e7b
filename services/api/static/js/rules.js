// The house rules in the reader's words, each with a one-line hint (declared once, by the
// server's domain/house_rules.py, which /js/house-rules.js serves), and the bot levels.

import { DECLARED } from './house-rules.js';
import { t } from './i18n.js';

// The words for a rule's values; a number stands for itself.
const CHOICE_WORDS = { on: t('On'), off: t('Off'), brisk: t('Brisk'), relaxed: t('Relaxed') };

export const HOUSE_RULES = DECLARED.map((r) => ({
  key: r.key,
  label: t(r.label),
  hint: t(r.hint),
  chip: r.chip,
  choices: r.allowed.map((value) => [value, CHOICE_WORDS[value] ?? String(value)]),
  value: r.default,
}));

export const DEFAULT_RULES = Object.fromEntries(HOUSE_RULES.map((r) => [r.key, r.value]));

/** The score that wins this table's game, as the score panel says it: "first to 7". */
export const firstTo = (settings) => t('first to {points}', { points: settings?.points ?? DEFAULT_RULES.points });

export const LEVELS = [
  ['easy', t('Easy'), t('Learning the game')],
  ['medium', t('Medium'), t('Sound, steady play')],
  ['hard', t('Hard'), t('Counts every card')],
  ['expert', t('Expert'), t('Searches the hidden cards')],
];

export const ALL_LEVELS = LEVELS.map(([k]) => k);

export const levelName = (level) => LEVELS.find(([k]) => k === level)?.[1] ?? level.charAt(0).toUpperCase() + level.slice(1);

/** The house rules that differ from the defaults, in words: for the lobby's list. */
export function ruleChips(settings) {
  return HOUSE_RULES.filter((r) => settings?.[r.key] && settings[r.key] !== r.value).map((r) => {
    const choice = r.choices.find(([k]) => k === settings[r.key])?.[1] ?? String(settings[r.key]);
    return r.chip ? t(r.chip, { choice }) : t('{rule}: {choice}', { rule: r.label, choice: choice.toLowerCase() });
  });
}
