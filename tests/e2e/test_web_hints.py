"""Hints against bots at the web table: nothing until the player switches hints on; then, on
their turn, a Hint button (key ?) says in words what the expert would do and lights up the
card or bid; the light goes once the moment has passed."""

from __future__ import annotations

from browser_kit import GAME, make_move, moved_on, open_person, sign_in_and_open, wait_for_my_move
from playwright.sync_api import expect

HINTED_PHASES = ("bid1", "bid2", "discard", "defend", "play")


def my_hinted_turn(person) -> dict:
    """Until the player's turn is a bid, a discard, defending or a card."""
    while True:
        s = wait_for_my_move(person)
        assert s["status"] != "over", "the game ended before the player decided anything"
        if s["phase"] in HINTED_PHASES:
            return s
        seq = s["seq"]
        make_move(person)
        moved_on(person, seq)


def test_a_hint_is_offered_once_switched_on_and_says_the_move_in_words(browser, server):
    ada = open_person(browser, server, "Ada")
    page = ada.page
    sign_in_and_open(ada)
    page.click("button[name=start]")
    expect(page.locator(GAME)).to_have_attribute("data-status", "playing")
    my_hinted_turn(ada)
    expect(page.locator("button[name=hint]")).to_have_count(0)  # off until asked for

    page.click(".options-menu summary")
    page.check("input[name=option-hints]")
    page.click(".options-menu summary")
    hint = page.locator("button[name=hint]")
    expect(hint).to_be_visible()
    page.keyboard.press("?")
    status = page.locator(".dock-status")
    expect(status).to_have_attribute("data-tone", "hint")
    expect(status).to_contain_text("Hint: ")
    words = status.inner_text()
    assert len(words.split()) >= 5 and words.rstrip().endswith("."), words
    lit = page.locator("[data-hinted=yes]")
    expect(lit).to_have_count(1)
    if lit.get_attribute("data-card"):  # a card: one the player may play or bury
        expect(lit).to_have_attribute("data-legal", "true")
    else:
        assert lit.get_attribute("data-move") in ("order", "pass", "call", "defend", "defend-alone")

    seq = ada.state()["seq"]
    make_move(ada)
    moved_on(ada, seq)
    expect(page.locator("[data-hinted=yes]")).to_have_count(0)
    ada.assert_no_errors()
