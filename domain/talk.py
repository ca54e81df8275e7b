"""Table talk (docs/euchre.md "Table talk"): chat lines, reactions and the host's mutes.

Talk is in the table's log, so an auditor reads it and a resumed stream replays it in order
with the moves, but it is beside the game: folding it moves `seq` on and records who is muted,
and nothing else. No rule, no bot and no seat's cards can tell a log with talk from one
without. A move is still checked against the `seq` it was decided on, but against the game's
part of the log only (`game_seq`): a chat line arriving while someone picks a card must not
make their card stale.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable
from typing import Any

from msgspec.structs import replace

from domain import commands as cmd
from domain import events as ev
from domain.errors import Conflict, IllegalMove, NotAllowed
from domain.events import EMOJI
from domain.phases import Evolve
from domain.room import may_watch
from domain.state import State

MAX_TEXT = 500
MAX_MUTED = 30  # every view lists them, as it does bans (domain/room.py MAX_BANS)
# A chat line is one line of plain text. Refused: control characters (C0, DEL and C1, so
# newlines and tabs too), line and paragraph separators, and the bidirectional controls,
# which can make the rest of a line, or the name shown beside it, read backwards. Zero-width
# joiners and variation selectors stay: emoji are built from them.
REFUSED = frozenset({"Cc", "Cs", "Zl", "Zp"})
BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
ALLOWED = (
    f"a chat line is 1-{MAX_TEXT} characters of one line of text (spaces at either end are "
    "trimmed); control characters, line breaks and direction overrides are not allowed"
)
# The events that are talk: each one reaches watchers as itself, not as a new view.
SAID = (ev.ChatSaid, ev.ReactionShown)
# A hint given (domain/hint.py) is beside the game too: it changes no decision and wakes no bot.
ASIDES: frozenset[type[ev.Event]] = frozenset(
    {*SAID, ev.PlayerMuted, ev.PlayerUnmuted, ev.HintGiven}
)
ASIDE_TYPES = frozenset(kind.__name__ for kind in ASIDES)


def game_seq(s: State) -> int:
    """The seq of the last event that is not talk: the table as the rules see it has not
    changed since, so a move decided on any view from there to `s.seq` is still current."""
    return s.talk.game_seq if s.talk.last == s.seq else s.seq


def current_since(s: State) -> int:
    """The seq from which a view is still current for a move: a move decided on any view
    from there to `s.seq` is not stale. Talk changes no decision; between hands neither does
    anyone else saying they are ready, nor at the start anyone else revealing their seed,
    since everyone decides at once and each only their own (two people pressing Ready
    together must both be ready, not one told to look again)."""
    if s.phase in ("scored", "reveal") and s.status == "playing":
        return s.asked_at
    return game_seq(s)


def beside_the_game(events: Iterable[ev.Event]) -> bool:
    """Whether these events are all talk: they change no decision, so they wake no bot."""
    return all(type(e) in ASIDES for e in events)


def chat_text(raw: str) -> str:
    """The line as it is logged: trimmed; IllegalMove naming `text` if it can't be said."""
    text = raw.strip()
    if not text:
        raise IllegalMove(f"there is nothing to say: {ALLOWED}", field="text")
    if len(text) > MAX_TEXT:
        raise IllegalMove(f"{ALLOWED}; this one is {len(text)}", field="text")
    for position, char in enumerate(text, start=1):
        if char in BIDI or unicodedata.category(char) in REFUSED:
            label = unicodedata.name(char, "a control character")
            raise IllegalMove(
                f"{ALLOWED}; character {position} is U+{ord(char):04X} {label}", field="text"
            )
    return text


def _may_talk(s: State, player: str) -> None:
    """Who may watch may talk (domain/room.py): not a banned player, nor an outsider where
    spectators are off; and not someone the host muted."""
    may_watch(s, player)
    if player in s.talk.muted:
        raise NotAllowed("the host has muted you at this table: you can't chat or react here")


def say(s: State, c: cmd.Say) -> list[ev.Event]:
    _may_talk(s, c.player)
    text = chat_text(c.text)
    return [ev.ChatSaid(player=c.player, seat=s.seat_of(c.player), name=c.name, text=text)]


def react(s: State, c: cmd.React) -> list[ev.Event]:
    if c.emoji not in EMOJI:
        raise IllegalMove(
            f"a reaction is one of {' '.join(EMOJI)}", field="emoji", allowed=list(EMOJI)
        )
    _may_talk(s, c.player)
    return [ev.ReactionShown(player=c.player, seat=s.seat_of(c.player), name=c.name, emoji=c.emoji)]


def mute(s: State, c: cmd.Mute) -> list[ev.Event]:
    if c.player != s.host:
        raise NotAllowed("only the host may mute someone")
    if c.target == s.host:
        raise Conflict("you host this table; you can't mute yourself", field="player")
    if c.target in s.talk.muted:
        raise Conflict(f"{c.name} is already muted")
    if len(s.talk.muted) >= MAX_MUTED:
        raise Conflict(f"a table mutes at most {MAX_MUTED} players; unmute someone first")
    return [ev.PlayerMuted(player=c.target, name=c.name)]


def unmute(s: State, c: cmd.Unmute) -> list[ev.Event]:
    if c.player != s.host:
        raise NotAllowed("only the host may unmute someone")
    if c.target not in s.talk.muted:
        raise Conflict("that player isn't muted at this table")
    return [ev.PlayerUnmuted(player=c.target)]


COMMANDS: dict[type[cmd.Command], Callable[[State, Any], list[ev.Event]]] = {
    cmd.Say: say,
    cmd.React: react,
    cmd.Mute: mute,
    cmd.Unmute: unmute,
}


def _talked(s: State, muted: tuple[str, ...]) -> State:
    seq = s.seq + 1
    return replace(s, seq=seq, talk=replace(s.talk, muted=muted, last=seq, game_seq=game_seq(s)))


def aside(s: State, e: ev.Event) -> State:
    """An event beside the game folded: `seq` moves on, and a move decided before it stands."""
    return _talked(s, s.talk.muted)


def _muted(s: State, e: ev.PlayerMuted) -> State:
    return _talked(s, (*s.talk.muted, e.player))


def _unmuted(s: State, e: ev.PlayerUnmuted) -> State:
    return _talked(s, tuple(p for p in s.talk.muted if p != e.player))


EVOLVE: Evolve = {
    ev.ChatSaid: aside,
    ev.ReactionShown: aside,
    ev.PlayerMuted: _muted,
    ev.PlayerUnmuted: _unmuted,
}
