"""Every page of the web app passes axe-core with nothing serious or critical, in the light
theme and the dark, on a phone's 320 px and a laptop's 1366 px: the lobby (signing in, with
an error said, and signed in with a table waiting in its list), a table's waiting room with
its Options menu and its chat open, bidding, play, the result sheet with its review, game
over, the finished game's record (its replay at the bidding and at a trick, each hand's
review), a game watched, the record of a game not over yet, the player's page, the
leaderboard, the rules and the page for a table nobody opened.

One server and one browser page visit them all once: at each page the page is checked in the
four looks (the theme is the system's, so the looks are switched by the colour scheme the
browser reports, and the width by the window's), and each look of each page is a test of its
own that says what axe found there.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from a11y_kit import AXE_CONTEXT, axe_violations, describe
from browser_kit import Person, open_person, play_the_game, settle
from playwright.sync_api import Page, expect
from serve_kit import ROOT, own_redis, serving
from test_web_ratings import PASSWORD, Registered, rated_players
from test_web_review import reviews
from test_web_table import start_with_bots

THEMES = ("light", "dark")
WIDTHS = (320, 1366)
STATES = (
    "sign-in",
    "lobby",
    "waiting-room",
    "options",
    "chat",
    "bidding",
    "play",
    "result-sheet",
    "game-over",
    "record",
    "replay",
    "watching",
    "record-pending",
    "profile",
    "leaderboard",
    "rules",
    "no-table",
)
SERIOUS = ("serious", "critical")

Found = dict[tuple[str, str, int], list[dict]]


@pytest.fixture(scope="module")
def served(
    module_database_url: str, redis_url: str, tmp_path_factory
) -> Iterator[tuple[str, Path]]:
    """One server for the module (the pages are visited once, by one player), and its log,
    which has a line for each request it answered."""
    folder = tmp_path_factory.mktemp("a11y")
    info = {"EUCHRE_LOG_LEVEL": "info"}
    with serving(module_database_url, own_redis(redis_url), folder, settings=info) as base:
        yield base, folder / "serve.log"


class Tour:
    """One player's page, checked with axe in each look at each page it visits."""

    def __init__(self, person: Person, folder: Path, log: Path) -> None:
        self.person = person
        self.page = person.page
        self.folder = folder
        self.log = log
        self.found: Found = {}

    def check(self, state: str, ready: Callable[[], None] | None = None) -> None:
        """Axe on the page as it is, in every theme and width; `ready` (if given) readies the
        page at each width (a menu that folds away on a phone is opened there)."""
        page = self.page
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": 768})
            if ready:
                ready()
            for theme in THEMES:
                page.emulate_media(color_scheme=theme)
                expect(page.locator("html")).to_have_attribute("data-theme", theme)
                settle(self.person)
                n = STATES.index(state) + 1
                page.screenshot(path=str(self.folder / f"{n:02}-{state}-{theme}-{width}.png"))
                self.found[(state, theme, width)] = axe_violations(page)

    def visit(self, path: str, view: str) -> None:
        """Go to `path` and wait for its page; one that never comes says what the server
        answered meanwhile and what the page logged, so a page left waiting shows whether its
        requests ever arrived and whether it failed to draw what they brought."""
        before = len(self.log.read_text().splitlines())
        self.page.goto(path)
        try:
            expect(self.page.locator("#app")).to_have_attribute("data-view", view)
        except AssertionError as e:
            answered = [
                line
                for line in self.log.read_text().splitlines()[before:]
                if "euchre.access" in line
            ]
            raise AssertionError(
                f"{e}\nThe server answered meanwhile:\n"
                + "\n".join(answered)
                + f"\nThe page's errors: {self.person.errors}"
            ) from None


def open_options(page: Page) -> None:
    """The table's Options menu, open (from under "⋯" on a phone)."""
    if page.locator(".options-menu[open]").count():
        return
    fold = page.locator(".bar-fold")
    if fold.is_visible() and fold.get_attribute("aria-expanded") != "true":
        fold.click()
    page.click(".options-menu summary")
    expect(page.locator("input[name=option-theme][value=system]")).to_be_visible()


