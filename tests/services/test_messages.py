"""The page's words go through one catalogue: the template holds every `t('...')` of the page,
the French catalogue translates them (placeholders kept, every plural form), a language is
offered only when the whole page is in it, and the server hands the page a language's catalogue
as cacheable JSON, with which plural form each count takes."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from services.api import messages
from services.api.messages import LOCALES, TEMPLATE, UNCONVERTED, catalogues

PAGE = Path(messages.__file__).parent / "static" / "js"
FRENCH = LOCALES / "fr" / "LC_MESSAGES" / "messages.po"
PLACEHOLDER = re.compile(r"\{(\w+)\}")
COMMENTS = re.compile(r"/\*.*?\*/|^\s*//.*$", re.DOTALL | re.MULTILINE)
TEMPLATE_LITERAL = re.compile(r"`[^`]*`")
KEYWORD = re.compile(r"\b(?:t|tc|tn|tParts)\('")
# Modules with no words of their own to show: nothing for the catalogue.
WORDLESS = {
    *(
        "banners.js",
        "deals.js",
        "early.js",
        "handorder.js",
        "heads.js",
        "i18n.js",
        "keys.js",
        "main.js",
    ),
    *("motion.js", "reorder.js", "seed.js", "stream.js"),
}


def ids(path: Path) -> set[str]:
    with path.open("rb") as file:
        return {(m.context, str(m.id)) for m in read_po(file) if m.id}


def french() -> dict[str, list[str]]:
    """Each English text and its French: one form, or for a text said by count (its singular
    and plural as one key, "singular|plural") each of French's forms."""
    with FRENCH.open("rb") as file:
        return {
            "|".join(m.id) if m.pluralizable else str(m.id): (
                list(m.string) if m.pluralizable else [str(m.string)]
            )
            for m in read_po(file)
            if m.id and not m.context
        }


def test_the_template_holds_every_word_of_the_page(tmp_path):
    """Re-extract the page's words as messages.py says to: the template in the repo must be the
    same, so no word reaches the page without going through the catalogue."""
    fresh = tmp_path / "messages.pot"
    root = Path(messages.__file__).parents[2]
    subprocess.run(
        [
            *(sys.executable, "-m", "babel.messages.frontend", "extract"),
            *("-F", str(LOCALES / "babel.cfg"), "--no-default-keywords"),
            *("-k", "t", "-k", "tc:1c,2", "-k", "tn:1,2", "-k", "tParts", "-k", "N_"),
            *("--omit-header", "-o", str(fresh), "."),
        ],
        cwd=root,
        check=True,
        capture_output=True,
    )
    missing = ids(fresh) - ids(TEMPLATE)
    stale = ids(TEMPLATE) - ids(fresh)
    assert not missing and not stale, (
        f"run the extract and update of services/api/messages.py: "
        f"new words {sorted(missing)}, gone words {sorted(stale)}"
    )


def test_every_converted_module_takes_its_words_from_the_catalogue():
    """A module left off UNCONVERTED says its words are all in the catalogue: it imports t()."""
    modules = {path.name for path in PAGE.glob("*.js")}
    assert set(UNCONVERTED) <= modules, "UNCONVERTED names a module the page doesn't have"
    for name in sorted(modules - set(UNCONVERTED) - WORDLESS):
        source = (PAGE / name).read_text(encoding="utf-8")
        assert "from './i18n.js'" in source, f"{name} is counted converted but doesn't use t()"


def test_no_word_hides_where_the_extractor_cannot_see_it():
    """Babel's JavaScript extractor reads a template literal as one token: a t('...') inside
    one would never reach the catalogue."""
    for path in sorted(PAGE.glob("*.js")):
        code = COMMENTS.sub("", path.read_text(encoding="utf-8"))
        for literal in TEMPLATE_LITERAL.findall(code):
            assert not KEYWORD.search(literal), f"{path.name}: a word in {literal!r}"


