"""What a finished hand is worth, and when the game is won."""

from __future__ import annotations

from domain.state import State, team

TARGET = 10
TRICKS = 5


def score_hand(s: State) -> tuple[int, int, str, int]:
    """(scoring team, points, how, makers' tricks).

    Makers with 3 or 4 tricks score 1; all five, a march, 2, or 4 alone. Makers held to 2 or
    fewer are euchred: 2 to the defenders, or 4 to a defender who went alone.
    """
    makers = team(s.maker)
    got = s.taken[makers]
    if got == TRICKS:
        return makers, 4 if s.alone is not None else 2, "march", got
    if got >= 3:
        return makers, 1, "made", got
    return 1 - makers, 4 if s.defender is not None else 2, "euchre", got


def game_over(score: tuple[int, ...]) -> bool:
    """Checked after every hand; only one team scores a hand, so only one can get there first."""
    return max(score) >= TARGET
