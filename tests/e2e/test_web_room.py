"""The room in browsers: the host chooses a partner, locks the room and bans, and chooses the
points that win; a person who closes the tab mid-hand is covered by a bot and plays again when
they come back."""

from __future__ import annotations

import hashlib
import json
import time

import httpx
from browser_kit import GAME, make_move, open_person, shot, sign_in_and_open
from playwright.sync_api import expect

from domain.house_rules import DECLARED

DESK = {"viewport": {"width": 1100, "height": 760}}


def host_and_guest(browser, server, seat: int):
    """Ada opens a table; Bo follows her link and sits in `seat`. Both, and the link."""
    ada = open_person(browser, server, "Ada", **DESK)
    bo = open_person(browser, server, "Bo", **DESK)
    sign_in_and_open(ada)
    link = ada.page.locator(".share-link").input_value()
    bo.page.goto(link)
    bo.page.fill("input[name=name]", "Bo")
    bo.page.click(f".seat-card[data-seat='{seat}'] [data-action=sit]")
    expect(ada.page.locator(f".seat-card[data-seat='{seat}'] .occupant")).to_have_text("Bo")
    return ada, bo, link


def play_if_mine(person) -> None:
    """A person at the table between looks at something else: they play when it's their turn."""
    state = person.state()
    if state.get("turn") == "me" and state.get("pending") == "no":
        make_move(person)
    person.page.wait_for_timeout(150)


def test_the_host_chooses_a_partner_locks_the_room_and_bans(browser, server, shots):
    ada, bo, link = host_and_guest(browser, server, seat=1)

    # "As partners": Bo moves across from Ada, on both pages.
    ada.page.click(".seat-card[data-seat='1'] [data-action=partner]")
    expect(ada.page.locator(".seat-card[data-seat='2'] .relation")).to_have_text("Your partner")
    expect(ada.page.locator(".seat-card[data-seat='2'] .occupant")).to_have_text("Bo")
    expect(bo.page.locator(".seat-card[data-seat='2']")).to_have_attribute("data-state", "me")

    # Locked: a third person is told they may only watch, and offered no name box or seat.
    ada.page.click("button[name=lock]")
    expect(ada.page.locator("button[name=lock]")).to_have_text("Unlock the room")
    cy = open_person(browser, server, "Cy", **DESK)
    cy.page.goto(link)
    expect(cy.page.locator(".room-status")).to_contain_text("locked")
    expect(cy.page.locator(".room-status")).to_contain_text("You can watch the game")
    expect(cy.page.locator("input[name=name]")).to_be_hidden()
    expect(cy.page.get_by_text("Pick a name to sit down")).to_have_count(0)
    expect(cy.page.locator("[data-action=sit]")).to_have_count(0)
    expect(cy.page.locator(".seat-card[data-seat='1']")).to_have_attribute("data-state", "empty")

    # Banned: Bo's seat goes to a bot and his page says why.
    ada.page.on("dialog", lambda dialog: dialog.accept())
    ada.page.click(".seat-card[data-seat='2'] [data-action=ban]")
    expect(ada.page.locator(".seat-card[data-seat='2']")).to_have_attribute("data-state", "bot")
    expect(bo.page.locator("main.missing h1")).to_have_text("You’ve been banned from this room.")
    bo.page.reload()
    expect(bo.page.locator("main.missing")).to_contain_text("banned")
    ada.assert_no_errors()  # Cy's page logs the refused sit as a failed request


def test_a_tab_closed_mid_hand_is_covered_and_its_person_plays_on_coming_back(browser, server):
    ada, bo, link = host_and_guest(browser, server, seat=2)
    ada.page.click("button[name=start]")
    expect(bo.page.locator("#app")).to_have_attribute("data-view", "game")

    context = bo.page.context
    bo.page.close()  # the tab, mid-hand
    away = ada.page.locator(".plate[data-seat='2'] .tag.away")
    # Ada keeps playing; within the grace (20 s), a sweep (5 s) and a bot's think, Bo's plate
    # says a bot covers him, and the game goes on without him.
    for _ in range(400):
        if away.count():
            break
        play_if_mine(ada)
    expect(away).to_have_text("Away", timeout=1000)
    covered = int(ada.state()["seq"])
    for _ in range(400):  # the game goes on: the bot plays Bo's turns
        if int(ada.state()["seq"]) > covered + 4:
            break
        play_if_mine(ada)
    assert int(ada.state()["seq"]) > covered + 4

    # Bo opens the table again: his seat is his, and he makes his next decision himself.
    page = context.new_page()
    bo.page = page
    page.goto(link)
    expect(page.locator(GAME)).to_have_attribute("data-you", "2")
    expect(ada.page.locator(".plate[data-seat='2'] .tag.away")).to_have_count(0)
    for _ in range(400):
        state = bo.state()
        if state.get("turn") == "me" and state.get("pending") == "no":
            break
        play_if_mine(ada)
    before = bo.state()["seq"]
    make_move(bo)
    page.wait_for_function(
        "seq => document.querySelector('main.game').dataset.seq !== seq", arg=before
    )


