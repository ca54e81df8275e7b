"""The web layer is handed its collaborators as litestar dependencies (services/api/app.py
provides them), never reaching for them through the app's state: a handler names what it
uses, typed, and the composition root is the one place that builds them."""

from __future__ import annotations

from pathlib import Path

import services.api
from services.api.app import create_app

API = Path(services.api.__file__).parent


def test_only_the_composition_root_reads_the_services() -> None:
    readers = [
        path.name
        for path in sorted(API.glob("*.py"))
        if path.name != "app.py" and "state.services" in path.read_text()
    ]
    assert readers == []


def test_no_dependency_shows_in_the_contract() -> None:
    """A parameter of the contract named as a dependency would be taken for it (or the other
    way about): the collaborators stay out of what callers send."""
    app = create_app("postgresql://nobody@127.0.0.1:1/none")
    named = set(app.dependencies)
    document = app.openapi_schema
    sent = {
        parameter.name
        for item in (document.paths or {}).values()
        for method in ("get", "put", "post", "delete", "patch")
        for parameter in (getattr(item, method, None) and getattr(item, method).parameters) or []
    }
    assert named
    assert not named & sent
