"""The rules in the app: the lobby's bar opens them, a section is a link of its own, they read
on a phone without the page scrolling sideways, and from a table they open in a new tab (the
table's page stays, and with it the player's seat)."""

from __future__ import annotations

from a11y_kit import AXE_CONTEXT, axe_violations, describe
from browser_kit import open_person, sign_in_and_open
from playwright.sync_api import expect

NARROW = {"viewport": {"width": 320, "height": 640}}


def test_the_rules_open_from_the_bar_and_link_between_their_sections(browser, server):
    ada = open_person(browser, server, "Ada", **NARROW, **AXE_CONTEXT)
    page = ada.page
    page.goto("/")
    expect(page.locator("#app")).to_have_attribute("data-view", "lobby")
    page.get_by_role("link", name="Rules").click()
    expect(page.locator("#app")).to_have_attribute("data-view", "rules")
    expect(page.get_by_role("heading", name="The family's Euchre")).to_be_visible()
    expect(page.get_by_role("heading", name="House rules")).to_be_attached()

    wide = page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert wide <= 0, f"the rules page scrolls sideways by {wide}px at 320px"
    violations = axe_violations(page)
    assert not violations, describe(violations)

    page.locator(".rules-text a[href='#/rules/stick-the-dealer']").first.click()
    expect(page).to_have_url(f"{server}/#/rules/stick-the-dealer")
    section = page.locator("#rule-stick-the-dealer")
    expect(section).to_be_in_viewport()
    expect(section).to_be_focused()

    page.reload()  # a section's link works from outside too
    expect(page.locator("#rule-stick-the-dealer")).to_be_in_viewport()
    ada.assert_no_errors()


def test_from_a_table_the_rules_open_in_a_tab_of_their_own(browser, server):
    ada = open_person(browser, server, "Ada")
    sign_in_and_open(ada)
    link = ada.page.get_by_role("link", name="Rules")
    expect(link).to_have_attribute("target", "_blank")
    with ada.page.context.expect_page() as opened:
        link.click()
    rules = opened.value
    expect(rules.locator("#app")).to_have_attribute("data-view", "rules")
    expect(ada.page.locator("#app")).to_have_attribute("data-view", "room")
    ada.assert_no_errors()


def test_a_french_page_shows_the_french_rules_and_their_links_land(browser, server):
    """The rules come in the page's language, and a section keeps its English id, so the
    French page's own links (and a link shared from an English page) land on it."""
    ada = open_person(browser, server, "Ada", locale="fr-FR")
    page = ada.page
    page.goto("/")
    page.get_by_role("link", name="Règles").click()
    expect(page.locator("#app")).to_have_attribute("data-view", "rules")
    expect(page.locator(".rules-text")).to_have_attribute("lang", "fr")
    expect(page.get_by_role("heading", name="L’euchre de la famille")).to_be_visible()
    expect(page.locator("#rule-house-rules")).to_have_text("Règles maison")
    expect(page.get_by_role("region", name="Les points : tableau 1")).to_be_attached()

    page.locator(".rules-text a", has_text="le donneur est collé").first.click()
    expect(page).to_have_url(f"{server}/#/rules/stick-the-dealer")
    section = page.locator("#rule-stick-the-dealer")
    expect(section).to_have_text("Le donneur est collé")
    expect(section).to_be_in_viewport()
    expect(section).to_be_focused()
    ada.assert_no_errors()
