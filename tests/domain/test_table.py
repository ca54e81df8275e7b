"""The table around the game: house rules, seats and the start, between hands, driving it."""

from __future__ import annotations

import random

import msgspec
import pytest
from euchre_kit import (
    SEED,
    bot_table,
    events_of,
    human_table,
    play_game,
    random_chooser,
    refused,
    run,
    seed_of,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from domain import State, apply, decide, deciding, evolve, fallback, fold, legal, new_game, view
from domain import commands as cmd
from domain import events as ev
from domain.errors import Conflict, IllegalMove, NotAllowed, NotYourTurn
from domain.house_rules import ALLOWED, HouseRules, house_rules_from
from domain.shuffle import first_dealer, seed_hash

DEFAULTS = {
    "stick_dealer": "on",
    "alone": "on",
    "defend_alone": "off",
    "farmers": "off",
    "canadian": "off",
    "no_trump": "off",
    "bot_pace": "brisk",
    "turn_limit": "on",
    "spectators": "on",
    "points": 10,
}


def opened(settings: dict | None = None, bots: str = "medium") -> State:
    state, _ = run(
        State(),
        cmd.OpenTable(
            code="T1", host="ann", name="Ann", seed=SEED, settings=settings, bots=bots, seat=0
        ),
    )
    return state


def to_scored(state: State) -> State:
    """Play the hand in progress with fallback moves until it is scored."""
    while state.phase not in ("scored", "over"):
        d = deciding(state)[0]
        state, _ = apply(state, fallback(state, d.seat))
    return state


# House rules -------------------------------------------------------------------------------


def test_the_house_rules_are_ten_keys_with_these_defaults():
    """§ House rules: stick the dealer and alone on; defend alone, farmers, Canadian, no trump
    off; brisk; a turn limit and spectators on; a game to 10."""
    assert list(ALLOWED) == list(DEFAULTS)
    assert house_rules_from(None) == HouseRules(**DEFAULTS)
    assert house_rules_from({}) == HouseRules(**DEFAULTS)


def test_a_missing_house_rule_takes_its_default():
    """§ House rules: missing key -> default."""
    got = house_rules_from({"farmers": "on", "bot_pace": "relaxed"})
    assert got == HouseRules(**{**DEFAULTS, "farmers": "on", "bot_pace": "relaxed"})


@pytest.mark.parametrize("key", list(DEFAULTS))
def test_every_house_rule_takes_each_allowed_value(key):
    """§ House rules: each value allowed is accepted exactly as written."""
    for value in ALLOWED[key]:
        assert getattr(house_rules_from({key: value}), key) == value


def test_an_unknown_house_rule_is_refused_naming_the_rules():
    """§ House rules: there is no joker; an unknown key is refused, never guessed at."""
    with pytest.raises(IllegalMove) as info:
        house_rules_from({"joker": "on"})
    e = info.value
    assert e.reason == (
        "there is no house rule called 'joker'; "
        "the rules are stick_dealer, alone, defend_alone, farmers, canadian, no_trump, bot_pace, "
        "turn_limit, spectators, points"
    )
    assert e.field == "settings.joker" and e.allowed == list(DEFAULTS)


@pytest.mark.parametrize(
    ("key", "value", "allowed"),
    [
        ("farmers", "yes", ["on", "off"]),
        ("stick_dealer", "ON", ["on", "off"]),
        ("alone", True, ["on", "off"]),
        ("canadian", None, ["on", "off"]),
        ("defend_alone", 1, ["on", "off"]),
        ("bot_pace", "fast", ["brisk", "relaxed"]),
        ("bot_pace", "on", ["brisk", "relaxed"]),
        ("points", 9, [5, 7, 10, 11, 15]),
        ("points", 0, [5, 7, 10, 11, 15]),
        ("points", -10, [5, 7, 10, 11, 15]),
        ("points", "10", [5, 7, 10, 11, 15]),
        ("points", 10.0, [5, 7, 10, 11, 15]),
        ("points", True, [5, 7, 10, 11, 15]),
        ("points", None, [5, 7, 10, 11, 15]),
        ("points", 10**100, [5, 7, 10, 11, 15]),
        ("farmers", 10, ["on", "off"]),
    ],
)
def test_a_value_not_allowed_is_refused_naming_the_allowed_values(key, value, allowed):
    """§ House rules: anything but an exact allowed value is refused, with the allowed values:
    the target is a number, and "10", 10.0 or true are not one of them."""
    with pytest.raises(IllegalMove) as info:
        house_rules_from({key: value})
    assert info.value.reason == f"{key} must be one of {', '.join(map(str, allowed))}"
    assert info.value.field == f"settings.{key}" and info.value.allowed == allowed


def test_settings_that_are_not_an_object_are_refused():
    """§ House rules: settings are a JSON object."""
    for raw in (["farmers"], "farmers=on", 3):
        with pytest.raises(IllegalMove):
            house_rules_from(raw)


def test_opening_a_table_with_bad_house_rules_opens_nothing():
    """§ House rules: a table isn't opened with a rule it doesn't know."""
    refused(
        State(),
        cmd.OpenTable(code="T", host="a", name="A", seed=SEED, settings={"x": 1}),
        IllegalMove,
    )
    with pytest.raises(IllegalMove):
        new_game(SEED, {"farmers": "sometimes"})


def test_the_host_changes_house_rules_before_the_start_keeping_the_rest():
    """§ House rules: a change names only what changes; only the host, only before the start."""
    state = opened({"farmers": "on"})
    state, events = run(state, cmd.ChangeSettings(player="ann", settings={"canadian": "on"}))
    assert events == [
        ev.SettingsChanged(settings=HouseRules(**{**DEFAULTS, "farmers": "on", "canadian": "on"}))
    ]
    assert view(state, 0).settings == {**DEFAULTS, "farmers": "on", "canadian": "on"}
    e = refused(state, cmd.ChangeSettings(player="bob", settings={}), NotAllowed)
    assert e.reason == "only the host may change the house rules"
    refused(state, cmd.ChangeSettings(player="ann", settings={"canadian": "eh"}), IllegalMove)
    state, _ = run(state, cmd.StartGame(player="ann"))
    e = refused(state, cmd.ChangeSettings(player="ann", settings={}), Conflict)
    assert e.reason == "the game has started; it's too late to change the house rules"


# Seats and the start -----------------------------------------------------------------------


def test_opening_a_table_seats_the_host_and_publishes_the_seeds_hash():
    """§ Seats and the start: the host sits in their seat; only the seed's hash is shown."""
    state, events = run(
        State(), cmd.OpenTable(code="T1", host="ann", name="Ann", seed=SEED, seat=2, bots="hard")
    )
    assert events == [
        ev.TableOpened(
            code="T1",
            host="ann",
            settings=HouseRules(),
            bots="hard",
            seed=SEED,
            seed_hash=seed_hash(SEED),
            version=2,
        ),
        ev.SeatTaken(seat=2, player="ann", name="Ann"),
    ]
    seen = view(state, 2)
    assert (seen.status, seen.phase, seen.you, seen.host) == ("waiting", "waiting", 2, "ann")
    assert seen.seats[2].player == "ann" and seen.seats[2].name == "Ann"
    assert seen.seed is None and seen.seed_hash == seed_hash(SEED)
    assert seen.can == {} and deciding(state) == [] and legal(state, 2) == []


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"seed": "AB" * 32}, "seed"),
        ({"seed": "ab"}, "seed"),
        ({"seat": 4}, "seat"),
        ({"seat": -1}, "seat"),
        ({"bots": "genius"}, "level"),
    ],
)
def test_opening_a_table_checks_the_seed_the_seat_and_the_bots(change, field):
    """§ Seats and the start: a bad seed, seat or bot level is refused."""
    args = {"code": "T", "host": "a", "name": "A", "seed": SEED, **change}
    e = refused(State(), cmd.OpenTable(**args), IllegalMove)
    assert e.field == field


