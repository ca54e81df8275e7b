"""A finished game's record as a replay: stepped through trick by trick and hand by hand with
its buttons and the arrow keys, each step showing that trick's cards and the hand's bids as the
log has them, and saying it to a screen reader.

The game is played over HTTP by a registered player against easy bots (test_web_record's way);
the browser only reads.
"""

from __future__ import annotations

from a11y_kit import AXE_CONTEXT, axe_violations, describe
from browser_kit import open_person
from playwright.sync_api import Page, expect
from test_web_ratings import DESK, Registered, fits, play_out
from test_web_record import log_of
from test_web_table import PHONE


def deals_of(log: list[dict]) -> list[dict]:
    """Each deal's number, bids by seat and tricks, from the log."""
    deals: list[dict] = []
    trick: list[dict] = []
    for e in log:
        if e["type"] == "GameWon":
            break
        if e["type"] == "HandDealt":
            deals.append({"no": e["deal_no"], "bids": {}, "tricks": []})
            trick = []
        elif e["type"] in ("BidPassed", "TrumpOrdered", "TrumpCalled"):
            kind = {"BidPassed": "pass", "TrumpOrdered": "order", "TrumpCalled": "call"}[e["type"]]
            deals[-1]["bids"].setdefault(e["seat"], []).append(kind)
        elif e["type"] == "CardPlayed":
            trick.append({"seat": e["seat"], "card": e["card"]})
        elif e["type"] == "TrickTaken":
            deals[-1]["tricks"].append({"cards": trick, "winner": e["winner"]})
            trick = []
    return deals


def at_step(page: Page, deal: dict, trick: int) -> None:
    """The replay shows `deal` at its bidding (`trick` 0) or its trick `trick` (from 1)."""
    replay = page.locator(".replay")
    expect(replay).to_have_attribute("data-deal", str(deal["no"]))
    expect(replay).to_have_attribute("data-trick", str(trick))
    said = replay.locator("[role=status]")
    if trick == 0:
        for seat in range(4):
            bids = replay.locator(f".replay-seat[data-seat='{seat}'] [data-bid]")
            expect(bids).to_have_count(len(deal["bids"].get(seat, [])))
            got = bids.evaluate_all("bs => bs.map(b => b.dataset.bid)")
            assert got == deal["bids"].get(seat, []), (seat, got)
        expect(replay.locator(".replay-board .card")).to_have_count(0)
        return
    t = deal["tricks"][trick - 1]
    cards = replay.locator(".replay-board .card[data-card]")
    expect(cards).to_have_count(len(t["cards"]))
    shown = cards.evaluate_all("cs => cs.map(c => [Number(c.dataset.seat), c.dataset.card])")
    assert sorted(shown) == sorted([p["seat"], p["card"]] for p in t["cards"])
    expect(replay.locator(".card.winning")).to_have_attribute("data-seat", str(t["winner"]))
    expect(replay.locator(".replay-where")).to_contain_text(
        f"trick {trick} of {len(deal['tricks'])}"
    )
    # The bids stay beside every trick of the hand.
    expect(replay.locator(".replay-side .replay-call")).to_be_visible()
    expect(said).to_contain_text(f"trick {trick} of {len(deal['tricks'])}")
    expect(said).to_contain_text("took it.")


def test_the_record_replays_the_game_hand_by_hand_and_trick_by_trick(browser, server, shots):
    bo = Registered(server, "Bo")
    code = bo.open(bots="easy")
    bo.start(code)
    play_out(code, [bo])
    played = deals_of(log_of(server, code))
    assert len(played) >= 2

    reader = open_person(browser, server, "Reader", **DESK, **AXE_CONTEXT)
    page = reader.page
    page.goto(f"/#/t/{code}/record")
    expect(page.locator("#app")).to_have_attribute("data-view", "record")
    replay = page.locator(".replay")
    expect(replay.locator("h2")).to_have_text("Replay")
    first = played[0]
    at_step(page, first, 0)
    page.screenshot(path=str(shots / "01-replay-bidding.png"))

    # Buttons: a trick on, and back.
    replay.locator("button[name=trick-on]").click()
    at_step(page, first, 1)
    page.screenshot(path=str(shots / "02-replay-trick.png"))
    serious = [v for v in axe_violations(page) if v["impact"] in ("serious", "critical")]
    assert not serious, describe(serious)
    replay.locator("button[name=trick-back]").click()
    at_step(page, first, 0)

    # Keys, with focus in the replay: the arrows step tricks (across hands) and hands.
    replay.locator("button[name=trick-on]").focus()
    for n in range(len(first["tricks"])):
        page.keyboard.press("ArrowRight")
        at_step(page, first, n + 1)
    page.keyboard.press("ArrowRight")
    at_step(page, played[1], 0)
    page.keyboard.press("ArrowLeft")
    at_step(page, first, len(first["tricks"]))
    page.keyboard.press("ArrowUp")  # to the start of this hand
    at_step(page, first, 0)
    page.keyboard.press("ArrowDown")
    at_step(page, played[1], 0)
    page.keyboard.press("ArrowDown")
    at_step(page, played[2] if len(played) > 2 else played[1], 0)
    page.keyboard.press("ArrowUp")
    at_step(page, played[1], 0)
    page.keyboard.press("End")
    last = played[-1]
    at_step(page, last, len(last["tricks"]))
    expect(replay.locator(".replay-side .deal-result")).to_be_visible()
    page.keyboard.press("ArrowRight")  # nothing after the end, and focus stays in the replay
    at_step(page, last, len(last["tricks"]))
    expect(replay.locator("button[name=trick-on]")).to_have_attribute("aria-disabled", "true")
    expect(replay.locator("button[name=trick-on]")).to_be_focused()
    page.keyboard.press("Home")
    at_step(page, first, 0)
    reader.assert_no_errors()

    # On a phone the replay fits the screen's width.
    phone = open_person(browser, server, "Phone", **PHONE, **AXE_CONTEXT)
    phone.page.goto(f"/#/t/{code}/record")
    expect(phone.page.locator(".replay")).to_be_visible()
    phone.page.locator(".replay button[name=trick-on]").click()
    fits(phone.page, 390)
    serious = [v for v in axe_violations(phone.page) if v["impact"] in ("serious", "critical")]
    assert not serious, describe(serious)
    phone.page.locator(".replay").screenshot(path=str(shots / "03-replay-phone.png"))
