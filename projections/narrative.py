"""A finished game told hand by hand in plain words, from its log (`euchre replay`): who sat
where, each deal, the bids, the turned card's fate, every trick and who took it, the points
and the score, and what the people did along the way."""

from __future__ import annotations

from collections.abc import Iterable

from domain import events as ev
from domain.cards import CODES, SUIT_NAMES, SUITS
from domain.evolve import evolve
from domain.state import State

SYMBOLS: dict[str, str] = dict(zip(SUITS, "♠♥♦♣", strict=True))


def card(code: str) -> str:
    rank = "10" if code[0] == "T" else code[0]
    return f"{rank}{SYMBOLS[code[1]]}"


def suit(code: str) -> str:
    """A suit by name and symbol; "N", a no-trump call, as "no trump"."""
    if code not in SYMBOLS:
        return "no trump"
    return f"{SUIT_NAMES[list(SYMBOLS).index(code)]} {SYMBOLS[code]}"


def who(state: State, seat: int) -> str:
    s = state.seats[seat]
    if s.player is None:
        return f"Bot {seat}"
    return s.name or f"seat {seat}"


def _sitter(state: State, seat: int) -> str:
    s = state.seats[seat]
    if s.player is None:
        return f"Bot {seat} ({s.bot})"
    return f"{s.name}{'' if s.registered else ' (guest)'}"


def side(state: State, team: int) -> str:
    return f"{who(state, team)} and {who(state, team + 2)}"


def narrate(events: Iterable[ev.Event]) -> list[str]:
    """The game's story, a line at a time."""
    out: list[str] = []
    state = State()
    trick: list[str] = []
    for e in events:
        line = _line(state, e, trick)
        if line:
            out.append(line)
        state = evolve(state, e)
    return out


def _line(s: State, e: ev.Event, trick: list[str]) -> str | None:
    match e:
        case ev.TableOpened(code=code, bots=bots):
            return f"Table {code}, bots at {bots}."
        case ev.StartCalled(asked=asked):
            whom = " and ".join(who(s, n) for n in asked)
            return f"The host starts the game, asking {whom} for the seeds they committed to."
        case ev.SeedRevealed(seat=seat):
            return f"  {who(s, seat)} reveals the seed they committed to."
        case ev.SeedWithheld(seat=seat):
            return f"  {who(s, seat)} doesn't reveal their seed: it is left out of the deals."
        case ev.GameStarted(first_dealer=dealer):
            seats = ", ".join(f"seat {n}: {_sitter(s, n)}" for n in range(4))
            return f"The game starts ({seats}); {who(s, dealer)} deals first."
        case ev.HandDealt(deal_no=n, dealer=dealer, hands=hands, up=up):
            dealt = "; ".join(
                f"{who(s, seat)} {' '.join(card(c) for c in hand)}"
                for seat, hand in enumerate(hands)
            )
            return f"\nDeal {n}: {who(s, dealer)} deals. {dealt}. Turned up: {card(up)}."
        case ev.FarmerSwapped(seat=seat, gave=gave, got=got):
            swap = f"{' '.join(card(c) for c in gave)} for {' '.join(card(c) for c in got)}"
            return f"  {who(s, seat)} has a farmer's hand and swaps {swap} from the kitty."
        case ev.FarmerKept(seat=seat):
            return f"  {who(s, seat)} keeps a farmer's hand."
        case ev.BidPassed(seat=seat, round=r):
            return f"  {who(s, seat)} passes{'' if r == 1 else ' again'}."
        case ev.UpCardTurnedDown(suit=down):
            return f"  The {card(_up(s))} is turned down: {suit(down)} can't be trump."
        case ev.TrumpOrdered(seat=seat, suit=trump, alone=alone):
            return f"  {who(s, seat)} orders up {suit(trump)}{' and goes alone' if alone else ''}."
        case ev.TrumpCalled(seat=seat, suit=trump, alone=alone):
            return f"  {who(s, seat)} calls {suit(trump)}{' and goes alone' if alone else ''}."
        case ev.CardBuried(seat=seat, card=buried):
            return f"  {who(s, seat)} picks up the {card(_up(s))} and buries {card(buried)}."
        case ev.DefenceChosen(seat=seat, alone=alone):
            return f"  {who(s, seat)} {'defends alone' if alone else 'defends with a partner'}."
        case ev.CardPlayed(seat=seat, card=played):
            trick.append(f"{who(s, seat)} {card(played)}")
            return None
        case ev.TrickTaken(winner=winner):
            cards = ", ".join(trick)
            trick.clear()
            return f"  Trick {len(s.deal.tricks) + 1}: {cards}. {who(s, winner)} takes it."
        case ev.TricksClaimed(seat=seat, cards=cards, tricks=tricks):
            shown = " ".join(card(c) for c in cards)
            rest = "the last trick" if tricks == 1 else f"the last {tricks} tricks"
            return f"  {who(s, seat)} shows {shown} and claims {rest}."
        case ev.HandScored(team=team, how=how, tricks=tricks, points=points, score=[a, b]):
            makers = side(s, (s.deal.maker or 0) % 2)
            said = {
                "made": f"{makers} made it with {tricks} tricks",
                "march": f"{makers} took all five tricks",
                "euchre": f"{makers} were euchred, taking {tricks}",
            }[how]
            return f"  {said}: {points} to {side(s, team)}. Score {a}–{b}."
        case ev.DealCalled(seat=seat):
            return f"  {who(s, seat)} deals the next hand without waiting."
        case ev.HandThrownIn(deal_no=n):
            return f"  Nobody calls trump: deal {n} is thrown in."
        case ev.GameWon(team=team, score=[a, b]):
            return f"\n{side(s, team)} win the game, {a}–{b}."
        case ev.TableLocked():
            return "  (The host locks the table: nobody new may sit down.)"
        case ev.TableUnlocked():
            return "  (The host unlocks the table.)"
        case ev.PlayerWentAway(seat=seat, reason=reason):
            why = "stopped answering" if reason == "gone" else "ran out of time"
            return f"  ({who(s, seat)} {why}; a bot plays for them.)"
        case ev.PlayerCameBack(seat=seat):
            return f"  ({who(s, seat)} is back.)"
        case ev.SeatTaken(seat=seat) if s.status == "playing":
            return f"  ({who(s, seat)} sits back down.)"
        case ev.SeatLeft(seat=seat) if s.status == "playing":
            return f"  ({who(s, seat)} leaves the table; a bot plays for them.)"
        case ev.PlayerBanned(seat=int(seat)) if s.status == "playing":
            return f"  ({who(s, seat)} is banned by the host; a bot plays for them.)"
        case ev.PlayerBanned(name=name, seat=seat):
            taken = "" if seat is None else f" and loses seat {seat} to a bot"
            return f"  ({name or 'Someone watching'} is banned by the host{taken}.)"
        case ev.ChatSaid(name=name, text=text):
            return f"  {name} says: {text}"
        case ev.ReactionShown(name=name, emoji=emoji):
            return f"  {name} reacts {emoji}"
        case ev.HintGiven(seat=seat):
            return f"  ({who(s, seat)} asks for a hint.)"
        case ev.PlayerMuted(name=name):
            return f"  (The host mutes {name}.)"
        case ev.PlayerUnmuted(player=player):
            names = [x.name for x in s.seats if x.player == player and x.name]
            return f"  (The host unmutes {names[0] if names else 'someone watching'}.)"
    return None


def _up(s: State) -> str:
    return CODES[s.deal.up] if s.deal.up is not None else "?"
