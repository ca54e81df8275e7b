"""The secrecy contract: a seat's view can't depend on any card it isn't allowed to see.

For many states in every phase, under every combination of house rules, and for each seat and a
spectator: deal out again every secret the viewer mustn't know (the other hands, each keeping its
size; the kitty's face-down cards; the buried card unless the viewer dealt it; for a spectator,
every hand), then check the view is byte for byte the same JSON. If any secret leaked into the
view, some re-deal would move it.
"""

from __future__ import annotations

import functools
import itertools
import random
from collections import Counter

import msgspec
from euchre_kit import (
    TOGGLE_KEYS,
    bot_table,
    crafted_events,
    human_table,
    play_game,
    random_chooser,
    seed_of,
)
from msgspec.structs import replace

from domain import State, apply, deciding, fallback, fold, legal, view
from domain import commands as cmd
from domain import events as ev
from domain.cards import CODES, cards_of, mask_of
from domain.seat_view import table_json, view_json

VIEWERS = (None, 0, 1, 2, 3)
PHASES = ("farmer", "bid1", "bid2", "discard", "defend", "play", "scored", "over")
ENCODE = msgspec.json.Encoder().encode


def scramble(state: State, viewer: int | None, rng: random.Random) -> State:
    """Deal the viewer's unknowns out again, each pile keeping its size."""
    others = [n for n in range(4) if n != viewer]
    secret_buried = state.deal.buried is not None and viewer != state.deal.dealer
    piles = [cards_of(state.deal.hands[n]) for n in others]
    pool = [c for pile in piles for c in pile] + list(state.deal.kitty)
    if secret_buried:
        pool.append(state.deal.buried)
    rng.shuffle(pool)
    hands = list(state.deal.hands)
    for n, pile in zip(others, piles, strict=True):
        hands[n], pool = mask_of(pool[: len(pile)]), pool[len(pile) :]
    kitty, pool = tuple(pool[: len(state.deal.kitty)]), pool[len(state.deal.kitty) :]
    buried = pool.pop() if secret_buried else state.deal.buried
    assert not pool
    return replace(state, deal=replace(state.deal, hands=tuple(hands), kitty=kitty, buried=buried))


def farmer_deal(rng: random.Random, farmer: int) -> tuple[list[str], str, str]:
    """A deal where `farmer` holds five 9s and 10s (a farmer's hand, rare in real shuffles)."""
    low = [c for c in CODES if c[0] in "9T"]
    rng.shuffle(low)
    rest = [c for c in CODES if c not in low[:5]]
    rng.shuffle(rest)
    hands = []
    for n in range(4):
        if n == farmer:
            hands.append(" ".join(low[:5]))
        else:
            hands.append(" ".join(rest[:5]))
            rest = rest[5:]
    return hands, rest[0], " ".join(rest[1:])


def all_settings() -> list[dict]:
    return [
        dict(zip(TOGGLE_KEYS, values, strict=True))
        for values in itertools.product(("on", "off"), repeat=len(TOGGLE_KEYS))
    ]


@functools.cache
def states_to_check() -> list[State]:
    """Every state of random whole games (each rule combination, people and bots), and every
    state of first hands dealt to a farmer."""
    rng = random.Random(20240601)
    out: list[State] = []

    def keep(before, command, events, after):
        out.append(before)

    for k, s in enumerate(all_settings()):
        for humans in (False, True):
            table = human_table if humans else bot_table
            state, _ = table(seed_of(("secrecy", k, humans)), s)
            final, _ = play_game(state, random_chooser(pass_bias=0.6), rng, each=keep)
            out.append(final)
    for k in range(8):
        state, _ = human_table(seed_of(("secrecy", "restless", k)), all_settings()[k * 4])
        final, _ = play_game(state, restless(random_chooser(pass_bias=0.6)), rng, each=keep)
        out.append(final)
    for k in range(160):
        s = {key: rng.choice(("on", "off")) for key in TOGGLE_KEYS}
        s["farmers"] = "on"
        hands, up, kitty = farmer_deal(rng, farmer=k % 4)
        state = fold(
            crafted_events(hands, up, kitty, dealer=rng.randrange(4), settings=s, humans=k % 2 == 0)
        )
        assert state.phase == "farmer"
        choose = random_chooser(pass_bias=0.5)
        while state.status == "playing" and state.deal_no == 1:
            out.append(state)
            state = _step(state, choose, rng)
            if state.phase == "scored":
                out.append(state)
                break
    return out


def restless(choose):
    """People who go away, come back, leave, sit down again and get banned while they play:
    covered seats and the room's events among the states checked."""

    def chooser(state: State, rng: random.Random) -> cmd.Command:
        people = [n for n, seat in enumerate(state.seats) if seat.player is not None]
        n = rng.choice(people) if people else None
        roll = rng.random()
        if n is not None and not state.is_banned(state.seats[n].player):
            seat = state.seats[n]
            if roll < 0.03 and not seat.away:
                return cmd.MarkAway(seat=n, reason="gone")
            if roll < 0.06 and seat.away and not seat.left:
                return cmd.ComeBack(player=seat.player)
            if roll < 0.07 and not seat.away:
                return cmd.LeaveSeat(player=seat.player, seat=n)
            if roll < 0.08 and seat.left:
                return cmd.TakeSeat(player=seat.player, name=seat.name or "", seat=n)
            if roll < 0.081 and n != 0:
                return cmd.BanPlayer(player="p0", banned=seat.player)
        return choose(state, rng)

    return chooser


