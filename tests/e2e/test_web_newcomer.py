"""What a new player meets first, in the browser: "Play bots now" needs nothing typed and has
its level beside it, and the page speaks to players (a taken name, their share of the
shuffle, the record's sides and its check, a first rating), leaving the auditors' details
folded away."""

from __future__ import annotations

import httpx
from browser_kit import open_person, shot, sign_in_and_open
from playwright.sync_api import expect
from test_web_ratings import Registered, play_out, rated_players, sign_in

DESK = {"viewport": {"width": 1366, "height": 768}}
NARROW = {"viewport": {"width": 320, "height": 640}, "is_mobile": True, "has_touch": True}
LONG = "Maximiliana Featherwing1"  # the 24 characters a name may have
DEVELOPERS = ("POST /api", "seed", "Team 0", "Team 1", "seat 0", "chain unbroken", "worker")


def seen(page) -> str:
    """The words a person sees on the page: what is drawn, not what is folded away."""
    return page.evaluate("() => document.body.innerText")


def test_play_bots_now_needs_no_name_and_has_its_level_beside_it(browser, server, shots):
    for size, label in ((DESK, "desk"), (NARROW, "phone")):
        newcomer = open_person(browser, server, "Newcomer", **size)
        page = newcomer.page
        page.goto("/")
        expect(page.locator("#app")).to_have_attribute("data-view", "lobby")
        button = page.locator("button[name=play-bots]").bounding_box()
        hard = page.locator(".play-now input[name=play-level][value=hard]")
        picker = page.locator(".play-now .seg").bounding_box()
        name_box = page.locator("input[name=name]").bounding_box()
        assert button and picker and name_box
        # Beside the button on a laptop (the same row), right under it on a narrow phone, and
        # either way above the name box, not further down the page.
        if label == "desk":
            assert (
                abs((picker["y"] + picker["height"] / 2) - (button["y"] + button["height"] / 2)) < 4
            ), (picker, button)
            assert 0 <= picker["x"] - (button["x"] + button["width"]) < 120, (picker, button)
        else:
            assert 0 <= picker["y"] - (button["y"] + button["height"]) < 60, (picker, button)
        assert picker["y"] + picker["height"] < name_box["y"], (picker, name_box)
        shot(newcomer, shots, f"lobby-{label}", still=False)

        # Nothing typed: the level chosen there, and one click to a dealt game.
        hard.check(force=True)
        expect(page.locator("input[name=bot-level][value=hard]")).to_be_checked()
        page.click("button[name=play-bots]")
        expect(page.locator("#app")).to_have_attribute("data-view", "game")
        expect(page.locator("main.game")).to_have_attribute("data-status", "playing")
        assert "Type a name first" not in seen(page)
        code = page.url.rsplit("/", 1)[-1]
        seats = httpx.get(f"{server}/api/tables/{code}").json()["seats"]
        assert seats[0]["name"].startswith("Guest "), seats[0]
        assert [s["bot"] for s in seats[1:]] == ["hard"] * 3
        shot(newcomer, shots, f"game-{label}", still=False)
        newcomer.assert_no_errors()