def test_french_keeps_every_placeholder_and_translates_the_lobby():
    translated = french()
    for english, forms in translated.items():
        for said in forms:
            assert said, english
            assert set(PLACEHOLDER.findall(said)) == set(PLACEHOLDER.findall(english)), english
    assert translated["Open a table"] == ["Ouvrir une table"]
    assert translated["{name}’s table"] == ["La table de {name}"]
    assert translated["The dealer must call trump."] == ["Le donneur doit choisir l’atout."]
    assert translated["Hand by hand: {count} deal|Hand by hand: {count} deals"] == [
        "Main par main : {count} donne",
        "Main par main : {count} de donnes",
        "Main par main : {count} donnes",
    ]


def test_a_language_is_offered_only_when_the_whole_page_is_in_it(monkeypatch, tmp_path):
    """The gate: French is offered to players only while every word is translated and every
    module of the page goes through the catalogue."""
    catalogues.cache_clear()
    try:
        assert not UNCONVERTED, "every module of the page takes its words from the catalogue"
        fr = catalogues()["fr"].language
        assert fr.translated == 1.0, "every word of the page is translated into French"
        assert fr.offered

        # A module still in English would be shown beside the French: French is held back.
        monkeypatch.setattr(messages, "UNCONVERTED", ("talk.js",))
        catalogues.cache_clear()
        assert catalogues()["fr"].language.translated == 1.0
        assert not catalogues()["fr"].language.offered
        monkeypatch.setattr(messages, "UNCONVERTED", ())

        # One word untranslated: the share drops below 1 and French is no longer offered.
        half = tmp_path / "locales"
        (half / "fr" / "LC_MESSAGES").mkdir(parents=True)
        (half / "messages.pot").write_bytes(TEMPLATE.read_bytes())
        po = FRENCH.read_text(encoding="utf-8")
        po = po.replace('msgstr "Ouvrir une table"', 'msgstr ""')
        (half / "fr" / "LC_MESSAGES" / "messages.po").write_text(po, encoding="utf-8")
        monkeypatch.setattr(messages, "LOCALES", half)
        monkeypatch.setattr(messages, "TEMPLATE", half / "messages.pot")
        catalogues.cache_clear()
        fr = catalogues()["fr"]
        assert 0.9 < fr.language.translated < 1.0
        assert not fr.language.offered
        assert "Open a table" not in fr.messages
    finally:
        catalogues.cache_clear()


def test_the_api_serves_a_catalogue_with_an_etag(api):
    listed = api.http.get("/api/messages")
    assert listed.status_code == 200
    languages = {lang["code"]: lang for lang in listed.json()["languages"]}
    assert languages["en"] == {"code": "en", "name": "English", "translated": 1.0, "offered": True}
    assert languages["fr"]["name"] == "Français"
    assert languages["fr"]["offered"] is True

    response = api.http.get("/api/messages/fr")
    assert response.status_code == 200
    body = response.json()
    assert body["language"]["code"] == "fr"
    assert body["messages"]["Open a table"] == "Ouvrir une table"
    # One English word, two meanings: told apart by their context (i18n.js, tc()).
    assert body["messages"]["bower\x04Left"] == "Gauche"
    assert body["messages"]["seat\x04Left"] == "Parti"
    # A text said by count: French's forms, and which form each of its plural categories takes
    # (CLDR's, as the browser's Intl.PluralRules names them): 0 and 1 "one", a million "many".
    assert body["messages"]["Hand by hand: {count} deal"] == [
        "Main par main : {count} donne",
        "Main par main : {count} de donnes",
        "Main par main : {count} donnes",
    ]
    assert body["plural"] == {"one": 0, "many": 1, "other": 2}
    assert response.headers["cache-control"] == "no-cache"
    tag = response.headers["etag"]
    again = api.http.get("/api/messages/fr", headers={"If-None-Match": tag})
    assert again.status_code == 304
    assert again.headers["etag"] == tag

    english = api.http.get("/api/messages/en").json()
    assert english["messages"] == {}
    assert english["plural"] == {}


@pytest.mark.parametrize("language", ["de", "xx", "fr-FR", "EN"])
def test_an_unknown_language_names_the_ones_there_are(api, language):
    response = api.http.get(f"/api/messages/{language}")
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("application/problem+json")
    problem = response.json()
    assert problem["field"] == "language"
    assert problem["allowed"] == ["en", "fr"]
