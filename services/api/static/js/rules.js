// The eight house rules in plain words, each with a one-line hint, and the bot levels.

const onOff = [['on', 'On'], ['off', 'Off']];

export const HOUSE_RULES = [
  { key: 'stick_dealer', label: 'Stick the dealer', hint: 'The dealer must call trump.', choices: onOff, value: 'on' },
  { key: 'alone', label: 'Going alone', hint: 'Play without a partner.', choices: onOff, value: 'on' },
  { key: 'defend_alone', label: 'Defending alone', hint: 'Defenders may go alone too.', choices: onOff, value: 'off' },
  { key: 'farmers', label: 'Farmer’s hand', hint: '9s and 10s only: swap three.', choices: onOff, value: 'off' },
  { key: 'canadian', label: 'Canadian loner', hint: 'Dealer’s partner goes alone.', choices: onOff, value: 'off' },
  { key: 'bot_pace', label: 'Bot speed', hint: 'Relaxed is easier to follow.', choices: [['brisk', 'Brisk'], ['relaxed', 'Relaxed']], value: 'brisk' },
  { key: 'turn_limit', label: 'Turn limit', hint: 'A minute a move (two, relaxed), then a bot plays.', choices: onOff, value: 'on' },
  { key: 'spectators', label: 'Spectators', hint: 'Anyone with the link may watch.', choices: onOff, value: 'on' },
];

export const DEFAULT_RULES = Object.fromEntries(HOUSE_RULES.map((r) => [r.key, r.value]));

export const LEVELS = [
  ['easy', 'Easy', 'Learning the game'],
  ['medium', 'Medium', 'Sound, steady play'],
  ['hard', 'Hard', 'Counts every card'],
  ['expert', 'Expert', 'Searches the hidden cards'],
];

export const ALL_LEVELS = LEVELS.map(([k]) => k);

export const levelName = (level) => LEVELS.find(([k]) => k === level)?.[1] ?? level.charAt(0).toUpperCase() + level.slice(1);

/** The house rules that differ from the defaults, in words: for the lobby's list. */
export function ruleChips(settings) {
  return HOUSE_RULES.filter((r) => settings?.[r.key] && settings[r.key] !== r.value).map((r) => {
    const choice = r.choices.find(([k]) => k === settings[r.key]);
    return r.key === 'bot_pace' ? `${choice[1]} bots` : `${r.label}: ${choice[1].toLowerCase()}`;
  });
}
