"""What a finished hand is worth, and when the game is won (docs/euchre.md "Scoring",
"Winning"; the target is the house rule `points`)."""

from __future__ import annotations

from msgspec.structs import replace

from domain import events as ev
from domain.cards import TRUMPS
from domain.phases import Evolve
from domain.state import How, Outcome, State, team

TRICKS = 5


def worth(maker_tricks: int, alone: bool, defended_alone: bool) -> tuple[bool, int, How]:
    """(whether the makers score, points, how) for the makers' tricks.

    Makers with 3 or 4 tricks score 1; all five, a march, 2, or 4 alone. Makers held to 2 or
    fewer are euchred: 2 to the defenders, or 4 to a defender who went alone.
    """
    if maker_tricks == TRICKS:
        return True, 4 if alone else 2, "march"
    if maker_tricks >= 3:
        return True, 1, "made"
    return False, 4 if defended_alone else 2, "euchre"


def game_over(score: tuple[int, ...], target: int) -> bool:
    """Checked after every hand; only one team scores a hand, so only one can get there first."""
    return max(score) >= target


def hand_scored(s: State) -> ev.Event | None:
    """Due once the fifth trick is taken, played or claimed (domain/claim.py)."""
    d = s.deal
    if sum(d.taken) != TRICKS:
        return None
    assert d.maker is not None and d.trump is not None
    makers = team(d.maker)
    got = d.taken[makers]
    makers_score, points, how = worth(got, d.alone is not None, d.defender is not None)
    scorer = makers if makers_score else 1 - makers
    score = list(s.score)
    score[scorer] += points
    return ev.HandScored(
        maker=d.maker,
        trump=TRUMPS[d.trump],
        alone=d.alone,
        defender=d.defender,
        tricks=got,
        how=how,
        team=scorer,
        points=points,
        score=score,
    )


def game_won(s: State) -> ev.Event | None:
    if s.outcome is None or not game_over(s.score, s.settings.points):
        return None
    return ev.GameWon(team=s.outcome.team, score=list(s.score))


def _scored(s: State, e: ev.HandScored) -> State:
    """Bots (and bots covering for the away) are ready for the next hand at once."""
    score = (e.score[0], e.score[1])
    outcome = Outcome(
        hand_no=s.hand_no,
        deal_no=s.deal_no,
        maker=e.maker,
        trump=TRUMPS.index(e.trump),
        alone=e.alone,
        defender=e.defender,
        tricks=e.tricks,
        how=e.how,
        team=e.team,
        points=e.points,
        score=score,
    )
    seats = s.seats
    return replace(
        s,
        seq=s.seq + 1,
        score=score,
        outcome=outcome,
        history=(*s.history, outcome),
        phase="scored",
        asked_at=s.seq + 1,
        turn=None,
        deal=replace(
            s.deal,
            leader=None,
            ready=(seats[0].is_bot, seats[1].is_bot, seats[2].is_bot, seats[3].is_bot),
        ),
    )


def _won(s: State, e: ev.GameWon) -> State:
    return replace(s, seq=s.seq + 1, status="over", phase="over", winner=e.team, turn=None)


EVOLVE: Evolve = {ev.HandScored: _scored, ev.GameWon: _won}
