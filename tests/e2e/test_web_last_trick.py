"""What a player looks back at during a hand: the last trick on demand (a button and the L key)
for players and spectators alike, the hand's bids kept in view while it is played, and the
panels round the table (tricks, whose turn) agreeing with the cards while a finished trick is
marked, not a second behind them."""

from __future__ import annotations

import httpx
from a11y_kit import AXE_CONTEXT, axe_violations, describe
from browser_kit import (
    GAME,
    make_move,
    moved_on,
    open_person,
    play_out_the_hand,
    sign_in_and_open,
    wait_for_my_move,
)
from playwright.sync_api import Locator, Page, expect
from test_web_table import PHONE, start_with_bots

BOTS = ["Tin", "Cog", "Bolt", "Dot"]  # the names the page gives each seat's bot
DESK = {"viewport": {"width": 1366, "height": 768}}
PHONE_WIDTHS = (320, 360, 390, 414)


def until_playing_after_a_trick(person) -> None:
    """Moves until it is this person's turn to play with a trick of the hand already taken."""
    page = person.page
    for _ in range(200):
        s = wait_for_my_move(person)
        assert s["status"] != "over", "the last trick's button never showed on a turn to play"
        if s["phase"] == "play" and page.locator(".peek-toggle").is_visible():
            expect(page.locator(GAME)).to_have_attribute("data-motion", "idle")
            return
        make_move(person)
        moved_on(person, s["seq"])
    raise AssertionError("no turn to play after a trick in 200 moves")


def plates_under(box: Locator) -> list[str]:
    """The names on the seat plates that `box` covers any part of."""
    return box.evaluate(
        """b => {
            const r = b.getBoundingClientRect();
            return [...document.querySelectorAll('.plate')].filter((p) => {
                const q = p.getBoundingClientRect();
                return q.left < r.right && r.left < q.right && q.top < r.bottom && r.top < q.bottom;
            }).map((p) => p.querySelector('.name')?.textContent ?? '?');
        }"""
    )


def shows_the_trick(page: Page, trick: dict, names: dict[int, str]) -> None:
    peek = page.locator(".center .last-trick")
    expect(peek).to_be_visible()
    expect(page.locator(".peek-toggle")).to_have_attribute("aria-pressed", "true")
    cards = peek.locator(".card[data-card]")
    expect(cards).to_have_count(len(trick["cards"]))
    shown = cards.evaluate_all("cs => cs.map(c => [Number(c.dataset.seat), c.dataset.card])")
    assert shown == [[p["seat"], p["card"]] for p in trick["cards"]], "in the order played"
    for p in trick["cards"]:
        expect(peek.locator(f".peek-card[data-seat='{p['seat']}'] .peek-who")).to_have_text(
            names[p["seat"]]
        )
    expect(peek.locator(".card.winning")).to_have_attribute("data-seat", str(trick["winner"]))
    took = names[trick["winner"]]
    expect(peek.locator(".peek-took")).to_have_text(
        f"Last trick: {'you' if took == 'You' else took} took it"
    )
    # Said to a screen reader in one go: each card, who played it, who took it.
    said = page.locator(".center [role=status]")
    expect(said).to_contain_text("Last trick: ")
    expect(said).to_contain_text(f"{took} took it.")
    # The trick in play is under it meanwhile, out of the way.
    expect(page.locator(".center .slots")).to_have_css("visibility", "hidden")


def test_the_last_trick_shows_on_demand_by_key_and_button_to_a_player_and_a_spectator(
    browser, server, shots
):
    ada = open_person(browser, server, "Ada", **DESK, **AXE_CONTEXT)
    page = ada.page
    code = sign_in_and_open(ada)
    start_with_bots(ada)
    toggle = page.locator(".peek-toggle")
    # Before any trick there is none to show: no button, and L does nothing.
    expect(toggle).to_be_hidden()
    until_playing_after_a_trick(ada)
    view = httpx.get(f"{server}/api/tables/{code}").json()
    last = view["tricks"][-1]
    names = {0: "You", 1: BOTS[1], 2: BOTS[2], 3: BOTS[3]}

    expect(toggle).to_contain_text("Last trick")
    expect(toggle.locator("kbd")).to_have_text("L")
    page.keyboard.press("L")
    shows_the_trick(page, last, names)
    page.keyboard.press("L")
    expect(page.locator(".center .last-trick")).to_be_hidden()
    expect(toggle).to_have_attribute("aria-pressed", "false")
    expect(page.locator(".center .slots")).to_have_css("visibility", "visible")
    toggle.click()
    shows_the_trick(page, last, names)
    page.screenshot(path=str(shots / "01-last-trick.png"))
    # The button, the trick over the felt and the bids beside it: nothing serious for axe.
    serious = [v for v in axe_violations(page) if v["impact"] in ("serious", "critical")]
    assert not serious, describe(serious)

    # Someone watching asks for it the same way and sees the same trick, named from their seat.
    cy = open_person(browser, server, "Cy", **PHONE)
    cy.page.goto(f"/#/t/{code}")
    expect(cy.page.locator(GAME)).to_have_attribute("data-you", "watching")
    cy.page.keyboard.press("L")
    shows_the_trick(cy.page, last, {0: "Ada", 1: BOTS[1], 2: BOTS[2], 3: BOTS[3]})
    cy.page.screenshot(path=str(shots / "02-last-trick-phone-spectator.png"))
    for width in PHONE_WIDTHS:
        cy.page.set_viewport_size({"width": width, "height": 640})
        cy.page.screenshot(path=str(shots / f"03-last-trick-{width}.png"))
        covered = plates_under(cy.page.locator(".center .last-trick"))
        assert not covered, f"at {width} px the last trick covers the plates of {covered}"

    # Play goes on: Ada's card put down closes it, and the table shows the trick in play.
    seq = ada.state()["seq"]
    make_move(ada)
    moved_on(ada, seq)
    expect(page.locator(".center .last-trick")).to_be_hidden()
    expect(page.locator(".center .slots")).to_have_css("visibility", "visible")
    ada.assert_no_errors()
    cy.assert_no_errors()


