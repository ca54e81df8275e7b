"""The server's refusals in the asker's language: problem titles and details through a gettext
catalogue of their own (services/api/problem_words.py), chosen by Accept-Language, English by
default; a detail with values in it ("seat 2 is taken") is matched against its template."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Annotated, Literal

import httpx
import msgspec
import pytest
import zxcvbn.feedback
from babel.messages.pofile import read_po
from http_kit import PASSWORD
from limits import parse_many

from domain.cards import card_words, words_for
from infra import passwords
from infra.passwords import WeakPassword
from services.api import problem_words
from services.api.problem_words import LOCALES, SLOT, _pattern, language, translated

ROOT = Path(problem_words.__file__).parents[2]
FRENCH = LOCALES / "fr" / "LC_MESSAGES" / "problems.po"
ANY_VALUE = re.compile(r"\{[^{}]*\}")


def french() -> dict[str, str]:
    with FRENCH.open("rb") as file:
        return {str(m.id): str(m.string) for m in read_po(file) if m.id}


def strings_in(paths) -> set[str]:
    """Every string these Python files write, their values (f-string parts) as `{}`."""
    found = set()
    for path in paths:
        for node in ast.walk(ast.parse(Path(path).read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                found.add(node.value)
            elif isinstance(node, ast.JoinedStr):
                found.add(
                    "".join(
                        part.value if isinstance(part, ast.Constant) else "{}"
                        for part in node.values
                    )
                )
    return found


def said_by_the_server() -> set[str]:
    return strings_in(
        path for folder in ("domain", "infra", "services") for path in (ROOT / folder).rglob("*.py")
    )


WRONG = [  # what msgspec says of a wrong value, as a refusal of a body quotes it
    (int, "1"),
    (Annotated[int, msgspec.Meta(le=3)], 4),
    (Annotated[int, msgspec.Meta(ge=0)], -1),
    (Annotated[str, msgspec.Meta(max_length=2)], "abc"),
    (Annotated[str, msgspec.Meta(min_length=1)], ""),
    (Annotated[str, msgspec.Meta(pattern="^a$")], "b"),
    (Literal["on", "off"], "maybe"),
]
NOT_JSON = [b"{", b'{"a" 1}', b"[1,]", b'{"a":1,}', b'{"a":1}x', b'{"a":tru}', b'{"a":"\\q"}']
NOT_JSON += [b"{a:1}", b"[1 2]", b'{"a":1 "b":2}', b'"\xff"']


class Moved(msgspec.Struct, tag="moved"):
    pass


def said_by_the_libraries() -> list[str]:
    """The words the server quotes from others, and its card words: what msgspec says of a
    wrong body, a rate as `limits` writes it, a weak password's advice, every card and a list."""
    said = []
    for kind, value in [*WRONG, (Moved, {"type": "fly"})]:
        try:
            msgspec.convert(value, kind, strict=True)
        except msgspec.ValidationError as error:
            said.append(str(error)[0].lower() + str(error)[1:])
    for body in NOT_JSON:
        try:
            msgspec.json.decode(body)
        except msgspec.DecodeError as error:
            said.append(str(error))
    said += [str(rate) for rate in parse_many("1/second;5/10 seconds;1/minute;3/2 minutes")]
    said += [str(rate) for rate in parse_many("1/hour;3/2 hours;1/day;3/2 days")]
    advice = sorted(strings_in([zxcvbn.feedback.__file__]))
    said += advice + [f"{a} {b}" for a, b in zip(advice, advice[1:] + advice[:1], strict=True)]
    with pytest.raises(WeakPassword) as weak:
        passwords.check("ada", "Ada")  # with the server's own advice first
    said.append(str(weak.value))
    said += [card_words(card, trump) for card in range(24) for trump in (None, 0, 1, 2, 3)]
    said.append(words_for([0, 8, 21], 1, "or"))
    return said


def test_every_english_text_in_the_catalogue_is_one_the_server_says():
    """A refusal reworded where it is raised would leave its translation matching nothing; so
    would words the server quotes from a library that rewords them."""
    said = said_by_the_server()
    quoted = said_by_the_libraries()
    gone = [
        english
        for english in french()
        if ANY_VALUE.sub("{}", english) not in said
        and not any(_pattern(english).search(text) for text in quoted)
    ]
    assert not gone, f"the server no longer says these: {gone}"


