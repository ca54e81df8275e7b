"""A player's own options at the table. Their turn, told when the table isn't in front of them:
a chime only once they turn sound on, and a mark on the tab's title while the tab is hidden,
gone when they come back. The four-colour deck, off until they turn it on."""

from __future__ import annotations

from browser_kit import GAME, make_move, open_person, sign_in_and_open, wait_for_my_move
from playwright.sync_api import expect

# Counts the notes the page plays, and lets the test hide the tab: Chromium under test has
# no speakers to listen to and never hides a page by itself.
LISTEN = """
window.__notes = 0;
window.__hidden = false;
Object.defineProperty(document, 'hidden', { configurable: true, get: () => window.__hidden });
class Quiet {
  constructor() { this.currentTime = 0; this.destination = {}; }
  resume() { return Promise.resolve(); }
  createGain() {
    const ramp = () => {};
    const gain = { setValueAtTime: ramp, exponentialRampToValueAtTime: ramp };
    return { gain, connect: (d) => d };
  }
  createOscillator() {
    const start = () => { window.__notes += 1; };
    return { frequency: {}, connect: (g) => g, start, stop: () => {} };
  }
}
window.AudioContext = Quiet;
"""


def hide(page, hidden: bool) -> None:
    page.evaluate(
        "h => { window.__hidden = h; document.dispatchEvent(new Event('visibilitychange')); }",
        hidden,
    )


def my_next_turn(person) -> None:
    """Make this turn's move, then wait for the next one of the player's own."""
    seq = person.state()["seq"]
    make_move(person)
    person.page.wait_for_function(
        "seq => document.querySelector('main.game').dataset.seq !== seq", arg=seq
    )
    wait_for_my_move(person)


def test_a_turn_chimes_only_with_sound_on_and_marks_a_hidden_tab(browser, server):
    ada = open_person(browser, server, "Ada")
    page = ada.page
    page.add_init_script(LISTEN)
    sign_in_and_open(ada)
    page.click("button[name=start]")
    expect(page.locator(GAME)).to_have_attribute("data-status", "playing")
    title = page.title()

    wait_for_my_move(ada)
    my_next_turn(ada)
    assert page.evaluate("window.__notes") == 0, "sound is off until the player turns it on"

    page.click(".options-menu summary")
    page.check("input[name=option-sound]")
    page.click(".options-menu summary")
    my_next_turn(ada)
    assert page.evaluate("window.__notes") >= 2, "a turn with sound on chimes"

    hide(page, True)
    my_next_turn(ada)
    expect(page).to_have_title(f"● Your turn · {title}")
    hide(page, False)
    expect(page).to_have_title(title)

    # The choice is kept: after a reload the sound is still on.
    page.reload()
    expect(page.locator("input[name=option-sound]")).to_be_checked()
    ada.assert_no_errors()


def colour(page, selector: str) -> str:
    return page.eval_on_selector(selector, "e => getComputedStyle(e).color")


def test_the_four_colour_deck_is_an_option_off_until_turned_on(browser, server):
    ada = open_person(browser, server, "Ada")
    page = ada.page
    sign_in_and_open(ada)
    page.click("button[name=start]")
    wait_for_my_move(ada)
    page.click(".options-menu summary")
    preview = ".suit-preview svg.suit-{}"
    red, black = colour(page, preview.format("H")), colour(page, preview.format("S"))
    assert colour(page, preview.format("D")) == red and colour(page, preview.format("C")) == black

    page.check("input[name=option-four]")
    four = {s: colour(page, preview.format(s)) for s in "SHDC"}
    assert four["H"] == red and four["S"] == black
    assert len(set(four.values())) == 4, f"four suits, four colours: {four}"
    # Every card face and inline card on the table takes its suit's colour: read in one go,
    # as the table stands at one moment (a trick just taken leaves the table while it's read,
    # and a card read one at a time could be gone by its turn).
    cards = page.eval_on_selector_all(
        "[data-card]", "els => els.map(e => [e.dataset.card, getComputedStyle(e).color])"
    )
    assert cards, "no card on the table"
    for code, shown in cards:
        assert shown == four[code[-1]], code
    ada.assert_no_errors()