# A quick decision for a person, made through their page's own fetch (their cookie, their
# origin): the first option the view offers. It plays a game out in seconds.
QUICK_MOVE = """async (code) => {
  const v = await (await fetch(`/api/tables/${code}`)).json();
  const can = v.can || {};
  let body = null;
  if (can.play) body = { type: 'play', card: can.play.cards[0] };
  else if (can.discard) body = { type: 'discard', card: can.discard.cards[0] };
  else if (can.pass) body = { type: 'pass' };
  else if (can.call) body = { type: 'call', suit: can.call.suits[0], alone: false };
  else if (can.order) body = { type: 'order', alone: !!can.order.must_alone };
  else if (can.farmer) body = { type: 'farmer', cards: [] };
  else if (can.defend) body = { type: 'defend', alone: false };
  else if (can.ready) body = { type: 'ready' };
  if (body) {
    await fetch(`/api/tables/${code}/moves`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(body),
    });
  }
  return v.status;
}"""


def test_play_again_seats_everyone_again(browser, server):
    ada, bo, _ = host_and_guest(browser, server, seat=2)
    code = ada.page.locator(".table-code strong").inner_text()
    ada.page.click("button[name=start]")
    expect(bo.page.locator("#app")).to_have_attribute("data-view", "game")
    for _ in range(3000):
        statuses = {person.page.evaluate(QUICK_MOVE, code) for person in (ada, bo)}
        if statuses == {"over"}:
            break
    assert statuses == {"over"}

    # The host plays again; Bo is invited and takes his seat at the new table.
    ada.page.locator(".sheet button[name=again]").click()
    expect(ada.page.locator("#app")).to_have_attribute("data-view", "room")
    fresh = ada.page.locator(".table-code strong").inner_text()
    assert fresh != code
    bo.page.locator(".sheet button[name=join-again]").click()
    expect(bo.page.locator("#app")).to_have_attribute("data-view", "room")
    expect(bo.page.locator(".seat-card[data-seat='2']")).to_have_attribute("data-state", "me")
    expect(ada.page.locator(".seat-card[data-seat='2'] .occupant")).to_have_text("Bo")
    ada.assert_no_errors()
    bo.assert_no_errors()


def test_the_host_chooses_the_points_to_win_and_the_table_plays_to_them(browser, server, shots):
    """docs/euchre.md "Winning": picked in the lobby, listed there, changed in the room, shown
    to the guest and on the table's score panel; the game ends when a side first reaches it."""
    ada = open_person(browser, server, "Ada", **DESK)
    bo = open_person(browser, server, "Bo", **DESK)
    code = sign_in_and_open(ada, points=7)
    room = ada.page
    expect(room.locator("input[data-rule=points][value='7']")).to_be_checked()
    bo.page.goto("/")  # the lobby lists the table with its target (it looks every 5 s)
    listed = bo.page.locator(f".waiting[data-code='{code}'] .chips")
    expect(listed).to_contain_text("First to 7", timeout=15_000)
    bo.page.goto(room.locator(".share-link").input_value())
    expect(bo.page.locator(".rule-row[data-rule=points] .rule-value")).to_have_text("7")
    bo.page.fill("input[name=name]", "Bo")
    bo.page.click(".seat-card[data-seat='2'] [data-action=sit]")
    expect(room.locator(".seat-card[data-seat='2'] .occupant")).to_have_text("Bo")

    room.locator("input[data-rule=points][value='5']").check(force=True)
    expect(bo.page.locator(".rule-row[data-rule=points]")).to_have_attribute("data-value", "5")
    expect(bo.page.locator(".rule-row[data-rule=points] .rule-value")).to_have_text("5")
    shot(ada, shots, "01-room-host")
    shot(bo, shots, "02-room-guest")
    room.click("button[name=start]")
    for person in (ada, bo):
        expect(person.page.locator("#app")).to_have_attribute("data-view", "game")
        expect(person.page.locator(".rail .scores .label")).to_contain_text("first to 5")
    shot(bo, shots, "03-table")

    for _ in range(3000):
        statuses = {person.page.evaluate(QUICK_MOVE, code) for person in (ada, bo)}
        if statuses == {"over"}:
            break
    assert statuses == {"over"}
    final = httpx.get(f"{server}/api/tables/{code}").json()
    score, winner, last = final["score"], final["winner"], final["hands"][-1]
    assert score[winner] >= 5 > score[1 - winner] and last["team"] == winner, score
    assert score[winner] - last["points"] < 5, "the game ended on the hand that reached 5"
    assert all(max(h["score"]) < 5 for h in final["hands"][:-1])
    ada.assert_no_errors()
    bo.assert_no_errors()


