"""The house rules a table is played under: exactly six keys, each with a default."""

from __future__ import annotations

import msgspec

from domain.errors import IllegalMove

TOGGLES = ("on", "off")
PACES = ("brisk", "relaxed")


class Settings(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Stored as the API shows it ("on"/"off"), so the log reads like the waiting room."""

    stick_dealer: str = "on"
    alone: str = "on"
    defend_alone: str = "off"
    farmers: str = "off"
    canadian: str = "off"
    bot_pace: str = "brisk"

    def on(self, key: str) -> bool:
        return getattr(self, key) == "on"


ALLOWED: dict[str, tuple[str, ...]] = {
    "stick_dealer": TOGGLES,
    "alone": TOGGLES,
    "defend_alone": TOGGLES,
    "farmers": TOGGLES,
    "canadian": TOGGLES,
    "bot_pace": PACES,
}


def settings_from(raw: object, base: Settings | None = None) -> Settings:
    """House rules from what a host asked for: a missing key keeps `base` (or the default).

    An unknown key or value is refused with the field and what is allowed, never guessed at.
    """
    base = base or Settings()
    if raw is None:
        return base
    if not isinstance(raw, dict):
        raise IllegalMove("settings must be an object", field="settings", allowed=list(ALLOWED))
    chosen = msgspec.structs.asdict(base)
    for key, value in raw.items():
        if key not in ALLOWED:
            raise IllegalMove(
                f"there is no house rule called {key!r}; the rules are {', '.join(ALLOWED)}",
                field=f"settings.{key}",
                allowed=list(ALLOWED),
            )
        if value not in ALLOWED[key]:
            raise IllegalMove(
                f"{key} must be one of {', '.join(ALLOWED[key])}",
                field=f"settings.{key}",
                allowed=list(ALLOWED[key]),
            )
        chosen[key] = value
    return Settings(**chosen)