def test_a_table_opens_once():
    """§ Seats and the start: opening an open table is a conflict."""
    e = refused(opened(), cmd.OpenTable(code="T1", host="bob", name="B", seed=SEED), Conflict)
    assert e.reason == "table T1 is already open"


def test_there_is_no_table_before_it_is_opened():
    """§ Seats and the start: commands on an empty state are refused."""
    for c in (
        cmd.TakeSeat(player="a", name="A", seat=0),
        cmd.StartGame(player="a"),
        cmd.SeatBot(player="a", seat=1, level="easy"),
    ):
        e = refused(State(), c, Conflict)
        assert e.reason == "there is no such table"
    e = refused(State(), cmd.Pass(seat=0), Conflict)
    assert e.reason == "the game hasn't started"


def test_taking_and_leaving_seats_before_the_start():
    """§ Seats and the start: a free seat may be taken; moving seat leaves the old one."""
    state = opened()
    state, events = run(state, cmd.TakeSeat(player="bob", name="Bob", seat=1))
    assert events == [ev.SeatTaken(seat=1, player="bob", name="Bob")]
    e = refused(state, cmd.TakeSeat(player="cat", name="Cat", seat=1), Conflict)
    assert e.reason == "seat 1 is taken"
    e = refused(state, cmd.TakeSeat(player="bob", name="Bob", seat=1), Conflict)
    assert e.reason == "you already sit in seat 1"
    refused(state, cmd.TakeSeat(player="bob", name="Bob", seat=7), IllegalMove)
    state, events = run(state, cmd.TakeSeat(player="bob", name="Bob", seat=3))
    assert events == [
        ev.SeatLeft(seat=1, player="bob"),
        ev.SeatTaken(seat=3, player="bob", name="Bob"),
    ]
    assert state.seats[1].player is None and state.seats[3].player == "bob"
    e = refused(state, cmd.LeaveSeat(player="cat", seat=3), NotAllowed)
    assert e.reason == "seat 3 isn't yours"
    state, events = run(state, cmd.LeaveSeat(player="bob", seat=3))
    assert state.seats[3].player is None and state.seats[3].bot is None


