"""Driving the web table as a person does: clicks and keys on what the page shows.

The page publishes its state on `main.game` as data attributes (`data-phase`, `data-turn="me"`,
`data-seq`, `data-sheet`, `data-pending`), so every wait here is on page state, never a sleep,
and every choice is among the cards and buttons the page has lit.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from playwright.sync_api import Browser, Page, expect

GAME = "main.game"
TURN_TIMEOUT = 60_000  # ms: bots at a 0.02 pace move in well under a second; this is slack


@dataclass
class Person:
    """One person at the table: a browser context (cookies of their own) and its page."""

    page: Page
    name: str
    errors: list[str] = field(default_factory=list)
    rng: random.Random = field(default_factory=lambda: random.Random(1))
    bids: bool = True  # False: passes whenever passing is allowed

    def state(self) -> dict:
        return self.page.eval_on_selector(GAME, "e => ({...e.dataset})")

    def assert_no_errors(self) -> None:
        assert not self.errors, f"{self.name}'s page had errors: {self.errors}"


def open_person(browser: Browser, base: str, name: str, **context) -> Person:
    ctx = browser.new_context(base_url=base, **context)
    page = ctx.new_page()
    page.set_default_timeout(TURN_TIMEOUT)
    person = Person(page, name)
    page.on("pageerror", lambda error: person.errors.append(str(error)))
    page.on(
        "console",
        lambda message: person.errors.append(message.text) if message.type == "error" else None,
    )
    return person


def settle(person: Person) -> None:
    """Until nothing is in flight on the table: cards, sweeps, the deal (glows may pulse on)."""
    person.page.wait_for_function(
        """() => {
            const g = document.querySelector('main.game');
            if (g && g.dataset.motion === 'busy') return false;
            return document.getAnimations().every(a =>
                a.playState !== 'running' || a.effect.getComputedTiming().endTime === Infinity);
        }""",
        timeout=TURN_TIMEOUT,
    )


def shot(person: Person, folder: Path, name: str, still: bool = True) -> None:
    """A screenshot in `folder`; by default once the table has stopped moving."""
    if still:
        settle(person)
    person.page.screenshot(path=str(folder / f"{name}.png"))


def sign_in_and_open(person: Person, folder: Path | None = None, **rules: str | int) -> str:
    """From the lobby: type a name, set house rules, open a table; its code."""
    page = person.page
    page.goto("/")
    expect(page.locator("#app")).to_have_attribute("data-view", "lobby")
    page.fill("input[name=name]", person.name)
    for key, value in rules.items():
        page.locator(f"input[data-rule={key}][value='{value}']").check(force=True)
    if folder:
        shot(person, folder, "01-lobby")
    page.click("button[name=open]")
    expect(page.locator("#app")).to_have_attribute("data-view", "room")
    return page.locator(".table-code strong").inner_text()


def wait_for_my_move(person: Person) -> dict:
    """Until this person has something to decide (and nothing in flight), or the game ends."""
    person.page.wait_for_function(
        """() => {
            const g = document.querySelector('main.game');
            return g && (g.dataset.status === 'over'
                || (g.dataset.turn === 'me' && g.dataset.pending === 'no'));
        }""",
        timeout=TURN_TIMEOUT,
    )
    return person.state()


def wait_for_sheet(person: Person) -> None:
    expect(person.page.locator(GAME)).to_have_attribute("data-sheet", "open", timeout=TURN_TIMEOUT)


def moved_on(person: Person, seq: str) -> None:
    """Until the page shows a later state than `seq` (our move landed)."""
    person.page.wait_for_function(
        "seq => document.querySelector('main.game').dataset.seq !== seq",
        arg=seq,
        timeout=TURN_TIMEOUT,
    )


def make_move(person: Person) -> str:
    """Make the move this person faces, by keys or clicks among what is lit; its kind."""
    page = person.page
    s = person.state()
    phase = s["phase"]
    rng = person.rng
    if phase == "bid1":
        order = page.locator("[data-move=order]")
        suit = order.get_attribute("data-suit")
        hand = page.eval_on_selector_all(".hand .card", "cs => cs.map(c => c.dataset.card)")
        strong = person.bids and sum(1 for c in hand if c[1] == suit) >= 3
        page.keyboard.press(suit if strong and order.is_enabled() else "P")
        return "order" if strong else "pass"
    if phase == "bid2":
        passing = page.locator("[data-move=pass]")
        if passing.is_enabled() and (not person.bids or rng.random() < 0.7):
            page.keyboard.press("P")
            return "pass"
        calls = page.locator("[data-move=call]:enabled")
        calls.nth(rng.randrange(calls.count())).click()
        return "call"
    if phase == "discard":
        cards = page.locator(".hand .card[data-legal=true]")
        index = cards.nth(cards.count() - 1).get_attribute("data-index")
        page.keyboard.press(str(int(index) + 1))  # picks it
        page.keyboard.press("B")  # and buries it
        return "discard"
    if phase == "play":
        lit = page.locator(".hand .card[data-legal=true]")
        assert lit.count() > 0, "it's my turn to play, so some card must be lit"
        pick = lit.nth(rng.randrange(lit.count()))
        if rng.random() < 0.5:
            pick.click()
        else:
            page.keyboard.press(str(int(pick.get_attribute("data-index")) + 1))
        return "play"
    if phase == "defend":
        page.keyboard.press("P")
        return "defend"
    if phase == "farmer":
        page.keyboard.press("K")
        return "farmer"
    if phase == "scored":
        wait_for_sheet(person)
        page.click(".sheet button[name=ready]")
        return "ready"
    raise AssertionError(f"nothing to do in phase {phase}")


def play_the_game(person: Person, first: Callable[[str], None]) -> None:
    """Every move of this person's until the game is over, calling `first(state)` the first
    time the table shows each of "bidding", "play" (two cards down) and "result-sheet"; it
    returns with the game-over sheet open."""
    page = person.page
    seen: set[str] = set()

    def show(state: str) -> None:
        if state not in seen:
            seen.add(state)
            first(state)

    moves = 0
    while (s := wait_for_my_move(person))["status"] != "over":
        phase = s["phase"]
        if phase in ("bid1", "bid2"):
            show("bidding")
        if phase == "play" and page.locator(".slot .card").count() >= 2:
            show("play")
        if phase == "scored":
            wait_for_sheet(person)
            show("result-sheet")
        make_move(person)
        moved_on(person, s["seq"])
        moves += 1
        assert moves < 600, "a game to 10 takes far fewer of my moves than this"
    wait_for_sheet(person)
    expect(page.locator(".sheet[data-sheet=over]")).to_be_visible()


def play_out_the_hand(person: Person) -> None:
    """This person makes every move the hand asks of them, until it is scored."""
    while True:
        s = wait_for_my_move(person)
        if s["phase"] == "scored":
            return
        make_move(person)
        moved_on(person, s["seq"])


def next_hand(person: Person) -> None:
    """From a scored hand: the result sheet, and "Next hand" on it."""
    wait_for_sheet(person)
    person.page.click(".sheet button[name=ready]")
    expect(person.page.locator(GAME)).not_to_have_attribute("data-phase", "scored")


def sheet_overflow(person: Person) -> list[str]:
    """What in the open result sheet reaches into the sheet's padding or past it, or the
    sheet past the screen, or its footer (sticky, so its buttons stay in reach) past the
    sheet's bottom edge, where it is cut off: nothing should need a sideways scroll, on a
    phone least of all."""
    return person.page.evaluate(
        """() => {
            const sheet = document.querySelector('.sheet');
            const box = sheet.getBoundingClientRect();
            const style = getComputedStyle(sheet);
            const left = box.left + parseFloat(style.paddingLeft);
            const right = box.right - parseFloat(style.paddingRight);
            const out = [];
            if (box.left < 0 || box.right > innerWidth || box.top < 0 || box.bottom > innerHeight)
                out.push(`the sheet: ${box.width}x${box.height} at ${box.left},${box.top}`);
            const foot = sheet.querySelector('footer').getBoundingClientRect();
            if (foot.bottom > box.bottom + 0.5)
                out.push(`the footer reaches ${foot.bottom - box.bottom}px past the sheet`);
            const sideways = sheet.scrollWidth - sheet.clientWidth;
            if (sideways > 0) out.push(`the sheet scrolls sideways by ${sideways}px`);
            for (const e of sheet.querySelectorAll('*')) {
                const r = e.getBoundingClientRect();
                if (r.width && (r.left < left - 0.5 || r.right > right + 0.5))
                    out.push(`${e.tagName.toLowerCase()} "${e.textContent.trim().slice(0, 24)}"`
                        + ` from ${Math.round(r.left)} to ${Math.round(r.right)}`);
            }
            return out;
        }"""
    )


def table_pages(waiting: str, playing: str, done: str) -> dict[str, tuple[str, str]]:
    """The lobby and a table's three pages (waiting room, game, record): each a path and the
    `data-view` it shows, for tests that visit every page."""
    return {
        "lobby": ("/#/", "lobby"),
        "waiting-room": (f"/#/t/{waiting}", "room"),
        "table": (f"/#/t/{playing}", "game"),
        "record": (f"/#/t/{done}/record", "record"),
    }
