"""A table the house closes mid-game, seen in a browser: the page says so and why, at once,
through the stream, and offers no move and no rematch."""

from __future__ import annotations

import os
import subprocess
import sys

from browser_kit import GAME, TURN_TIMEOUT, open_person, sign_in_and_open, wait_for_my_move
from playwright.sync_api import expect


def test_a_table_closed_mid_game_says_why_and_offers_nothing(
    browser, server, database_url, redis_url
):
    ada = open_person(browser, server, "Ada", viewport={"width": 1280, "height": 800})
    code = sign_in_and_open(ada)
    ada.page.click("button[name=start]")
    expect(ada.page.locator("#app")).to_have_attribute("data-view", "game")
    wait_for_my_move(ada)

    # A process of its own, as an operator's would be (the browser's loop runs in this one).
    closing = subprocess.run(
        [
            sys.executable,
            "-m",
            "services.cli",
            "tables",
            "close",
            code,
            "--reason",
            "closed for the night",
        ],
        env={**os.environ, "EUCHRE_DATABASE_URL": database_url, "EUCHRE_REDIS_URL": redis_url},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert closing.returncode == 0, closing.stderr
    page = ada.page
    expect(page.locator(GAME)).to_have_attribute("data-status", "over", timeout=TURN_TIMEOUT)
    sheet = page.locator("[data-sheet=closed]")
    expect(sheet).to_contain_text("The house closed this table", timeout=TURN_TIMEOUT)
    expect(sheet.locator(".closed-reason")).to_have_text("closed for the night")
    expect(page.locator("[data-move=again], button[name=again]")).to_have_count(0)
    sheet.locator("button", has_text="See the table").click()
    expect(page.locator(".dock")).to_contain_text(
        "The house closed this table: closed for the night"
    )
    expect(page.locator(".dock [data-move]:not([data-move=result])")).to_have_count(0)
    assert not ada.errors
