"""Table talk in real browsers: two people at one table, one on a phone; what one says and
shows arrives live on the other's page, as text, and the host mutes and unmutes."""

from __future__ import annotations

from browser_kit import open_person, shot, sign_in_and_open
from playwright.sync_api import expect

PHONE = {
    "viewport": {"width": 390, "height": 844},
    "device_scale_factor": 2,
    "is_mobile": True,
    "has_touch": True,
}
HOSTILE = '<img src=x onerror="window.pwned=1"><b>bold?</b>'


def test_a_line_and_a_reaction_from_one_page_arrive_live_on_the_other(browser, server, shots):
    ada = open_person(browser, server, "Ada", viewport={"width": 1100, "height": 760})
    bo = open_person(browser, server, "Bo", **PHONE)
    code = sign_in_and_open(ada)
    bo.page.goto(ada.page.locator(".share-link").input_value())
    bo.page.fill("input[name=name]", "Bo")
    bo.page.click(".seat-card[data-seat='2'] [data-action=sit]")
    expect(bo.page.locator(".seat-card[data-seat='2']")).to_have_attribute("data-state", "me")
    ada.page.click("button[name=start]")
    for person in (ada, bo):
        expect(person.page.locator("#app")).to_have_attribute("data-view", "game")

    # Ada opens the chat by keyboard, types a line with markup in it and sends it with Enter.
    ada.page.locator(".talk-toggle").focus()
    ada.page.keyboard.press("Enter")
    expect(ada.page.locator("#talk-panel")).to_be_visible()
    expect(ada.page.locator(".talk-input")).to_be_focused()
    ada.page.keyboard.type(HOSTILE)
    ada.page.keyboard.press("Enter")
    expect(ada.page.locator(".talk-input")).to_have_value("")

    # Bo's page counts it unread, then shows it as the very characters she typed.
    expect(bo.page.locator(".talk-unread")).to_have_text("1")
    bo.page.click(".talk-toggle")
    line = bo.page.locator(".talk-line[data-kind=chat]").last
    expect(line.locator(".talk-who")).to_have_text("Ada")
    expect(line.locator(".talk-text")).to_have_text(HOSTILE)
    assert bo.page.locator(".talk-lines img, .talk-lines b").count() == 0
    assert bo.page.evaluate("window.pwned") is None
    fits = bo.page.evaluate("document.documentElement.scrollWidth")
    assert fits <= 390, f"the chat is wider than the phone: {fits}px"
    shot(bo, shots, "01-chat-on-a-phone", still=False)

    # Bo reacts; the emoji floats over his plate on Ada's page, and is listed in her chat.
    bo.page.click(".talk-react[data-emoji='🔥']")
    expect(ada.page.locator(".talk-float[data-seat='2']")).to_have_count(1)
    expect(ada.page.locator(".talk-line[data-kind=reaction] .talk-emoji").last).to_have_text("🔥")
    shot(ada, shots, "02-reaction-over-bo", still=False)

    # Ada hosts: she mutes Bo from the chat panel; his page says so and refuses his line.
    ada.page.click(f".talk-mute[data-player='{bo_id(bo)}']")
    expect(bo.page.locator(".talk-input")).to_be_disabled()
    expect(bo.page.locator(".talk-hint")).to_contain_text("muted you")
    ada.page.click(f".talk-mute[data-player='{bo_id(bo)}'][aria-pressed=true]")
    expect(bo.page.locator(".talk-input")).to_be_enabled()
    bo.page.fill(".talk-input", "thanks, partner")
    bo.page.keyboard.press("Enter")
    expect(ada.page.locator(".talk-line .talk-text").last).to_have_text("thanks, partner")
    assert code and ada.page.locator(".talk-line").count() >= 3

    # Escape closes the panel and gives the focus back to its button.
    bo.page.locator(".talk-input").focus()
    bo.page.keyboard.press("Escape")
    expect(bo.page.locator("#talk-panel")).to_be_hidden()
    expect(bo.page.locator(".talk-toggle")).to_be_focused()
    for person in (ada, bo):
        person.assert_no_errors()


def bo_id(person) -> str:
    return person.page.evaluate("JSON.parse(localStorage.getItem('euchre:me')).id")


def test_a_paste_longer_than_a_message_is_kept_whole_and_the_limit_said(browser, server, shots):
    """A 5,000-character paste isn't cut to 500 behind the player's back: the box keeps it
    all, a status line (announced) says the limit and the count, and nothing is sent until
    it is short enough."""
    ada = open_person(browser, server, "Ada", viewport={"width": 1100, "height": 760})
    page = ada.page
    sign_in_and_open(ada)
    page.click(".talk-toggle")
    box = page.locator(".talk-input")
    box.focus()
    page.keyboard.insert_text("la " * 1666 + "la")  # 5,000 characters, as a paste puts them
    expect(box).to_have_value("la " * 1666 + "la")
    limit = page.locator(".talk-limit")
    expect(limit).to_have_attribute("role", "status")
    expect(limit).to_have_text(
        "Messages are at most 500 characters; this one has 5,000. Shorten it to send."
    )
    expect(box).to_have_attribute("aria-invalid", "true")
    page.keyboard.press("Enter")
    page.wait_for_timeout(300)
    expect(page.locator(".talk-line")).to_have_count(0)
    shot(ada, shots, "01-too-long", still=False)

    # Cut to 500 by the player: it goes, and the warning goes with it.
    box.fill("la " * 166 + "la")
    expect(limit).to_have_text("")
    page.keyboard.press("Enter")
    expect(page.locator(".talk-line .talk-text")).to_have_text("la " * 166 + "la")
    expect(box).to_have_value("")
    ada.assert_no_errors()
