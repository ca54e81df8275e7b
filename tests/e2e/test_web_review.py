"""The review after each hand in the browser: on the result sheet, how it judges (cards with
every hand open, bids over likely deals), a line for the call and any pass that cost, and a
line for each card that cost its side tricks, "your" for the viewer's own; and under each hand
of the game record, by names. The lines are checked against GET .../reviews.

Bo plays over HTTP (test_web_ratings' Registered) against easy bots, which blunder often
enough that a hand with a costly card comes soon; the browser, signed in as Bo, only reads.
"""

from __future__ import annotations

import time

import httpx
from browser_kit import open_person, shot, wait_for_sheet
from playwright.sync_api import expect
from test_web_ratings import DESK, Registered, play_out, sign_in

GAME = "main.game"
REVIEWED_WITHIN = 20  # s: the reviews worker follows the hands scored well within a second
WORDS = {1: "a trick", 2: "two tricks", 3: "three tricks", 4: "four tricks", 5: "five tricks"}


def reviews(base: str, code: str, hands: int) -> list[dict]:
    """The table's reviews once the worker has done its first `hands` scored hands."""
    deadline = time.monotonic() + REVIEWED_WITHIN
    while True:
        body = httpx.get(f"{base}/api/tables/{code}/reviews").json()
        if len(body["hands"]) >= hands:
            return body["hands"]
        assert time.monotonic() < deadline, f"{len(body['hands'])} of {hands} hands reviewed"
        time.sleep(0.1)


def costly(review: dict) -> list[dict]:
    return [c for c in review["cards"] if c["after"] < c["before"]]


def scored_with_a_costly_card(code: str, bo: Registered, base: str) -> dict:
    """Play on, Bo ready between hands, until a hand is scored that has a costly card; the
    table is left waiting for Bo on that hand's result sheet. That hand's review."""
    for _ in range(20_000):
        view = bo.move(code, ready=False)
        assert view["status"] == "playing", "the game ended before any card cost a trick"
        if view["phase"] != "scored":
            time.sleep(0.01)
            continue
        review = reviews(base, code, len(view["hands"]))[-1]
        if costly(review):
            return review
        bo.move(code)  # ready for the next hand
    raise AssertionError("no hand was scored")


def assert_lines(lines, review: dict, owner: dict[int, str]) -> None:
    """The shown lines are the review's costly cards, in order, each in words."""
    cards = costly(review)
    expect(lines).to_have_count(len(cards))
    for n, c in enumerate(cards):
        line = lines.nth(n)
        expect(line).to_have_attribute("data-seat", str(c["seat"]))
        shown = line.locator("[data-card]").evaluate_all("cs => cs.map(c => c.dataset.card)")
        assert shown == [c["card"], *c["better"]]
        cost = c["before"] - c["after"]
        text = line.text_content()
        assert text.startswith(owner.get(c["seat"], "")), text
        assert f" on trick {c['trick']} cost {WORDS[cost]}: " in text, text
        assert text.endswith(f" would have kept {'it' if cost == 1 else 'them'}."), text


def assert_bids(lines, review: dict, owner: dict[int, str]) -> None:
    """The shown bid lines are the review's judged bids, in order, each in words."""
    bids = review["bids"]
    expect(lines).to_have_count(len(bids))
    for n, b in enumerate(bids):
        line = lines.nth(n)
        expect(line).to_have_attribute("data-seat", str(b["seat"]))
        text = line.text_content()
        assert text.startswith(owner.get(b["seat"], "")), text
        assert f" on average over {b['deals']} likely deals from what " in text, text
        if b["made"]["bid"] != "pass":
            euchred = b["made"]["euchred"]
            assert (f"euchred in {euchred} of them" if euchred else "never euchred") in text
        if b["costly"]:
            assert " cost points: " in text and text.endswith(" was the better bid."), text
        else:
            assert text.endswith("A sound call."), text


def said_when_no_card_cost(review: dict) -> str:
    if any(b["costly"] and b["made"]["bid"] != "pass" for b in review["bids"]):
        return "No card cost a trick: the call did."
    return "No card cost a trick: every one was as good as any other its player held."


HOW = "Each card is judged with every hand open (perfect information)"


def test_the_sheet_and_the_record_say_which_cards_cost_tricks(browser, server, shots):
    bo = Registered(server, "Bo")
    code = bo.open(bots="easy")
    bo.start(code)
    review = scored_with_a_costly_card(code, bo, server)

    # On the result sheet Bo reads his own costly cards as "your", the others by name.
    person = open_person(browser, server, "Bo", **DESK)
    sign_in(person)
    page = person.page
    page.goto(f"/#/t/{code}")
    wait_for_sheet(person)
    box = page.locator(".sheet .review")
    expect(box).to_have_attribute("data-review", "in")
    expect(box).to_have_attribute("aria-live", "polite")
    expect(box.locator("h3")).to_have_text("The review")
    expect(box.locator(".review-lines")).to_have_attribute("data-hand", str(review["hand_no"]))
    expect(box.locator(".review-how")).to_contain_text(HOW)
    expect(box.locator(".review-how")).to_contain_text("over likely deals from what its bidder")
    owner = {0: "Your "} | {n: "" for n in (1, 2, 3)}
    assert_lines(box.locator(".review-lines li"), review, owner)
    assert_bids(box.locator(".review-bids li"), review, owner)
    for line in box.locator(".review-lines li").all():
        if line.get_attribute("data-seat") != "0":
            assert not line.text_content().startswith("Your"), line.text_content()
    shot(person, shots, "01-sheet-review")

    # The game record, once the game is over: every hand's review by names, none "your".
    bo.move(code)
    view = play_out(code, [bo])
    done = reviews(server, code, len(view["hands"]))
    page.goto(f"/#/t/{code}/record")
    expect(page.locator("#app")).to_have_attribute("data-view", "record")
    expect(page.locator(".deal-review")).to_have_count(len(done))
    expect(page.locator(".deal-review .review-how")).to_have_count(len(done))
    assert any(hand["bids"] for hand in done), "a game's calls are judged"
    for hand in done:
        lines = page.locator(f".review-lines[data-hand='{hand['hand_no']}'] li")
        bids = page.locator(f".review-bids[data-hand='{hand['hand_no']}'] li")
        assert_bids(bids, hand, {0: "Bo’s "})
        if costly(hand):
            assert_lines(lines, hand, {0: "Bo’s "})
        else:
            quiet = page.locator(f".review-none[data-hand='{hand['hand_no']}']")
            expect(quiet).to_have_text(said_when_no_card_cost(hand))
    assert "Your " not in page.locator(".record-deals").text_content()
    page.locator(f".review-lines[data-hand='{review['hand_no']}']").scroll_into_view_if_needed()
    shot(person, shots, "02-record-review")
    person.assert_no_errors()