# What a refusal's words are raised with (and at which argument), and what else names words
# that go into one.
RAISED_WITH = {"Problem": 1, "_host": 2, "_host_before_start": 2}
RAISED_WITH |= dict.fromkeys(("IllegalMove", "NotYourTurn", "NotAllowed", "Conflict"), 0)
RAISED_WITH |= dict.fromkeys(("Busy", "_busy", "BadName", "WeakPassword"), 0)
NAMED = {"detail", "sent", "WHAT", "OWN_WORDS"}
PARTS = {"asking", "what_now", "busy"}  # a phase's words in "it's Ada's turn {asking}"
# Refusals left in English, and why: no request has been read yet to say which language is
# wanted (the server's own answers to a connection), or only an operator or a test meets them.
ENGLISH_ONLY = {
    "the request didn't arrive in time (headers within {} s, a body within {} s)",
    "too many open connections from your address (at most {}); close some and try again",
    "the request's headers may take at most {} bytes",
    "metrics are off here (EUCHRE_METRICS=off)",
    "metrics are served to the addresses in EUCHRE_METRICS_ALLOW only, never through a proxy",
    "the reason must be 1-{} printable characters on one line",  # `euchre close`
    "dealer must be 0, 1, 2 or 3",  # a stacked deal (domain/game.py)
    "a deal is four hands of five cards, an up card and a kitty of 3",
    "a deal holds each of the 24 cards exactly once",
}


def _texts(node: ast.AST):
    """The strings an expression may be: either branch of a choice, a table's values (the first
    of each pair)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.value
    elif isinstance(node, ast.JoinedStr):
        yield "".join(p.value if isinstance(p, ast.Constant) else "{}" for p in node.values)
    elif isinstance(node, ast.IfExp):
        yield from (*_texts(node.body), *_texts(node.orelse))
    elif isinstance(node, ast.BoolOp | ast.Dict):
        yield from (t for value in node.values for t in _texts(value))
    elif isinstance(node, ast.Tuple) and node.elts:
        yield from _texts(node.elts[0])


def refusals_in_the_code() -> dict[str, str]:
    """Every text a refusal is raised with in the server's Python, as `{}`-templates, and where."""
    found = {}
    for folder in ("domain", "infra", "services"):
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                said: list[ast.AST] = []
                if isinstance(node, ast.Call):
                    f = node.func
                    name = f.id if isinstance(f, ast.Name) else getattr(f, "attr", None)
                    if name in RAISED_WITH:
                        said = node.args[RAISED_WITH[name] :][:1]
                    said += [k.value for k in node.keywords if k.arg in PARTS]
                elif isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    if any(isinstance(t, ast.Name) and t.id in NAMED for t in targets):
                        said = [node.value]
                for text in (t for s in said for t in _texts(s)):
                    found[text] = f"{path.relative_to(ROOT)}:{node.lineno}"
    return found


def test_every_refusal_the_code_writes_has_french():
    """A refusal added without its French would reach a French page in English."""
    templates = {ANY_VALUE.sub("{}", english) for english in french()}
    missing = {
        text: where
        for text, where in refusals_in_the_code().items()
        if text not in templates and text not in ENGLISH_ONLY
    }
    assert not missing, f"no French for these: {missing}"


def test_french_translates_every_text_and_keeps_its_values():
    translated_words = french()
    assert len(translated_words) > 50
    for english, said in translated_words.items():
        assert said, english
        assert set(SLOT.findall(said)) == set(SLOT.findall(english)), english


@pytest.mark.parametrize(
    ("accept", "code"),
    [
        (None, "en"),
        ("", "en"),
        ("fr", "fr"),
        ("fr-CA,fr;q=0.9,en;q=0.8", "fr"),
        ("de-DE,de;q=0.9,fr;q=0.8,en;q=0.7", "fr"),
        ("en-GB,fr;q=0.9", "en"),
        ("en;q=0.5,fr;q=0.9", "fr"),
        ("fr;q=0,de", "en"),
        ("*", "en"),
        ("fr;q=nonsense,it", "en"),
    ],
)
def test_the_language_is_the_first_wanted_that_has_words(accept, code):
    assert language(accept) == code


def test_a_detail_with_values_is_matched_against_its_template():
    assert translated("seat 2 is taken", "fr") == "la place 2 est prise"
    assert translated("seat 2 is taken by Ada", "fr") == "la place 2 est prise par Ada"
    assert translated("there is no table AB-12", "fr") == "il n’y a pas de table AB-12"
    assert translated("Not allowed by the rules", "fr") == "Interdit par les règles"
    # A value that is words is translated by its placeholder's entries; a name never is.
    assert (
        translated("only the host may start the game", "fr")
        == "seul l’hôte peut commencer la partie"
    )
    assert translated("you must follow hearts", "fr") == "vous devez fournir à cœur"
    assert translated("seat 1 is taken by clubs", "fr") == "la place 1 est prise par clubs"
    # Not in the catalogue (the whole, or a value that is words), or asked in English: as it is.
    assert translated("only the host may dance", "fr") == "only the host may dance"
    assert translated("seat 2 is taken", "en") == "seat 2 is taken"
    assert translated("something nobody wrote down", "fr") == "something nobody wrote down"


