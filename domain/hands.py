"""A seat's hand as the rules handle it: the card a move names, taken out or put in."""

from __future__ import annotations

from typing import Any

from domain.cards import CODES, INDEX, Code, cards_of, sort_key
from domain.errors import IllegalMove
from domain.state import State


def held(s: State, seat: int, code: str) -> int:
    """The card `code` names, refused unless it is one `seat` holds."""
    card = INDEX.get(code)
    if card is None:
        raise IllegalMove(f"{code!r} is not a card", field="card", allowed=list(CODES))
    if not s.deal.hands[seat] >> card & 1:
        raise IllegalMove(f"you don't hold {code}", field="card")
    return card


def without(s: State, seat: int, card: int) -> tuple[int, int, int, int]:
    hands = list(s.deal.hands)
    hands[seat] &= ~(1 << card)
    return hands[0], hands[1], hands[2], hands[3]


def with_card(s: State, seat: int, card: int) -> tuple[int, int, int, int]:
    hands = list(s.deal.hands)
    hands[seat] |= 1 << card
    return hands[0], hands[1], hands[2], hands[3]


def sorted_codes(mask: int, trump: int | None) -> list[Code]:
    """As a seat sees its cards: trump first, high cards first within a suit."""
    return [CODES[c] for c in sorted(cards_of(mask), key=lambda c: sort_key(c, trump))]


def cards_options(s: State, moves: list[Any]) -> dict[str, Any]:
    """`can` for a move that names one card (discard, play): the cards offered, in hand order."""
    trump = s.deal.trump
    return {"cards": sorted((m.card for m in moves), key=lambda c: sort_key(INDEX[c], trump))}
