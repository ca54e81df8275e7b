"""Ratings in the browser: the change a game made on its game-over sheet, a player's page with
their rating, its history and their record against the bots, and the leaderboard.

Games are played to the end fast: in a browser through the page's own fetch (QUICK_MOVE), or
over HTTP by registered players who take the first option the view offers; the bots move at
the kits' 0.02 pace.
"""

from __future__ import annotations

import math
import re
import time

import httpx
from browser_kit import (
    GAME,
    open_person,
    sheet_overflow,
    shot,
    sign_in_and_open,
    wait_for_sheet,
)
from playwright.sync_api import expect
from test_web_room import QUICK_MOVE
from test_web_table import PHONE

PASSWORD = "the family's own"
DESK = {"viewport": {"width": 1366, "height": 768}}
RATED_WITHIN = 20  # s: the ratings worker follows finished games well within a second


class Registered:
    """A registered player through the HTTP contract alone, playing whatever is theirs to do
    with the first option offered. Ordering up alone whenever they may makes short hands, and
    so quick games."""

    def __init__(self, base: str, name: str) -> None:
        self.http = httpx.Client(base_url=base, timeout=30)
        response = self.http.post("/api/players", json={"name": name, "password": PASSWORD})
        assert response.status_code == 201, response.text
        body = response.json()
        self.id, self.name = body["id"], body["name"]
        self.http.cookies.clear()
        self.http.headers["Authorization"] = f"Bearer {body['token']}"

    def view(self, code: str) -> dict:
        return self.http.get(f"/api/tables/{code}").json()

    def open(self, **body) -> str:
        response = self.http.post("/api/tables", json=body)
        assert response.status_code == 201, response.text
        return response.json()["code"]

    def sit(self, code: str, seat: int) -> None:
        response = self.http.post(f"/api/tables/{code}/seats/{seat}")
        assert response.status_code == 200, response.text

    def start(self, code: str) -> None:
        response = self.http.post(f"/api/tables/{code}/start")
        assert response.status_code == 200, response.text

    def move(self, code: str, ready: bool = True) -> dict:
        """Make this player's move, if they have one (between hands, only if `ready`); the
        table as they see it."""
        view = self.view(code)
        can = view["can"]
        if "play" in can or "discard" in can:
            kind = "play" if "play" in can else "discard"
            body = {"type": kind, "card": can[kind]["cards"][0]}
        elif "order" in can:
            body = {"type": "order", "alone": can["order"]["alone"]}
        elif "call" in can:
            body = {"type": "call", "suit": can["call"]["suits"][0], "alone": can["call"]["alone"]}
        elif "defend" in can:
            body = {"type": "defend", "alone": False}
        elif "farmer" in can:
            body = {"type": "farmer", "cards": []}
        elif "ready" in can and ready:
            body = {"type": "ready"}
        else:
            return view
        response = self.http.post(f"/api/tables/{code}/moves", json={**body, "seq": view["seq"]})
        if response.status_code == 429:  # faster than anyone may move: wait as told
            time.sleep(float(response.headers["Retry-After"]))
            return view
        assert response.status_code in (200, 409), response.text  # 409: a bot moved first
        return response.json() if response.status_code == 200 else view


def play_out(code: str, people: list[Registered]) -> dict:
    """Everyone at the table moves until the game is over; the last view."""
    for _ in range(5000):
        for person in people:
            view = person.move(code)
            if view["status"] == "over":
                return view
        if len(people) < 4:
            time.sleep(0.01)  # the bots' turns
    raise AssertionError(f"the game at {code} didn't end")


def rated_players(base: str, ids: list[str], games: int) -> dict[str, dict]:
    """The players' pages once the ratings worker has rated `games` games of each."""
    deadline = time.monotonic() + RATED_WITHIN
    while True:
        pages = {i: httpx.get(f"{base}/api/players/{i}").json() for i in ids}
        if all(len(p["history"]) >= games for p in pages.values()):
            return pages
        assert time.monotonic() < deadline, f"not rated within {RATED_WITHIN} s: {pages}"
        time.sleep(0.2)


def js_round(x: float) -> int:
    """As the page rounds (Math.round: halves up), where Python's round() goes to even."""
    return math.floor(x + 0.5)


def fits(page, width: int) -> None:
    wide = page.evaluate("() => document.documentElement.scrollWidth")
    assert wide <= width, f"the page is wider than the screen: {wide}px"


def sign_in(person) -> None:
    """From the lobby: the same name and password sign a registered player in."""
    page = person.page
    page.goto("/")
    page.fill("input[name=name]", person.name)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[name=sign-in]")
    expect(page.locator(".who-line")).to_contain_text(person.name)