def _step(state: State, choose, rng: random.Random) -> State:
    return apply(state, choose(state, rng))[0]


def test_no_view_depends_on_a_card_its_viewer_may_not_see():
    """§ What each seat sees: re-dealing every secret leaves each seat's view byte-identical."""
    rng = random.Random(7)
    states = states_to_check()
    phases = Counter(s.phase for s in states)
    moved = 0
    checked = 0
    for state in states:
        for viewer in VIEWERS:
            scrambled = scramble(state, viewer, rng)
            moved += scrambled != state
            assert ENCODE(view(scrambled, viewer)) == ENCODE(view(state, viewer)), (
                f"seat {viewer} can tell secrets apart in phase {state.phase}"
            )
            if state.status == "playing":
                assert view(state, viewer).seed is None
            if viewer is not None:
                assert legal(scrambled, viewer) == legal(state, viewer)
            checked += 1
        decisions = deciding(state)
        for d in decisions:
            scrambled = scramble(state, d.seat, rng)
            assert deciding(scrambled) == decisions
            assert fallback(scrambled, d.seat) == fallback(state, d.seat)
    covered = sum(any(seat.away for seat in s.seats) for s in states)
    print(
        f"secrecy: {len(states)} states, {checked} views; phases {dict(phases)}, {covered} covered"
    )
    assert covered >= 500, "states with a bot covering a person's seat are checked too"
    assert len(states) >= 10_000
    for phase in PHASES:
        assert phases[phase] >= 20, f"only {phases[phase]} states in phase {phase}"
    assert moved > 0.8 * checked, "the re-deals must actually move cards"


def test_what_the_streams_send_is_each_view_byte_for_byte():
    """§ What each seat sees: the JSON the API sends, built from one encoding of the table
    shared by every seat, is `view` encoded, so the contract above covers it."""
    states = states_to_check()[::3]
    for state in states:
        table = table_json(state)
        for viewer in VIEWERS:
            assert view_json(state, viewer, table) == ENCODE(view(state, viewer))
    assert len(states) >= 3000


def with_talk(state: State, k: int) -> State:
    """`state` after some talk: a seat's line naming cards, a spectator's reaction, a mute."""
    talk: list[ev.Event] = [
        ev.ChatSaid(player=f"p{k % 4}", seat=k % 4, name="P", text="I hold JS, AH, 9C"),
        ev.ReactionShown(player="kib", seat=None, name="Kib", emoji="🤔"),
    ]
    if k % 2:
        talk.append(ev.PlayerMuted(player="kib", name="Kib"))
    return fold(talk, state)


def test_a_log_with_talk_leaks_no_card_either():
    """§ What each seat sees, § Table talk: with chat, reactions and mutes folded in at any
    moment, re-dealing every secret still leaves each view byte-identical, and each view is
    the one without the talk but for its seq and who is muted."""
    rng = random.Random(17)
    states = states_to_check()[::5]
    for k, state in enumerate(states):
        talked = with_talk(state, k)
        for viewer in VIEWERS:
            seen = view(talked, viewer)
            assert ENCODE(view(scramble(talked, viewer, rng), viewer)) == ENCODE(seen)
            assert replace(seen, seq=0, muted=[]) == replace(view(state, viewer), seq=0)
    assert len(states) >= 2000


def test_the_scramble_would_catch_a_leak():
    """§ What each seat sees: the re-deal moves every secret, so a leak would show (the check
    above is not vacuous); the viewer's own hand, and the dealer's discard for the dealer, stay."""
    rng = random.Random(3)
    state, _ = bot_table(seed_of("leak"), {"farmers": "on"})
    state = replace(
        state, deal=replace(state.deal, buried=state.deal.kitty[0])
    )  # as if the dealer had buried a card
    for viewer in VIEWERS:
        moved = Counter()
        for _ in range(40):
            scrambled = scramble(state, viewer, rng)
            for n in range(4):
                moved[n] += scrambled.deal.hands[n] != state.deal.hands[n]
            moved["kitty"] += scrambled.deal.kitty != state.deal.kitty
            moved["buried"] += scrambled.deal.buried != state.deal.buried
        for n in range(4):
            assert (moved[n] == 0) if n == viewer else (moved[n] > 30)
        assert moved["kitty"] > 30
        assert (moved["buried"] == 0) if viewer == state.deal.dealer else (moved["buried"] > 20)


def test_the_seed_is_shown_only_when_the_game_is_over():
    """§ What each seat sees: the seed (the key to every deal) stays hidden while playing."""
    state, _ = human_table(seed_of("seed"))
    for viewer in VIEWERS:
        assert view(state, viewer).seed is None