def test_only_the_host_seats_bots_and_never_over_a_person():
    """§ Seats and the start: the host may put a bot in an empty seat before the start."""
    state = opened()
    state, events = run(state, cmd.SeatBot(player="ann", seat=1, level="easy"))
    assert events == [ev.BotSeated(seat=1, level="easy")]
    assert view(state, 0).seats[1].bot == "easy"
    e = refused(state, cmd.SeatBot(player="bob", seat=2, level="easy"), NotAllowed)
    assert e.reason == "only the host may seat a bot"
    e = refused(state, cmd.SeatBot(player="ann", seat=0, level="easy"), Conflict)
    assert e.reason == "seat 0 is taken by Ann"
    refused(state, cmd.SeatBot(player="ann", seat=2, level="superb"), IllegalMove)
    refused(state, cmd.TakeSeat(player="bob", name="Bob", seat=1), Conflict)


def test_the_host_takes_a_bot_out_before_the_start_to_make_room():
    """§ Seats and the start: the host may take a bot out of its seat again before the start."""
    state = opened()
    state, _ = run(state, cmd.SeatBot(player="ann", seat=1, level="easy"))
    refused(state, cmd.LeaveSeat(player="bob", seat=1), NotAllowed)
    state, events = run(state, cmd.LeaveSeat(player="ann", seat=1))
    assert events == [ev.BotRemoved(seat=1)]
    state, _ = run(state, cmd.TakeSeat(player="bob", name="Bob", seat=1))
    assert view(state, 1).seats[1].name == "Bob"
    state, _ = run(state, cmd.SeatBot(player="ann", seat=2, level="hard"))
    state, _ = run(state, cmd.StartGame(player="ann"))
    e = refused(state, cmd.LeaveSeat(player="ann", seat=2), Conflict)
    assert "too late" in e.reason


def test_starting_fills_empty_seats_with_bots_and_deals():
    """§ Seats and the start: only the host starts; empty seats get the table's bots."""
    state = opened(bots="hard")
    state, _ = run(
        state,
        cmd.TakeSeat(player="bob", name="Bob", seat=2),
        cmd.SeatBot(player="ann", seat=1, level="easy"),
    )
    e = refused(state, cmd.StartGame(player="bob"), NotAllowed)
    assert e.reason == "only the host may start the game"
    state, events = run(state, cmd.StartGame(player="ann"))
    assert events[:2] == [
        ev.BotSeated(seat=3, level="hard"),
        ev.GameStarted(first_dealer=first_dealer(SEED)),
    ]
    assert isinstance(events[2], ev.HandDealt) and len(events) == 3
    assert [s.bot for s in state.seats] == [None, "easy", None, "hard"]
    assert state.status == "playing" and state.phase == "bid1"
    e = refused(state, cmd.StartGame(player="ann"), Conflict)
    assert e.reason == "the game has started; it's too late to start the game"
    refused(state, cmd.SeatBot(player="ann", seat=3, level="easy"), Conflict)


