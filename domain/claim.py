"""Claiming the rest of the tricks (docs/euchre.md "Claiming the rest"): on your turn to lead,
the rules take your claim when no way the unseen cards could lie and no way the others could
play them takes a trick from you, judged from what you know alone.

The verdict reads only the claimer's own cards, the cards played and who failed to follow,
trump, and the cards the claimer knows are out of play (the turned card once it is turned
down or left out, the dealer's own buried card). So a claim refused tells the claimer nothing
they couldn't have worked out, and no one's hidden cards are shown unless it is taken.

The search is a game against one opponent who holds every unseen card and decides who has
which only as they are played, keeping only to the voids the seats have shown. That opponent
is at least as strong as any real deal, so a claim it can't beat can't be beaten at the table.
Among unseen cards of one suit, the lowest is always the one to give up (a higher one takes
everything a lower one does), so each seat's choices in a trick are few: follow low, or show
out by throwing the lowest card of another suit.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from msgspec.structs import replace

from domain import commands as cmd
from domain import events as ev
from domain.cards import DECK, FOLLOWS, INDEX, POWER, SUIT_MASK, cards_of, mask_of, words_for
from domain.errors import IllegalMove
from domain.hands import sorted_codes
from domain.phases import Evolve, PhaseRules
from domain.scoring import TRICKS
from domain.state import Claimed, KittyState, State, team
from domain.tricks import RULES as PLAY


def out_of_play(
    me: int, dealer: int, up: int, kitty_state: KittyState | None, buried: int | None
) -> int:
    """The cards `me` knows nobody plays: the turned card once turned down or left out (a
    dealer who picked it up may hold it), and the dealer's own buried card."""
    out = 1 << up if kitty_state in ("down", "out") else 0
    if me == dealer and buried is not None:
        out |= 1 << buried
    return out


def _beaten_by(card: int, trump: int) -> int:
    led = FOLLOWS[trump][card]
    power = POWER[trump][led]
    return sum(1 << c for c in range(24) if power[c] > power[card])


# BEATEN_BY[trump][card]: the cards that take a trick `card` leads (higher cards of its suit,
# and trumps; in no trump, NO_TRUMP, only the higher cards of its suit).
BEATEN_BY = tuple(tuple(_beaten_by(c, t) for c in range(24)) for t in range(5))


def threats(hand: int, unseen: int, trump: int) -> int:
    """The unseen cards that could beat one of `hand` led: a refusal names these."""
    out = 0
    for c in cards_of(hand):
        out |= BEATEN_BY[trump][c] & unseen
    return out


def verdict(
    me: int,
    hand: int,
    trump: int,
    tricks: Iterable[tuple[tuple[int, int], ...]],
    out: int,
    sitting: Iterable[int],
) -> int:
    """0 when `me`, on lead with `hand`, wins every remaining trick with their own cards
    however the others hold and play the unseen cards; otherwise the unseen cards that could
    beat one of theirs. `tricks` are this hand's finished tricks, each (seat, card) in the
    order played; `out` the cards known out of play."""
    playing = [n for n in range(4) if n != me and n not in set(sitting)]
    seen = hand | out
    voids = dict.fromkeys(playing, 0)
    for cards in tricks:
        for seat, card in cards:
            seen |= 1 << card
            led = FOLLOWS[trump][cards[0][1]]
            if seat in voids and FOLLOWS[trump][card] != led:
                voids[seat] |= 1 << led
    unseen = DECK & ~seen
    danger = threats(hand, unseen, trump)
    if not danger or _certain(hand, unseen, tuple(sorted(voids.values())), trump):
        return 0
    return danger


def _low_first(trump: int, suit: int) -> tuple[int, ...]:
    return tuple(sorted(cards_of(SUIT_MASK[trump][suit]), key=POWER[trump][suit].__getitem__))


# LOW_FIRST[trump][suit]: the suit's cards from the lowest up.
LOW_FIRST = tuple(tuple(_low_first(t, u) for u in range(4)) for t in range(5))