def test_a_registered_hosts_last_points_to_win_are_where_their_next_table_starts(browser, server):
    grace = open_person(browser, server, "Grace", **DESK)
    page = grace.page
    page.goto("/")
    page.fill("input[name=name]", "Grace")
    page.fill("input[name=password]", "grace's own 1906")
    page.locator("input[data-rule=points][value='11']").check(force=True)
    page.click("button[name=open]")
    # Registering hashes the password first: slower than a guest's name.
    expect(page.locator("#app")).to_have_attribute("data-view", "room", timeout=30_000)
    expect(page.locator(".rule-row[data-rule=points]")).to_have_attribute("data-value", "11")
    page.goto("/")
    expect(page.locator("input[data-rule=points][value='11']")).to_be_checked()
    expect(page.locator("input[data-rule=points][value='10']")).not_to_be_checked()
    grace.assert_no_errors()


def test_the_host_bans_during_the_game_from_the_host_menu(browser, server):
    ada, bo, _ = host_and_guest(browser, server, seat=2)
    ada.page.click("button[name=start]")
    expect(bo.page.locator("#app")).to_have_attribute("data-view", "game")
    ada.page.on("dialog", lambda dialog: dialog.accept())
    ada.page.click(".host-menu summary")
    ada.page.click(".host-menu [name=menu-lock]")
    expect(ada.page.locator(".host-menu [name=menu-lock]")).to_have_text("Unlock the room")
    ada.page.click(".host-menu [data-ban='2']")
    expect(ada.page.locator(".plate[data-seat='2'] .tag.away")).to_have_text("Left")
    expect(bo.page.locator("main.missing h1")).to_have_text("You’ve been banned from this room.")
    expect(bo.page.locator(".host-menu")).to_be_hidden()
    ada.assert_no_errors()


def served_log(server: str, code: str, until: str) -> list[dict]:
    """The table's public log, once it holds an event of type `until` (10 s at most)."""
    for _ in range(100):
        text = httpx.get(f"{server}/api/tables/{code}/log").text
        log = [json.loads(line) for line in text.splitlines()]
        if any(e["type"] == until for e in log):
            return log
        time.sleep(0.1)
    raise AssertionError(f"no {until} in table {code}'s log")


def test_seeds_stay_in_each_browser_until_the_start_and_one_withheld_is_left_out(browser, server):
    """docs/audit.md "The seed": the host and a guest in browsers and a program over the API
    each commit to a seed of their own. Nothing the browsers send before the start carries a
    seed, only its SHA-256; at the start they reveal theirs by themselves, the program
    withholds its own, and the log says so and deals without it."""
    sent: list[tuple[str, str]] = []
    ada = open_person(browser, server, "Ada", **DESK)
    bo = open_person(browser, server, "Bo", **DESK)
    for person in (ada, bo):
        person.page.on("request", lambda r: sent.append((r.url, r.post_data or "")))
    code = sign_in_and_open(ada)
    bo.page.goto(ada.page.locator(".share-link").input_value())
    bo.page.fill("input[name=name]", "Bo")
    bo.page.click(".seat-card[data-seat='1'] [data-action=sit]")
    expect(ada.page.locator(".seat-card[data-seat='1'] .occupant")).to_have_text("Bo")
    for person, seat in ((ada, 0), (bo, 1)):
        label = person.page.locator(f".seat-card[data-seat='{seat}'] .seed")
        expect(label.locator("summary")).to_have_text("Your share of the shuffle is sealed")
    own = "c7" * 32
    with httpx.Client(base_url=server) as cy:
        token = cy.post("/api/players", json={"name": "Cy"}).json()["token"]
        cy.headers["Authorization"] = f"Bearer {token}"
        pledge = hashlib.sha256(bytes.fromhex(own)).hexdigest()
        cy.post(f"/api/tables/{code}/seats/2", json={"commitment": pledge}).raise_for_status()
        before_start = len(sent)
        ada.page.click("button[name=start]")
        expect(bo.page.locator("#app")).to_have_attribute("data-view", "game")
        cy.post(f"/api/tables/{code}/moves", json={"type": "withhold"}).raise_for_status()
    log = served_log(server, code, until="GameStarted")
    (called,) = [e for e in log if e["type"] == "StartCalled"]
    assert called["asked"] == [0, 1, 2]
    revealed = {e["seat"]: e["seed"] for e in log if e["type"] == "SeedRevealed"}
    assert sorted(revealed) == [0, 1] and len(set(revealed.values())) == 2
    assert [e["seat"] for e in log if e["type"] == "SeedWithheld"] == [2]
    committed = {e["seat"]: e.get("commitment") for e in log if e["type"] == "SeatTaken"}
    # The pages' requests reach `sent` only while a Playwright call runs: the reveals may have
    # gone out after the last one (a page shows the game once the start is called).
    for _ in range(100):
        if all(any(seed in body for _, body in sent) for seed in revealed.values()):
            break
        ada.page.wait_for_timeout(100)
    for seat, seed in revealed.items():
        assert committed[seat] == hashlib.sha256(bytes.fromhex(seed)).hexdigest()
        carrying = [n for n, (_, body) in enumerate(sent) if seed in body]
        assert carrying and min(carrying) >= before_start, "a seed left its browser early"
        assert all(json.loads(sent[n][1])["type"] == "reveal" for n in carrying)
    (started,) = [e for e in log if e["type"] == "GameStarted"]
    assert started["contributions"] == [revealed[0], revealed[1], None, None]
    assert all(seed not in body for _, body in sent for seed in [own])
    ada.assert_no_errors()
    bo.assert_no_errors()