def test_a_refusal_is_answered_in_the_language_asked_for(api):
    ada = api.player("Ada")
    code = ada.ok("POST", "/api/tables", json={})["code"]
    bo = api.player("Bo")

    taken = bo.request("POST", f"/api/tables/{code}/seats/0", headers={"Accept-Language": "fr"})
    assert taken.status_code == 409
    assert taken.headers["content-language"] == "fr"
    assert "Accept-Language" in taken.headers["vary"]
    assert taken.json()["title"] == "Conflit"
    assert taken.json()["detail"] == "la place 0 est prise"

    ada.ok("POST", f"/api/tables/{code}/lock")
    locked = bo.request(
        "POST", f"/api/tables/{code}/seats/1", headers={"Accept-Language": "de, fr;q=0.5"}
    )
    assert locked.status_code == 403
    assert (
        locked.json()["detail"]
        == "la table est verrouillée : personne de nouveau ne peut s’y asseoir"
    )

    # English by default, and for whoever wants English first.
    for headers in ({}, {"Accept-Language": "en-US, fr;q=0.9"}):
        again = bo.request("POST", f"/api/tables/{code}/seats/1", headers=headers)
        assert again.headers["content-language"] == "en"
        assert again.json()["title"] == "Not yours to do"
        assert again.json()["detail"] == "the table is locked: nobody new may sit down"

    missing = api.http.get("/api/tables/NOPE", headers={"Accept-Language": "fr"})
    assert missing.status_code == 404
    assert missing.json()["detail"] == "il n’y a pas de table NOPE"
    assert missing.json()["field"] == "code"


CLAIM = "the rest of the tricks aren't certain from your cards: {} could still take one from you"


@pytest.mark.parametrize(
    ("english", "french_words"),
    [
        (
            CLAIM.format(words_for([2, 8, 21], 1, "or")),
            "les plis restants ne sont pas assurés par vos cartes : le valet de pique, le valet "
            "de droite (le valet de cœur) ou la dame de trèfle pourrait encore vous en prendre un",
        ),
        (
            CLAIM.format(card_words(14, 1)),
            "les plis restants ne sont pas assurés par vos cartes : le valet de gauche (le valet "
            "de carreau) pourrait encore vous en prendre un",
        ),
        (
            "too many moves from you (at most 25 per 1 second); try again in 1 second",
            "trop de coups de votre part (au plus 25 par seconde) ; réessayez dans 1 seconde",
        ),
        (
            "too many host actions from you (at most 5 per 10 second); try again in 7 seconds",
            "trop d’actions d’hôte de votre part (au plus 5 par 10 secondes) ; réessayez dans 7 "
            "secondes",
        ),
        (
            "too many sign-ins from your address at once (at most 4); try again in 2 seconds",
            "trop de connexions simultanées depuis votre adresse (au plus 4) ; réessayez dans 2 "
            "secondes",
        ),
        # The reading that accounts for more: the field isn't "settings.x; allowed: ...".
        (
            "there is no field settings.x; allowed: alone, points",
            "il n’y a pas de champ settings.x ; valeurs permises : alone, points",
        ),
        ("it's seat 3's turn to bid", "c’est à la place 3 d’annoncer"),
        ("it's Ada's turn to discard", "c’est à Ada d’écarter"),
        ("the table was closed by the house: abuse", "la table a été fermée par la maison : abuse"),
        (
            "the game is over; there is no need to ban a player",
            "la partie est finie ; exclure un joueur ne sert plus à rien",
        ),
        # A part the catalogue hasn't (advice a new zxcvbn may give): all of it in English.
        (
            "password: that password is too easy to guess. Nobody has said this yet.",
            "password: that password is too easy to guess. Nobody has said this yet.",
        ),
    ],
)
def test_a_detail_made_of_parts_is_said_whole_or_not_at_all(english, french_words):
    assert translated(english, "fr") == french_words


def test_a_weak_passwords_advice_is_said_sentence_by_sentence():
    with pytest.raises(WeakPassword) as weak:
        passwords.check("ada", "Ada")
    assert translated(f"password: {weak.value}", "fr") == (
        "mot de passe : ce mot de passe est trop facile à deviner. Il contient votre nom, que "
        "tout le monde voit à votre table. Ajoutez un mot ou deux. Les mots peu courants valent "
        "mieux."
    )


# English that a French detail has no business holding (values, codes and names aside).
ENGLISH = re.compile(
    r"\b(the|you|your|is|isn't|are|must|may|can't|already|too|many|expected|got|invalid|"
    r"again|there|allowed|required|seconds?|per|most|nothing|turn|player|body|field|of|and|"
    r"with|from|only)\b"
)