def test_a_registered_player_sees_their_rating_change_on_the_game_over_sheet(
    browser, server, shots
):
    ada = open_person(browser, server, "Ada", **DESK)
    page = ada.page
    page.goto("/")
    page.fill("input[name=name]", "Ada")
    page.fill("input[name=password]", PASSWORD)
    page.locator("input[name=bot-level][value=easy]").check(force=True)
    page.click("button[name=open]")
    expect(page.locator("#app")).to_have_attribute("data-view", "room")
    # Registered: the bar leads to her record as well as to the leaderboard.
    expect(page.locator(".bar-links a")).to_have_text(["Rules", "Leaderboard", "My record"])
    code = page.locator(".table-code strong").inner_text()
    page.click("button[name=start]")
    expect(page.locator(GAME)).to_have_attribute("data-status", "playing")

    for _ in range(5000):
        if page.evaluate(QUICK_MOVE, code) == "over":
            break
    wait_for_sheet(ada)
    line = page.locator(".sheet .rating-line")
    expect(line).to_have_attribute("aria-live", "polite")
    expect(line).to_have_attribute("data-rating", "rated", timeout=RATED_WITHIN * 1000)
    text = line.inner_text()
    shot(ada, shots, "01-game-over")

    # A new player starts at 450 shown; the line says where she went, by how much, and which
    # way: up for a win, down for a loss, and why a first rating moves so far.
    match = re.fullmatch(r"Rating 450 → (\d+) \(([+−])(\d+)\)\n(.+)", text)
    assert match, text
    assert match[4].startswith("New ratings are provisional: they start low"), text
    after, sign, by = int(match[1]), match[2], int(match[3])
    assert after - 450 == (by if sign == "+" else -by)
    view = httpx.get(f"{server}/api/tables/{code}").json()
    won = view["winner"] == 0
    assert sign == ("+" if won else "−"), (text, view["score"])
    me = next(s for s in view["ratings"]["seats"] if s["seat"] == 0)
    assert me["status"] == "rated" and me["after"]["display"] == after

    # From the sheet to her record, which has the game.
    page.click(".sheet .rating-links a:text('My record')")
    expect(page.locator("#app")).to_have_attribute("data-view", "profile")
    expect(page.locator(".rating-figure")).to_have_text(str(after))
    expect(page.locator(".recent-table tbody tr")).to_have_count(1)
    expect(page.locator(f".recent-table tr[data-code='{code}']")).to_contain_text(
        "Won" if won else "Lost"
    )
    ada.assert_no_errors()


def test_a_guest_on_a_phone_is_told_why_the_game_was_not_rated(browser, server, shots):
    gus = open_person(browser, server, "Gus", **PHONE)
    page = gus.page
    code = sign_in_and_open(gus)
    # A guest's bar leads to the leaderboard only: there is no record to keep.
    page.goto("/")
    expect(page.locator(".bar-links a")).to_have_text(["Rules", "Leaderboard"])
    page.goto(f"/#/t/{code}")
    page.click("button[name=start]")
    expect(page.locator(GAME)).to_have_attribute("data-status", "playing")
    for _ in range(5000):
        if page.evaluate(QUICK_MOVE, code) == "over":
            break
    wait_for_sheet(gus)
    line = page.locator(".sheet .rating-line")
    expect(line).to_have_attribute("data-rating", "unrated", timeout=RATED_WITHIN * 1000)
    expect(line).to_have_text("Not rated: no registered player")
    expect(page.locator(".sheet .rating-links a")).to_have_text(["Leaderboard"])
    assert httpx.get(f"{server}/api/tables/{code}").json()["ratings"]["status"] == "unrated"
    fits(page, 390)
    shot(gus, shots, "01-game-over-phone")
    # Every hand of the game, opened, fits the phone too.
    page.click(".sheet .all-hands summary")
    assert not sheet_overflow(gus)
    for how in page.locator(".sheet table.hands .how").all_inner_texts():
        assert re.fullmatch(r"(?i)march|euchred by (us|them)", how), how
    page.locator(".sheet .all-hands").scroll_into_view_if_needed()
    shot(gus, shots, "02-every-hand-phone")
    gus.assert_no_errors()


