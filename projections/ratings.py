"""Ratings (docs/ratings.md): a finished game is two sides of two, rated with openskill's
Plackett-Luce model on a scale where a new player is 1500 ± 350, with the bots as fixed anchors.

Pure. A game's facts are a fold of the few events that bear on its rating (`RATED_BY`); rating
them takes the current ratings of the people who sat and gives each seat's change and each
player's counts. `infra/ratings.py` keeps the results, following the log.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from itertools import repeat
from statistics import NormalDist
from typing import Literal

import msgspec
from msgspec.structs import replace
from openskill.models import PlackettLuce

from domain import events as ev
from domain.events import Level

MU = 1500.0
SIGMA = 350.0
# openskill's own proportions (beta = sigma / 2, tau = sigma / 100) on our scale. Tau is set on
# the model: a tau of 0 passed to one call is taken as "not given".
BETA = SIGMA / 2
TAU = SIGMA / 100
BOT_SIGMA = 1.0  # certain, not exactly: openskill divides by a side's variance
# A person a bot covers for longer than this at a stretch has left the game, even if back
# afterwards (docs/ratings.md "Integrity"): World of Card Games' three minutes to return.
GRACE_SECONDS = 180.0
Z = 3  # the displayed rating is mu - Z sigma: 99.7% sure the player is at least that good
MODEL = PlackettLuce(mu=MU, sigma=SIGMA, beta=BETA, tau=TAU)

# The share of games a pair of bots of each level won against a pair of medium bots, from
# `euchre tournament LEVEL medium --games 2000` (docs/ratings.md "Anchors"). Medium is 1500 by
# definition.
AGAINST_MEDIUM: dict[Level, float] = {
    "easy": 134 / 2000,
    "hard": 1187 / 2000,
    "expert": 1258 / 2000,
}


class Rating(msgspec.Struct, frozen=True):
    mu: float
    sigma: float

    @property
    def display(self) -> int:
        return max(0, round(self.mu - Z * self.sigma))


NEW = Rating(MU, SIGMA)


def gap(share: float) -> float:
    """How far above its opponents a level sits for the model to give its pair `share` of the
    games: the inverse of openskill's win prediction for two certain pairs."""
    spread = math.sqrt(2 * BETA**2 + 4 * BOT_SIGMA**2)
    return spread * NormalDist().inv_cdf(share) / 2


ANCHORS: dict[Level, Rating] = {
    "medium": Rating(MU, BOT_SIGMA),
    **{level: Rating(MU + gap(share), BOT_SIGMA) for level, share in AGAINST_MEDIUM.items()},
}


class Counts(msgspec.Struct, frozen=True):
    """Hands a person played themselves (not while a bot covered them)."""

    alone_made: int = 0
    marches: int = 0
    euchres_taken: int = 0
    euchred: int = 0


class Sitter(msgspec.Struct, frozen=True):
    """Who sits in a seat: a person (`player`), or a bot seated as one (`bot`)."""

    player: str | None = None
    name: str | None = None
    registered: bool = False
    bot: Level | None = None
    away: bool = False  # a bot covers the person now
    away_since: float = 0.0  # when the bot began to, in the log's seconds
    left: bool = False  # covered once for longer than the grace: a leave, even if back
    banned: bool = False
    own: int = 0  # hands the person was in their seat at the end of
    by_bot: int = 0  # hands a bot covering them finished
    hinted: bool = False  # shown the expert's move at least once (domain/hint.py)
    counts: Counts = Counts()

    @property
    def carried(self) -> bool:
        """A bot finished most of the seat's hands: a win isn't the person's."""
        return self.by_bot > self.own


class Game(msgspec.Struct, frozen=True):
    code: str
    bots: Level
    seats: tuple[Sitter, ...] = (Sitter(), Sitter(), Sitter(), Sitter())
    started: bool = False
    winner: int | None = None
    score: tuple[int, int] = (0, 0)
    stalled: int | None = None  # the seat that stalled the game, which the service ended
    target: int = 10  # the points that win it (house rule `points`)


# Fewer points than this to win and a game is too short to rate: the fewer the hands, the more
# the cards decide it, and a weaker side's best chance (and a rating's cheapest climb) is a
# string of short games against stronger ones.
RATED_FROM = 10


# The events a game's rating depends on, by the name the log stores them under.
RATED_BY = frozenset(
    cls.__name__
    for cls in (
        ev.TableOpened,
        ev.SettingsChanged,
        ev.SeatTaken,
        ev.SeatLeft,
        ev.BotSeated,
        ev.BotRemoved,
        ev.SeatsSwapped,
        ev.PlayerBanned,
        ev.StartCalled,
        ev.GameStarted,
        ev.PlayerWentAway,
        ev.PlayerCameBack,
        ev.HandScored,
        ev.HintGiven,
        ev.GameAbandoned,
        ev.GameWon,
    )
)


