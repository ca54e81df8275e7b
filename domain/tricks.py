"""Play (docs/euchre.md "Play"): who leads, following suit, and who takes a trick. The left
bower follows trump, not its own suit."""

from __future__ import annotations

from msgspec.structs import replace

from domain import commands as cmd
from domain import events as ev
from domain.cards import CODES, FOLLOWS, INDEX, NO_TRUMP, POWER, SUIT_MASK, SUIT_NAMES, cards_of
from domain.errors import IllegalMove
from domain.hands import cards_options, held, without
from domain.phases import Evolve, PhaseRules
from domain.scoring import hand_scored
from domain.state import State, Trick, team


def playable(hand: int, trick: tuple[tuple[int, int], ...], trump: int | None) -> int:
    """The cards a seat may play: any card to lead; else the suit led if it holds one."""
    if not trick:
        return hand
    t = NO_TRUMP if trump is None else trump
    follow = hand & SUIT_MASK[t][FOLLOWS[t][trick[0][1]]]
    return follow or hand


def winner(trick: tuple[tuple[int, int], ...], trump: int) -> int:
    """The seat whose card is strongest: the highest trump, else the highest of the suit led."""
    led = FOLLOWS[trump][trick[0][1]]
    power = POWER[trump][led]
    best_seat, best = trick[0][0], -1
    for seat, card in trick:
        p = power[card]
        if p > best:
            best_seat, best = seat, p
    return best_seat


def first_trick(s: State) -> State:
    """Play begins: the seat left of the dealer leads, or the next one playing if it sits out."""
    d = s.deal
    assert d.dealer is not None
    leader = (d.dealer + 1) % 4
    while leader in d.sitting:
        leader = (leader + 1) % 4
    return replace(s, phase="play", turn=leader, asked=(), deal=replace(d, leader=leader))


def play(s: State, c: cmd.Play) -> ev.Event:
    d = s.deal
    card = held(s, c.seat, c.card)
    if not playable(d.hands[c.seat], d.trick, d.trump) >> card & 1:
        t = NO_TRUMP if d.trump is None else d.trump
        led = FOLLOWS[t][d.trick[0][1]]
        name = "trump" if led == t else SUIT_NAMES[led]
        raise IllegalMove(f"you must follow {name}", field="card")
    return ev.CardPlayed(seat=c.seat, card=CODES[card])


def _legal(s: State, seat: int) -> list[cmd.Command]:
    d = s.deal
    cards = cards_of(playable(d.hands[seat], d.trick, d.trump))
    return [cmd.Play(seat=seat, card=CODES[c]) for c in cards]


def _fallback(s: State, seat: int) -> cmd.Command:
    d = s.deal
    return cmd.Play(seat=seat, card=CODES[cards_of(playable(d.hands[seat], d.trick, d.trump))[0]])


def trick_taken(s: State) -> ev.Event | None:
    """A trick is full once every seat playing has played to it."""
    d = s.deal
    if len(d.trick) != 4 - len(d.sitting):
        return None
    assert d.trump is not None
    return ev.TrickTaken(winner=winner(d.trick, d.trump), cards=[CODES[c] for _, c in d.trick])


def _played(s: State, e: ev.CardPlayed) -> State:
    d = s.deal
    card = INDEX[e.card]
    nxt = (e.seat + 1) % 4
    while nxt in d.sitting:
        nxt = (nxt + 1) % 4
    played = replace(
        d, hands=without(s, e.seat, card), trick=(*d.trick, (e.seat, card)), moves=d.moves + 1
    )
    return replace(s, seq=s.seq + 1, turn=nxt, deal=played)


def _taken(s: State, e: ev.TrickTaken) -> State:
    """The winner leads the next trick."""
    d = s.deal
    assert d.leader is not None
    taken = list(d.taken)
    taken[team(e.winner)] += 1
    trick = Trick(leader=d.leader, cards=d.trick, winner=e.winner)
    after = replace(
        d, tricks=(*d.tricks, trick), taken=(taken[0], taken[1]), trick=(), leader=e.winner
    )
    return replace(s, seq=s.seq + 1, turn=e.winner, deal=after)


RULES = PhaseRules(
    kind="play",
    asking="to play",
    what_now="play a card",
    moves={cmd.Play: play},
    legal=_legal,
    options={cmd.Play: cards_options},
    fallback=_fallback,
    follows=(trick_taken, hand_scored),
)


EVOLVE: Evolve = {ev.CardPlayed: _played, ev.TrickTaken: _taken}