def test_a_players_page_shows_their_rating_its_history_and_their_record_against_the_bots(
    browser, server, shots
):
    bo = Registered(server, "Bo")
    codes = []
    for _ in range(2):
        code = bo.open(bots="easy")
        bo.start(code)
        play_out(code, [bo])
        codes.append(code)
    page_data = rated_players(server, [bo.id], games=2)[bo.id]

    person = open_person(browser, server, "Bo", **DESK)
    sign_in(person)
    page = person.page
    page.click(".bar-links a:text('My record')")
    expect(page.locator("#app")).to_have_attribute("data-view", "profile")
    expect(page.locator(".profile h1")).to_contain_text("Bo")

    rating = page_data["rating"]
    expect(page.locator(".rating-figure")).to_have_text(str(rating["display"]))
    expect(page.locator(".rating-spread b")).to_have_text(
        f"{js_round(rating['mu'])} ± {js_round(rating['sigma'])}"
    )

    # The chart: one point a rated game, in order, and the same story in words.
    history = [p["display"] for p in page_data["history"]]
    points = page.locator(".chart polyline").get_attribute("points").split()
    assert len(points) == len(history) == 2
    ys = [float(p.split(",")[1]) for p in points]
    if history[0] != history[1]:
        assert (ys[1] < ys[0]) == (history[1] > history[0]), "higher ratings are drawn higher"
    expect(page.locator(".chart figcaption")).to_have_text(
        f"Rating over the last 2 games: from {history[0]} to {history[1]}"
    )

    # Both games were against two easy bots: one row, easy, as the server counts it.
    record = page_data["records"]["easy"]
    assert record["won"] + record["lost"] == 2
    expect(page.locator(".records-table tbody tr")).to_have_count(1)
    cells = page.locator(".records-table tr[data-level=easy] td")
    expect(cells).to_have_text(
        [str(record[k]) for k in ("won", "lost", "alone", "euchres", "marches")]
    )
    expect(page.locator(".records-table tr[data-level=easy] th")).to_have_text("Easy")
    expect(page.locator(".records")).to_contain_text(
        "W / L = matches won / lost · A = went alone successfully · E = euchres dealt"
        " · M = marches scored"
    )
    expect(page.locator(".stats [data-stat=games] dd")).to_have_text("2")

    # Recent games, newest first, each with its log.
    rows = page.locator(".recent-table tbody tr")
    expect(rows).to_have_count(2)
    assert [rows.nth(n).get_attribute("data-code") for n in range(2)] == codes[::-1]
    log = rows.first.locator("a:text('Log')").get_attribute("href")
    assert log == f"/api/tables/{codes[1]}/log"
    assert httpx.get(f"{server}{log}").status_code == 200
    shot(person, shots, "01-profile")

    # The same page on a phone.
    phone = open_person(browser, server, "Bo", **PHONE)
    phone.page.goto(f"/#/players/{bo.id}")
    expect(phone.page.locator("#app")).to_have_attribute("data-view", "profile")
    fits(phone.page, 390)
    shot(phone, shots, "02-profile-phone")
    person.assert_no_errors()
    phone.assert_no_errors()


def test_the_leaderboard_lists_players_with_five_rated_games_best_first(browser, server, shots):
    ada, bo, cy, di, ed = (Registered(server, n) for n in ("Ada", "Bo", "Cy", "Di", "Ed"))
    # Four people, no bots, partners changing: Ada, Bo and Cy play five games, Di four, Ed one.
    tables = [
        [ada, bo, cy, di],
        [ada, cy, di, bo],
        [ada, di, bo, cy],
        [ada, bo, di, cy],
        [ada, cy, bo, ed],
    ]
    for seats in tables:
        code = seats[0].open()
        for n, person in enumerate(seats[1:], start=1):
            person.sit(code, n)
        seats[0].start(code)
        play_out(code, seats)
    # Ada, Bo and Cy reach five with the last game: once it is rated, every game is.
    deadline = time.monotonic() + RATED_WITHIN
    while len(board := httpx.get(f"{server}/api/leaderboard").json()["players"]) < 3:
        assert time.monotonic() < deadline, board
        time.sleep(0.2)
    assert {p["name"] for p in board} == {"Ada", "Bo", "Cy"}, "Di and Ed have under five"
    displays = [p["rating"]["display"] for p in board]
    assert displays == sorted(displays, reverse=True)

    person = open_person(browser, server, "Cy", **DESK)
    sign_in(person)
    page = person.page
    page.click(".bar-links a:text('Leaderboard')")
    expect(page.locator("#app")).to_have_attribute("data-view", "leaderboard")
    rows = page.locator(".ranks tbody tr")
    expect(rows).to_have_count(3)
    for n, p in enumerate(board):
        expect(rows.nth(n).locator("td")).to_have_text(
            [str(n + 1), re.compile(f"^{p['name']}"), str(p["rating"]["display"]), "5"]
        )
    # The viewer's own row stands out, in words too; there is no page after this one.
    expect(page.locator(".ranks tr.me")).to_contain_text("Cy (you)")
    expect(page.locator("button[name=more]")).to_be_hidden()
    shot(person, shots, "01-leaderboard")

    # A name leads to the player's page.
    rows.first.locator("a").click()
    expect(page.locator("#app")).to_have_attribute("data-view", "profile")
    expect(page.locator(".profile h1")).to_contain_text(board[0]["name"])

    phone = open_person(browser, server, "Cy", **PHONE)
    phone.page.goto("/#/leaderboard")
    expect(phone.page.locator(".ranks tbody tr")).to_have_count(3)
    fits(phone.page, 390)
    shot(phone, shots, "02-leaderboard-phone")
    person.assert_no_errors()
    phone.assert_no_errors()