def _seat(game: Game, n: int, sitter: Sitter) -> Game:
    seats = list(game.seats)
    seats[n] = sitter
    return replace(game, seats=tuple(seats))


def _away(game: Game, n: int, at: float, banned: bool = False) -> Game:
    s = game.seats[n]
    since = s.away_since if s.away else at
    return _seat(game, n, replace(s, away=True, away_since=since, banned=s.banned or banned))


def _back(game: Game, n: int, at: float) -> Game:
    """The person is back: a leave, if the bot covered them for longer than the grace."""
    s = game.seats[n]
    late = s.away and at - s.away_since > GRACE_SECONDS
    return _seat(game, n, replace(s, away=False, left=s.left or late))


def _counted(c: Counts, n: int, e: ev.HandScored) -> Counts:
    ours = e.team == n % 2
    return Counts(
        alone_made=c.alone_made + (e.alone == n and ours),
        marches=c.marches + (e.how == "march" and ours),
        euchres_taken=c.euchres_taken + (e.how == "euchre" and ours),
        euchred=c.euchred + (e.how == "euchre" and not ours),
    )


def _scored(s: Sitter, n: int, e: ev.HandScored) -> Sitter:
    """A hand ended: the person's own if they are in their seat, else the covering bot's."""
    if s.player is None:
        return s
    if s.away:
        return replace(s, by_bot=s.by_bot + 1)
    return replace(s, own=s.own + 1, counts=_counted(s.counts, n, e))


def next_game(game: Game | None, event: ev.Event, at: float = 0.0) -> Game | None:
    """The game's facts after one more of its events, logged at `at` (seconds; None before
    its table opened)."""
    if isinstance(event, ev.TableOpened):
        return Game(code=event.code, bots=event.bots, target=event.settings.points)
    if game is None:
        return None
    match event:
        case ev.SettingsChanged(settings=settings):
            return replace(game, target=settings.points)
        case ev.SeatTaken(seat=n, player=player, name=name, registered=registered):
            if game.started:  # only a person back in their own seat sits down during a game
                return _back(game, n, at)
            return _seat(game, n, Sitter(player=player, name=name, registered=registered))
        case ev.SeatLeft(seat=n):
            return _away(game, n, at) if game.started else _seat(game, n, Sitter())
        case ev.BotSeated(seat=n, level=level):
            return _seat(game, n, Sitter(bot=level))
        case ev.BotRemoved(seat=n):
            return _seat(game, n, Sitter())
        case ev.SeatsSwapped(seats=[a, b]):
            first, second = game.seats[a], game.seats[b]
            return _seat(_seat(game, a, second), b, first)
        case ev.PlayerBanned(seat=int(n)):
            if game.started:
                return _away(game, n, at, banned=True)
            return _seat(game, n, Sitter(bot=game.bots))
        case ev.StartCalled() | ev.GameStarted():
            # From the host's start: one who leaves while the seeds are asked for leaves a
            # game under way, as the rules have it (domain/reveal.py).
            return replace(game, started=True)
        case ev.PlayerWentAway(seat=n):
            return _away(game, n, at)
        case ev.PlayerCameBack(seat=n):
            return _back(game, n, at)
        case ev.HandScored():
            return replace(
                game, seats=tuple(_scored(s, n, event) for n, s in enumerate(game.seats))
            )
        case ev.HintGiven(seat=n):
            return _seat(game, n, replace(game.seats[n], hinted=True))
        case ev.GameAbandoned(seat=n):
            return replace(game, stalled=n)
        case ev.GameWon(team=team, score=[us, them]):
            return replace(game, winner=team, score=(us, them))
    return game


def game_of(events: Iterable[ev.Event], times: Iterable[float] | None = None) -> Game | None:
    """The fold of a game's rating events; `times`: when each was logged, in seconds (without
    them, every absence is taken as shorter than the grace)."""
    game: Game | None = None
    for e, at in zip(events, repeat(0.0) if times is None else times, strict=False):
        game = next_game(game, e, at)
    return game


SeatStatus = Literal[
    "rated", "banned", "left", "stalled", "covered", "hinted", "abandoned", "short", "guest", "bot"
]
# The statuses of seats whose rating moves, and of those rated as having lost whatever the score.
RATED: frozenset[SeatStatus] = frozenset({"rated", "banned", "left", "stalled"})
CHARGED: frozenset[SeatStatus] = frozenset({"left", "stalled"})


