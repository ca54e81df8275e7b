"""Where keyboard focus goes: onto each new view as the page changes under it, and round the
result sheet while it is open, back to the table when it closes."""

from __future__ import annotations

from browser_kit import open_person, play_out_the_hand, sign_in_and_open, wait_for_sheet
from playwright.sync_api import expect

FOCUSED = """() => {
    const el = document.activeElement;
    if (!el || el === document.body) return 'body';
    return el.outerHTML.slice(0, el.outerHTML.indexOf('>') + 1);
}"""


def focused(page) -> str:
    return page.evaluate(FOCUSED)


def test_focus_lands_on_each_new_view_from_the_lobby_to_the_table(browser, server):
    ada = open_person(browser, server, "Ada", viewport={"width": 1366, "height": 768})
    page = ada.page
    page.goto("/")
    page.fill("input[name=name]", "Ada")
    page.focus("button[name=open]")
    page.keyboard.press("Enter")
    expect(page.locator("#app")).to_have_attribute("data-view", "room")
    expect(page.locator(".room h1")).to_be_focused()

    page.focus("button[name=start]")
    page.keyboard.press("Enter")
    expect(page.locator("#app")).to_have_attribute("data-view", "game")
    expect(page.locator("main.game h1")).to_be_focused()
    ada.assert_no_errors()


def test_the_result_sheet_keeps_tab_inside_and_gives_focus_back_when_closed(browser, server):
    ada = open_person(browser, server, "Ada", viewport={"width": 1366, "height": 768})
    page = ada.page
    sign_in_and_open(ada)
    page.click("button[name=start]")
    play_out_the_hand(ada)
    wait_for_sheet(ada)
    sheet = page.locator(".sheet")
    expect(sheet.locator("button[name=ready]")).to_be_focused()

    controls = sheet.locator("button:enabled, a[href], summary")
    first, last = controls.first, controls.last
    last.focus()
    page.keyboard.press("Tab")
    expect(first).to_be_focused()
    page.keyboard.press("Shift+Tab")
    expect(last).to_be_focused()
    for _ in range(controls.count() + 1):  # round and round, never out of the sheet
        page.keyboard.press("Tab")
        assert page.evaluate("() => !!document.activeElement.closest('.sheet')"), focused(page)

    page.keyboard.press("Escape")
    expect(page.locator("main.game")).to_have_attribute("data-sheet", "closed")
    expect(page.locator("[data-move=result]")).to_be_focused()
    ada.assert_no_errors()
