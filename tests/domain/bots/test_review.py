"""The review after each hand: constructed hands whose costly card is known, every card of
random hands checked against trying every line, and the secrecy contract (the review reads the
cards played and the bidding, so scrambling the sitting-out hand, the kitty and the buried card
changes nothing, bids' review included).
"""

from __future__ import annotations

import random
from functools import cache

from euchre_kit import bot_table, play_game, random_chooser, random_settings, seed_of
from log_kit import unplayed_scrambled

from domain import events as ev
from domain.bots.review import PlayedHand, played_hands, review
from domain.cards import CODES, INDEX, SUITS
from domain.tricks import playable, winner


def hand(trump: str, maker: int, tricks: str) -> PlayedHand:
    """Tricks written as the table plays them, "1:TC 2:AC 3:9C 0:KC / ...", seat:card; checked
    to be a hand the rules allow: each trick led by the last one's winner, seats in turn, suit
    followed."""
    played = [
        tuple((int(sc[0]), INDEX[sc[2:]]) for sc in trick.split()) for trick in tricks.split("/")
    ]
    t = SUITS.index(trump)
    playing = sorted(s for s, _ in played[0])
    held = [0, 0, 0, 0]
    for trick in played:
        for s, c in trick:
            held[s] |= 1 << c
    assert sorted(held[s].bit_count() for s in playing) == [5] * len(playing)
    for n, trick in enumerate(played):
        if n:
            assert trick[0][0] == winner(played[n - 1], t)
        for i, (s, c) in enumerate(trick):
            assert s == playing[(playing.index(trick[0][0]) + i) % len(playing)]
            assert playable(held[s], trick[:i], t) >> c & 1, CODES[c]
        for s, c in trick:
            held[s] &= ~(1 << c)
    return PlayedHand(1, trump, maker, played)


def costly(h: PlayedHand) -> list[tuple[int, str, int, list[str]]]:
    return [
        (c.trick, c.card, c.before - c.after, c.better)
        for c in review(h).cards
        if c.after < c.before
    ]


# Spades trump, seat 1 called. Seat 2 leads the queen of clubs into two seats out of clubs,
# and seat 1 trumps it with the ace. Leading the right bower draws that ace (seat 1's only
# trump), and seat 2's king and queen of trumps and the last club take the rest: all four.
TRUMP_FIRST = hand(
    "S",
    1,
    "1:TC 2:AC 3:9C 0:KC / 2:QC 3:QH 0:JD 1:AS / 1:JH 2:KS 3:KH 0:9H"
    " / 2:QS 3:TS 0:AD 1:QD / 2:JS 3:TD 0:TH 1:AH",
)


def test_leading_a_side_card_into_a_trump_costs_a_trick_that_the_right_bower_keeps():
    assert costly(TRUMP_FIRST) == [(2, "QC", 1, ["JS"])]
    second = review(TRUMP_FIRST).cards[4]
    assert (second.seat, second.before, second.after) == (2, 4, 3)


def test_a_card_that_costs_two_tricks_says_so_and_names_what_kept_them():
    h = hand(
        "C",
        2,
        "1:TC 2:9C 3:JS 0:QC / 3:KH 0:AH 1:JH 2:9H / 0:AD 1:KD 2:TD 3:QD"
        " / 0:QH 1:TH 2:JD 3:9S / 0:KS 1:JC 2:TS 3:AS",
    )
    assert costly(h) == [(2, "KH", 2, ["AS"])]


def test_a_march_from_the_top_trumps_costs_nobody_anything():
    h = hand(
        "H",
        0,
        "0:JH 1:9S 2:9C 3:9D / 0:JD 1:TS 2:TC 3:TD / 0:AH 1:QS 2:QC 3:QD"
        " / 0:KH 1:KS 2:KC 3:KD / 0:QH 1:AS 2:AC 3:AD",
    )
    cards = review(h).cards
    assert len(cards) == 20 and costly(h) == []
    assert {(c.seat % 2, c.before) for c in cards if c.trick == 1} == {(0, 5), (1, 0)}


def test_a_lone_hand_is_reviewed_on_the_three_seats_that_played():
    alone = hand(
        "S",
        0,
        "1:AH 3:KH 0:9H / 1:QH 3:9D 0:TH / 1:JH 3:TD 0:QD / 1:TS 3:KS 0:QS / 3:AD 0:KD 1:9S",
    )
    cards = review(alone).cards
    assert len(cards) == 15 and {c.seat for c in cards} == {0, 1, 3}
    assert all(c.after <= c.before for c in cards)


