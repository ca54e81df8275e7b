"""Defending alone (docs/euchre.md "Defending alone", house rule `defend_alone`): after a lone
call each defender in turn may answer with a loner of their own."""

from __future__ import annotations

from msgspec.structs import replace

from domain import commands as cmd
from domain import events as ev
from domain.phases import Evolve, PhaseRules
from domain.state import State, partner, team
from domain.tricks import first_trick


def after_making(s: State) -> State:
    """Once trump is made (and the dealer has discarded): with defending alone on, a lone call
    asks each defender in turn from the dealer's left; otherwise play begins."""
    d = s.deal
    if d.alone is not None and s.settings.defend_alone == "on":
        assert d.dealer is not None and d.maker is not None
        makers = team(d.maker)
        defenders = tuple(n for n in ((d.dealer + k) % 4 for k in range(1, 5)) if team(n) != makers)
        return replace(s, phase="defend", turn=defenders[0], asked=defenders)
    return first_trick(s)


def answer(s: State, c: cmd.Defend) -> ev.Event:
    return ev.DefenceChosen(seat=c.seat, alone=c.alone)


def _legal(s: State, seat: int) -> list[cmd.Command]:
    return [cmd.Defend(seat=seat, alone=False), cmd.Defend(seat=seat, alone=True)]


def _fallback(s: State, seat: int) -> cmd.Command:
    return cmd.Defend(seat=seat, alone=False)


def _chosen(s: State, e: ev.DefenceChosen) -> State:
    """The first to say yes defends alone, their partner sits out and the other isn't asked."""
    s = replace(s, seq=s.seq + 1, deal=replace(s.deal, moves=s.deal.moves + 1))
    if e.alone:
        sitting = (*s.deal.sitting, partner(e.seat))
        return first_trick(replace(s, deal=replace(s.deal, defender=e.seat, sitting=sitting)))
    rest = s.asked[1:]
    if rest:
        return replace(s, asked=rest, turn=rest[0])
    return first_trick(s)


RULES = PhaseRules(
    kind="defend",
    asking="to decide on defending alone",
    what_now="say whether you defend alone",
    moves={cmd.Defend: answer},
    legal=_legal,
    options={cmd.Defend: lambda s, moves: {}},
    fallback=_fallback,
)
EVOLVE: Evolve = {ev.DefenceChosen: _chosen}
