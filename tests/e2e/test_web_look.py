"""The look a player picks: a dark theme (the system's by default, or their own choice, kept
after a reload; axe on every page in it is test_web_a11y's); the cards' size; and a
left-handed table, its rail on the felt's left."""

from __future__ import annotations

import pytest
from browser_kit import open_person, settle, shot, sign_in_and_open
from playwright.sync_api import expect
from test_web_table import start_with_bots

WIDTHS = (320, 1366)
PAPER = "() => getComputedStyle(document.body).backgroundColor"
SCHEME = "() => document.querySelector('meta[name=color-scheme]').content"


def dark(rgb: str) -> bool:
    """Whether a computed `rgb(r, g, b)` colour is a dark one."""
    r, g, b = (int(x) for x in rgb[rgb.index("(") + 1 : rgb.index(")")].split(",")[:3])
    return (r + g + b) / 3 < 80


def options(page) -> None:
    """Open the table's Options menu (from under "⋯" on a narrow screen), unless it is open."""
    if page.locator(".options-menu[open]").count():
        return
    fold = page.locator(".bar-fold")
    if fold.is_visible():
        fold.click()
    page.click(".options-menu summary")


def test_the_theme_follows_the_system_and_a_players_choice_outlasts_a_reload(browser, server):
    ada = open_person(browser, server, "Ada", color_scheme="dark")
    page = ada.page
    page.goto("/")
    expect(page.locator("#app")).to_have_attribute("data-view", "lobby")
    assert page.evaluate("document.documentElement.dataset.theme") == "dark", "the system's"
    assert dark(page.evaluate(PAPER)) and page.evaluate(SCHEME) == "dark"

    switch = page.locator(".bar .theme-switch")
    switch.click()  # system → light
    expect(page.locator("html")).to_have_attribute("data-theme", "light")
    assert not dark(page.evaluate(PAPER)) and page.evaluate(SCHEME) == "light"
    page.reload()
    expect(page.locator("#app")).to_have_attribute("data-view", "lobby")
    expect(page.locator("html")).to_have_attribute("data-theme", "light")
    expect(switch).to_have_attribute("title", "Theme: Light. Switch to Dark")

    # At a table the same choice is in the Options menu.
    sign_in_and_open(ada)
    options(page)
    expect(page.locator("input[name=option-theme][value=light]")).to_be_checked()
    page.locator("input[name=option-theme][value=dark]").check(force=True)
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    page.reload()
    expect(page.locator("#app")).to_have_attribute("data-view", "room")
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    assert dark(page.evaluate(PAPER))
    ada.assert_no_errors()


def test_a_picked_look_is_on_the_page_before_any_module_runs(browser, server):
    """The first paint already wears the player's picks: with the page's modules held back
    (as while they load), a dark theme picked on a light system is dark, and large cards are
    large. Before, options.js set them once the modules ran, and the page flashed light."""
    ada = open_person(browser, server, "Ada", color_scheme="light")
    page = ada.page
    page.add_init_script(
        "localStorage.setItem('euchre.options', JSON.stringify({theme: 'dark', size: 'large'}))"
    )
    page.route("**/js/main.js", lambda route: route.abort())
    page.goto("/")
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    expect(page.locator("html")).to_have_attribute("data-card-size", "large")
    assert dark(page.evaluate(PAPER)) and page.evaluate(SCHEME) == "dark"
    assert page.locator("#app").get_attribute("data-view") == "loading", "no module ran"


HAND_CARD = "() => document.querySelector('.hand .card').getBoundingClientRect().width"
SIDEWAYS = "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"


def test_the_cards_size_scales_the_hand_and_large_never_scrolls_a_phone(browser, server, shots):
    ada = open_person(browser, server, "Ada", viewport={"width": 1366, "height": 768})
    page = ada.page
    sign_in_and_open(ada)
    start_with_bots(ada)
    # However many the hand holds by now: bots bid and play on while the sizes are tried.
    expect(page.locator(".hand .card").first).to_be_visible()
    settle(ada)
    widths = {}
    for size in ("small", "normal", "large"):
        options(page)
        page.locator(f"input[name=option-size][value={size}]").check(force=True)
        widths[size] = page.evaluate(HAND_CARD)
    assert widths["small"] < widths["normal"] < widths["large"], widths
    shot(ada, shots, "large-1366")

    page.reload()
    expect(page.locator(".hand .card").first).to_be_visible()
    settle(ada)
    assert page.evaluate(HAND_CARD) == pytest.approx(widths["large"]), "the size is kept"
    page.set_viewport_size({"width": 320, "height": 640})
    settle(ada)
    shot(ada, shots, "large-320")
    assert page.evaluate(SIDEWAYS) == 0, "large cards push a phone's page sideways"
    hand = page.locator(".hand").bounding_box()
    assert hand and hand["x"] >= 0 and hand["x"] + hand["width"] <= 320
    last = page.locator(".hand .card").last.bounding_box()
    assert last and last["x"] + last["width"] <= 320, "the last card is off the screen"
    ada.assert_no_errors()


def test_the_left_handed_table_puts_the_rail_and_the_moves_on_the_left(browser, server, shots):
    ada = open_person(browser, server, "Ada", viewport={"width": 1366, "height": 768})
    page = ada.page
    sign_in_and_open(ada)
    start_with_bots(ada)
    expect(page.locator("main.game")).to_have_attribute("data-status", "playing")

    def sides() -> tuple[float, float]:
        rail = page.locator(".rail").bounding_box()
        felt = page.locator(".felt").bounding_box()
        assert rail and felt
        return rail["x"] + rail["width"] / 2, felt["x"] + felt["width"] / 2

    rail, felt = sides()
    assert rail > felt, "a right-handed table has its rail on the right"
    options(page)
    page.check("input[name=option-left]")
    rail, felt = sides()
    assert rail < felt, "the left-handed table has its rail on the felt's left"
    status = page.locator(".dock-status").bounding_box()
    moves = page.locator(".dock .moves").bounding_box()
    assert status and moves and moves["x"] < status["x"], "the moves come before the status"
    settle(ada)
    shot(ada, shots, "left-handed")
    page.reload()
    expect(page.locator("main.game")).to_be_visible()
    rail, felt = sides()
    assert rail < felt, "the choice is kept"
    ada.assert_no_errors()
