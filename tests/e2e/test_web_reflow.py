"""Every page fits a phone: at 320, 360, 390 and 414 px wide nothing scrolls sideways and no
text reaches past the screen's edge (WCAG 2.2 reflow); and from a tablet's 641 px to a
laptop's 1366 the same holds, and nothing in the bar is drawn over anything else there (a
table's bar, with its code, tools, chat and the pages' links, is the fullest). The pages are
the lobby (with a table waiting in its list), a waiting room, a table in play, a finished
game's record, a player's page and the leaderboard, each with the longest name there may be
(24 characters). Axe on every page is test_web_a11y's."""

from __future__ import annotations

import pytest
from browser_kit import open_person, settle, shot, sign_in_and_open, table_pages
from playwright.sync_api import expect
from test_web_ratings import Registered, play_out
from test_web_table import play_until_burying, start_with_bots

WIDTHS = (320, 360, 390, 414)
# Each side of where the bar changes (base.css "a table's bar"), a tablet, and a laptop.
WIDER = (641, 700, 761, 900, 901, 1100, 1101, 1280, 1281, 1366)
PHONE = {"device_scale_factor": 2, "is_mobile": True, "has_touch": True}
LONG = "Maximiliana Featherwing"  # and a digit: the 24 characters a name may have

# What reaches past the screen's left or right edge, of everything drawn: the page's own
# sideways scroll, and each element outside the screen that no box of its own scrolls or clips
# on purpose (a list that scrolls, a name cut with an ellipsis).
OVERFLOW = """() => {
    const root = document.documentElement;
    const width = root.clientWidth;
    const out = [];
    if (root.scrollWidth > width) out.push(`the page scrolls sideways: ${root.scrollWidth}px`);
    const kept = (e) => {
        for (let p = e.parentElement; p && p !== document.body; p = p.parentElement) {
            if (getComputedStyle(p).overflowX !== 'visible') return true;
        }
        return false;
    };
    for (const e of document.body.querySelectorAll('*')) {
        if (e.closest('svg.sprites, .sr-only, .talk-float')) continue;
        const r = e.getBoundingClientRect();
        if (!r.width || !r.height) continue;
        if ((r.right > width + 0.5 || r.left < -0.5) && !kept(e)) {
            const name = e.tagName.toLowerCase() + (e.className && typeof e.className === 'string'
                ? '.' + e.className.trim().split(/\\s+/).join('.') : '');
            out.push(`${name} "${e.textContent.trim().slice(0, 30)}" `
                + `from ${Math.round(r.left)} to ${Math.round(r.right)}`);
        }
    }
    return out;
}"""


# What in the bar is drawn over something else of the bar's, or past its ends (the tools
# folded behind "⋯" are not drawn while they are folded).
BAR_CLASH = """() => {
    const bar = document.querySelector('.bar');
    if (!bar) return [];
    const edge = bar.getBoundingClientRect();
    const shown = [...bar.querySelectorAll(`.brand > *, .bar-mid > :not(.bar-tools),
        .bar-tools > *, .bar-links > a, .bar > :not(.bar-mid, .bar-links)`)].filter(e => {
        const r = e.getBoundingClientRect();
        return r.width > 0 && r.height > 0;
    });
    const name = e => `${e.tagName.toLowerCase()}.${[...e.classList].join('.')} `
        + `"${e.textContent.trim().slice(0, 20)}"`;
    const out = [];
    shown.forEach((e, i) => {
        const a = e.getBoundingClientRect();
        if (a.left < edge.left - 0.5 || a.right > edge.right + 0.5)
            out.push(`${name(e)} is past the bar's end`);
        for (const other of shown.slice(i + 1)) {
            if (e.contains(other) || other.contains(e)) continue;
            const b = other.getBoundingClientRect();
            const x = Math.min(a.right, b.right) - Math.max(a.left, b.left);
            const y = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
            if (x > 0.5 && y > 0.5)
                out.push(`${name(e)} is drawn over ${name(other)} by ${Math.round(x)}px`);
        }
    });
    return out;
}"""


def fit_report(page) -> list[str]:
    settle_page(page)
    return page.evaluate(OVERFLOW) + page.evaluate(BAR_CLASH)


def settle_page(page) -> None:
    page.wait_for_function(
        """() => document.getAnimations().every(a =>
            a.playState !== 'running' || a.effect.getComputedTiming().endTime === Infinity)"""
    )


@pytest.fixture
def pages(server):
    """A finished game's code, a waiting table's code and a registered player's id."""
    bo = Registered(server, f"{LONG}1")
    done = bo.open(bots="easy")
    bo.start(done)
    play_out(done, [bo])
    waiting = bo.open(bots="hard")
    return done, waiting, bo.id


def test_every_page_fits_a_phone_and_a_tablet_without_a_sideways_scroll(
    browser, server, shots, pages
):
    done, waiting, player = pages
    ada = open_person(browser, server, f"{LONG}2", viewport={"width": 390, "height": 844}, **PHONE)
    page = ada.page
    playing = sign_in_and_open(ada)
    start_with_bots(ada)
    expect(page.locator("main.game")).to_have_attribute("data-status", "playing")
    views = {
        **table_pages(waiting, playing, done),
        "profile": (f"/#/players/{player}", "profile"),
        "leaderboard": ("/#/leaderboard", "leaderboard"),
    }
    wide: dict[str, list[str]] = {}
    for name, (path, view) in views.items():
        page.goto(path)
        expect(page.locator("#app")).to_have_attribute("data-view", view)
        if view == "game":
            settle(ada)
        for width in WIDTHS + WIDER:
            page.set_viewport_size({"width": width, "height": 740})
            found = fit_report(page)
            if found:
                wide[f"{name} at {width}px"] = found
            if width in WIDTHS:
                shot(ada, shots, f"{name}-{width}", still=False)
    report = "\n".join(f"{k}:\n  " + "\n  ".join(v[:8]) for k, v in wide.items())
    assert not wide, f"pages wider than the screen, or a bar drawn over itself:\n{report}"
    ada.assert_no_errors()


# The trump panel as wide as it gets: the longest suit's name (the deal decides which suit is
# trump, so the test writes it in, and checks after that no redraw took it out).
LONGEST_TRUMP = """() => {
    const name = document.querySelector('.rail .trump-line strong');
    name.textContent = 'diamonds';
    return name.isConnected;
}"""


def test_the_dealers_six_cards_fit_every_width(browser, server):
    """The table is widest while the dealer buries a card: six cards, the picked-up one flagged,
    and the trump named in the panel above (as wide as "diamonds")."""
    ada = open_person(browser, server, f"{LONG}3", viewport={"width": 390, "height": 844}, **PHONE)
    code = sign_in_and_open(ada)
    start_with_bots(ada)
    play_until_burying(ada, server, code)
    expect(ada.page.locator(".hand .card")).to_have_count(6)
    expect(ada.page.locator(".hand .card .flag")).to_have_count(1)
    assert ada.page.evaluate(LONGEST_TRUMP)
    wide = {}
    for width in WIDTHS + WIDER:
        ada.page.set_viewport_size({"width": width, "height": 740})
        found = fit_report(ada.page)
        if found:
            wide[width] = found
    expect(ada.page.locator(".rail .trump-line strong")).to_have_text("diamonds")
    assert not wide, f"the dealer's table reaches past the screen: {wide}"
    ada.assert_no_errors()
