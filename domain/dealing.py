"""The deal and the pause between hands (docs/euchre.md "The deal", "Between hands", "Hand and
deal numbers"): who deals, what a fresh deal resets, and who must be ready for the next."""

from __future__ import annotations

from msgspec.structs import replace

from domain import commands as cmd
from domain import events as ev
from domain.cards import CODES, INDEX
from domain.errors import Conflict, NotAllowed
from domain.farmer import asked
from domain.phases import Decision, Evolve, PhaseRules, no_options
from domain.scoring import game_won
from domain.sealing import next_seal
from domain.shuffle import dealt
from domain.state import DealState, State, ready_with


def deal(s: State) -> ev.HandDealt:
    """The next deal from the game's seed; the deal passes left every time, throw-ins too."""
    deal_no = s.deal_no + 1
    dealer = (s.first_dealer + s.deal_no) % 4
    hands, up, kitty = dealt(s.deal_seed, deal_no, dealer)
    shown = [[CODES[c] for c in h] for h in hands]
    hidden = [CODES[c] for c in kitty]
    seal = next_seal(s, {"hands": shown, "kitty": hidden})
    return ev.HandDealt(
        deal_no=deal_no, dealer=dealer, hands=shown, up=CODES[up], kitty=hidden, seal=seal
    )


def ready(s: State, c: cmd.Ready) -> ev.Event:
    if s.deal.ready[c.seat]:
        raise Conflict("you are already ready for the next hand")
    return ev.PlayerReady(seat=c.seat)


def deal_now(s: State, c: cmd.DealNow) -> ev.Event:
    if c.seat != s.host_seat():
        raise NotAllowed("only the host may deal the next hand without waiting")
    return ev.DealCalled(seat=c.seat) if s.version >= 2 else deal(s)


def _legal(s: State, seat: int) -> list[cmd.Command]:
    out: list[cmd.Command] = [] if s.deal.ready[seat] else [cmd.Ready(seat=seat)]
    if seat == s.host_seat():
        out.append(cmd.DealNow(seat=seat))
    return out


def _not_ready(s: State) -> list[Decision]:
    """Every seat not yet ready is deciding at once."""
    return [
        Decision(seat=n, kind="ready", key=f"{s.deal_no}.ready.{n}")
        for n in range(4)
        if not s.deal.ready[n]
    ]


def _fallback(s: State, seat: int) -> cmd.Command:
    return cmd.Ready(seat=seat)


def _everyone_ready(s: State) -> ev.Event | None:
    return deal(s) if all(s.deal.ready) else None


def _dealt(s: State, e: ev.HandDealt) -> State:
    hands = [0, 0, 0, 0]
    for seat, cards in enumerate(e.hands):
        for code in cards:
            hands[seat] |= 1 << INDEX[code]
    farmers = asked(s.settings, hands, e.dealer)
    fresh = DealState(
        dealer=e.dealer,
        hands=(hands[0], hands[1], hands[2], hands[3]),
        up=INDEX[e.up],
        kitty=tuple(INDEX[c] for c in e.kitty),
        kitty_state="up",
    )
    return replace(
        s,
        seq=s.seq + 1,
        deal_no=e.deal_no,
        phase="farmer" if farmers else "bid1",
        turn=farmers[0] if farmers else (e.dealer + 1) % 4,
        asked=farmers,
        deal=fresh,
    )


def _player_ready(s: State, e: ev.PlayerReady) -> State:
    return replace(s, seq=s.seq + 1, deal=replace(s.deal, ready=ready_with(s, e.seat, True)))


def _deal_called(s: State, e: ev.DealCalled) -> State:
    return replace(s, seq=s.seq + 1, phase="deal")


SCORED = PhaseRules(
    kind="ready",
    moves={cmd.Ready: ready, cmd.DealNow: deal_now},
    legal=_legal,
    options={cmd.Ready: no_options, cmd.DealNow: no_options},
    fallback=_fallback,
    follows=(game_won, _everyone_ready),
    everyone=_not_ready,
    busy="the hand is over; say you are ready for the next one",
)
# The instant after a throw-in or the start: the next deal follows at once.
DEALING = PhaseRules(follows=(deal,))
EVOLVE: Evolve = {
    ev.HandDealt: _dealt,
    ev.PlayerReady: _player_ready,
    ev.DealCalled: _deal_called,
}
