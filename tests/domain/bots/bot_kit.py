"""Scenario tables for the bot tests: a hand in play, set up as the rules would have it.

`table(...)` takes hands by seat as card codes and the facts of the deal so far, and returns
a State ready for `view`: the bots only ever read a view, so a scenario need only be what a
seat could see at that moment. Where the order of play matters, tests drive the engine with
commands instead (euchre_kit.crafted + run).
"""

from __future__ import annotations

import functools
import random

from euchre_kit import ALL_ON, mask, plain
from msgspec.structs import replace

from domain import view
from domain.bots import choose
from domain.cards import INDEX, SUITS, cards_of
from domain.state import Bid, State, Trick
from domain.tricks import playable, winner


def table(
    hands: dict[int, str],
    trump: str,
    maker: int,
    turn: int,
    dealer: int = 3,
    up: str = "JH",
    kitty_state: str = "down",
    alone: int | None = None,
    trick: list[tuple[int, str]] | None = None,
    tricks: list[tuple[int, list[tuple[int, str]], int]] | None = None,
    buried: str | None = None,
    score: tuple[int, int] = (0, 0),
    settings: dict | None = None,
) -> State:
    base = plain(dealer=dealer, settings=settings or ALL_ON)
    full = [mask(hands.get(n, "")) for n in range(4)]
    done = tuple(
        Trick(leader=lead, cards=tuple((s, INDEX[c]) for s, c in cards), winner=won)
        for lead, cards, won in (tricks or [])
    )
    taken = [0, 0]
    for t in done:
        taken[t.winner % 2] += 1
    t = SUITS.index(trump)
    dealt = replace(
        base.deal,
        up=INDEX[up],
        kitty_state=kitty_state,
        trump=t,
        maker=maker,
        alone=alone,
        sitting=() if alone is None else ((alone + 2) % 4,),
        bids=(Bid(seat=maker, round=2, bid="call", suit=t, alone=alone is not None),),
        hands=tuple(full),
        trick=tuple((s, INDEX[c]) for s, c in (trick or [])),
        leader=(trick[0][0] if trick else turn),
        tricks=done,
        taken=tuple(taken),
        buried=None if buried is None else INDEX[buried],
    )
    return replace(base, phase="play", turn=turn, score=score, deal=dealt)


def move(state: State, seat: int, level: str, k: int = 0):
    return choose(view(state, seat), level, random.Random(k))


def card(state: State, seat: int, level: str) -> str:
    return move(state, seat, level).card


def scrambled(s: State, seat: int, rng: random.Random) -> State:
    """The same table as `seat` sees it, with every secret it can't see dealt out afresh:
    the other hands (each keeping its size), the kitty and, unless it dealt, the buried card."""
    others = [n for n in range(4) if n != seat]
    hidden_buried = s.deal.buried is not None and seat != s.deal.dealer
    pool = [c for n in others for c in cards_of(s.deal.hands[n])] + list(s.deal.kitty)
    if hidden_buried:
        pool.append(s.deal.buried)
    rng.shuffle(pool)
    hands = list(s.deal.hands)
    at = 0
    for n in others:
        size = s.deal.hands[n].bit_count()
        hands[n] = sum(1 << c for c in pool[at : at + size])
        at += size
    kitty = tuple(pool[at : at + len(s.deal.kitty)])
    at += len(s.deal.kitty)
    buried = pool[at] if hidden_buried else s.deal.buried
    return replace(s, deal=replace(s.deal, hands=tuple(hands), kitty=kitty, buried=buried))


def perfect_tricks(
    hands: list[int], trump: int, playing: list[int], makers: int, trick: tuple, turn: int
) -> int:
    """The makers' tricks from here under perfect play by both sides, every card known, by
    trying every line (remembering positions already valued): the solver's reference."""
    after_me = {s: playing[(i + 1) % len(playing)] for i, s in enumerate(playing)}

    @functools.cache
    def value(hands: tuple[int, ...], trick: tuple, turn: int) -> int:
        if len(trick) == len(playing):
            w = winner(trick, trump)
            return (w % 2 == makers) + value(hands, (), w)
        if not hands[turn]:
            return 0
        results = []
        for c in cards_of(playable(hands[turn], trick, trump)):
            rest = list(hands)
            rest[turn] ^= 1 << c
            results.append(value(tuple(rest), (*trick, (turn, c)), after_me[turn]))
        return max(results) if turn % 2 == makers else min(results)

    return value(tuple(hands), trick, turn)


def random_position(
    rng: random.Random, cards: int = 5
) -> tuple[list[int], int, list[int], int, int]:
    """A hand dealt at random, `cards` a seat (five: a whole hand): (hands, trump, seats
    playing, the makers' team, who leads). Four times in ten a loner's partner sits out, and
    half of those a lone defender's partner too."""
    deck = list(range(24))
    rng.shuffle(deck)
    playing = [0, 1, 2, 3]
    if rng.random() < 0.4:
        out = rng.randrange(4)
        playing.remove(out)
        if rng.random() < 0.5:
            playing.remove(rng.choice([s for s in playing if s % 2 != out % 2]))
    hands = [0, 0, 0, 0]
    for i, s in enumerate(playing):
        for c in deck[cards * i : cards * (i + 1)]:
            hands[s] |= 1 << c
    return hands, rng.randrange(4), playing, rng.randrange(2), rng.choice(playing)
