"""The page in the player's language: chosen from the browser's languages among those the server
offers (English unless one comes first), or the player's own pick; `t()` puts words in by name
and `tn()` says a count as the language does. French is offered: every page of the game is in it,
the lobby, the waiting room and the table with its chat, the lesson and a finished game's record,
and the server's refusals too (services/api/problem_words.py).
"""

from __future__ import annotations

import json

import httpx
from browser_kit import open_person
from playwright.sync_api import expect
from test_web_ratings import Registered, play_out

# Whatever Chromium was started with, the page reads the languages the browser asks for.
LANGUAGES = "Object.defineProperty(navigator, 'languages', {{ get: () => {} }})"


def test_a_french_browser_gets_the_french_lobby(browser, server):
    """From the first render: headings, buttons, placeholders, labels, the house rules, the
    links; and the player's pick of English beats the browser's French."""
    ada = open_person(browser, server, "Ada", locale="fr-FR")
    page = ada.page
    page.goto("/")
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    expect(page.locator("h1")).to_have_text("L’euchre de la famille")
    expect(page.locator("button[name=open]")).to_have_text("Ouvrir une table")
    expect(page.locator("button[name=play-bots]")).to_have_text("Jouer contre des bots")
    expect(page.locator("input[name=name]")).to_have_attribute("placeholder", "Votre nom")
    expect(page.locator("input[name=join-code]")).to_have_attribute(
        "aria-label", "Code de la table à rejoindre"
    )
    expect(page.locator(".rule-row[data-rule=stick_dealer] strong")).to_have_text(
        "Le donneur est collé"
    )
    expect(page.locator("nav.bar-links")).to_contain_text("Classement")
    # The player's pick beats the browser's: English, and English needs no catalogue.
    page.evaluate("localStorage.setItem('euchre.language', 'en')")
    asked = []
    page.on("request", lambda r: asked.append(r.url) if "/api/messages" in r.url else None)
    page.reload()
    expect(page.locator("h1")).to_have_text("The family’s Euchre")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    assert asked == [], "English is asked of nobody"
    ada.assert_no_errors()


def test_the_first_offered_of_the_browsers_languages_wins_and_english_is_the_default(
    browser, server
):
    """German isn't offered, so a browser asking for German then French gets French; one
    asking for English before French, or for nothing the page has, gets English."""
    cases = [
        (["de-DE", "fr-CA", "en"], "fr", "L’euchre de la famille"),
        (["en-GB", "fr-FR"], "en", "The family’s Euchre"),
        (["de-DE", "it"], "en", "The family’s Euchre"),
    ]
    for languages, lang, heading in cases:
        person = open_person(browser, server, "Ada")
        page = person.page
        page.add_init_script(LANGUAGES.format(languages))
        page.goto("/")
        expect(page.locator("html")).to_have_attribute("lang", lang)
        expect(page.locator("h1")).to_have_text(heading)
        person.assert_no_errors()
        page.context.close()

    # A browser left as it comes (Chromium in English here) gets English.
    plain = open_person(browser, server, "Bo")
    plain.page.goto("/")
    expect(plain.page.locator("html")).to_have_attribute("lang", "en")
    expect(plain.page.locator("button[name=open]")).to_have_text("Open a table")
    plain.assert_no_errors()


def test_t_puts_words_in_by_name_and_tn_says_a_count_as_each_language_does(browser, server):
    """English says "0 deals", French "0 donne": each language's own plural rule, from its
    catalogue's plural forms, not English's."""
    said = {}
    for language in ("en", "fr"):
        person = open_person(browser, server, "Ada")
        page = person.page
        page.add_init_script(f"localStorage.setItem('euchre.language', '{language}')")
        page.goto("/")
        expect(page.locator("html")).to_have_attribute("lang", language)
        said[language] = page.evaluate(
            """async () => {
              const { t, tn } = await import('/js/i18n.js');
              const deals = (n) => tn(
                'Hand by hand: {count} deal', 'Hand by hand: {count} deals', n);
              return [
                t('{name}’s table', { name: 'Ada' }),
                t('{a} then {b}, {a} again', { a: 1, b: '<b>' }),
                t('Called {H}', {}),
                ...[0, 1, 2, 1000000].map(deals),
              ];
            }"""
        )
        person.assert_no_errors()
        page.context.close()
    assert said["en"] == [
        "Ada’s table",
        "1 then <b>, 1 again",
        "Called {H}",
        "Hand by hand: 0 deals",
        "Hand by hand: 1 deal",
        "Hand by hand: 2 deals",
        "Hand by hand: 1000000 deals",
    ]
    assert said["fr"] == [
        "La table de Ada",
        "1 then <b>, 1 again",
        "Called {H}",
        "Main par main : 0 donne",
        "Main par main : 1 donne",
        "Main par main : 2 donnes",
        "Main par main : 1000000 de donnes",
    ]


def test_the_tables_words_in_french(browser, server):
    """words.js, cards.js and seats.js through the French catalogue: a card's article follows
    its rank, the bowers are named as French players name them, and "you" takes its own verb."""
    ada = open_person(browser, server, "Ada")
    page = ada.page
    page.add_init_script("localStorage.setItem('euchre.language', 'fr')")
    page.goto("/")
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    said = page.evaluate(
        """async () => {
          const words = await import('/js/words.js');
          const seats = [{ player: 'a', name: 'Ada' }, { bot: 'easy' },
                         { player: 'b', name: 'Bea' }, { bot: 'easy' }];
          const v = { you: 0, seats, trump: 'H', dealer: 1 };
          return [
            words.playedWords(v, { seat: 0, card: 'QS' }),
            words.playedWords(v, { seat: 2, card: 'AC' }),
            words.playedWords(v, { seat: 2, card: 'JD' }),
            words.bidWords({ bid: 'order', seat: 2, suit: 'H', alone: true }, 1),
            words.cannotPlay('9C', 'H', 'S'),
          ];
        }"""
    )
    assert said == [
        "Vous avez joué la dame de pique.",
        "Bea a joué l’as de trèfle.",
        "Bea a joué le valet de gauche (valet de carreau).",
        "Commander {H}, seul",
        "Vous devez fournir à {S} : vous ne pouvez pas jouer le neuf de trèfle.",
    ]
    ada.assert_no_errors()


