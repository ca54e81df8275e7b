"""The house rules a table is played under: exactly ten keys, each with a default.

Implements docs/euchre.md "House rules"; each rule's effect lives in the module the page's
"Where each rule lives" table names.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

import msgspec

from domain.errors import IllegalMove

Toggle = Literal["on", "off"]
Pace = Literal["brisk", "relaxed"]
Points = Literal[5, 7, 10, 11, 15]
TOGGLES: tuple[Toggle, ...] = get_args(Toggle)
PACES: tuple[Pace, ...] = get_args(Pace)
POINTS: tuple[Points, ...] = get_args(Points)


class HouseRules(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Stored as the API shows it ("on"/"off"), so the log reads like the waiting room.
    `points`: the score that wins the game, a number; absent in logs from before it could be
    chosen, which were all played to 10."""

    stick_dealer: Toggle = "on"
    alone: Toggle = "on"
    defend_alone: Toggle = "off"
    farmers: Toggle = "off"
    canadian: Toggle = "off"
    no_trump: Toggle = "off"
    bot_pace: Pace = "brisk"
    turn_limit: Toggle = "on"
    spectators: Toggle = "on"
    points: Points = 10


ALLOWED: dict[str, tuple[Toggle, ...] | tuple[Pace, ...] | tuple[Points, ...]] = {
    "stick_dealer": TOGGLES,
    "alone": TOGGLES,
    "defend_alone": TOGGLES,
    "farmers": TOGGLES,
    "canadian": TOGGLES,
    "no_trump": TOGGLES,
    "bot_pace": PACES,
    "turn_limit": TOGGLES,
    "spectators": TOGGLES,
    "points": POINTS,
}


def house_rules_from(raw: object, base: HouseRules | None = None) -> HouseRules:
    """House rules from what a host asked for: a missing key keeps `base` (or the default).

    An unknown key or value is refused with the field and what is allowed, never guessed at:
    a value must be the allowed one itself, so "10", 10.0 and true are not 10 (nor "on").
    """
    base = base or HouseRules()
    if raw is None:
        return base
    if not isinstance(raw, dict):
        raise IllegalMove("settings must be an object", field="settings", allowed=list(ALLOWED))
    chosen: dict[str, Any] = msgspec.structs.asdict(base)
    for key, value in raw.items():
        if key not in ALLOWED:
            raise IllegalMove(
                f"there is no house rule called {key!r}; the rules are {', '.join(ALLOWED)}",
                field=f"settings.{key}",
                allowed=list(ALLOWED),
            )
        if not any(type(value) is type(a) and value == a for a in ALLOWED[key]):
            raise IllegalMove(
                f"{key} must be one of {', '.join(map(str, ALLOWED[key]))}",
                field=f"settings.{key}",
                allowed=list(ALLOWED[key]),
            )
        chosen[key] = value
    return HouseRules(**chosen)