def test_the_lobby_offers_the_expert_and_a_table_opened_with_it_seats_experts(browser, server):
    ada = open_person(browser, server, "Ada", **DESK)
    page = ada.page
    page.goto("/")
    page.fill("input[name=name]", "Ada")
    expert = page.locator("input[name=bot-level][value=expert]")
    expect(expert.locator("xpath=..")).to_contain_text("Expert")
    expert.check(force=True)
    page.click("button[name=open]")
    expect(page.locator("#app")).to_have_attribute("data-view", "room")
    code = page.locator(".table-code strong").inner_text()
    assert httpx.get(f"{server}/api/tables/{code}").json()["bots"] == "expert"
    page.click("button[name=start]")
    expect(page.locator(GAME)).to_have_attribute("data-status", "playing")
    seats = httpx.get(f"{server}/api/tables/{code}").json()["seats"]
    assert [s["bot"] for s in seats[1:]] == ["expert"] * 3


def test_the_hosts_start_is_in_view_and_outshines_moving_seats(browser, server, shots):
    """At 1366x768 the waiting room shows Start without a scroll, and the open seats' "Move
    here" is a plain button beside it, not three green ones."""
    ada = open_person(browser, server, "Ada", viewport={"width": 1366, "height": 768})
    sign_in_and_open(ada)
    page = ada.page
    start = page.locator("button[name=start]")
    expect(start).to_be_visible()
    box = start.bounding_box()
    assert box is not None and box["y"] + box["height"] <= 768, box
    moves = page.locator("[data-action=sit]")
    expect(moves).to_have_count(3)
    for n in range(3):
        assert "primary" not in (moves.nth(n).get_attribute("class") or "")
    assert "primary" in (start.get_attribute("class") or "")
    shot(ada, shots, "waiting-room")
    ada.assert_no_errors()


def test_the_lobby_offers_the_house_rules_the_domain_declares(browser, server):
    """The lobby's rows are domain/house_rules.py's declaration: every rule in its order, each
    value it may take, its default chosen, its words (French too, through the catalogue)."""
    for language, name in (("en-US", "Stick the dealer"), ("fr-FR", "Le donneur est collé")):
        lin = open_person(browser, server, "Lin", locale=language, **DESK)
        page = lin.page
        page.goto("/")
        rows = page.locator(".open .rule-row[data-rule]:not([data-rule=bots])")
        expect(rows).to_have_count(len(DECLARED))
        assert rows.evaluate_all("rs => rs.map(r => r.dataset.rule)") == [r.key for r in DECLARED]
        for rule in DECLARED:
            offered = page.locator(f"input[data-rule={rule.key}]")
            assert offered.evaluate_all("is => is.map(i => i.value)") == [
                str(v) for v in rule.allowed
            ]
            expect(page.locator(f"input[data-rule={rule.key}]:checked")).to_have_value(
                str(rule.default)
            )
        expect(rows.first.locator("strong")).to_have_text(name)
        lin.assert_no_errors()
        page.context.close()
