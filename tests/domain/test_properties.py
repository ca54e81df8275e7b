"""Whole random games under random house rules: the rules' invariants, checked at every step.

Hypothesis draws a seed, the house rules, people or bots, and the seed of a random move chooser
(random legal moves, with bids passed more or less often so throw-ins, loners and round two
all happen). Runs are derandomized so CI sees the same games every time.
"""

from __future__ import annotations

import random
import time

import msgspec
from euchre_kit import TOGGLE_KEYS, bot_table, human_table, play_game, random_chooser
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain import State, can, decide, deciding, fallback, fold, legal, view
from domain import commands as cmd
from domain import events as ev
from domain.cards import CODES, RANKS
from domain.errors import IllegalMove, NotYourTurn, Refused
from domain.house_rules import POINTS
from domain.shuffle import dealt
from domain.state import partner, team

SUITS = "SHDC"

games = st.fixed_dictionaries(
    {
        "seed": st.binary(min_size=32, max_size=32).map(bytes.hex),
        "settings": st.fixed_dictionaries(
            {
                **{k: st.sampled_from(("on", "off")) for k in TOGGLE_KEYS},
                "no_trump": st.sampled_from(("on", "off")),
                "points": st.sampled_from(POINTS),
            }
        ),
        "rng": st.integers(0, 2**32 - 1),
        "pass_bias": st.sampled_from((0.0, 0.4, 0.7, 0.9)),
        "humans": st.booleans(),
    }
)


def property_settings(max_examples: int) -> settings:
    return settings(
        max_examples=max_examples,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow],
    )


STATS: dict[str, int] = {}


def count(key: str, n: int = 1) -> None:
    STATS[key] = STATS.get(key, 0) + n


def start(g: dict) -> tuple[State, list[ev.Event]]:
    table = human_table if g["humans"] else bot_table
    return table(g["seed"], g["settings"])


def every_move_kind(state: State, seat: int) -> list[cmd.Command]:
    """One of each command a seat might try that isn't on its list: bids, plays, answers."""
    hand = [CODES[c] for c in range(24) if state.deal.hands[seat] >> c & 1]
    out: list[cmd.Command] = [
        cmd.Pass(seat=seat),
        cmd.Order(seat=seat),
        cmd.Order(seat=seat, alone=True),
        *(cmd.Call(seat=seat, suit=s, alone=a) for s in SUITS + "N" for a in (False, True)),
        cmd.Defend(seat=seat),
        cmd.Defend(seat=seat, alone=True),
        cmd.Farmer(seat=seat, cards=[]),
        cmd.Farmer(seat=seat, cards=hand[:3]),
        cmd.Ready(seat=seat),
        cmd.DealNow(seat=seat),
        *(cmd.Discard(seat=seat, card=c) for c in CODES),
        *(cmd.Play(seat=seat, card=c) for c in CODES),
    ]
    return out


def check_step(state: State, full: bool) -> None:
    """At a decision: fallback and every legal command are accepted; the rest is refused."""
    decisions = deciding(state)
    assert decisions, "a playing table always has someone deciding"
    deciders = {d.seat for d in decisions}
    for d in decisions:
        options = legal(state, d.seat)
        assert options, f"{d} has no legal move"
        fb = fallback(state, d.seat)
        assert fb in options
        for c in options:
            decide(state, c)  # raises if refused
        offered = can(state, d.seat)
        # A claim is offered on every lead and judged only when made (domain/claim.py).
        claims = {"claim"} if state.phase == "play" and not state.deal.trick else set()
        assert {type(c).__struct_config__.tag for c in options} | claims == set(offered)
        if "play" in offered:
            playable = offered["play"]["cards"]
            assert sorted(playable) == sorted(c.card for c in options)
            others = [code for code in CODES if code not in playable]
            # all of them in the thorough run; three (rotating with the step) otherwise
            tried = others if full else others[state.seq % 8 :: 8][:3]
            for code in tried:
                try:
                    decide(state, cmd.Play(seat=d.seat, card=code))
                except IllegalMove:
                    continue
                raise AssertionError(f"{code} was accepted but isn't in can.play")
        if full:
            for c in every_move_kind(state, d.seat):
                if c in options:
                    continue
                try:
                    decide(state, c)
                except Refused:
                    continue
                raise AssertionError(f"{c} was accepted but isn't in legal()")
        count("decisions")
    if state.phase != "scored":
        waiting = [n for n in range(4) if n not in deciders]
        for seat in waiting if full else waiting[state.seq % 3 : state.seq % 3 + 1]:
            assert legal(state, seat) == [] and can(state, seat) == {}
            for c in (cmd.Pass(seat=seat), fallback(state, decisions[0].seat)):
                c = msgspec.structs.replace(c, seat=seat)
                try:
                    decide(state, c)
                except NotYourTurn:
                    continue
                raise AssertionError(f"{c} out of turn was accepted")
    if state.deal.moves == 0 or state.phase == "scored":
        assert view(state, None).seed is None and view(state, 0).seed is None


