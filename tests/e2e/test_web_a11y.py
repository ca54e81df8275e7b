"""Every state of a game passes axe-core, on a laptop and on a phone: the lobby, the waiting
room, bidding, play, the result sheet and game over."""

from __future__ import annotations

import pytest
from a11y_kit import AXE_CONTEXT, axe_violations, describe
from browser_kit import open_person, play_the_game, shot
from playwright.sync_api import expect
from test_web_table import PHONE, start_with_bots

SIZES = {
    "laptop": {"viewport": {"width": 1366, "height": 768}},
    "phone": {**PHONE, "viewport": {"width": 390, "height": 844}},
}
STATES = ["lobby", "waiting-room", "bidding", "play", "result-sheet", "game-over"]


@pytest.mark.parametrize("size", SIZES)
def test_every_state_of_a_game_has_no_axe_violations(browser, server, shots, size):
    ada = open_person(browser, server, "Ada", **SIZES[size], **AXE_CONTEXT)
    page = ada.page
    found: dict[str, list[dict]] = {}

    def check(state: str) -> None:
        shot(ada, shots, f"{STATES.index(state) + 1:02}-{state}")
        found[state] = axe_violations(page)

    page.goto("/")
    expect(page.locator("#app")).to_have_attribute("data-view", "lobby")
    page.fill("input[name=name]", ada.name)
    check("lobby")
    page.click("button[name=open]")
    expect(page.locator("#app")).to_have_attribute("data-view", "room")
    expect(page.locator(".seat-card[data-state=me]")).to_have_count(1)
    check("waiting-room")
    start_with_bots(ada)

    play_the_game(ada, check)
    check("game-over")

    assert set(found) == set(STATES), f"the game never showed {set(STATES) - set(found)}"
    broken = {state: v for state, v in found.items() if v}
    report = "\n\n".join(
        f"{state}: {sum(len(x['nodes']) for x in v)} violations\n{describe(v)}"
        for state, v in broken.items()
    )
    assert not broken, f"axe-core found violations on the {size}:\n{report}"
    ada.assert_no_errors()
