"""No trump (docs/euchre.md "No trump"): the host turns the house rule on in the lobby and the
waiting room shows it; in round two the bidding dock offers "Call no trump", and once called
the rail, the bids and the log say no trump.

The round-two table is written into the log as the rules make it (as test_web_claim.py does),
so it holds for any seed: everyone passed round one and seat 0, left of the dealer, bids."""

from __future__ import annotations

import json

import httpx
from browser_kit import GAME, open_person, sign_in_and_open
from playwright.sync_api import expect
from test_web_claim import dealt_by_seat_3, logged

from domain import apply, fold
from domain import commands as cmd
from domain import events as ev

HANDS = ["9S TS QS KS AS", "9H TH QH KH AH", "9D TD QD KD AD", "9C TC QC KC AC"]


def seat_0_in_round_two(code: str, player: str, name: str) -> list[ev.Event]:
    """A table of `player` (seat 0) and three bots with no trump on, dealt `HANDS` by seat 3,
    round one passed all round: seat 0 bids first in round two."""
    log = dealt_by_seat_3(code, player, name, HANDS, "JS", ["JH", "JD", "JC"], no_trump="on")
    state = fold(log)
    for seat in range(4):
        state, events = apply(state, cmd.Pass(seat=seat))
        log.extend(events)
    assert state.phase == "bid2" and state.turn == 0
    return log


def test_the_host_turns_no_trump_on_and_a_player_calls_it_in_round_two(
    browser, server, database_url
):
    ada = open_person(browser, server, "Ada", viewport={"width": 1280, "height": 800})
    code = sign_in_and_open(ada, no_trump="on")
    page = ada.page
    expect(page.locator(".rule-row[data-rule=no_trump]")).to_have_attribute("data-value", "on")
    assert httpx.get(f"{server}/api/tables/{code}").json()["settings"]["no_trump"] == "on"

    me = page.evaluate("JSON.parse(localStorage.getItem('euchre:me'))")
    logged(database_url, "NOTRUMP", seat_0_in_round_two("NOTRUMP", me["id"], me["name"]))
    page.goto("/#/t/NOTRUMP")
    game = page.locator(GAME)
    expect(game).to_have_attribute("data-turn", "me")
    no_trump = page.locator("[data-move=call][data-suit=N]")
    expect(no_trump).to_have_text("Call no trump" + "N")  # the label and its key
    expect(page.locator(".dock")).to_contain_text("no trump, or pass")
    no_trump.click()
    expect(page.locator(".panel.trump")).to_have_attribute("data-trump", "N")
    expect(page.locator(".panel.trump strong")).to_have_text("No trump")
    text = httpx.get(f"{server}/api/tables/NOTRUMP/log").text
    called = [e for e in map(json.loads, text.splitlines()) if e["type"] == "TrumpCalled"]
    assert [(e["seat"], e["suit"]) for e in called] == [(0, "N")]
    ada.assert_no_errors()