def test_during_a_game_a_bot_covers_a_seat_until_its_player_returns():
    """§ Seats and the start: leaving mid-game hands the seat to a bot; only its player returns."""
    state, _ = human_table(SEED)
    state, events = run(state, cmd.LeaveSeat(player="p2", seat=2))
    assert events == [ev.SeatLeft(seat=2, player="p2")]
    seat = state.seats[2]
    assert seat.player == "p2" and seat.away and seat.bot == "medium" and seat.is_bot
    e = refused(state, cmd.LeaveSeat(player="p2", seat=2), Conflict)
    assert e.reason == "you have already left; a bot is covering your seat"
    e = refused(state, cmd.TakeSeat(player="zed", name="Zed", seat=2), Conflict)
    assert e.reason == "seat 2 is taken; during a game you can only return to your own"
    refused(state, cmd.TakeSeat(player="p1", name="P1", seat=1), Conflict)
    state, events = run(state, cmd.TakeSeat(player="p2", name="P2", seat=2))
    assert events == [ev.SeatTaken(seat=2, player="p2", name="P2")]
    assert not state.seats[2].away and not state.seats[2].is_bot


# Between hands -----------------------------------------------------------------------------


def test_with_people_seated_the_table_waits_for_everyone_to_be_ready():
    """§ Between hands: after a hand, each person says ready; the last one deals."""
    state, _ = human_table(seed_of("ready"))
    state = to_scored(state)
    assert state.phase == "scored" and state.turn is None
    assert [(d.seat, d.kind) for d in deciding(state)] == [(n, "ready") for n in range(4)]
    assert view(state, 0).can == {"ready": {}, "deal": {}}
    assert view(state, 1).can == {"ready": {}}
    assert view(state, None).can == {}
    for n in range(3):
        state, events = run(state, cmd.Ready(seat=n))
        assert events == [ev.PlayerReady(seat=n)]
        e = refused(state, cmd.Ready(seat=n), Conflict)
        assert e.reason == "you are already ready for the next hand"
        assert view(state, n).can == ({"deal": {}} if n == 0 else {})
    assert [d.seat for d in deciding(state)] == [3]
    state, events = run(state, cmd.Ready(seat=3))
    assert [type(e) for e in events] == [ev.PlayerReady, ev.HandDealt]
    assert state.phase in ("bid1", "farmer") and state.deal_no == 2


def test_the_host_may_deal_without_waiting():
    """§ Between hands: the host's DealNow deals the next hand at once; nobody else's."""
    state, _ = human_table(seed_of("deal now"))
    state = to_scored(state)
    e = refused(state, cmd.DealNow(seat=1), NotAllowed)
    assert e.reason == "only the host may deal the next hand without waiting"
    state, events = run(state, cmd.DealNow(seat=0))
    assert [type(e) for e in events] == [ev.DealCalled, ev.HandDealt]
    assert events[0] == ev.DealCalled(seat=0)  # the log says who dealt without waiting
    assert state.deal_no == 2


def test_ready_and_deal_belong_between_hands():
    """§ Between hands: before a hand ends there is nothing to be ready for."""
    state, _ = human_table(seed_of("early"))
    e = refused(state, cmd.Ready(seat=1), Conflict)
    assert e.reason == "the hand isn't over yet"
    e = refused(state, cmd.DealNow(seat=0), Conflict)
    assert e.reason == "the hand isn't over yet"
    state = to_scored(state)
    e = refused(state, cmd.Pass(seat=1), NotYourTurn)
    assert e.reason == "the hand is over; say you are ready for the next one"


def test_bots_and_seats_covered_by_bots_are_ready_at_once():
    """§ Between hands: only people still at the table are waited for."""
    state, _ = run(
        State(),
        cmd.OpenTable(code="MIX", host="p0", name="P0", seed=seed_of("mix")),
        cmd.TakeSeat(player="p1", name="P1", seat=1),
        cmd.StartGame(player="p0"),
        cmd.LeaveSeat(player="p1", seat=1),
    )
    state = to_scored(state)
    assert [d.seat for d in deciding(state)] == [0]
    assert state.deal.ready == (False, True, True, True)


