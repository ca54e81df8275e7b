"""The hand's order in a real browser: the sort in the dock (and its key O) switches between the
suit sort and My order, and the choice stays after a reload."""

from __future__ import annotations

from browser_kit import (
    GAME,
    Person,
    open_person,
    shot,
    sign_in_and_open,
    wait_for_my_move,
)
from playwright.sync_api import expect
from test_web_table import PHONE, start_with_bots

SORT = "button[name=sort]"


def stored(person: Person, key: str):
    return person.page.evaluate("key => JSON.parse(localStorage.getItem(key))", key)


def reload(person: Person) -> None:
    person.page.reload()
    expect(person.page.locator(GAME)).to_have_attribute("data-status", "playing")


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