def test_the_bids_stay_in_view_for_the_whole_hand(browser, server, shots):
    ada = open_person(browser, server, "Ada", **DESK)
    page = ada.page
    code = sign_in_and_open(ada)
    start_with_bots(ada)
    until_playing_after_a_trick(ada)
    view = httpx.get(f"{server}/api/tables/{code}").json()
    assert view["phase"] == "play" and view["bids"]
    kept = page.locator(".center .kept-bids")
    expect(kept).to_be_visible()
    expect(kept).to_have_attribute("aria-label", "Bids this hand")
    for seat in range(4):
        said = [b["bid"] for b in view["bids"] if b["seat"] == seat]
        row = kept.locator(f"li[data-seat='{seat}']")
        if not said:
            expect(row).to_have_count(0)
            continue
        expect(row.locator(".who")).to_have_text("You" if seat == 0 else BOTS[seat])
        bids = row.locator("[data-bid]").evaluate_all("bs => bs.map(b => b.dataset.bid)")
        assert bids == said, (seat, bids, said)
    made = next(b for b in reversed(view["bids"]) if b["bid"] != "pass")
    if made.get("alone"):
        expect(kept.locator(f"li[data-seat='{made['seat']}']")).to_contain_text("alone")
    # On a phone's small felt too, the bids leave every seat's plate in view.
    for width in PHONE_WIDTHS:
        page.set_viewport_size({"width": width, "height": 640})
        page.screenshot(path=str(shots / f"bids-{width}.png"))
        covered = plates_under(kept)
        assert not covered, f"at {width} px the bids cover the plates of {covered}"
    page.set_viewport_size(DESK["viewport"])
    # Still there once the hand is over, until the next deal.
    play_out_the_hand(ada)
    expect(kept).to_be_visible()
    expect(kept.locator("li")).to_have_count(len({b["seat"] for b in view["bids"]}))
    ada.assert_no_errors()


# Every frame while a finished trick is marked on the table (its winner's card lit): the tricks
# the rail counts against the tricks the table has marked this hand, and whose turn the plates
# show against the trick's winner (the next to lead). Not while Ada sits out a partner's lone
# hand: then the bots play on without her and the table has tricks yet to show.
WATCH_MARKS = """() => {
    window.__odd = [];
    window.__marks = 0;
    let was = false;
    const tick = () => {
        const game = document.querySelector('main.game');
        const win = document.querySelector('.center .slot .card.winning');
        if (game && win && !was) window.__marks += 1;
        was = !!win;
        if (game && win && !document.querySelector('.plate.mine.out')) {
            const taken = [...document.querySelectorAll('.rail [data-taken]')]
                .reduce((n, e) => n + Number(e.dataset.taken), 0);
            if (taken !== window.__marks) window.__odd.push(['tricks', window.__marks, taken]);
            const turn = [...document.querySelectorAll('.plate[data-turn=yes]')]
                .map((p) => p.dataset.seat).join();
            if (game.dataset.phase === 'play' && turn !== win.dataset.seat) {
                window.__odd.push(['turn', win.dataset.seat, turn]);
            }
        }
        requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
}"""


def test_the_panels_agree_with_the_cards_while_a_finished_trick_is_marked(browser, server):
    ada = open_person(browser, server, "Ada", **DESK)
    page = ada.page
    sign_in_and_open(ada)
    page.evaluate(WATCH_MARKS)
    start_with_bots(ada)
    play_out_the_hand(ada)
    expect(page.locator(".center .slot .card.winning")).to_have_count(1)
    assert page.evaluate("() => window.__marks") >= 3
    odd = page.evaluate("() => window.__odd")
    assert odd == [], odd[:10]
    ada.assert_no_errors()
