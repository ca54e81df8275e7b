"""Players: passwords are checked off the event loop, names are stored cleaned, guests can't pass
for a registered player, and a revoked token stops working at once."""

import asyncio
import os
import time

import pytest
from argon2 import PasswordHasher
from sqlalchemy import event, insert

from infra.doorbell import Doorbell
from infra.players import HASH_NICENESS, REVOKED, BadLogin, NameTaken, Players, _off_loop
from infra.players import players as table

pytestmark = pytest.mark.anyio


async def time_blocked(work) -> float:
    """How long, in all, a 5 ms ticker on the event loop ran late while `work` ran."""
    stalls = [0.0]

    async def ticker() -> None:
        last = time.perf_counter()
        while True:
            await asyncio.sleep(0.005)
            now = time.perf_counter()
            stalls.append(now - last - 0.005)
            last = now

    tick = asyncio.create_task(ticker())
    await asyncio.sleep(0.02)
    try:
        await work
    finally:
        tick.cancel()
    return sum(stalls)


async def test_passwords_are_hashed_at_a_low_priority_that_is_never_starved():
    """The idle class (and niceness 19) left a sign-in waiting out a busy box's every busy
    spell: 112 s (30 s) for one hash on 2 cores kept busy by four processes."""
    niceness = await _off_loop(os.getpriority, os.PRIO_PROCESS, 0)
    # Below the process's own, short of the idle end (unless the process is there already:
    # a run under `nice` is no reason to fail).
    assert 0 < HASH_NICENESS < 19
    assert niceness == min(os.getpriority(os.PRIO_PROCESS, 0) + HASH_NICENESS, 19)
    assert await _off_loop(os.sched_getscheduler, 0) == os.SCHED_OTHER


async def test_password_checks_leave_the_event_loop_free(engine):
    players = Players(engine)
    await players.create("Grace", "hopper-1906")

    async def wrong(n: int) -> None:
        # Each from an address and at a name of its own: they all take their turn.
        with pytest.raises(BadLogin):
            await players.login(f"Grace {n}", "not-her-password", f"10.0.0.{n}")

    started = time.perf_counter()
    blocked = await time_blocked(asyncio.gather(*(wrong(n) for n in range(4))))
    took = time.perf_counter() - started
    # On the loop, the Argon2 checks would block it nearly all the time they take; off it,
    # the loop only waits for the machine's scheduler (generously: half the time, when busy).
    assert blocked < took / 2, (blocked, took)


async def test_names_are_stored_cleaned(engine):
    players = Players(engine)
    player, _ = await players.create("  Ada \u00a0  Lovelace ")
    assert player.name == "Ada Lovelace"
    decomposed, _ = await players.create("Jose\u0301")
    assert decomposed.name == "Jos\u00e9"
    with pytest.raises(ValueError):
        await players.create("   ")


async def test_a_guest_cant_pass_for_a_registered_player(engine):
    players = Players(engine)
    await players.create("Grace", "hopper-1906")
    # The same name in other cases, with a Cyrillic "а", with a full-width "Ｇ".
    for lookalike in ["Grace", "GRACE", "grace", "Gr\u0430ce", "\uff27race"]:
        with pytest.raises(NameTaken):
            await players.create(lookalike)
    with pytest.raises(NameTaken):  # nor can another registration
        await players.create("GR\u0410CE", "other-password")
    guest, _ = await players.create("Gracie")
    assert not guest.registered
    # Guests may share a name among themselves.
    await players.create("Bo")
    await players.create("Bo")


async def test_a_revoked_token_stops_working_at_once(engine):
    players = Players(engine)
    player, token = await players.create("Ada")
    assert await players.by_token(token) == player  # now remembered by this process
    await players.revoke(token)
    assert await players.by_token(token) is None
    assert await Players(engine).by_token(token) is None


async def test_a_token_revoked_by_one_process_stops_working_in_another_at_once(engine):
    here, there = Players(engine), Players(engine)
    player, token = await here.create("Ada")
    async with Doorbell(engine, notices={REVOKED: there.forget}):
        assert await there.by_token(token) == player  # remembered there for KNOWN_FOR
        await here.revoke(token)
        for _ in range(100):
            if await there.by_token(token) is None:
                break
            await asyncio.sleep(0.05)
        assert await there.by_token(token) is None


async def test_a_token_revoked_while_it_is_looked_up_is_not_remembered(engine):
    """The lookup read the token just before another process deleted it, and the sign-out's
    notice came before the lookup's answer: remembered, it would work on for KNOWN_FOR."""
    players = Players(engine)
    player, token = await players.create("Ada")

    def revoked_meanwhile(*_) -> None:
        players.forget(None)

    event.listen(engine.sync_engine, "after_cursor_execute", revoked_meanwhile)
    assert await players.by_token(token) == player
    event.remove(engine.sync_engine, "after_cursor_execute", revoked_meanwhile)
    queries: list[str] = []
    event.listen(engine.sync_engine, "before_cursor_execute", lambda *a: queries.append(a[2]))
    assert await players.by_token(token) == player
    assert len(queries) == 1, "asked the database again"


async def test_a_name_registered_before_the_rules_still_signs_in(engine):
    old = "A name far longer than twenty-four"
    async with engine.begin() as conn:
        await conn.execute(
            insert(table).values(
                id="old",
                name=old,
                login=old.casefold(),
                password_hash=PasswordHasher().hash("long-enough"),
            )
        )
    player, _ = await Players(engine).login(f" {old.upper()} ", "long-enough")
    assert player.id == "old"
