"""Table talk: chat lines, reactions and mutes are logged beside the game and change nothing
a rule, a move's `seq` check or a bot looks at."""

from __future__ import annotations

import random

import msgspec
import pytest
from euchre_kit import human_table, play_game, random_chooser, refused, seed_of
from msgspec.structs import replace

from domain import State, apply, can, deciding, fallback, fold, legal, view
from domain import commands as cmd
from domain import events as ev
from domain.bots import choose
from domain.codec import to_event, to_record
from domain.errors import Conflict, IllegalMove, NotAllowed
from domain.events import EMOJI
from domain.talk import MAX_TEXT, beside_the_game, game_seq


def table() -> State:
    """Four people, p0 the host, the first hand dealt."""
    return human_table(seed_of("talk"))[0]


def say(state: State, player: str, text: str) -> tuple[State, list[ev.Event]]:
    return apply(state, cmd.Say(player=player, name=player.upper(), text=text))


def test_a_chat_line_is_logged_trimmed_with_the_speakers_seat_or_none():
    state = table()
    state, events = say(state, "p2", "  nice call, partner  ")
    assert events == [ev.ChatSaid(player="p2", seat=2, name="P2", text="nice call, partner")]
    _, events = say(state, "kibitzer", "<b>hi</b> & bye")
    assert events == [
        ev.ChatSaid(player="kibitzer", seat=None, name="KIBITZER", text="<b>hi</b> & bye")
    ]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "x" * (MAX_TEXT + 1),
        "two\nlines",
        "tab\there",
        "nul\x00",
        "del\x7f",
        "c1\x85c1",
        "line\u2028sep",
        "evil\u202eoverride",
        "isolate\u2066x",
        "mark\u200fx",
    ],
    ids=[
        "empty",
        "spaces",
        "too-long",
        "newline",
        "tab",
        "nul",
        "del",
        "c1",
        "line-separator",
        "rtl-override",
        "isolate",
        "rtl-mark",
    ],
)
def test_a_chat_line_is_one_line_of_1_to_500_plain_characters(text):
    error = refused(table(), cmd.Say(player="p1", name="P1", text=text), IllegalMove)
    assert error.field == "text" and "1-500 characters" in error.reason


def test_a_chat_line_may_be_500_characters_after_trimming_and_hold_any_emoji():
    state = table()
    _, events = say(state, "p1", "  " + "y" * MAX_TEXT + "  ")
    assert len(events[0].text) == MAX_TEXT
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467 \u2764\ufe0f"  # joiners, selector
    assert say(state, "p1", family)[1][0].text == family


def test_a_reaction_is_one_of_the_fixed_set():
    state = table()
    for emoji in EMOJI:
        _, events = apply(state, cmd.React(player="p3", name="P3", emoji=emoji))
        assert events == [ev.ReactionShown(player="p3", seat=3, name="P3", emoji=emoji)]
    error = refused(state, cmd.React(player="p3", name="P3", emoji="💩"), IllegalMove)  # type: ignore[arg-type]
    assert error.field == "emoji" and error.allowed == list(EMOJI)
    assert len(EMOJI) == 8


def test_the_host_mutes_and_unmutes_and_a_muted_player_is_refused():
    state = table()
    state, events = apply(state, cmd.Mute(player="p0", target="p1", name="P1"))
    assert events == [ev.PlayerMuted(player="p1", name="P1")]
    assert view(state, None).muted == ["p1"]
    for command in (
        cmd.Say(player="p1", name="P1", text="hello?"),
        cmd.React(player="p1", name="P1", emoji="👍"),
    ):
        assert "muted" in refused(state, command, NotAllowed).reason
    say(state, "p2", "others still talk")
    state, events = apply(state, cmd.Unmute(player="p0", target="p1"))
    assert events == [ev.PlayerUnmuted(player="p1")] and view(state, 1).muted == []
    say(state, "p1", "thanks")


