"""Learn in a minute: from the lobby, one hand walked through step by step, by keyboard alone
on a 320 px phone in the dark theme. Every step is heard by a screen reader, a wrong card is
explained and the right one asked for again, nothing scrolls sideways, and the lesson asks
nothing of the server: no table is opened, nothing is logged or rated, until "Play bots now"
at its end opens a real one."""

from __future__ import annotations

import httpx
from a11y_kit import AXE_CONTEXT, axe_violations, describe
from browser_kit import open_person, shot
from playwright.sync_api import expect
from test_web_reflow import fit_report
from test_web_spoken import RECORD

PHONE = {"viewport": {"width": 320, "height": 640}, "color_scheme": "dark"}
STEPS = (
    "Two against two",
    "The deal",
    "Trump",
    "The bowers",
    "Order up or pass",
    "You order it up",
    "Follow suit",
    "Winning a trick",
    "Five tricks",
    "The score",
    "Your turn",
)


def test_a_newcomer_walks_the_lesson_by_keyboard_and_no_table_is_opened(browser, server, shots):
    learner = open_person(browser, server, "Learner", **PHONE, **AXE_CONTEXT)
    page = learner.page
    page.add_init_script(RECORD)
    page.goto("/")
    expect(page.locator("#app")).to_have_attribute("data-view", "lobby")
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    assert not fit_report(page), f"the lobby reaches past a 320 px screen: {fit_report(page)}"

    # From the lobby by Tab and Enter alone.
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement.matches('a.learn')"):
            break
    else:
        raise AssertionError("Tab never reached “Learn in a minute” in the lobby")
    sent: list[str] = []
    page.on("request", lambda r: sent.append(f"{r.method} {r.url}") if "/api/" in r.url else None)
    page.keyboard.press("Enter")
    expect(page.locator("#app")).to_have_attribute("data-view", "lesson")
    lesson = page.locator("main.lesson")
    heading = page.locator(".lesson-words h2")
    said = page.locator(".lesson-said")
    broken: dict[str, list[str]] = {}

    def at(n: int) -> None:
        expect(heading).to_have_text(f"Step {n} of {len(STEPS)}: {STEPS[n - 1]}")
        if out := fit_report(page):
            broken[f"step {n}"] = out
        serious = [v for v in axe_violations(page) if v["impact"] in ("serious", "critical")]
        if serious:
            broken[f"step {n} (axe)"] = [describe(serious)]
        shot(learner, shots, f"step-{n:02}", still=False)

    at(1)
    expect(page.locator("button[name=next]")).to_be_focused()
    expect(page.locator("button[name=back]")).to_be_disabled()
    page.keyboard.press("Enter")
    at(2)
    page.keyboard.press("ArrowRight")
    at(3)
    page.keyboard.press("ArrowLeft")  # back, and on again
    at(2)
    for n in range(3, 8):
        page.keyboard.press("ArrowRight" if n % 2 else "Enter")
        at(n)
        if n == 4:
            # The bowers: the jack of spades is marked the left bower, the jack of clubs the right.
            expect(page.locator(".lesson-hand .card[data-card=JC] .bower")).to_have_text("Right")
            expect(page.locator(".lesson-hand .card[data-card=JS] .bower")).to_have_text("Left")

    # Follow suit: Next waits for the card; the cards are in reach of the keyboard.
    expect(lesson).to_have_attribute("data-step", "follow")
    expect(page.locator("button[name=next]")).to_be_disabled()
    page.keyboard.press("ArrowRight")  # inside the hand: the next card, not the next step
    at(7)
    expect(page.locator(".lesson-hand .card[data-card=JS]")).to_be_focused()
    page.keyboard.press("Enter")  # the left bower: a club, so it doesn't follow spades
    expect(said).to_contain_text("the jack of spades is the left bower")
    expect(said).to_contain_text("you must play it")
    shot(learner, shots, "wrong-card", still=False)
    page.keyboard.press("3")  # the king of clubs, by its key
    expect(said).to_contain_text("a spade was led and you hold one")
    at(7)
    expect(page.locator("button[name=next]")).to_be_disabled()
    for _ in range(4):
        page.keyboard.press("ArrowRight")
    expect(page.locator(".lesson-hand .card[data-card='9S']")).to_be_focused()
    page.keyboard.press("Enter")
    expect(said).to_contain_text("Right: the nine of spades")
    expect(page.locator(".lesson-felt [data-played=bottom]")).to_have_attribute("data-card", "9S")
    expect(page.locator("button[name=next]")).to_be_focused()
    for n in range(8, len(STEPS) + 1):
        page.keyboard.press("Enter" if n % 2 else "ArrowRight")
        at(n)
        if n == 10:
            expect(lesson).to_contain_text("A march! +2 to Us")
    expect(page.locator("button[name=next]")).to_be_hidden()
    expect(page.locator(".lesson-end button[name=play-bots]")).to_be_focused()
    shot(learner, shots, "end", still=False)
    assert not broken, f"the lesson reaches past a 320 px screen, or axe objects: {broken}"

    # Heard: every step, and why the wrong cards were wrong.
    heard = "\n".join(page.evaluate("() => window.__transcript"))
    for n, title in enumerate(STEPS[1:], start=2):
        assert f"Step {n} of {len(STEPS)}: {title}" in heard, f"step {n} went unheard:\n{heard}"
    assert "the left bower, a club and not a spade" in heard, heard
    assert "Right: the nine of spades is your only spade" in heard, heard

    # The lesson changed nothing on the server: no table opened, nothing to log or rate.
    changes = [r for r in sent if not r.startswith("GET ")]
    assert not changes, f"the lesson asked the server to change something: {changes}"
    assert httpx.get(f"{server}/api/tables").json()["tables"] == []

    # Its last step is a real game: Enter on "Play bots now".
    page.keyboard.press("Enter")
    expect(page.locator("#app")).to_have_attribute("data-view", "game")
    code = page.url.rsplit("/", 1)[-1]
    seats = httpx.get(f"{server}/api/tables/{code}").json()["seats"]
    assert seats[0]["name"].startswith("Guest "), seats[0]
    assert [s["bot"] for s in seats[1:]] == ["easy"] * 3
    learner.assert_no_errors()
