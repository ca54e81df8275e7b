"""Hard's search: the deals it samples fit what the seat knows, the double-dummy solver plays
perfectly, and the search finds the winning line the rules miss."""

from __future__ import annotations

import random

import pytest
from bot_kit import card, perfect_tricks, random_position, table
from euchre_kit import mask

from domain import view
from domain.bots import play
from domain.bots.known import Known
from domain.bots.memory import Memory
from domain.bots.sampling import Unseen
from domain.bots.search import decided, points_for
from domain.bots.solver import Solver, runs
from domain.cards import CODES, INDEX, SUIT_MASK, cards_of
from domain.tricks import playable

# Hearts trump, seat 2 made it; seat 0 dealt and picked up the 9 of hearts. After three
# tricks the makers have two, and seat 3 (a defender) leads holding the ace of hearts, the
# best trump left, and the ace of spades. Cash the spade first and a last trump out there
# may ruff it (the makers' third trick); draw that trump with the ace of hearts and the ace
# of spades is sure: a euchre whoever holds what.
DRAW_FIRST = {
    "hands": {0: "QS JC", 1: "JS KS", 2: "TS KC", 3: "AS AH"},
    "trump": "H",
    "maker": 2,
    "turn": 3,
    "dealer": 0,
    "up": "9H",
    "kitty_state": "picked",
    "tricks": [
        (1, [(1, "AD"), (2, "JD"), (3, "9D"), (0, "9S")], 2),
        (2, [(2, "JH"), (3, "TH"), (0, "9H"), (1, "QD")], 2),
        (2, [(2, "AC"), (3, "KH"), (0, "9C"), (1, "QC")], 3),
    ],
}


def test_hard_draws_the_last_trump_before_cashing_its_ace():
    state = table(**DRAW_FIRST)
    k = Known(view(state, 3))
    assert play.choose_card(k, "hard") == INDEX["AS"]  # what the rules alone would lead
    for seed in range(4):
        assert card(state, 3, "hard") == "AH", seed
    assert card(state, 3, "medium") == "AS"


def test_a_hand_already_settled_is_left_to_the_rules():
    """Makers with three tricks and the defenders with one: made, and no march left."""
    state = table(
        {0: "AS", 1: "KD", 2: "QD", 3: "TH"},
        trump="S",
        maker=0,
        turn=0,
        tricks=[
            (0, [(0, "JS"), (1, "9H"), (2, "9S"), (3, "9C")], 0),
            (0, [(0, "JC"), (1, "QH"), (2, "TS"), (3, "TC")], 0),
            (0, [(0, "KS"), (1, "KH"), (2, "QS"), (3, "QC")], 0),
            (0, [(0, "9D"), (1, "AD"), (2, "TD"), (3, "KC")], 1),
        ],
    )
    k = Known(view(state, 0))
    assert decided(k)
    assert [points_for(k, n) for n in (0, 3, 4, 5)] == [-2, 1, 1, 2]


def test_points_are_capped_at_what_wins_the_game():
    state = table(**DRAW_FIRST)
    near = table(**{**DRAW_FIRST, "score": (9, 8)})  # seat 3 is team 1, on 8
    assert [points_for(Known(view(state, 3)), n) for n in (0, 3, 5)] == [2, -1, -2]
    assert [points_for(Known(view(near, 3)), n) for n in (0, 3, 5)] == [2, -1, -1]


def test_points_are_capped_at_the_target_the_host_chose():
    """The same hand in a game to 5: at (4, 3) the makers' made point wins as well as a march,
    and the defenders' euchre is capped at the 2 they need."""
    to_five = {**DRAW_FIRST, "score": (4, 3), "settings": {"points": 5}}
    assert [points_for(Known(view(table(**to_five), 3)), n) for n in (0, 3, 5)] == [2, -1, -1]
    to_fifteen = {**DRAW_FIRST, "score": (9, 8), "settings": {"points": 15}}
    assert [points_for(Known(view(table(**to_fifteen), 3)), n) for n in (0, 3, 5)] == [2, -1, -2]


