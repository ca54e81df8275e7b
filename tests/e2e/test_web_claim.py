"""The Claim button (docs/euchre.md "Claiming the rest"): on your lead the dock offers "Claim the
rest" (key C). A claim that isn't certain is refused in the status line, naming the cards in
the way, and you lead on; one that is certain ends the hand at once, and the table tells the
cards you showed.

Each table is written into the log as the rules make it, from a deal chosen so the claim is
sure (or not): seat 0, left of the dealer, has ordered clubs and leads."""

from __future__ import annotations

import asyncio
import threading

from browser_kit import GAME, open_person, sign_in_and_open
from playwright.sync_api import expect

from domain import apply, fold
from domain import commands as cmd
from domain import events as ev
from domain.codec import to_record
from infra.eventstore import EventStore, NewEvent

# Seat 0 holds the top four trumps and the ace of hearts: certain. With the king of clubs the
# dealer's instead, four trumps are out and one seat might hold them all: not certain.
SURE = ["JC JS AC KC AH", "9S TS QS KS AS", "9H TH JH QH KH", "9D TD QD KD AD"]
UNSURE = ["JC JS AC AD AH", "9S TS QS KS AS", "9H TH JH QH KH", "9D TD QD KD KC"]


def dealt_by_seat_3(
    code: str, player: str, name: str, hands: list[str], up: str, kitty: list[str], **settings
) -> list[ev.Event]:
    """A table of `player` (seat 0) and three hard bots under `settings`, its first hand dealt
    by seat 3 as given: the seed's own deal gives way to it, so a test holds for any seed."""
    log: list[ev.Event] = []
    state = fold([])
    opening = [
        cmd.OpenTable(code=code, host=player, name=name, seed="5e" * 32, settings=settings or None),
        *(cmd.SeatBot(player=player, seat=n, level="hard") for n in (1, 2, 3)),
        cmd.StartGame(player=player),
    ]
    for command in opening:
        state, events = apply(state, command)
        log.extend(events)
    *log, _started, _dealt = log
    hands_dealt = [h.split() for h in hands]
    dealt = ev.HandDealt(deal_no=1, dealer=3, hands=hands_dealt, up=up, kitty=kitty)
    return [*log, ev.GameStarted(first_dealer=3), dealt]


def seat_0_on_lead(code: str, player: str, name: str, hands: list[str]) -> list[ev.Event]:
    """A table of `player` (seat 0) and three bots, dealt `hands` by seat 3, clubs ordered."""
    log = dealt_by_seat_3(code, player, name, hands, "9C", ["QC", "TC", "JD"])
    state = fold(log)
    for command in (cmd.Order(seat=0), cmd.Discard(seat=3, card="9D")):
        state, events = apply(state, command)
        log.extend(events)
    assert state.phase == "play" and state.turn == 0
    return log


def logged(database_url: str, code: str, events: list[ev.Event]) -> None:
    """Append the table's events to the service's own store, from a thread of its own (the
    browser's driver keeps an event loop running in this one)."""

    async def write() -> None:
        store = await EventStore.open(database_url, size=1)
        try:
            await store.append(code, 0, [NewEvent(*to_record(e)) for e in events])
        finally:
            await store.close()

    writer = threading.Thread(target=lambda: asyncio.run(write()))
    writer.start()
    writer.join()


def test_the_claim_button_is_refused_when_unsure_and_ends_the_hand_when_sure(
    browser, server, database_url
):
    ada = open_person(browser, server, "Ada", viewport={"width": 1280, "height": 800})
    sign_in_and_open(ada)
    page = ada.page
    me = page.evaluate("JSON.parse(localStorage.getItem('euchre:me'))")
    game = page.locator(GAME)
    claim = page.locator("[data-move=claim]")

    logged(database_url, "CLAIM-NO", seat_0_on_lead("CLAIM-NO", me["id"], me["name"], UNSURE))
    page.goto("/#/t/CLAIM-NO")
    expect(game).to_have_attribute("data-turn", "me")
    expect(claim).to_be_visible()
    seq = game.get_attribute("data-seq")
    page.keyboard.press("C")
    expect(page.locator(".dock")).to_contain_text(
        "the king of clubs, the queen of clubs, the ten of clubs or the nine of clubs could still"
    )
    expect(game).to_have_attribute("data-pending", "no")
    assert game.get_attribute("data-seq") == seq and game.get_attribute("data-turn") == "me"
    expect(page.locator(".hand .card")).to_have_count(5)  # still mine to lead

    logged(database_url, "CLAIM-YES", seat_0_on_lead("CLAIM-YES", me["id"], me["name"], SURE))
    page.goto("/#/t/CLAIM-YES")
    expect(game).to_have_attribute("data-turn", "me")
    claim.click()
    expect(game).to_have_attribute("data-phase", "scored")
    told = page.locator(".sr-only[role=log]")
    expect(told).to_contain_text("You claimed the last five tricks, showing the right bower")
    expect(told).to_contain_text("the ace of hearts")
    # The browser logs the refusal's 422 as a failed load; nothing else went wrong.
    assert [e for e in ada.errors if "status of 422" not in e] == [], ada.errors