@pytest.fixture(scope="module")
def found(browser, served: tuple[str, Path]) -> Found:
    """What axe found on every page in every look, from one visit to each."""
    folder = ROOT / "artifacts" / "e2e" / "test_web_a11y"
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.png"):
        old.unlink()
    server, log = served
    bo = Registered(server, "Bo")
    bos = bo.open(bots="hard")  # waiting in the lobby's list
    ada = open_person(browser, server, "Ada", **AXE_CONTEXT)
    tour = Tour(ada, folder, log)
    page = ada.page

    tour.visit("/", "lobby")
    # The lobby's list follows the log about a second behind, and the page asks every 5 s.
    expect(page.locator(".waiting[data-code]")).to_have_count(1, timeout=15_000)
    page.fill("input[name=name]", bo.name)
    page.fill("input[name=password]", f"not {PASSWORD}")
    page.click("button[name=sign-in]")
    expect(page.locator(".lobby-status")).to_have_attribute("data-tone", "error")
    tour.check("sign-in")
    page.fill("input[name=name]", ada.name)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[name=sign-in]")
    expect(page.locator(".who-line")).to_contain_text("Rated")
    ada.errors.clear()  # the refused password's 409, and the 401 of Ada's name, new to the server
    tour.check("lobby")

    page.click("button[name=open]")
    expect(page.locator("#app")).to_have_attribute("data-view", "room")
    expect(page.locator(".seat-card[data-state=me]")).to_have_count(1)
    tour.check("waiting-room")
    tour.check("options", lambda: open_options(page))
    page.click(".options-menu summary")  # closed again
    page.click(".talk-toggle")
    page.fill(".talk-input", "Good luck, all")
    page.keyboard.press("Enter")
    expect(page.locator(".talk-line")).not_to_have_count(0)
    tour.check("chat")
    page.click(".talk-close")

    start_with_bots(ada)
    play_the_game(ada, tour.check)
    tour.check("game-over")

    code = page.locator(".table-code strong").inner_text()
    hands = len(page.request.get(f"/api/tables/{code}").json()["hands"])
    reviews(server, code, hands)
    tour.visit(f"/#/t/{code}/record", "record")
    reviewed = page.locator(".deal-review .review-lines, .deal-review .review-none")
    expect(reviewed).not_to_have_count(0)
    tour.check("record")
    page.click(".replay button[name=trick-on]")
    expect(page.locator(".replay")).to_have_attribute("data-trick", "1")
    tour.check("replay")

    bo.start(bos)  # and waiting for Bo's first move, for as long as the turn limit lets it
    tour.visit(f"/#/t/{bos}", "game")
    tour.check("watching")
    tour.visit(f"/#/t/{bos}/record", "record-pending")
    tour.check("record-pending")

    me = page.locator(".bar-links a", has_text="My record").get_attribute("href") or ""
    rated_players(server, [me.rsplit("/", 1)[-1]], 1)
    tour.visit(f"/{me}", "profile")
    tour.check("profile")
    tour.visit("/#/leaderboard", "leaderboard")
    tour.check("leaderboard")
    tour.visit("/#/rules", "rules")
    tour.check("rules")
    ada.assert_no_errors()
    tour.visit("/#/t/NOSUCH", "missing")
    tour.check("no-table")
    return tour.found


@pytest.mark.parametrize(
    ("state", "theme", "width"),
    list(itertools.product(STATES, THEMES, WIDTHS)),
    ids=str,
)
def test_axe_finds_nothing_serious_or_critical(found: Found, state, theme, width):
    violations = found.get((state, theme, width))
    assert violations is not None, f"the visit never reached {state}"
    serious = [v for v in violations if v["impact"] in SERIOUS]
    milder = {
        impact: sum(len(v["nodes"]) for v in violations if v["impact"] == impact)
        for impact in ("moderate", "minor")
    }
    if serious:
        pytest.fail(
            f"axe on {state}, {theme}, {width}px:\n{describe(serious)}\n"
            f"(and {milder['moderate']} moderate, {milder['minor']} minor)",
            pytrace=False,
        )