@lru_cache(maxsize=65536)
def _certain(hand: int, pool: int, voids: tuple[int, ...], trump: int) -> bool:
    """Whether leading from `hand` wins every trick against every play of `pool` by seats
    with these voids (a sorted tuple: the seats are alike, so which is which is immaterial)."""
    if not threats(hand, pool, trump):
        return True
    # Trumps (highest first) before the rest: drawing trumps is how most claims are made.
    for lead in sorted(cards_of(hand), key=lambda c: -POWER[trump][FOLLOWS[trump][c]][c]):
        led = FOLLOWS[trump][lead]
        beats = BEATEN_BY[trump][lead] & pool
        follow = beats & SUIT_MASK[trump][led]
        if follow and any(not v >> led & 1 for v in voids):
            continue  # a seat that may hold the suit may hold a higher card of it
        if beats & ~follow and any(not v >> trump & 1 for v in voids):
            continue  # a seat that may be out of the suit led may hold a trump
        rest = hand & ~(1 << lead)
        if all(_certain(rest, *after, trump) for after in _answers(rest, pool, voids, led, trump)):
            return True
    return False


def _answers(
    rest: int, pool: int, voids: tuple[int, ...], led: int, trump: int
) -> set[tuple[int, tuple[int, ...]]]:
    """Every way the seats can answer a lead of suit `led` without beating it, as what is left
    after: the pool and each seat's voids. A card that can't beat any of `rest` stays in the
    pool once played: the opponent may play it again, which only makes them stronger, and
    how many such cards there are then never matters."""
    out: set[tuple[int, tuple[int, ...]]] = set()
    harmless = ~threats(rest, pool, trump)

    def each(n: int, pool: int, done: tuple[int, ...]) -> None:
        if n == len(voids):
            out.add((pool, tuple(sorted(done))))
            return
        v = voids[n]
        for suit in range(4):
            if v >> suit & 1 or (suit == trump and led != trump):
                continue  # a trump on another suit's lead beats it: that was ruled out
            low = next((c for c in LOW_FIRST[trump][suit] if pool >> c & 1), None)
            if low is None:
                continue
            left = pool if harmless >> low & 1 else pool & ~(1 << low)
            each(n + 1, left, (*done, v if suit == led else v | 1 << led))

    each(0, pool, ())
    return out


def _danger(s: State, seat: int) -> int:
    """`verdict` for `seat` on lead, asked with what its view shows."""
    d = s.deal
    assert d.trump is not None and d.dealer is not None and d.up is not None
    out = out_of_play(seat, d.dealer, d.up, d.kitty_state, d.buried)
    return verdict(
        seat,
        d.hands[seat],
        d.trump,
        (t.cards for t in d.tricks),
        out,
        d.sitting,
    )


def claim(s: State, c: cmd.Claim) -> ev.Event:
    """Taken only when certain; refused otherwise, naming the unseen cards that stand in the
    way (which the claimer could list too: nothing hidden is in the refusal)."""
    d = s.deal
    if d.trick:
        raise IllegalMove("you may claim the rest only when it's your turn to lead")
    danger = _danger(s, c.seat)
    if danger:
        out = [INDEX[code] for code in sorted_codes(danger, d.trump)]
        raise IllegalMove(
            "the rest of the tricks aren't certain from your cards: "
            f"{words_for(out, d.trump, 'or')} could still take one from you"
        )
    hand = d.hands[c.seat]
    return ev.TricksClaimed(
        seat=c.seat, cards=sorted_codes(hand, d.trump), tricks=TRICKS - len(d.tricks)
    )


def _offered(s: State, seat: int) -> dict[str, Any]:
    """Offered on every lead, certain or not: whether to claim is the player's call, and a
    false claim is refused, so the offer itself tells nothing. `legal` never lists a claim:
    it is an extra a game may go without, and one played from `legal` alone (by another
    engine, say) goes exactly as it did before claims existed."""
    return {"claim": {}} if not s.deal.trick else {}


def _claimed(s: State, e: ev.TricksClaimed) -> State:
    """The claimer's cards go face up, and the tricks left go to their side; the hand is
    then scored as any other (domain/scoring.py)."""
    hands = list(s.deal.hands)
    hands[e.seat] = 0
    taken = list(s.deal.taken)
    taken[team(e.seat)] += e.tricks
    shown = Claimed(seat=e.seat, cards=mask_of(INDEX[c] for c in e.cards), tricks=e.tricks)
    d = replace(
        s.deal,
        hands=(hands[0], hands[1], hands[2], hands[3]),
        taken=(taken[0], taken[1]),
        claimed=shown,
        moves=s.deal.moves + 1,
    )
    return replace(s, seq=s.seq + 1, turn=None, deal=d)


# Play, with a claim open on every lead: domain/decider.py dispatches the play phase here.
RULES: PhaseRules = dataclasses.replace(
    PLAY, moves={**PLAY.moves, cmd.Claim: claim}, offered=_offered
)
EVOLVE: Evolve = {ev.TricksClaimed: _claimed}