def check_log(g: dict, final: State, log: list[ev.Event]) -> None:
    """The game's events, read as an auditor would; the game ends at the hand that first takes
    a team to the target the host chose, and at no other."""
    s = g["settings"]
    target = s["points"]
    assert fold(log) == final, "folding the log from an empty table gives the live state"
    assert final.status == "over" and isinstance(log[-1], ev.GameWon)
    assert len([e for e in log if isinstance(e, ev.GameWon)]) == 1

    score = [0, 0]
    first = next(e.first_dealer for e in log if isinstance(e, ev.GameStarted))
    deal: ev.HandDealt | None = None
    sitting = 0
    tricks: list[ev.TrickTaken] = []
    maker = alone = defender = None
    no_trump = False
    plays: list[tuple[int, str]] = []
    bids = 0
    deals = 0
    for e in log:
        if isinstance(e, ev.HandDealt):
            assert max(score) < target, "no hand is dealt after the game is won"
            deals += 1
            assert e.deal_no == deals
            assert e.dealer == (first + e.deal_no - 1) % 4
            cards = [c for h in e.hands for c in h] + [e.up, *e.kitty]
            assert sorted(cards) == sorted(CODES), "every deal is a permutation of the deck"
            assert [len(h) for h in e.hands] == [5, 5, 5, 5] and len(e.kitty) == 3
            hands, up, kitty = dealt(g["seed"], e.deal_no, e.dealer)
            assert e.hands == [[CODES[c] for c in h] for h in hands]
            assert (e.up, e.kitty) == (CODES[up], [CODES[c] for c in kitty])
            deal, sitting, tricks, bids = e, 0, [], 0
            maker = alone = defender = None
            no_trump = False
            count("deals")
        elif isinstance(e, ev.FarmerSwapped | ev.FarmerKept):
            assert s["farmers"] == "on"
            count("farmer's hands")
        elif isinstance(e, ev.BidPassed):
            bids += 1
        elif isinstance(e, ev.TrumpOrdered | ev.TrumpCalled):
            assert deal is not None
            maker, alone = e.seat, e.alone
            if isinstance(e, ev.TrumpOrdered):
                assert e.suit == deal.up[1]
                if s["canadian"] == "on" and s["alone"] == "on" and e.seat == partner(deal.dealer):
                    assert e.alone, "the Canadian loner orders alone"
            else:
                assert e.suit != deal.up[1]
                no_trump = e.suit == "N"
                if no_trump:
                    assert s["no_trump"] == "on"
                    count("no-trump calls")
            if e.alone:
                assert s["alone"] == "on"
                sitting += 1
                count("lone calls")
        elif isinstance(e, ev.DefenceChosen):
            assert s["defend_alone"] == "on" and alone
            assert team(e.seat) != team(maker)
            if e.alone:
                defender = e.seat
                sitting += 1
                count("lone defences")
        elif isinstance(e, ev.CardPlayed):
            plays.append((e.seat, e.card))
        elif isinstance(e, ev.TrickTaken):
            assert len(e.cards) == 4 - sitting
            if no_trump:  # the highest card of the suit led, jacks in their own suits
                led = plays[0][1][1]
                best = max((p for p in plays if p[1][1] == led), key=lambda p: RANKS.index(p[1][0]))
                assert e.winner == best[0]
                count("no-trump tricks")
            plays = []
            tricks.append(e)
        elif isinstance(e, ev.HandThrownIn):
            assert s["stick_dealer"] == "off" and bids == 8 and not tricks
            assert e.deal_no == deal.deal_no
            count("throw-ins")
        elif isinstance(e, ev.HandScored):
            assert max(score) < target, "no hand is played after the game is won"
            assert len(tricks) == 5, "a scored hand has exactly five tricks"
            assert e.maker == maker and e.alone == (maker if alone else None)
            assert e.defender == defender
            makers = team(maker)
            got = sum(1 for t in tricks if team(t.winner) == makers)
            assert e.tricks == got
            if got == 5:
                want = (makers, 4 if alone else 2, "march")
            elif got >= 3:
                want = (makers, 1, "made")
            else:
                want = (1 - makers, 4 if defender is not None else 2, "euchre")
            assert (e.team, e.points, e.how) == want
            before = list(score)
            score[e.team] += e.points
            assert e.score == score
            assert score[1 - e.team] == before[1 - e.team], "exactly one team scores a hand"
            count("hands")
        elif isinstance(e, ev.GameWon):
            assert max(score) >= target and e.score == score
            assert e.team == (0 if score[0] >= target else 1)
            count(f"games to {target}")
    assert list(final.score) == score and final.winner == log[-1].team
    assert final.hand_no == 1 + count_of(ev.HandScored, log)
    assert final.deal_no == deals
    assert view(final, None).seed == g["seed"]