def test_sampled_deals_fit_everything_the_seat_knows():
    """Seat 0's view: seat 1 went alone and showed out of hearts, seat 2 dealt and still holds
    the up card, seat 3 sits out. Every deal gives each seat its count of cards, none seen
    elsewhere, no heart to seat 1, the up card to seat 2 and nothing to seat 3."""
    state = table(
        {0: "KC TC 9D TD", 1: "JS AS KS QD", 2: "TH QH KH 9S", 3: "9C JD AD JH QC"},
        trump="S",
        maker=1,
        alone=1,
        turn=0,
        dealer=2,
        up="9S",
        kitty_state="picked",
        tricks=[(0, [(0, "AH"), (1, "KD"), (2, "9H")], 0)],
    )
    k = Known(view(state, 0))
    mem = Memory(k, full=True)
    unseen = Unseen(k, mem)
    seen = k.hand | mask("AH KD 9H")
    rng = random.Random(0)
    hearts = SUIT_MASK[k.trump][1]
    held_hearts = 0
    for _ in range(300):
        hands = unseen.hands(rng, k.hand)
        assert [h.bit_count() for h in hands] == [4, 4, 4, 0]
        assert hands[0] == k.hand
        assert not hands[1] & hearts
        assert hands[2] >> INDEX["9S"] & 1
        held_hearts |= hands[2] & hearts
        for a in range(4):
            assert not hands[a] & seen & ~(k.hand if a == 0 else 0)
            for b in range(a + 1, 4):
                assert not hands[a] & hands[b]
    assert held_hearts == mask("TH QH KH JH")  # the hearts did go somewhere


def test_a_dealer_out_of_trump_must_have_buried_the_up_card():
    """If the dealer shows out of trump, the up card it picked up isn't in its hand."""
    state = table(
        {0: "AC KC 9D TD", 1: "QD KD AD 9H", 2: "JC 9C TC QH", 3: "TH AH KH QC"},
        trump="S",
        maker=1,
        turn=0,
        dealer=3,
        up="9S",
        kitty_state="picked",
        tricks=[(1, [(1, "JS"), (2, "AS"), (3, "JH"), (0, "KS")], 1)],
    )
    k = Known(view(state, 0))
    unseen = Unseen(k, Memory(k, full=True))
    rng = random.Random(1)
    for _ in range(100):
        hands = unseen.hands(rng, k.hand)
        assert not hands[3] >> INDEX["9S"] & 1
        assert not any(h >> INDEX["9S"] & 1 for h in hands)


@pytest.mark.parametrize("seed", range(6))
def test_the_solver_agrees_with_trying_every_line(seed):
    rng = random.Random(seed)
    for _ in range(25):
        n = rng.choice((2, 3))
        hands, trump, playing, makers, turn = random_position(rng, cards=n)
        trick: tuple = ()
        for _ in range(rng.randrange(len(playing))):  # part of the first trick played
            c = rng.choice(cards_of(playable(hands[turn], trick, trump)))
            hands[turn] ^= 1 << c
            trick = (*trick, (turn, c))
            turn = playing[(playing.index(turn) + 1) % len(playing)]
        best = perfect_tricks(hands, trump, playing, makers, trick, turn)
        solver = Solver(hands, trump, playing, makers)
        for need in range(n + 2):
            assert solver.reach(trick, turn, need) == (best >= need), (hands, trick, need)


def test_cards_with_nothing_left_between_them_are_one_choice():
    """Spades trump, the queen of hearts gone: the king and jack of hearts are alike, the
    ace and 9 of hearts are not (the 10 lies between the 9 and the jack)."""
    t = INDEX["QS"] // 6
    h = mask("AH KH JH 9H")
    live = ~mask("QH") & ((1 << 24) - 1)
    run = {CODES[c]: CODES[top] for c, top in runs(h, live, t).items()}
    assert run == {"AH": "AH", "KH": "AH", "JH": "AH", "9H": "9H"}


@pytest.mark.parametrize("seed", range(4))
def test_the_solver_agrees_with_trying_every_line_from_the_first_trick(seed):
    """Whole hands, five tricks to go (lone hands and lone defences too): the values
    bench/solver.py checks on 2,000 positions."""
    rng = random.Random(1000 + seed)
    for _ in range(3):
        hands, trump, playing, makers, turn = random_position(rng)
        best = perfect_tricks(hands, trump, playing, makers, (), turn)
        solver = Solver(hands, trump, playing, makers)
        assert [solver.reach((), turn, need) for need in range(7)] == [
            best >= need for need in range(7)
        ], (hands, trump, playing, makers, turn)
