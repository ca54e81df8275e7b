"""The shuffle, the deal and the first dealer: pure functions of the seed and the deal number."""

from __future__ import annotations

import hashlib
import hmac
import random
import struct
from collections import Counter

import pytest
from euchre_kit import SEED, bot_table, events_of, play_game, random_chooser, seed_of

from domain import apply, new_game
from domain import commands as cmd
from domain import events as ev
from domain.cards import CODES
from domain.errors import Refused
from domain.shuffle import dealt, first_dealer, seed_bytes, seed_hash, shuffled
from domain.state import State


def audit_words(seed: str, label: bytes):
    """An auditor's reading of docs/euchre.md "The shuffle": HMAC-SHA256 keyed by the seed's 32
    bytes over label + a big-endian block counter, each digest eight big-endian 32-bit words."""
    key = bytes.fromhex(seed)
    block = 0
    while True:
        digest = hmac.new(key, label + block.to_bytes(4, "big"), hashlib.sha256).digest()
        for k in range(8):
            yield int.from_bytes(digest[4 * k : 4 * k + 4], "big")
        block += 1


def audit_below(words, n: int) -> int:
    """Unbiased: words at or above the largest multiple of n below 2**32 are thrown away."""
    limit = 2**32 - 2**32 % n
    for w in words:
        if w < limit:
            return w % n
    raise AssertionError("unreachable")


