"""A finished game's record in the browser: every deal card by card from the log, the server's
check of the log in words, the final head to keep and the log to download, reached from the
game-over sheet and from a player's recent games; a game still running has no record yet.

The game is played over HTTP by a registered player against easy bots (test_web_ratings'
Registered), at the kits' 0.02 bot pace; the browser only reads.
"""

from __future__ import annotations

import json

import httpx
import psycopg
from browser_kit import open_person, shot, wait_for_sheet
from playwright.sync_api import expect
from test_web_ratings import DESK, Registered, fits, play_out, rated_players
from test_web_table import PHONE

CLIPBOARD = ["clipboard-read", "clipboard-write"]


def log_of(base: str, code: str) -> list[dict]:
    lines = httpx.get(f"{base}/api/tables/{code}/log").text.splitlines()
    return [json.loads(line) for line in lines]


def first_deal(log: list[dict]) -> list[dict]:
    """The log's events from the first HandDealt up to the next one."""
    deals = [n for n, e in enumerate(log) if e["type"] == "HandDealt"]
    return log[deals[0] : deals[1] if len(deals) > 1 else len(log)]


def test_a_finished_games_record_shows_each_deal_its_check_its_head_and_its_log(
    browser, server, database_url, shots
):
    bo = Registered(server, "Bo")
    code = bo.open(bots="easy")
    bo.start(code)

    # While the game runs its cards are blank in the log: the record says it opens at the end.
    reader = open_person(browser, server, "Reader", permissions=CLIPBOARD, **DESK)
    page = reader.page
    page.goto(f"/#/t/{code}/record")
    expect(page.locator("#app")).to_have_attribute("data-view", "record-pending")
    expect(page.locator("main h1")).to_have_text("The record opens when the game is over")
    expect(page.locator("main a:text('Back to the table')")).to_have_attribute(
        "href", f"#/t/{code}"
    )
    expect(page.locator("[data-card]")).to_have_count(0)
    shot(reader, shots, "01-record-pending")

    play_out(code, [bo])
    log = log_of(server, code)
    view = httpx.get(f"{server}/api/tables/{code}").json()
    verdict = httpx.get(f"{server}/api/tables/{code}/verify").json()
    assert verdict["ok"], verdict

    # From the game-over sheet to the record.
    page.goto(f"/#/t/{code}")
    wait_for_sheet(reader)
    page.click(".sheet a:text('Game record')")
    expect(page.locator("#app")).to_have_attribute("data-view", "record")
    expect(page.locator(".record h1")).to_have_text(f"Table {code}")
    expect(page.locator(".record-team.won")).to_have_attribute("data-team", str(view["winner"]))

    # The check, in words, marked in words; the head, as the view and the log's last line say,
    # folded away with the rest of what an auditor reads.
    audit = page.locator(".record-audit")
    expect(audit).to_have_attribute("data-verified", "yes")
    expect(audit.locator(".verdict strong")).to_have_text("This game’s record checks out")
    audit.locator("summary").click()
    expect(audit.locator(".verdict-words")).to_have_text(verdict["summary"])
    expect(audit).to_contain_text("Keep this: if the stored log is ever edited, it won’t end here")
    head = audit.locator(".head").inner_text()
    assert head == view["head"] == log[-1]["hash"]

    # A section, headed, for each deal; the first one's hands and tricks as the log has them.
    dealt = [e for e in log if e["type"] == "HandDealt"]
    expect(page.locator(".deal")).to_have_count(len(dealt))
    expect(page.locator(".deal h3")).to_have_count(len(dealt))
    deal = page.locator(".deal").first
    expect(deal).to_have_attribute("data-deal", str(dealt[0]["deal_no"]))
    for seat, cards in enumerate(dealt[0]["hands"]):
        shown = deal.locator(f".dealt-hands li[data-seat='{seat}'] [data-card]")
        assert sorted(shown.evaluate_all("cs => cs.map(c => c.dataset.card)")) == sorted(cards)
    expect(deal.locator(".turned [data-card]").first).to_have_attribute("data-card", dealt[0]["up"])
    taken = [e for e in first_deal(log) if e["type"] == "TrickTaken"]
    tricks = deal.locator(".trick")
    expect(tricks).to_have_count(len(taken))
    for n, trick in enumerate(taken):
        shown = tricks.nth(n)
        expect(shown).to_have_attribute("data-winner", str(trick["winner"]))
        expect(shown.locator("[data-card]")).to_have_count(len(trick["cards"]))
        played = shown.locator("[data-card]").evaluate_all("cs => cs.map(c => c.dataset.card)")
        assert played == trick["cards"], "each trick's cards in the order they were played"
        expect(shown.locator("li.won")).to_have_attribute("data-seat", str(trick["winner"]))
        expect(shown.locator(".took")).to_contain_text("takes it")
    shot(reader, shots, "02-record")

    # By keys alone: Tab from the top of the page reaches the Copy button and the download.
    page.locator("a.brand").focus()
    reached = []
    for _ in range(8):
        page.keyboard.press("Tab")
        reached.append(page.evaluate("() => document.activeElement.textContent.trim()"))
        if reached[-1] == "Copy":
            break
    assert reached[-1] == "Copy", reached
    page.keyboard.press("Enter")
    expect(page.locator("button[name=copy-head]")).to_have_text("Copied!")
    assert page.evaluate("() => navigator.clipboard.readText()") == head

    # The download, the next stop, is the export: its header first, ending at the same head.
    page.keyboard.press("Tab")
    download = page.locator("a:text('Download the log')")
    expect(download).to_be_focused()
    expect(download).to_have_attribute("href", f"/api/tables/{code}/export")
    with page.expect_download() as got:
        page.keyboard.press("Enter")
    assert got.value.suggested_filename == f"{code}.ndjson"
    with open(got.value.path()) as saved:
        header = json.loads(saved.readline())
    assert header["format"] == "euchre-log" and header["complete"] and header["head"] == head

    # The heads this browser was shown, signed: the game-over view's among them, to keep.
    kept = audit.locator(".kept-heads li")
    expect(kept.last).to_have_attribute("data-seq", str(view["seq"]))
    with page.expect_download() as got:
        audit.locator("a[name=kept-heads]").click()
    with open(got.value.path()) as saved:
        heads = [json.loads(line) for line in saved]
    hashes = {line["seq"]: line["hash"] for line in log}
    assert heads and all(h["code"] == code and h["hash"] == hashes[h["seq"]] for h in heads)
    assert heads[-1]["signature"] == view["signed_head"]["signature"]

    # From the player's recent games too, beside the game's log.
    rated_players(server, [bo.id], games=1)
    page.goto(f"/#/players/{bo.id}")
    row = page.locator(f".recent-table tr[data-code='{code}']")
    expect(row.locator("a:text('Log')")).to_have_attribute("href", f"/api/tables/{code}/log")
    row.locator("a:text('Record')").click()
    expect(page.locator("#app")).to_have_attribute("data-view", "record")
    expect(page.locator(".record h1")).to_have_text(f"Table {code}")

    # On a phone the record fits the screen's width.
    phone = open_person(browser, server, "Phone", **PHONE)
    phone.page.goto(f"/#/t/{code}/record")
    expect(phone.page.locator(".deal")).to_have_count(len(dealt))
    fits(phone.page, 390)
    shot(phone, shots, "03-record-phone")

    # An edited log: the record says so, and names the event and the deal it is in.
    scored = next(e for e in first_deal(log) if e["type"] == "HandScored")
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute(
            "UPDATE events SET data = jsonb_set(data, '{points}', '4') "
            "WHERE stream = %s AND seq = %s",
            (code, scored["seq"]),
        )
    page.reload()
    expect(audit).to_have_attribute("data-verified", "no")
    expect(audit.locator(".verdict strong")).to_have_text("This game’s record fails its check")
    expect(audit.locator(".verdict-problem[data-seq]")).to_have_attribute(
        "data-seq", str(scored["seq"])
    )
    expect(page.locator(".deal[data-wrong=yes]")).to_have_attribute("data-deal", "1")
    shot(reader, shots, "04-record-not-verified")
    reader.assert_no_errors()
    phone.assert_no_errors()
