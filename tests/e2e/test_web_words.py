"""The table's words, from the modules the page itself loads, in the browser: what a player
reads about their own moves says "you", and a bower is named once."""

from __future__ import annotations

import pytest
from browser_kit import open_person

SEATS = [{"player": f"p{n}", "name": name} for n, name in enumerate(("Ada", "Bo", "Cy", "Di"))]


@pytest.fixture
def page(browser, server):
    person = open_person(browser, server, "Ada")
    person.page.goto("/")
    return person.page


def words(page, call: str, *args):
    return page.evaluate(
        f"""async (args) => {{
            const m = await import('/js/words.js');
            return m.{call}(...args);
        }}""",
        list(args),
    )


def test_the_dealer_who_orders_the_card_up_picks_it_up(page):
    assert words(page, "bidWords", {"seat": 2, "bid": "order", "suit": "D"}, 2) == "Pick up {D}"
    assert words(page, "bidWords", {"seat": 1, "bid": "order", "suit": "D"}, 2) == "Order up {D}"
    assert words(page, "bidWords", {"seat": 1, "bid": "call", "suit": "S", "alone": True}, 2) == (
        "Call {S} alone"
    )


def test_trump_made_on_your_own_screen_is_called_by_you(page):
    view = {"seats": SEATS, "maker": 0, "alone": None}
    assert words(page, "calledBy", {**view, "you": 0}) == "called by you"
    assert words(page, "calledBy", {**view, "you": 1}) == "called by Ada"
    assert words(page, "calledBy", {**view, "you": None, "alone": 0}) == "called by Ada, alone"


def test_a_refused_bower_is_named_with_one_the(page):
    assert words(page, "cannotPlay", "JD", "H", "S") == (
        "You must follow {S}: you can’t play the left bower (jack of diamonds)."
    )
    assert words(page, "cannotPlay", "9C", "H", "S") == (
        "You must follow {S}: you can’t play the nine of clubs."
    )
    assert words(page, "cannotPlay", "9C", "H", None) == "That card can’t be played now."


DISCARD = {"seats": SEATS, "you": 0, "status": "playing", "up": "JD", "can": {"discard": {}}}
STATUS = """async (v) => (await import('/js/dock.js')).statusText(v)"""


def test_the_dealer_is_told_of_keys_only_where_there_is_a_keyboard(page, browser, server):
    assert page.evaluate(STATUS, DISCARD) == (
        "You picked up the {D}. Pick the card to bury (click it or press 1–6), then Bury."
    )
    phone = open_person(browser, server, "Bo", is_mobile=True, has_touch=True).page
    phone.goto("/")
    assert phone.evaluate(STATUS, DISCARD) == (
        "You picked up the {D}. Pick the card to bury (tap it), then Bury."
    )
