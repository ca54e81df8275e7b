"""The hand's order in a real browser: the sort in the dock (and its key O) switches between the
suit sort and My order, and in My order cards are dragged, by mouse or finger, or moved with
Shift and an arrow key; the order and the choice stay after a reload, a drag never plays a
card, and the number keys pick by the place shown."""

from __future__ import annotations

import httpx
from browser_kit import (
    GAME,
    Person,
    make_move,
    moved_on,
    next_hand,
    open_person,
    settle,
    shot,
    sign_in_and_open,
    wait_for_my_move,
)
from playwright.sync_api import expect
from test_web_table import PHONE, start_with_bots

LAPTOP = {"viewport": {"width": 1366, "height": 768}}
SORT = "button[name=sort]"


def hand(person: Person) -> list[str]:
    return person.page.eval_on_selector_all(".hand .card", "cs => cs.map(c => c.dataset.card)")


def stored(person: Person, key: str):
    return person.page.evaluate("key => JSON.parse(localStorage.getItem(key))", key)


def choose_my_order(person: Person) -> None:
    person.page.click(SORT)
    expect(person.page.locator(".hand")).to_have_attribute("data-sort", "mine")


def reload(person: Person) -> None:
    person.page.reload()
    expect(person.page.locator(GAME)).to_have_attribute("data-status", "playing")


def centre(person: Person, n: int) -> tuple[float, float]:
    box = person.page.locator(".hand .card").nth(n).bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def drag(person: Person, start: tuple[float, float], end: tuple[float, float]) -> None:
    mouse = person.page.mouse
    mouse.move(*start)
    mouse.down()
    mouse.move(*end, steps=10)
    mouse.up()


def until_my_turn_to_play(person: Person) -> dict:
    """Passing every bid, until this person is to play a card with three or more in hand."""
    person.bids = False
    while True:
        s = wait_for_my_move(person)
        if s["phase"] == "play" and len(hand(person)) >= 3:
            settle(person)
            return s
        if s["phase"] == "scored":
            next_hand(person)
            continue
        make_move(person)
        moved_on(person, s["seq"])


def test_the_sort_button_and_o_switch_to_my_order_and_back_and_the_choice_stays(
    browser, server, shots
):
    ada = open_person(browser, server, "Ada", **PHONE)
    sign_in_and_open(ada)
    start_with_bots(ada)
    page = ada.page
    wait_for_my_move(ada)
    sort, cards = page.locator(SORT), page.locator(".hand")
    expect(sort).to_contain_text("Sort: By suit")
    expect(cards).to_have_attribute("data-sort", "suit")

    sort.click()
    expect(sort).to_contain_text("Sort: My order")
    expect(cards).to_have_attribute("data-sort", "mine")
    assert stored(ada, "euchre:hand-sort") == "mine"
    page.keyboard.press("o")
    expect(sort).to_contain_text("Sort: By suit")
    assert stored(ada, "euchre:hand-sort") == "suit"
    page.keyboard.press("O")
    expect(sort).to_contain_text("Sort: My order")
    shot(ada, shots, "phone-my-order")

    reload(ada)
    expect(page.locator(SORT)).to_contain_text("Sort: My order")
    expect(page.locator(".hand")).to_have_attribute("data-sort", "mine")
    # A thumb can hit it: the dock's buttons are 44 px or more each way.
    box = page.locator(SORT).bounding_box()
    assert box["width"] >= 44 and box["height"] >= 44, box
    ada.assert_no_errors()


def test_a_dragged_card_stays_where_it_was_dropped_is_not_played_and_keys_follow_it(
    browser, server, shots
):
    ada = open_person(browser, server, "Ada", **LAPTOP)
    code = sign_in_and_open(ada)
    start_with_bots(ada)
    page = ada.page
    choose_my_order(ada)
    s = until_my_turn_to_play(ada)
    before = hand(ada)
    lit = page.locator(".hand .card[data-legal=true]").first
    card = lit.get_attribute("data-card")
    start = before.index(card)
    to = len(before) - 1 if start == 0 else 0

    # Picked up and put back in its own place: moved, so not a tap, and nothing is played.
    x, y = centre(ada, start)
    drag(ada, (x, y), (x, y - 40))
    state = ada.state()
    assert hand(ada) == before and state["pending"] == "no" and state["seq"] == s["seq"]

    drag(ada, centre(ada, start), centre(ada, to))
    after = [c for c in before if c != card]
    after.insert(to, card)
    expect(page.locator(".hand .card")).to_have_count(len(before))
    assert hand(ada) == after
    shot(ada, shots, "laptop-my-order")
    # Only the order changed: the card wasn't played, the trick is as it was.
    state = ada.state()
    assert state["pending"] == "no" and state["seq"] == s["seq"], state
    assert state["trick"] == s["trick"]
    assert stored(ada, f"euchre:order:{code}")["cards"] == after

    reload(ada)
    wait_for_my_move(ada)
    assert hand(ada) == after
    moved = page.locator(f".hand .card[data-card='{card}']")
    expect(moved).to_have_attribute("data-index", str(to))
    # Its number is its new place: that key plays it.
    page.keyboard.press(str(to + 1))
    moved_on(ada, s["seq"])
    expect(page.locator(".hand .card")).to_have_count(len(before) - 1)
    assert card not in hand(ada)
    view = httpx.get(f"{server}/api/tables/{code}").json()
    played = [p for t in view["tricks"] for p in t["cards"]] + view["trick"]
    assert {"seat": int(s["you"]), "card": card} in played
    ada.assert_no_errors()


def test_shift_and_an_arrow_key_move_the_focused_card_in_my_order(browser, server):
    ada = open_person(browser, server, "Ada", **LAPTOP)
    sign_in_and_open(ada)
    start_with_bots(ada)
    page = ada.page
    wait_for_my_move(ada)
    before = hand(ada)

    # Sorted by suit, the arrows leave the hand as it is.
    page.locator(".hand .card").first.focus()
    page.keyboard.press("Shift+ArrowRight")
    assert hand(ada) == before

    choose_my_order(ada)
    first = before[0]
    page.locator(f".hand .card[data-card='{first}']").focus()
    page.keyboard.press("Shift+ArrowRight")
    page.keyboard.press("Shift+ArrowRight")
    assert hand(ada) == [before[1], before[2], first, *before[3:]]
    # Focus went with the card, and the status line says where it is now.
    assert page.evaluate("() => document.activeElement.dataset.card") == first
    expect(page.locator(".dock-status")).to_contain_text(f"place 3 of {len(before)}")
    page.keyboard.press("Shift+ArrowLeft")
    assert hand(ada) == [before[1], first, before[2], *before[3:]]
    ada.assert_no_errors()


def test_on_a_phone_a_finger_drags_a_card_in_my_order(browser, server):
    ada = open_person(browser, server, "Ada", **PHONE)
    sign_in_and_open(ada)
    start_with_bots(ada)
    page = ada.page
    choose_my_order(ada)
    wait_for_my_move(ada)
    settle(ada)
    before = hand(ada)
    (x0, y), (x1, _) = centre(ada, 0), centre(ada, 2)
    touch = page.context.new_cdp_session(page)
    touch.send(
        "Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x0, "y": y}]}
    )
    for k in range(1, 11):
        point = {"x": x0 + (x1 - x0) * k / 10, "y": y}
        touch.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [point]})
    touch.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    expect(page.locator(".hand .card").nth(2)).to_have_attribute("data-card", before[0])
    assert hand(ada) == [before[1], before[2], before[0], *before[3:]]
    ada.assert_no_errors()
