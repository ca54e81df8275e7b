"""The web table under its Content-Security-Policy: nothing it does is blocked, and signing
out from the lobby ends the session on the server too."""

from __future__ import annotations

import httpx
from browser_kit import make_move, open_person, sign_in_and_open, wait_for_my_move
from playwright.sync_api import expect

WATCH = """
window.__csp = [];
document.addEventListener('securitypolicyviolation',
  (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
"""


def test_the_page_plays_under_its_csp_and_signs_out(browser, server):
    ada = open_person(browser, server, "Ada", viewport={"width": 1280, "height": 800})
    page = ada.page
    page.add_init_script(WATCH)
    response = page.goto("/")
    assert "script-src 'self'" in response.headers["content-security-policy"]
    sign_in_and_open(ada)
    page.click("button[name=start]")
    expect(page.locator("#app")).to_have_attribute("data-view", "game")
    for _ in range(3):
        if wait_for_my_move(ada)["status"] == "over":
            break
        make_move(ada)
    assert page.evaluate("() => window.__csp") == []
    ada.assert_no_errors()

    cookie = next(c for c in page.context.cookies() if c["name"] == "euchre_token")
    page.goto("/")
    page.click(".who button.link")  # Change name: signs out
    expect(page.locator("input[name=name]")).to_be_visible()
    for _ in range(100):  # until the sign-out call has landed and cleared the cookie
        if not [c for c in page.context.cookies() if c["name"] == "euchre_token"]:
            break
        page.wait_for_timeout(50)
    else:
        raise AssertionError("signing out left the cookie")
    bearer = {"Authorization": f"Bearer {cookie['value']}"}
    assert httpx.get(f"{server}/api/players/me", headers=bearer).status_code == 401
    assert page.evaluate("() => window.__csp") == []
    ada.assert_no_errors()