def test_a_french_browser_plays_learns_chats_and_reads_the_record_in_french(browser, server):
    """Every page a player meets, in French: the lesson, the waiting room, the table and its
    chat (a line too long said in French, with the count written the French way), the Options
    menu's language pick, and a finished game's record with its replay."""
    ada = open_person(browser, server, "Ada", locale="fr-FR")
    page = ada.page

    page.goto("/#/learn")
    expect(page.locator("main.lesson h1")).to_have_text("Apprendre l’euchre en une minute")
    expect(page.locator(".lesson-words h2")).to_have_text("Étape 1 sur 11 : Deux contre deux")
    expect(page.locator("button[name=next]")).to_have_text("Suivant")
    for _ in range(4):
        page.click("button[name=next]")
    expect(page.locator(".lesson-words h2")).to_have_text("Étape 5 sur 11 : Commander ou passer")
    expect(page.locator(".lesson-seat.at-right .tag")).to_have_text("Passe")

    page.goto("/")
    page.fill("input[name=name]", "Ada")
    page.click("button[name=open]")
    expect(page.locator("#app")).to_have_attribute("data-view", "room")
    expect(page.locator("button[name=start]")).to_have_text("Commencer la partie")
    page.click("button[name=start]")
    expect(page.locator("#app")).to_have_attribute("data-view", "game")
    toggle = page.locator(".talk-toggle")
    expect(toggle).to_contain_text("Discussion")
    toggle.click()
    expect(page.locator("#talk-panel h2")).to_have_text("Discussion à la table")
    box = page.locator(".talk-input")
    expect(box).to_have_attribute("placeholder", "Dites quelque chose à la table")
    box.fill("é" * 1500)
    expect(page.locator("#talk-limit")).to_have_text(
        "Un message fait au plus 500 caractères ; celui-ci en a 1\u202f500. "
        "Raccourcissez-le pour l’envoyer."
    )

    # The Options menu offers the languages; a pick reloads the page in it, and is kept.
    for pick, lang, chat in (("en", "en", "Chat"), ("fr", "fr", "Discussion")):
        page.click("details.options-menu summary")
        page.locator(f".language-pick label[lang={pick}]").click()
        expect(page.locator("html")).to_have_attribute("lang", lang)
        expect(page.locator("#app")).to_have_attribute("data-view", "game")
        expect(page.locator(".talk-toggle")).to_contain_text(chat)
    page.click("details.options-menu summary")
    expect(page.locator(".language-pick input[value=fr]")).to_be_checked()
    ada.assert_no_errors()

    # A game played to its end over HTTP; its record read in French.
    bo = Registered(server, "Bo")
    code = bo.open(bots="easy")
    bo.start(code)
    view = play_out(code, [bo])
    page.goto(f"/#/t/{code}/record")
    expect(page.locator("#app")).to_have_attribute("data-view", "record")
    expect(page.locator(".record .kicker").first).to_have_text("Feuille de partie")
    expect(page.locator(".record-audit .verdict strong")).to_have_text(
        "La feuille de cette partie est intacte"
    )
    deals = page.locator(".deal").count()
    expect(page.locator("#deals-title")).to_have_text(f"Main par main : {deals} donnes")
    expect(page.locator(".replay h2")).to_have_text("Revoir la partie")
    expect(page.locator(".replay button[name=trick-on]")).to_contain_text("Pli suivant")
    expect(page.locator(".deal .tricks-played h4").first).to_have_text("Plis")
    winners = page.locator(".record .winners")
    expect(winners).to_contain_text(" battent ")
    expect(winners).to_contain_text(f"{view['score'][view['winner']]}–")
    ada.assert_no_errors()


def test_a_refusal_from_the_server_is_shown_in_french(browser, server):
    """The server words a refusal in the page's language: Bo's page still shows the room open
    (its stream holds the view from before), the host locks it, and Bo's try to sit down is
    refused in French."""
    ada = Registered(server, "Ada")
    code = ada.open()
    before = httpx.get(f"{server}/api/tables/{code}").json()
    frame = f"retry: 600000\nevent: view\ndata: {json.dumps(before)}\n\n"
    bo = open_person(browser, server, "Bo", locale="fr-FR")
    page = bo.page
    page.route(
        f"**/api/tables/{code}/events",
        lambda route: route.fulfill(
            status=200, headers={"content-type": "text/event-stream"}, body=frame
        ),
    )
    page.goto(f"/#/t/{code}")
    expect(page.locator("#app")).to_have_attribute("data-view", "room")
    page.fill("input[name=name]", "Bo")
    ada.http.post(f"/api/tables/{code}/lock").raise_for_status()
    page.click(".seat-card[data-seat='1'] [data-action=sit]")
    expect(page.locator(".room-status")).to_have_attribute("data-tone", "error")
    expect(page.locator(".room-status")).to_have_text(
        "La table est verrouillée : personne de nouveau ne peut s’y asseoir."
    )
    # The refusal itself is the one error the browser logs; the page had none of its own.
    assert bo.errors == [
        "Failed to load resource: the server responded with a status of 403 (Forbidden)"
    ]
