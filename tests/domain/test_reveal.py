"""The players' seeds committed when they sit and revealed at the start (domain/reveal.py;
docs/euchre.md "The players' seeds")."""

from __future__ import annotations

import hashlib
import random

from euchre_kit import SEED, refused, run, seed_of

from domain import State, can, deciding, fallback, legal
from domain import commands as cmd
from domain import events as ev
from domain.bots import choose
from domain.errors import Conflict, IllegalMove, NotYourTurn
from domain.seat_view import view
from domain.shuffle import first_dealer, game_seed
from domain.talk import current_since


def pledged(seed: str) -> str:
    return hashlib.sha256(bytes.fromhex(seed)).hexdigest()


A, B, C = seed_of("ann"), seed_of("bo"), seed_of("cy")


def seated() -> State:
    """Ann (host, seat 0) and Bo (seat 1) committed to seeds; Cy (seat 2) gave hers openly;
    seat 3 is empty."""
    state, _ = run(
        State(),
        cmd.OpenTable(code="SEEDS", host="ann", name="Ann", seed=SEED, commitment=pledged(A)),
        cmd.TakeSeat(player="bo", name="Bo", seat=1, commitment=pledged(B)),
        cmd.TakeSeat(player="cy", name="Cy", seat=2, contribution=C),
    )
    return state


def test_a_commitment_is_all_the_table_shows_of_a_seed_until_the_start():
    state = seated()
    for seat in (None, 0, 1, 2, 3):
        shown = view(state, seat).seats
        assert shown[0].seed is None and shown[0].commitment == pledged(A)
        assert shown[1].seed is None and shown[1].commitment == pledged(B)
        assert shown[2].seed == C and shown[2].commitment is None


def test_the_start_asks_those_who_committed_and_waits_for_every_answer():
    state, events = run(seated(), cmd.StartGame(player="ann"))
    assert events == [ev.BotSeated(seat=3, level="medium"), ev.StartCalled(asked=[0, 1])]
    assert (state.status, state.phase) == ("playing", "reveal")
    assert [(d.seat, d.kind) for d in deciding(state)] == [(0, "reveal"), (1, "reveal")]
    assert can(state, 0) == {"reveal": {"commitment": pledged(A)}, "withhold": {}}
    assert can(state, 2) == {} and can(state, 3) == {}
    state, events = run(state, cmd.Reveal(seat=1, seed=B))
    assert events == [ev.SeedRevealed(seat=1, seed=B)]
    assert [d.seat for d in deciding(state)] == [0]
    state, events = run(state, cmd.Reveal(seat=0, seed=A))
    started = ev.GameStarted(
        first_dealer=first_dealer(game_seed(SEED, [A, B, C, None])), contributions=[A, B, C, None]
    )
    assert events[:2] == [ev.SeedRevealed(seat=0, seed=A), started]
    assert isinstance(events[2], ev.HandDealt) and state.phase in ("bid1", "farmer")


def test_a_seed_withheld_is_left_out_of_the_mix_and_the_log_says_so():
    state, _ = run(seated(), cmd.StartGame(player="ann"), cmd.Reveal(seat=0, seed=A))
    state, events = run(state, cmd.Withhold(seat=1))
    assert events[0] == ev.SeedWithheld(seat=1)
    assert events[1] == ev.GameStarted(
        first_dealer=first_dealer(game_seed(SEED, [A, None, C, None])),
        contributions=[A, None, C, None],
    )


def test_a_seed_that_isnt_the_one_committed_to_is_refused_and_changes_nothing():
    state, _ = run(seated(), cmd.StartGame(player="ann"))
    e = refused(state, cmd.Reveal(seat=1, seed=A), IllegalMove)
    assert e.reason == "that seed doesn't hash to the commitment you gave when you sat down"
    assert e.field == "seed"
    e = refused(state, cmd.Reveal(seat=1, seed="AB" * 32), IllegalMove)
    assert e.field == "seed"
    e = refused(state, cmd.Reveal(seat=2, seed=C), Conflict)  # gave hers openly: not asked
    assert "no seed to reveal" in e.reason
    state, _ = run(state, cmd.Reveal(seat=1, seed=B))
    refused(state, cmd.Reveal(seat=1, seed=B), Conflict)  # once is enough
    e = refused(state, cmd.Pass(seat=0), NotYourTurn)
    assert "reveal the seed you committed to" in e.reason


def test_a_seat_gives_a_seed_or_a_commitment_never_both_and_each_is_64_hex_digits():
    state = seated()
    both = cmd.TakeSeat(player="di", name="Di", seat=3, contribution=A, commitment=pledged(A))
    assert refused(state, both, IllegalMove).field == "commitment"
    bad = cmd.TakeSeat(player="di", name="Di", seat=3, commitment="XY" * 32)
    assert refused(state, bad, IllegalMove).field == "commitment"


def test_nobody_who_committed_means_the_game_starts_at_once():
    state, _ = run(
        State(),
        cmd.OpenTable(code="OPEN", host="ann", name="Ann", seed=SEED, contribution=A),
        cmd.TakeSeat(player="bo", name="Bo", seat=1),
    )
    _, events = run(state, cmd.StartGame(player="ann"))
    assert [type(e) for e in events[2:4]] == [ev.GameStarted, ev.HandDealt]
    assert events[2].contributions == [A, None, None, None]


def test_a_bot_covering_a_seat_withholds_its_persons_seed_and_that_is_the_fallback():
    """A person gone or timed out at the start: the bot covering the seat can't know the seed."""
    state, _ = run(seated(), cmd.StartGame(player="ann"))
    state, _ = run(state, cmd.MarkAway(seat=1, reason="gone"))
    assert fallback(state, 1) == cmd.Withhold(seat=1) == legal(state, 1)[0]
    assert choose(view(state, 1), "hard", random.Random(1)) == cmd.Withhold(seat=1)
    state, events = run(state, cmd.Withhold(seat=1), cmd.Reveal(seat=0, seed=A))
    assert ev.SeedWithheld(seat=1) in events
    assert next(e for e in events if isinstance(e, ev.GameStarted)).contributions[1] is None


def test_a_reveal_decided_before_another_seat_answered_is_still_current():
    """docs/api.md "Moves": at the start each decides only their own, as between hands."""
    called, _ = run(seated(), cmd.StartGame(player="ann"))
    later, _ = run(called, cmd.Reveal(seat=1, seed=B))
    assert current_since(later) <= called.seq <= later.seq