def test_only_the_host_mutes_never_themselves_and_never_twice():
    state = table()
    refused(state, cmd.Mute(player="p1", target="p2", name="P2"), NotAllowed)
    refused(state, cmd.Mute(player="p0", target="p0", name="P0"), Conflict)
    refused(state, cmd.Unmute(player="p0", target="p2"), Conflict)
    state, _ = apply(state, cmd.Mute(player="p0", target="p2", name="P2"))
    refused(state, cmd.Mute(player="p0", target="p2", name="P2"), Conflict)
    refused(state, cmd.Unmute(player="p3", target="p2"), NotAllowed)


def test_talk_needs_an_open_table():
    refused(State(), cmd.Say(player="p1", name="P1", text="anyone?"), Conflict)


def talk_events(state: State, k: int) -> list[ev.Event]:
    """Some talk, as it could come at any moment: a seat's line, a spectator's reaction, a
    mute and its end."""
    speaker = f"p{k % 4}"
    return [
        ev.ChatSaid(player=speaker, seat=k % 4, name=speaker.upper(), text=f"JS QH {k}"),
        ev.ReactionShown(player="kibitzer", seat=None, name="Kib", emoji=EMOJI[k % len(EMOJI)]),
        ev.PlayerMuted(player="kibitzer", name="Kib"),
        ev.PlayerUnmuted(player="kibitzer"),
    ]


def game_part(state: State) -> State:
    """The state less what talk may change."""
    return replace(state, seq=0, talk=replace(state.talk, last=0, game_seq=0))


def unsealed(events: list[ev.Event]) -> list[ev.Event]:
    return [replace(e, seal=None) if hasattr(e, "seal") else e for e in events]


def test_talk_changes_nothing_a_rule_a_view_or_a_bot_looks_at():
    """Folded at every moment of a whole game, talk leaves legal moves, decisions, fallbacks,
    every seat's view but its seq and mutes, and every bot's choice just as they were."""
    rng = random.Random(11)
    checked = 0

    def each(before: State, command, events, after: State) -> None:
        nonlocal checked
        talk = talk_events(before, checked)
        talked = fold(talk[:2], before)
        assert game_part(talked) == game_part(before)
        assert talked.seq == before.seq + 2 and game_seq(talked) == before.seq
        assert beside_the_game(talk) and not beside_the_game([*talk, *events])
        assert deciding(talked) == deciding(before)
        for seat in range(4):
            assert legal(talked, seat) == legal(before, seat)
            assert can(talked, seat) == can(before, seat)
        for seat in (None, 0, 1, 2, 3):
            mine, theirs = view(talked, seat), view(before, seat)
            assert replace(mine, seq=0) == replace(theirs, seq=0)
        for d in deciding(before):
            assert fallback(talked, d.seat) == fallback(before, d.seat)
            if checked % 7 == 0:
                seed = f"{checked}/{d.key}"
                for level in ("easy", "medium"):
                    ours = choose(view(talked, d.seat), level, random.Random(seed))
                    assert ours == choose(view(before, d.seat), level, random.Random(seed))
        # The move decided before the talk is still the move after it; only a seal differs,
        # since each binds its secret to the seq it is logged at (domain/sealing.py).
        assert unsealed(apply(talked, command)[1]) == unsealed(events)
        checked += 1

    play_game(table(), random_chooser(), rng, each=each)
    assert checked > 50


def test_a_run_of_talk_keeps_the_game_seq_and_a_move_moves_it():
    state = table()
    before = state.seq
    assert game_seq(state) == before
    for k in range(5):
        state = fold(talk_events(state, k), state)
    assert state.seq == before + 20 and game_seq(state) == before
    seat = deciding(state)[0].seat
    state, events = apply(state, legal(state, seat)[0])
    assert game_seq(state) == state.seq == before + 20 + len(events)
    state = fold(talk_events(state, 9)[:1], state)
    assert game_seq(state) == state.seq - 1


def test_talk_round_trips_through_the_log():
    for e in talk_events(table(), 3):
        assert to_event(*to_record(e)) == e
    encoded = msgspec.json.encode(to_record(talk_events(table(), 1)[1])[1])
    assert "emoji" in encoded.decode()