def test_the_page_speaks_to_players_and_folds_the_auditors_details_away(browser, server, shots):
    bo = Registered(server, LONG)
    done = bo.open(bots="easy")
    bo.start(done)
    play_out(done, [bo])

    # A guest who picks a registered name is told what to do, in words.
    guest = open_person(browser, server, "Guest", **DESK)
    page = guest.page
    page.goto("/")
    page.fill("input[name=name]", LONG)
    page.click("button[name=open]")
    status = page.locator(".lobby-status")
    expect(status).to_contain_text("is a registered name")
    expect(status).to_contain_text("sign in with its password")
    expect(status).not_to_contain_text("POST")

    # A seat's share of the shuffle: words for the player, the fingerprint for an auditor.
    page.fill("input[name=name]", "Ada")
    page.click("button[name=open]")
    expect(page.locator("#app")).to_have_attribute("data-view", "room")
    share = page.locator(".seat-card[data-state=me] .seed")
    expect(share.locator("summary")).to_have_text("Your share of the shuffle is sealed")
    expect(share.locator("code")).to_be_hidden()
    share.locator("summary").click()
    expect(share.locator("code")).to_have_text(
        httpx.get(f"{server}/api/tables/{page.url.rsplit('/', 1)[-1]}").json()["seats"][0][
            "commitment"
        ]
    )
    shot(guest, shots, "01-room-share-open", still=False)

    # The record, read by the player who played it: sides as "You & partner" and
    # "Opponents", the check in words, whole names; seat numbers and hashes folded away.
    player = open_person(browser, server, LONG, **DESK)
    sign_in(player)
    rated_players(server, [bo.id], games=1)
    record = player.page
    record.goto(f"/#/t/{done}/record")
    expect(record.locator("#app")).to_have_attribute("data-view", "record")
    expect(record.locator(".record-team[data-team='0'] .team-line span")).to_have_text(
        "You & partner"
    )
    expect(record.locator(".record-team[data-team='1'] .team-line span")).to_have_text("Opponents")
    expect(record.locator(".verdict strong")).to_have_text("This game’s record checks out")
    words = seen(record)
    assert not [w for w in DEVELOPERS if w in words], [w for w in DEVELOPERS if w in words]
    cut = record.evaluate(
        """name => [...document.querySelectorAll('.record .who')]
            .filter(e => e.textContent.startsWith(name.slice(0, 4)))
            .filter(e => !e.textContent.includes(name) || e.scrollWidth > e.clientWidth
                || getComputedStyle(e).textOverflow === 'ellipsis')
            .map(e => e.textContent)""",
        LONG,
    )
    assert not cut, f"names cut short in the record: {cut[:5]}"
    names = record.locator(".trick-cards .who", has_text=LONG)
    expect(names.first).to_be_visible()
    lines = names.first.evaluate(
        "e => { const r = document.createRange(); r.selectNodeContents(e); "
        "return new Set([...r.getClientRects()].map(b => Math.round(b.top))).size; }"
    )
    assert lines == 1, "at 1366 px a whole name fits on one line beside its card"
    shot(player, shots, "02-record")
    auditors = record.locator(".record-audit details.for-auditors")
    expect(auditors.locator(".verdict-words")).to_be_hidden()
    auditors.locator("summary").click()
    expect(auditors.locator(".verdict-words")).to_contain_text("chain unbroken")
    expect(auditors.locator(".head")).to_be_visible()

    # The first rating: the jump from a new player's 450 explained in a line.
    record.goto(f"/#/players/{bo.id}")
    expect(record.locator("#app")).to_have_attribute("data-view", "profile")
    expect(record.locator(".rating-now .rating-why")).to_contain_text("New ratings are provisional")
    guest.errors = [e for e in guest.errors if "409 (Conflict)" not in e]  # the name refused
    guest.assert_no_errors()
    player.assert_no_errors()


def test_a_locked_room_offers_a_watcher_no_name_box_and_no_seat(browser, server):
    host = open_person(browser, server, "Ada", **DESK)
    sign_in_and_open(host)
    host.page.click("button[name=lock]")
    expect(host.page.locator("button[name=lock]")).to_have_text("Unlock the room")
    link = host.page.locator(".share-link").input_value()
    watcher = open_person(browser, server, "Cy", **DESK)
    watcher.page.goto(link)
    status = watcher.page.locator(".room-status")
    expect(status).to_contain_text("This room is locked")
    expect(status).to_contain_text("You can watch the game, but not sit down")
    assert "Pick a name to sit down" not in seen(watcher.page)
    expect(watcher.page.locator("[data-action=sit]")).to_have_count(0)
    # Unlocked again: the name box and the seats come back.
    host.page.click("button[name=lock]")
    expect(watcher.page.get_by_text("Pick a name to sit down")).to_be_visible()
    expect(watcher.page.locator("[data-action=sit]").first).to_be_visible()