def test_the_last_person_leaving_between_hands_lets_the_next_hand_be_dealt():
    """§ Between hands: a seat whose player left counts as ready."""
    state, _ = human_table(seed_of("leave"))
    state = to_scored(state)
    state, _ = run(state, cmd.Ready(seat=0), cmd.Ready(seat=1), cmd.Ready(seat=2))
    state, events = run(state, cmd.LeaveSeat(player="p3", seat=3))
    assert [type(e) for e in events] == [ev.SeatLeft, ev.HandDealt]


def test_with_four_bots_the_next_hand_follows_at_once():
    """§ Between hands: a game of bots has no ready step."""
    state = new_game(seed_of("bots"))
    hands_seen = 0
    while state.status == "playing":
        d = deciding(state)[0]
        assert d.kind != "ready"
        state, events = apply(state, fallback(state, d.seat))
        assert state.phase != "scored"
        if any(isinstance(e, ev.HandScored) for e in events):
            hands_seen += 1
            assert isinstance(events[-1], ev.HandDealt | ev.GameWon)
    assert hands_seen >= 1


# Driving the engine ------------------------------------------------------------------------


def test_the_drive_loop_in_the_package_docstring_plays_a_whole_game():
    """§ Driving the engine: new_game, then apply the first legal move of whoever decides."""
    state = new_game(seed="ab" * 32, settings={"farmers": "on"})
    while state.status == "playing":
        turn = deciding(state)[0]
        state, _events = apply(state, legal(state, turn.seat)[0])
    assert state.status == "over" and state.winner in (0, 1)
    assert max(state.score) >= 10 and state.score[state.winner] == max(state.score)


def test_new_game_is_a_started_table_of_four_bots():
    """§ Driving the engine: new_game gives a started game with four bots, the first hand dealt."""
    state = new_game(SEED, {"canadian": "on"})
    assert state.status == "playing" and state.deal_no == 1
    assert all(s.bot == "medium" and s.player is None and s.is_bot for s in state.seats)
    assert state.settings.canadian == "on"
    assert state.host_seat() is None
    assert state == bot_table(SEED, {"canadian": "on"})[0]
    assert new_game(SEED) == new_game(SEED)
    assert new_game(SEED) != new_game(seed_of(1))


def test_apply_is_decide_then_evolve():
    """§ Driving the engine: apply returns the folded state and the events decide made."""
    state = new_game(SEED)
    rng = random.Random(3)
    for _ in range(40):
        d = deciding(state)[0]
        c = rng.choice(legal(state, d.seat))
        events = decide(state, c)
        folded = state
        for e in events:
            folded = evolve(folded, e)
        state2, events2 = apply(state, c)
        assert events2 == events and state2 == folded
        assert state2.seq == state.seq + len(events)
        state = state2


def test_folding_a_whole_games_log_gives_the_live_state():
    """§ Driving the engine: the state is its events folded from an empty table."""
    for n in range(5):
        state, opening = bot_table(seed_of(("fold", n)), {"defend_alone": "on"})
        state, steps = play_game(state, random_chooser(), random.Random(n))
        log = opening + [e for _, es in steps for e in es]
        assert fold(log) == state
        assert state.seq == len(log)
        assert len(events_of(ev.GameWon, log)) == 1


_keys = st.sampled_from([*DEFAULTS, "joker", "target", "Stick_Dealer"])
_values = st.sampled_from(
    ["on", "off", "brisk", "relaxed", "ON", "", "yes", 5, 7, 10, 11, 15, 1, 9, "7", 7.0, True]
)


@settings(max_examples=300, derandomize=True, deadline=None, database=None)
@given(st.dictionaries(_keys, _values, max_size=6))
def test_house_rules_are_accepted_exactly_when_every_key_and_value_is_allowed(raw):
    """§ House rules: any mix of keys and values is accepted iff each is allowed, else refused."""
    ok = all(
        k in ALLOWED and any(type(v) is type(a) and v == a for a in ALLOWED[k])
        for k, v in raw.items()
    )
    try:
        got = house_rules_from(raw)
    except IllegalMove as e:
        assert not ok
        assert e.field.startswith("settings.") and e.allowed
        return
    assert ok
    assert msgspec.structs.asdict(got) == {**DEFAULTS, **raw}
