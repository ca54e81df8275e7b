"""The web table: the static page, its styles and ES modules, served at `/`.

Plain files with no build step. The page is one document; tables are addressed by the hash
(`/#/t/CODE`), and `/t/CODE` forwards there so a link typed by hand works too.
"""

from __future__ import annotations

from pathlib import Path

import msgspec
from litestar import Router, get
from litestar.datastructures import CacheControlHeader
from litestar.params import FromPath
from litestar.response import Redirect
from litestar.static_files import create_static_files_router

from domain.house_rules import DECLARED
from services.api.bodies import table_code

STATIC = Path(__file__).parent / "static"


@get("/t/{code:str}", include_in_schema=False)
async def table_link(code: FromPath[str]) -> Redirect:
    """A shareable path for a table: the page itself lives at `/`."""
    return Redirect(f"/#/t/{table_code(code)}")


HOUSE_RULES_MODULE = (
    "// Made by services/api/web.py from domain/house_rules.py, where each rule is declared once.\n"
    f"export const DECLARED = {msgspec.json.encode(DECLARED).decode()};\n"
)


@get(
    "/js/house-rules.js",
    include_in_schema=False,
    media_type="text/javascript",
    cache_control=CacheControlHeader(no_cache=True),
)
async def house_rules_module() -> str:
    """The house rules as the domain declares them (key, values, default, words), as an ES
    module the page imports like its own: the page never keeps a copy to drift from them."""
    return HOUSE_RULES_MODULE


def _router() -> Router:
    """`/` and every file under `static/`; the API's own routes are more specific and win."""
    files = create_static_files_router(
        path="/",
        directories=[STATIC],
        html_mode=True,
        name="web",
        # Always revalidate: a new deploy must not leave an old module beside a new one.
        cache_control=CacheControlHeader(no_cache=True),
    )
    return Router(
        path="/", route_handlers=[table_link, house_rules_module, files], include_in_schema=False
    )


web = _router()