def test_cards_that_win_and_lose_alike_are_named_once():
    """Clubs trump, the right bower gone in the first trick: seat 3's left bower and ace of
    clubs are now the top two trumps, and either would have done what the ten didn't. The
    review names the stronger alone."""
    h = hand(
        "C",
        3,
        "1:AH 2:JH 3:JC 0:TH / 3:TC 0:QS 1:9C 2:KC / 2:9H 3:JS 0:9S 1:KH"
        " / 3:AC 0:KS 1:QD 2:JD / 3:AS 0:AD 1:KD 2:TD",
    )
    assert costly(h) == [(2, "TC", 1, ["JS"])]


# Trying every line ---------------------------------------------------------------------------


def brute_force(h: PlayedHand) -> list[tuple[int, int]]:
    """(before, after) for each card of `h`, by trying every legal line from each position."""
    trump = SUITS.index(h.trump)
    makers = h.maker % 2
    playing = sorted(s for s, _ in h.tricks[0])

    @cache
    def makers_take(hands: tuple[int, ...], trick: tuple[tuple[int, int], ...], turn: int) -> int:
        if len(trick) == len(playing):
            won = winner(trick, trump)
            rest = 0 if not hands[won] else makers_take(hands, (), won)
            return rest + (won % 2 == makers)
        values = []
        nxt = playing[(playing.index(turn) + 1) % len(playing)]
        for c in range(24):
            if playable(hands[turn], trick, trump) >> c & 1:
                after = list(hands)
                after[turn] &= ~(1 << c)
                values.append(makers_take(tuple(after), (*trick, (turn, c)), nxt))
        return max(values) if turn % 2 == makers else min(values)

    held = [0, 0, 0, 0]
    for trick in h.tricks:
        for s, c in trick:
            held[s] |= 1 << c

    def side_takes(seat: int, on: tuple[tuple[int, int], ...], card: int, left: int) -> int:
        after = list(held)
        after[seat] &= ~(1 << card)
        nxt = playing[(playing.index(seat) + 1) % len(playing)]
        m = makers_take(tuple(after), (*on, (seat, card)), nxt)
        return m if seat % 2 == makers else left - m

    out = []
    for trick in h.tricks:
        left = held[trick[0][0]].bit_count()
        for i, (seat, card) in enumerate(trick):
            on = trick[:i]
            options = [c for c in range(24) if playable(held[seat], on, trump) >> c & 1]
            best = max(side_takes(seat, on, c, left) for c in options)
            out.append((best, side_takes(seat, on, card, left)))
            held[seat] &= ~(1 << card)
    return out


def random_hands(n: int, seed: int) -> list[tuple[list[ev.Event], PlayedHand]]:
    """Scored hands of random games under random house rules, with each game's log."""
    rng = random.Random(seed)
    out: list[tuple[list[ev.Event], PlayedHand]] = []
    while len(out) < n:
        state, events = bot_table(seed_of((seed, len(out))), random_settings(rng))
        _, steps = play_game(state, random_chooser(), rng)
        log = events + [e for _, es in steps for e in es]
        out += [(log, h) for h in played_hands(log)]
    return out[:n]


def test_every_card_agrees_with_trying_every_line():
    for _, h in random_hands(5, 3):
        done = review(h).cards
        assert [(c.before, c.after) for c in done] == brute_force(h)
        for c in done:
            assert (c.after < c.before) == bool(c.better)
            assert CODES.index(c.card) not in {INDEX[b] for b in c.better}


# The secrecy contract ------------------------------------------------------------------------


def test_scrambling_every_card_nobody_played_changes_no_review():
    rng = random.Random(11)
    logs = {id(log): log for log, _ in random_hands(20, 7)}.values()
    sat_out = buried = bids = 0
    for log in logs:
        reviews = [review(h) for h in played_hands(log)]
        assert [review(h) for h in played_hands(unplayed_scrambled(log, rng))] == reviews
        buried += sum(isinstance(e, ev.CardBuried) for e in log)
        sat_out += sum(len({s for s, _ in h.tricks[0]}) == 3 for h in played_hands(log))
        bids += sum(len(r.bids) for r in reviews)
    assert buried and sat_out and bids, (
        "the games must hold buried cards, seats sitting out and bids"
    )
