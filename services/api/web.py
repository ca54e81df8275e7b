"""The web table: the static page, its styles and ES modules, served at `/`.

Plain files with no build step. The page is one document; tables are addressed by the hash
(`/#/t/CODE`), and `/t/CODE` forwards there so a link typed by hand works too.
"""

from __future__ import annotations

from pathlib import Path

from litestar import Router, get
from litestar.datastructures import CacheControlHeader
from litestar.params import FromPath
from litestar.response import Redirect
from litestar.static_files import create_static_files_router

from services.api.bodies import table_code

STATIC = Path(__file__).parent / "static"


@get("/t/{code:str}", include_in_schema=False)
async def table_link(code: FromPath[str]) -> Redirect:
    """A shareable path for a table: the page itself lives at `/`."""
    return Redirect(f"/#/t/{table_code(code)}")


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
    return Router(path="/", route_handlers=[table_link, files], include_in_schema=False)


web = _router()