def count_of(kind: type, log: list[ev.Event]) -> int:
    return sum(1 for e in log if isinstance(e, kind))


def play_and_check(g: dict, full: bool) -> None:
    state, log = start(g)
    chooser = random_chooser(pass_bias=g["pass_bias"])

    def each(before: State, command: cmd.Command, events: list[ev.Event], after: State) -> None:
        check_step(before, full)
        log.extend(events)

    final, _ = play_game(state, chooser, random.Random(g["rng"]), each=each)
    check_log(g, final, log)
    count("games")


@property_settings(1850)
@given(games)
def test_random_games_keep_every_rule(g):
    """§ Play, § Winning: random whole games to each target, every step checked and the log
    audited."""
    play_and_check(g, full=False)


@property_settings(150)
@given(games)
def test_random_games_accept_exactly_the_legal_commands(g):
    """§ Whose turn: at every decision decide accepts the commands legal lists, and no others."""
    play_and_check(g, full=True)


def test_the_property_runs_covered_the_rare_cases():
    """§ Fallback: the random games above reached throw-ins, loners, lone defences, farmers,
    and every target.

    Runs after the two property tests (pytest keeps file order); alone it plays a few games.
    """
    if STATS.get("games", 0) < 2000:
        t = time.perf_counter()
        rng = random.Random(99)
        while STATS.get("games", 0) < 200 and time.perf_counter() - t < 20:
            g = {
                "seed": rng.randbytes(32).hex(),
                "settings": {
                    **{k: rng.choice(("on", "off")) for k in TOGGLE_KEYS},
                    "no_trump": rng.choice(("on", "off")),
                    "points": rng.choice(POINTS),
                },
                "rng": rng.getrandbits(32),
                "pass_bias": rng.choice((0.0, 0.4, 0.7, 0.9)),
                "humans": rng.random() < 0.5,
            }
            play_and_check(g, full=False)
    targets = [f"games to {n}" for n in POINTS]
    rare = ("throw-ins", "lone calls", "lone defences", "no-trump calls", "no-trump tricks")
    for key in (*rare, "hands", "deals", *targets):
        assert STATS.get(key, 0) > 0, key
    print("property runs:", STATS)
