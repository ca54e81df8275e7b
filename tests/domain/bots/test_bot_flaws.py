"""The seed bots' known flaws, each fixed: the truly lowest card, "sure" winners that an
opponent who has shown out could ruff, and hard counting every card gone."""

from __future__ import annotations

import random

from bot_kit import card, move, table
from euchre_kit import crafted, passes, run

from domain import commands as cmd
from domain import view
from domain.bots import easy
from domain.bots.known import Known
from domain.bots.memory import Memory
from domain.cards import INDEX

# Dealer 3. Seat 1 holds no club; the up card (JH) is turned down and seat 1 calls spades.
SHOWN_OUT = (
    ["AC KC 9D TD QH", "JS AS KS QD KD", "9C QC JD AD 9H", "TC JC TH AH KH"],
    "JH",
    "9S TS QS",
)


def after_first_trick(alone: bool) -> object:
    """Seat 0 leads a club, seat 1 shows out (a diamond), seat 0 wins and leads again."""
    hands, up, kitty = SHOWN_OUT
    state = passes(crafted(hands, up, kitty, dealer=3), 5)
    state, _ = run(state, cmd.Call(seat=1, suit="S", alone=alone))
    lead = "KC" if alone else "AC"
    plays = [(0, lead), (1, "QD"), (2, "9C")] + ([] if alone else [(3, "TC")])
    state, _ = run(state, *(cmd.Play(seat=s, card=c) for s, c in plays))
    assert state.turn == 0 and len(state.deal.tricks) == 1
    return state


def easy_cards(state, seat: int) -> set[str]:
    """Easy's cards over many seeds, leaving out the ones where it blunders on purpose."""
    out = set()
    for k in range(40):
        if random.Random(k).random() >= easy.BLUNDER:
            out.add(move(state, seat, "easy", k).card)
    return out


def test_easy_throws_the_truly_lowest_card_not_the_first_by_name():
    """Diamonds trump, the ace of clubs led: easy can't follow or win, and the 10 of spades
    is lower than the queen of hearts (though "QH" sorts before "TS")."""
    state = table(
        {0: "AC", 1: "QH TS", 2: "9C", 3: "KC"}, trump="D", maker=0, turn=1, trick=[(0, "AC")]
    )
    assert card(state, 1, "easy") == "TS"


def test_easy_follows_trump_with_its_lowest_trump_not_the_left_bower():
    """Hearts trump, the right bower led: easy can't win, and holding the left bower (JD) and
    the 10 of hearts it throws the 10."""
    state = table(
        {0: "JH", 1: "JD TH", 2: "9C", 3: "KC"},
        trump="H",
        maker=0,
        turn=1,
        up="9S",
        trick=[(0, "JH")],
    )
    assert card(state, 1, "easy") == "TH"


def test_hard_wont_lead_a_boss_into_a_seat_that_has_shown_out_while_trump_is_out():
    """The ace of clubs has gone, so the king is the best club left; but seat 1 showed out of
    clubs and may still trump, so hard doesn't lead it (the seed's hard did)."""
    state = after_first_trick(alone=False)
    assert card(state, 0, "hard") != "KC"


def test_hard_leads_the_boss_once_no_trump_is_left_to_ruff_it():
    """The same king of clubs, with every trump accounted for: now it is a sure winner."""
    tricks = [
        (0, [(0, "JS"), (1, "AS"), (2, "KS"), (3, "QS")], 0),
        (0, [(0, "JC"), (1, "9S"), (2, "TS"), (3, "9H")], 0),
        (0, [(0, "AC"), (1, "QD"), (2, "9C"), (3, "TC")], 0),
    ]
    state = table(
        {0: "KC 9D", 1: "KD AD", 2: "QC JD", 3: "TH AH"},
        trump="S",
        maker=0,
        turn=0,
        up="JH",
        tricks=tricks,
    )
    assert card(state, 0, "hard") == "KC"


def test_hard_counts_every_card_gone_and_who_has_shown_out():
    """Played cards, the turned-down up card, its own buried card when it dealt, voids."""
    state = after_first_trick(alone=False)
    k = Known(view(state, 0))
    mem = Memory(k, full=True)
    for code in ("AC", "QD", "9C", "TC", "JH"):
        assert mem.gone >> INDEX[code] & 1, code
    assert mem.void[1] == 1 << 3  # seat 1 is out of clubs
    assert mem.is_boss(INDEX["KC"])
    medium = Memory(k, full=False)
    assert not medium.is_boss(INDEX["KC"])  # medium doesn't remember the ace going

    dealt = table(
        {0: "KH 9C", 1: "9D TD", 2: "QC KC", 3: "TC AC"},
        trump="S",
        maker=1,
        turn=0,
        dealer=0,
        up="9S",
        kitty_state="picked",
        buried="AH",
    )
    mem = Memory(Known(view(dealt, 0)), full=True)
    assert mem.gone >> INDEX["AH"] & 1 and mem.is_boss(INDEX["KH"])
    # Nobody else knows what the dealer buried.
    other = Memory(Known(view(dealt, 1)), full=True)
    assert not other.gone >> INDEX["AH"] & 1
    # And the dealer is known to hold the up card until it's played.
    assert other.held[0] == 1 << INDEX["9S"]


def test_hard_cashes_a_king_made_boss_by_its_own_buried_ace():
    dealt = table(
        {0: "KH 9C", 1: "9D TD", 2: "QC KC", 3: "TC AC"},
        trump="S",
        maker=1,
        turn=0,
        dealer=0,
        up="9S",
        kitty_state="picked",
        buried="AH",
    )
    assert card(dealt, 0, "hard") == "KH"
