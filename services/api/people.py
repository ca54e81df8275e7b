"""Players: becoming a guest or registering a name, signing in, looking a player up with
their rating and record, and the leaderboard."""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, Request, Response, get, post
from litestar.di import NamedDependency, Provide
from litestar.params import FromPath, JSONBody, Parameter

from infra.fairness import Busy
from infra.names import BadName
from infra.passwords import WeakPassword
from infra.players import BadLogin, Banned, NameTaken, Player, Players
from infra.ratings import Played, Ratings
from projections.ratings import NEW, Stats
from services.api import auth
from services.api.auth import banned, current_player, token_cookie
from services.api.bodies import (
    Leaderboard,
    Login,
    Me,
    NewPlayer,
    Profile,
    Ranked,
    RatingBody,
    RatingPoint,
    RecentGame,
    SignedIn,
)
from services.api.contract import ALWAYS, OPTIONAL, SIGNED_IN, problems
from services.api.limits import _address, limited
from services.api.problems import Problem

BODY = (413, 415, 422, 429)


def _busy(error: Busy) -> Problem:
    return Problem(
        429, error.detail, field=error.field, headers={"Retry-After": str(error.retry_after)}
    )


def _signed_in(request: Request, player, token: str, status: int) -> Response[SignedIn]:
    body = SignedIn(id=player.id, name=player.name, token=token)
    cookie = token_cookie(token, auth.secure(request))
    return Response(body, status_code=status, cookies=[cookie])


class PlayersController(Controller):
    path = "/api"
    tags = ["players"]

    @post(
        "/players",
        status_code=201,
        responses=problems(
            *ALWAYS,
            *BODY,
            409,
            why={
                409: "The name is taken: registered already, or a look-alike of a registered "
                "one; sign in with POST /api/sessions or pick another.",
                422: "`name` breaks the rules for names, or `password` is too short or too "
                "easy to guess.",
            },
        ),
        guards=[limited("sign_ups_per_address")],
    )
    async def create(
        self, request: Request, players: NamedDependency[Players], data: JSONBody[NewPlayer]
    ) -> Response[SignedIn]:
        """A guest, or with a password a registered, unique name. The password is 8 to 200
        characters, of any kinds, and must not be easy to guess: common and breached passwords,
        and ones built on the name, are refused (422 saying how to pick a better one)."""
        try:
            player, token = await players.create(data.name, data.password, await _address(request))
        except BadName as error:
            raise Problem(422, f"name: {error}", field="name") from None
        except WeakPassword as error:
            raise Problem(422, f"password: {error}", field="password") from None
        except Busy as error:
            raise _busy(error) from None
        except NameTaken:
            raise Problem(
                409,
                f"the name {data.name!r} is registered already; sign in with "
                "POST /api/sessions or pick another",
                field="name",
            ) from None
        return _signed_in(request, player, token, 201)

    @post(
        "/sessions",
        status_code=200,
        responses=problems(
            *ALWAYS,
            *BODY,
            401,
            403,
            why={
                401: "That name and password don't match.",
                403: "The player is banned from the site: `detail` says why.",
            },
        ),
        guards=[limited("sign_ins_per_address", "sign_ins_per_name")],
    )
    async def sign_in(
        self, request: Request, players: NamedDependency[Players], data: JSONBody[Login]
    ) -> Response[SignedIn]:
        """Sign in with a registered name's password. Password checks take turns by address:
        a few at once from one address (or for one name) at most, else 429 at once."""
        try:
            player, token = await players.login(data.name, data.password, await _address(request))
        except BadLogin:
            raise Problem(401, "that name and password don't match", field="password") from None
        except Banned as error:
            raise banned(error) from None
        except Busy as error:
            raise _busy(error) from None
        return _signed_in(request, player, token, 200)

    @post(
        "/sessions/logout",
        status_code=204,
        security=OPTIONAL,
        responses=problems(
            *ALWAYS,
            401,
            403,
            413,
            415,
            why={
                401: "The Authorization header isn't `Bearer <token>`.",
                403: "Signed in by the cookie alone, from another site's page.",
            },
        ),
    )
    async def sign_out(self, request: Request, players: NamedDependency[Players]) -> None:
        """Forget this browser's sign-in: the token stops working and the cookie is cleared.
        Signed out already (or never signed in), it clears the cookie all the same.

        Annotated None so /schema says the 204 has no body; the Response carries the cookie."""
        token = auth.token(request)
        if token is not None:
            await players.revoke(token)
        return Response(None, status_code=204, cookies=[auth.cleared_cookie(auth.secure(request))])

    @get(
        "/players/me",
        dependencies={"player": Provide(current_player)},
        security=SIGNED_IN,
        responses=problems(*ALWAYS, 401),
    )
    async def me(self, player: NamedDependency[Player], players: NamedDependency[Players]) -> Me:
        """Who the token (or the browser's cookie) belongs to: a page can't read its HttpOnly
        cookie, so this is how it learns whether it is still signed in, and as whom; and, for
        a registered player, the house rules their last table had, to open the next with."""
        rules = None
        if player.registered:
            rules = await players.house_rules(player.id)
        return Me(player.id, player.name, player.registered, house_rules=rules)

    @get(
        "/players/{player_id:str}",
        responses=problems(*ALWAYS, 404, why={404: "No player has this id."}),
    )
    async def show(
        self,
        player_id: FromPath[str],
        players: NamedDependency[Players],
        ratings: NamedDependency[Ratings],
    ) -> Profile:
        """The player, with their rating and record as the ratings worker last wrote them
        (it follows the games won, usually well within a second)."""
        player = await players.get(player_id)
        if player is None:
            raise Problem(404, f"there is no player {player_id}", field="id")
        standing = await ratings.standing(player.id) if player.registered else None
        rating = None
        if player.registered:
            rating = RatingBody.of(NEW if standing is None else standing.rating)
        stats = Stats() if standing is None else standing.stats
        return Profile(
            id=player.id,
            name=player.name,
            registered=player.registered,
            rating=rating,
            stats=stats.totals,
            records=stats.records,
            recent=[_recent(p) for p in standing.recent] if standing else [],
            history=[
                RatingPoint(at=p.at.isoformat(), display=p.after.display)
                for p in (standing.history if standing else [])
            ],
        )


def _recent(p: Played) -> RecentGame:
    return RecentGame(
        code=p.code,
        at=p.at.isoformat(),
        won=p.won,
        left=p.left,
        before=RatingBody.of(p.before),
        after=RatingBody.of(p.after),
        log=f"/api/tables/{p.code}/log",
    )


class LeaderboardController(Controller):
    path = "/api/leaderboard"
    tags = ["players"]

    @get("/", responses=problems(*ALWAYS, 422))
    async def leaderboard(
        self,
        ratings: NamedDependency[Ratings],
        limit: Annotated[int, Parameter(ge=1, le=100, description="players per page")] = 20,
        offset: Annotated[
            int, Parameter(ge=0, le=1_000_000, description="the `next` of the page before")
        ] = 0,
    ) -> Leaderboard:
        """Registered players with at least five rated games, best displayed rating first."""
        rows = await ratings.leaderboard(limit + 1, offset)
        more = len(rows) > limit
        ranked = [
            Ranked(
                rank=offset + n + 1,
                id=r.id,
                name=r.name,
                rating=RatingBody.of(r.rating),
                games=r.games,
            )
            for n, r in enumerate(rows[:limit])
        ]
        return Leaderboard(players=ranked, next=offset + limit if more else None)
