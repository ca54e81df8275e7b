"""Every page fits a phone: at 320, 360, 390 and 414 px wide nothing scrolls sideways and no
text reaches past the screen's edge (WCAG 2.2 reflow), and axe finds nothing serious or
critical at 320 px, where the pages are tightest. The pages are the lobby (with a table
waiting in its list), a waiting room, a table in play, a finished game's record, a player's
page and the leaderboard, each with the longest name there may be (24 characters)."""

from __future__ import annotations

import pytest
from a11y_kit import AXE_CONTEXT, axe_violations, describe
from browser_kit import open_person, settle, shot, sign_in_and_open, table_pages
from playwright.sync_api import expect
from test_web_ratings import Registered, play_out
from test_web_table import start_with_bots

WIDTHS = (320, 360, 390, 414)
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


def fit_report(page) -> list[str]:
    settle_page(page)
    return page.evaluate(OVERFLOW)


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


def test_every_page_fits_a_phone_without_a_sideways_scroll(browser, server, shots, pages):
    done, waiting, player = pages
    ada = open_person(
        browser, server, f"{LONG}2", viewport={"width": 390, "height": 844}, **PHONE, **AXE_CONTEXT
    )
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
    broken: dict[str, list[dict]] = {}
    for name, (path, view) in views.items():
        page.goto(path)
        expect(page.locator("#app")).to_have_attribute("data-view", view)
        if view == "game":
            settle(ada)
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": 740})
            found = fit_report(page)
            if found:
                wide[f"{name} at {width}px"] = found
            shot(ada, shots, f"{name}-{width}", still=False)
        page.set_viewport_size({"width": 320, "height": 740})
        serious = [v for v in axe_violations(page) if v["impact"] in ("serious", "critical")]
        if serious:
            broken[name] = serious
    report = "\n".join(f"{k}:\n  " + "\n  ".join(v[:8]) for k, v in wide.items())
    assert not wide, f"pages wider than a phone:\n{report}"
    assert not broken, "axe at 320 px:\n" + "\n".join(
        f"{k}: {describe(v)}" for k, v in broken.items()
    )
    ada.assert_no_errors()