def status_of(game: Game, n: int) -> SeatStatus:
    """Why seat `n` is rated or not (docs/ratings.md "Who is rated").

    A person a bot covered at the end, or once for longer than the grace, left the game and is
    rated as having lost it. One the host banned is rated as the bot played it out: a ban can
    neither rescue a partner's loss nor charge a stranger a leave. A win goes to nobody whose
    seat a bot played mostly, nor to anyone who took a hint: the expert's help is a bot's
    play too, but a hinted loss counts, so a hint can't dodge one. In a game the service
    ended as stalled, only the staller and the leavers are rated, as having lost. A game to
    fewer than RATED_FROM points rates nobody."""
    s = game.seats[n]
    if s.player is None:
        return "bot"
    if not s.registered:
        return "guest"
    if game.target < RATED_FROM:
        return "short"
    left = (s.away or s.left) and not s.banned
    if game.stalled is not None:
        return "stalled" if n == game.stalled else "left" if left else "abandoned"
    if left:
        return "left"
    if n % 2 == game.winner and s.carried:
        return "covered"
    if n % 2 == game.winner and s.hinted:
        return "hinted"
    return "banned" if s.banned else "rated"


class SeatResult(msgspec.Struct, frozen=True):
    seat: int
    player: str | None
    name: str | None
    status: SeatStatus
    won: bool  # credited with a win: never for a leaver, a staller, a seat a bot played or
    # one that took a hint
    before: Rating  # what the seat counted at
    after: Rating | None  # None: not rated
    counts: Counts


def counted_at(s: Sitter, known: Mapping[str, Rating]) -> Rating:
    if s.player is None:
        return ANCHORS[s.bot or "medium"]
    if not s.registered:
        return NEW
    return known.get(s.player, NEW)


def _rated(before: list[Rating], winner: int) -> list[Rating]:
    """Each seat's rating after its side (seat % 2) won or lost."""
    sides = [[MODEL.rating(r.mu, r.sigma) for r in before[side::2]] for side in (0, 1)]
    ranks = [1.0 if side == winner else 2.0 for side in (0, 1)]
    out = MODEL.rate(sides, ranks=ranks)
    return [Rating(out[n % 2][n // 2].mu, out[n % 2][n // 2].sigma) for n in range(4)]


def rate(game: Game, known: Mapping[str, Rating]) -> list[SeatResult] | None:
    """Every seat's result of a game won, given the current ratings of registered players
    (`known`; anyone missing is new); None if the game isn't rated: not won by the rules, or
    nobody registered is rated in it. A hinted win and a short game are kept seat by seat
    even with nobody rated, so the player is told why it didn't count rather than that nobody
    was registered."""
    if game.winner is None:
        return None
    statuses = [status_of(game, n) for n in range(4)]
    if not (RATED | {"hinted", "short"}) & set(statuses):
        return None
    before = [counted_at(s, known) for s in game.seats]
    played = _rated(before, game.winner)
    charged: list[Rating] | None = None
    out = []
    for n, (s, status) in enumerate(zip(game.seats, statuses, strict=True)):
        ours = n % 2 == game.winner
        won = ours and status in ("rated", "banned")
        after: Rating | None = None
        if status in CHARGED and ours:
            # Rated as the loser of the same game: their partner's result stands as it was.
            charged = charged or _rated(before, 1 - game.winner)
            after = charged[n]
        elif status in RATED:
            after = played[n]
        out.append(SeatResult(n, s.player, s.name, status, won, before[n], after, s.counts))
    return out


def versus(game: Game, n: int) -> Level | None:
    """The bots' level, if seat `n` played against two bots of one level: a game for its
    record against the computer."""
    them = [game.seats[(n + 1) % 4], game.seats[(n + 3) % 4]]
    levels = {s.bot for s in them if s.player is None}
    if len(levels) == 1 and all(s.player is None for s in them):
        return levels.pop()
    return None


class Record(msgspec.Struct, frozen=True):
    """A player's games against two bots of one level, as the table's record shows them."""

    won: int = 0
    lost: int = 0
    alone: int = 0  # hands they went alone in and made
    euchres: int = 0  # euchres their side dealt
    marches: int = 0


class Totals(msgspec.Struct, frozen=True):
    games: int = 0
    won: int = 0
    lost: int = 0
    alone_made: int = 0
    marches: int = 0
    euchres_taken: int = 0
    euchred: int = 0


class Stats(msgspec.Struct, frozen=True):
    totals: Totals = Totals()
    records: dict[Level, Record] = {}


def counted(stats: Stats, result: SeatResult, vs: Level | None) -> Stats:
    """A player's stats with one more rated game."""
    c, t = result.counts, stats.totals
    records = dict(stats.records)
    if vs is not None:
        r = records.get(vs, Record())
        records[vs] = Record(
            won=r.won + result.won,
            lost=r.lost + (not result.won),
            alone=r.alone + c.alone_made,
            euchres=r.euchres + c.euchres_taken,
            marches=r.marches + c.marches,
        )
    totals = Totals(
        games=t.games + 1,
        won=t.won + result.won,
        lost=t.lost + (not result.won),
        alone_made=t.alone_made + c.alone_made,
        marches=t.marches + c.marches,
        euchres_taken=t.euchres_taken + c.euchres_taken,
        euchred=t.euchred + c.euchred,
    )
    return Stats(totals=totals, records=records)