def test_what_a_player_or_client_meets_is_french_through(api):
    """Refusals met over HTTP with `Accept-Language: fr`, from the page's forms to a client's
    malformed body: said in French, none of the English left."""
    fr = {"Accept-Language": "fr"}
    ada, bo = api.player("Ada"), api.player("Bo")
    code = ada.ok("POST", "/api/tables", json={})["code"]
    answers: list[tuple[httpx.Response, str | None]] = []

    def said(response: httpx.Response, detail: str | None = None) -> None:
        answers.append((response, detail))

    def ask(person, method: str, path: str, detail: str | None = None, **kw) -> None:
        said(person.request(method, path, headers={**fr, **kw.pop("headers", {})}, **kw), detail)

    # Opening a table with house rules, a seat or a body that won't do.
    ask(
        ada,
        "POST",
        "/api/tables",
        "settings.alone : valeur non permise 'maybe' ; valeurs permises : on, off",
        json={"settings": {"alone": "maybe"}},
    )
    ask(ada, "POST", "/api/tables", None, json={"settings": {"nope": "on"}})
    ask(ada, "POST", "/api/tables", "seat : `int` attendu, `str` reçu", json={"seat": "1"})
    ask(ada, "POST", "/api/tables", None, json={"seat": 9})
    ask(ada, "POST", "/api/tables", None, json={"code": "a b"})
    ask(
        ada,
        "POST",
        "/api/tables",
        "le corps de la requête : `object` attendu, `array` reçu",
        json=[1],
    )
    json_body = {"Content-Type": "application/json"}
    ask(
        ada,
        "POST",
        "/api/tables",
        "le corps de la requête n’est pas du JSON valide (JSON mal "
        "formé : les clés d’un objet doivent être des chaînes (octet 1))",
        content=b"{x}",
        headers=json_body,
    )
    ask(ada, "POST", "/api/tables", None, content=b'{"a":"\\u0001"}', headers=json_body)
    ask(
        ada,
        "POST",
        "/api/tables",
        None,
        content=b"a=b",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    ask(ada, "PATCH", f"/api/tables/{code}/settings", None, json={"points": "ten"})
    ask(ada, "GET", "/api/nowhere", "il n’y a rien à cette adresse")
    ask(ada, "DELETE", "/api/tables", "cette adresse n’accepte pas cette méthode")
    ask(bo, "POST", f"/api/tables/{code}/seats/7", "seat : `int` <= 3 attendu")
    # The host's refusals, bans and partners.
    ada.ok("PUT", f"/api/tables/{code}/seats/2/bot", json={"level": "easy"})
    ask(
        ada,
        "POST",
        f"/api/tables/{code}/partners",
        "ce bot est déjà votre partenaire",
        json={"seat": 2},
    )
    ada.ok("POST", f"/api/tables/{code}/bans", json={"player": bo.id})
    ask(ada, "POST", f"/api/tables/{code}/bans", None, json={"player": bo.id})
    ask(bo, "POST", f"/api/tables/{code}/seats/1", None)
    ask(bo, "GET", f"/api/tables/{code}", None)
    ask(ada, "POST", f"/api/tables/{code}/mutes", None, json={"player": "nobody"})
    # Chat past its rate, a move out of turn, a hint not asked for.
    for _ in range(6):
        answer = ada.request("POST", f"/api/tables/{code}/chat", json={"text": "hi"}, headers=fr)
    assert answer.status_code == 429
    assert re.fullmatch(
        r"trop de messages de votre part \(au plus 5 par 10 secondes\) ; "
        r"réessayez dans \d+ secondes?",
        answer.json()["detail"],
    )
    said(answer)
    started = ada.ok("POST", "/api/tables", json={"bots": "easy"})["code"]
    ada.ok("POST", f"/api/tables/{started}/start")
    ask(ada, "POST", f"/api/tables/{started}/moves", None, json={"type": "play", "card": "AS"})
    ask(bo, "POST", f"/api/tables/{started}/hint", None)
    # Signing up and in.
    assert api.http.post("/api/players", json={"name": "Zed", "password": PASSWORD}).is_success
    for body in ({"name": "x" * 40}, {"name": "Cy", "password": "password"}, {"name": "Zed"}):
        api.http.cookies.clear()
        said(api.http.post("/api/players", json={"password": PASSWORD, **body}, headers=fr))
    said(api.http.get("/api/players/me", headers={"Authorization": "Bearer nope", **fr}))
    said(api.http.get("/api/players/me", headers={"Authorization": "Basic x", **fr}))

    for answer, detail in answers:
        body = answer.json()
        assert answer.status_code >= 400, body
        assert answer.headers["content-language"] == "fr", body
        assert not ENGLISH.search(body["title"]), body
        assert not ENGLISH.search(body["detail"]), body
        if detail is not None:
            assert body["detail"] == detail
