// The ten house rules in plain words, each with a one-line hint, and the bot levels.

import { t } from './i18n.js';

const onOff = [['on', t('On')], ['off', t('Off')]];

export const HOUSE_RULES = [
  { key: 'stick_dealer', label: t('Stick the dealer'), hint: t('The dealer must call trump.'), choices: onOff, value: 'on' },
  { key: 'alone', label: t('Going alone'), hint: t('Play without a partner.'), choices: onOff, value: 'on' },
  { key: 'defend_alone', label: t('Defending alone'), hint: t('Defenders may go alone too.'), choices: onOff, value: 'off' },
  { key: 'farmers', label: t('Farmer’s hand'), hint: t('9s and 10s only: swap three.'), choices: onOff, value: 'off' },
  { key: 'canadian', label: t('Canadian loner'), hint: t('Dealer’s partner goes alone.'), choices: onOff, value: 'off' },
  { key: 'no_trump', label: t('No trump'), hint: t('Round two may call no trump: jacks are plain.'), choices: onOff, value: 'off' },
  { key: 'bot_pace', label: t('Bot speed'), hint: t('Relaxed is easier to follow.'), choices: [['brisk', t('Brisk')], ['relaxed', t('Relaxed')]], value: 'brisk' },
  { key: 'turn_limit', label: t('Turn limit'), hint: t('A minute a move (two, relaxed), then a bot plays.'), choices: onOff, value: 'on' },
  { key: 'spectators', label: t('Spectators'), hint: t('Anyone with the link may watch.'), choices: onOff, value: 'on' },
  { key: 'points', label: t('Points to win'), hint: t('The first side to reach it wins.'), choices: [5, 7, 10, 11, 15].map((n) => [n, String(n)]), value: 10 },
];

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
    const choice = r.choices.find(([k]) => k === settings[r.key]);
    if (r.key === 'points') return t('First to {points}', { points: settings.points });
    return r.key === 'bot_pace' ? t('{pace} bots', { pace: choice[1] }) : t('{rule}: {choice}', { rule: r.label, choice: choice[1].toLowerCase() });
  });
}