def audit_deck(seed: str, deal_no: int) -> list[str]:
    words = audit_words(seed, b"euchre/deal/" + struct.pack(">I", deal_no))
    deck = list(CODES)  # index order: 9S TS JS QS KS AS 9H ... AC
    for i in range(23, 0, -1):
        j = audit_below(words, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def test_a_seed_is_64_lowercase_hex_digits():
    """§ The shuffle: anything else is refused."""
    assert seed_bytes("ab" * 32) == bytes([0xAB]) * 32
    for bad in ["AB" * 32, "ab" * 31, "ab" * 33, "zz" * 32, "", "ab" * 32 + " "]:
        with pytest.raises(ValueError):
            seed_bytes(bad)


def test_the_seed_hash_is_sha256_of_the_seeds_bytes():
    """§ The shuffle: the hash published at the start checks the seed revealed at the end."""
    seed = "00" * 32
    assert seed_hash(seed) == hashlib.sha256(bytes(32)).hexdigest()
    assert seed_hash(seed) == "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"
    for n in range(20):
        s = seed_of(n)
        assert seed_hash(s) == hashlib.sha256(bytes.fromhex(s)).hexdigest()


def test_the_shuffle_is_a_permutation_of_the_deck():
    """§ The shuffle: every deal uses each of the 24 cards exactly once."""
    for n in range(200):
        deck = shuffled(seed_of(n), n % 7 + 1)
        assert sorted(deck) == list(range(24))


def test_the_same_seed_and_deal_number_always_shuffle_the_same():
    """§ The shuffle: deterministic per (seed, deal number)."""
    for n in range(20):
        assert shuffled(seed_of(n), 3) == shuffled(seed_of(n), 3)


def test_each_deal_and_each_seed_shuffles_differently():
    """§ The shuffle: a fresh shuffle every deal."""
    seed = seed_of("deals")
    decks = {tuple(shuffled(seed, d)) for d in range(1, 101)}
    assert len(decks) == 100
    decks = {tuple(shuffled(seed_of(n), 1)) for n in range(100)}
    assert len(decks) == 100


def test_an_auditor_can_reshuffle_from_the_documented_algorithm():
    """§ The shuffle: HMAC-SHA256 words, rejection sampling and Fisher-Yates re-derive each deck."""
    for n in range(50):
        seed = seed_of(n)
        for deal_no in (1, 2, 17):
            assert [CODES[c] for c in shuffled(seed, deal_no)] == audit_deck(seed, deal_no)
    for n in range(50):
        seed = seed_of(n)
        assert first_dealer(seed) == audit_below(audit_words(seed, b"euchre/first-dealer"), 4)


def test_a_known_seed_deals_a_known_deck():
    """§ The shuffle: pinned, so a change to the algorithm can't slip through unnoticed."""
    got = " ".join(CODES[c] for c in shuffled("00" * 32, 1))
    assert got == "TH TC AS JC QH 9C JD KH AD QS TD KC KD QD 9D AC KS 9S AH TS JS JH QC 9H"
    got = " ".join(CODES[c] for c in shuffled("00" * 32, 2))
    assert got == "9C AS KD KS JC AC 9S 9D KH QC AH JS QS JD TS 9H AD JH QD TC TH KC QH TD"
    assert first_dealer("00" * 32) == 0


def test_each_card_lands_anywhere_in_the_deck_about_equally_often():
    """§ The shuffle: a rough fairness check (each card in each place about 1 time in 24)."""
    places = Counter()
    for n in range(2400):
        deck = shuffled(seed_of("fair"), n + 1)
        places.update((card, spot) for spot, card in enumerate(deck))
    # 100 expected per (card, place); 5 standard deviations either way is far outside chance.
    assert min(places.values()) > 50 and max(places.values()) < 150
    assert len(places) == 24 * 24


def test_the_first_dealer_comes_from_the_seed():
    """§ The deal: the same seed always picks the same first dealer, and any seat can be it."""
    seen = Counter(first_dealer(seed_of(n)) for n in range(400))
    assert set(seen) == {0, 1, 2, 3}
    assert min(seen.values()) > 60
    for n in range(10):
        seed = seed_of(n)
        state = new_game(seed)
        assert state.first_dealer == first_dealer(seed)
        assert state.deal.dealer == first_dealer(seed)


def test_five_cards_each_from_the_dealers_left_then_the_up_card_then_the_kitty():
    """§ The deal: five each in turn from the dealer's left; the 21st card up; three face down."""
    seed = seed_of("deal")
    deck = shuffled(seed, 4)
    for dealer in range(4):
        hands, up, kitty = dealt(seed, 4, dealer)
        for k in range(4):
            assert hands[(dealer + 1 + k) % 4] == deck[5 * k : 5 * k + 5]
        assert up == deck[20]
        assert kitty == deck[21:]


def test_the_first_deal_is_the_seeds_first_shuffle():
    """§ The deal: deal 1 is dealt by the first dealer from shuffle(seed, 1)."""
    seed = seed_of("first deal")
    state, events = bot_table(seed)
    (deal,) = events_of(ev.HandDealt, events)
    hands, up, kitty = dealt(seed, 1, first_dealer(seed))
    assert deal.deal_no == 1
    assert deal.dealer == first_dealer(seed)
    assert deal.hands == [[CODES[c] for c in h] for h in hands]
    assert deal.up == CODES[up]
    assert deal.kitty == [CODES[c] for c in kitty]
    assert state.deal_no == 1 and state.phase == "bid1"


def test_the_deal_passes_left_every_deal_thrown_in_ones_too():
    """§ The deal: deal n is dealt by (first dealer + n - 1) % 4 from shuffle(seed, n)."""
    rng = random.Random(7)
    throw_ins = 0
    for n in range(30):
        seed = seed_of(("passes left", n))
        state, opening = bot_table(seed, {"stick_dealer": "off"})
        state, steps = play_game(state, random_chooser(pass_bias=0.85), rng)
        events = opening + [e for _, es in steps for e in es]
        deals = events_of(ev.HandDealt, events)
        throw_ins += len(events_of(ev.HandThrownIn, events))
        assert [d.deal_no for d in deals] == list(range(1, len(deals) + 1))
        for d in deals:
            assert d.dealer == (first_dealer(seed) + d.deal_no - 1) % 4
            hands, up, kitty = dealt(seed, d.deal_no, d.dealer)
            assert d.hands == [[CODES[c] for c in h] for h in hands]
            assert (d.up, d.kitty) == (CODES[up], [CODES[c] for c in kitty])
    assert throw_ins > 10


def test_a_thrown_in_hand_is_followed_by_the_next_dealers_deal():
    """§ Stick the dealer: after a throw-in the player to the dealer's left deals."""
    state = new_game(seed_of("throw"), {"stick_dealer": "off"})
    dealer, deal_no = state.deal.dealer, state.deal_no
    for _ in range(7):
        state, _ = apply(state, cmd.Pass(seat=state.turn))
    state, events = apply(state, cmd.Pass(seat=state.turn))
    thrown, deal = events[-2:]
    assert thrown == ev.HandThrownIn(deal_no=deal_no)
    assert isinstance(deal, ev.HandDealt)
    assert deal.dealer == (dealer + 1) % 4 == state.deal.dealer
    assert deal.deal_no == deal_no + 1 == state.deal_no


def audit_game_seed(seed: str, contributions: list[str | None] | None) -> str:
    """An auditor's reading of docs/euchre.md "The players' seeds"."""
    if not contributions or all(c is None for c in contributions):
        return seed
    message = b"euchre/players"
    for c in contributions:
        message += b"\x00" if c is None else b"\x01" + bytes.fromhex(c)
    return hmac.new(bytes.fromhex(seed), message, hashlib.sha256).hexdigest()


def people_table(seeds: dict[int, str | None]) -> tuple[State, list[ev.Event]]:
    """A table where the person in each seat of `seeds` sat down giving that seed (the host
    in the first), bots elsewhere, started."""
    first, *others = sorted(seeds)
    commands = [
        cmd.OpenTable(
            code="SEEDS",
            host=f"p{first}",
            name="P",
            seed=SEED,
            seat=first,
            contribution=seeds[first],
        ),
        *(
            cmd.TakeSeat(player=f"p{n}", name=f"P{n}", seat=n, contribution=seeds[n])
            for n in others
        ),
        cmd.StartGame(player=f"p{first}"),
    ]
    state, log = State(), []
    for c in commands:
        state, events = apply(state, c)
        log += events
    return state, log


def test_the_players_seeds_make_the_games_seed_as_the_page_says():
    given = {0: "11" * 32, 2: "22" * 32}
    state, log = people_table({0: given[0], 1: None, 2: given[2]})
    (started,) = events_of(ev.GameStarted, log)
    assert started.contributions == [given[0], None, given[2], None]
    expected = audit_game_seed(SEED, started.contributions)
    assert expected != SEED and state.deal_seed == expected
    (deal,) = events_of(ev.HandDealt, log)
    hands, up, kitty = dealt(expected, 1, deal.dealer)
    assert deal.hands == [[CODES[c] for c in h] for h in hands]
    assert (deal.up, deal.kitty) == (CODES[up], [CODES[c] for c in kitty])
    assert started.first_dealer == first_dealer(expected)


def test_one_players_seed_changes_the_deal_and_none_leaves_the_servers():
    _, theirs = people_table({0: "11" * 32})
    _, others = people_table({0: "12" * 32})
    _, nobodys = people_table({0: None})
    deals = [events_of(ev.HandDealt, log)[0].hands for log in (theirs, others, nobodys)]
    assert deals[0] != deals[1] != deals[2]
    (started,) = events_of(ev.GameStarted, nobodys)
    assert started.contributions is None  # the log reads as before players gave seeds
    assert people_table({0: None})[0].deal_seed == SEED


@pytest.mark.parametrize("bad", ["", "AB" * 32, "ab" * 31, "zz" * 32, "ab" * 33])
def test_a_seed_that_isnt_64_lowercase_hex_digits_is_refused(bad):
    with pytest.raises(Refused) as refused:
        people_table({0: "11" * 32, 1: bad})
    assert refused.value.field == "seed"
