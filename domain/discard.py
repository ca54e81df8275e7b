"""The dealer's discard after picking up in round one (docs/euchre.md "Bidding: round one"):
any one of the six cards, the up card included; only the dealer sees which."""

from __future__ import annotations

from msgspec.structs import replace

from domain import commands as cmd
from domain import events as ev
from domain.cards import CODES, INDEX, cards_of
from domain.defend import after_making
from domain.hands import cards_options, held, without
from domain.phases import Evolve, PhaseRules
from domain.sealing import next_seal
from domain.state import State


def bury(s: State, c: cmd.Discard) -> ev.Event:
    card = CODES[held(s, c.seat, c.card)]
    return ev.CardBuried(seat=c.seat, card=card, seal=next_seal(s, {"card": card}))


def _legal(s: State, seat: int) -> list[cmd.Command]:
    return [cmd.Discard(seat=seat, card=CODES[c]) for c in cards_of(s.deal.hands[seat])]


def _fallback(s: State, seat: int) -> cmd.Command:
    return cmd.Discard(seat=seat, card=CODES[cards_of(s.deal.hands[seat])[0]])


def _buried(s: State, e: ev.CardBuried) -> State:
    card = INDEX[e.card]
    d = replace(s.deal, hands=without(s, e.seat, card), buried=card, moves=s.deal.moves + 1)
    s = replace(s, seq=s.seq + 1, deal=d)
    return after_making(s)


RULES = PhaseRules(
    kind="discard",
    asking="to discard",
    what_now="discard a card",
    moves={cmd.Discard: bury},
    legal=_legal,
    options={cmd.Discard: cards_options},
    fallback=_fallback,
)
EVOLVE: Evolve = {ev.CardBuried: _buried}
