"""The house rules a table is played under: exactly ten keys, each with a default.

Implements docs/euchre.md "House rules"; each rule's effect lives in the module the page's
"Where each rule lives" table names.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args, get_type_hints

import msgspec

from domain.errors import IllegalMove

Toggle = Literal["on", "off"]
Pace = Literal["brisk", "relaxed"]
Points = Literal[5, 7, 10, 11, 15]
POINTS: tuple[Points, ...] = get_args(Points)


def N_(text: str) -> str:
    """Marks words for the message catalogue (`pybabel extract -k N_`): they are translated
    where they are shown, in the reader's language, never here."""
    return text


def rule(label: str, hint: str, chip: str | None = None) -> msgspec.Meta:
    """A house rule's words: its name and one-line hint (the OpenAPI title and description
    too), and how the lobby's list says a table plays it when not the default ("{choice}" is
    the value's word), else "<name>: <value>"."""
    return msgspec.Meta(title=label, description=hint, extra={"chip": chip} if chip else {})


class HouseRules(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Stored as the API shows it ("on"/"off"), so the log reads like the waiting room.
    `points`: the score that wins the game, a number; absent in logs from before it could be
    chosen, which were all played to 10. Each rule is declared here once, with the values it
    may take, its default and its words: the API's bodies and schema, the waiting room's
    choices and the tournament's table are made from this."""

    stick_dealer: Annotated[
        Toggle, rule(N_("Stick the dealer"), N_("The dealer must call trump."))
    ] = "on"
    alone: Annotated[Toggle, rule(N_("Going alone"), N_("Play without a partner."))] = "on"
    defend_alone: Annotated[
        Toggle, rule(N_("Defending alone"), N_("Defenders may go alone too."))
    ] = "off"
    farmers: Annotated[Toggle, rule(N_("Farmer’s hand"), N_("9s and 10s only: swap three."))] = (
        "off"
    )
    canadian: Annotated[Toggle, rule(N_("Canadian loner"), N_("Dealer’s partner goes alone."))] = (
        "off"
    )
    no_trump: Annotated[
        Toggle, rule(N_("No trump"), N_("Round two may call no trump: jacks are plain."))
    ] = "off"
    bot_pace: Annotated[
        Pace, rule(N_("Bot speed"), N_("Relaxed is easier to follow."), N_("{choice} bots"))
    ] = "brisk"
    turn_limit: Annotated[
        Toggle, rule(N_("Turn limit"), N_("A minute a move (two, relaxed), then a bot plays."))
    ] = "on"
    spectators: Annotated[Toggle, rule(N_("Spectators"), N_("Anyone with the link may watch."))] = (
        "on"
    )
    points: Annotated[
        Points,
        rule(N_("Points to win"), N_("The first side to reach it wins."), N_("First to {choice}")),
    ] = 10


class Declared(msgspec.Struct, frozen=True):
    """One house rule as HouseRules declares it."""

    key: str
    allowed: tuple[str | int, ...]
    default: str | int
    label: str
    hint: str
    chip: str | None


def _declared() -> tuple[Declared, ...]:
    hints = get_type_hints(HouseRules, include_extras=True)
    defaults = HouseRules()
    found = []
    for key in HouseRules.__struct_fields__:
        values, meta = get_args(hints[key])
        found.append(
            Declared(
                key=key,
                allowed=get_args(values),
                default=getattr(defaults, key),
                label=meta.title,
                hint=meta.description,
                chip=meta.extra.get("chip"),
            )
        )
    return tuple(found)


DECLARED: tuple[Declared, ...] = _declared()
ALLOWED: dict[str, tuple[str | int, ...]] = {d.key: d.allowed for d in DECLARED}


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
