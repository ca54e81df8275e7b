"""Medium and hard card play: lead winners and pull trump when it's ours, cash aces that
won't be ruffed, win a trick as cheaply as holds, and otherwise throw the least useful card.

Both levels play by the same method. Medium judges "sure" from its hand, the trick on the
table and who has shown out; hard from everything gone (memory.py). Hard also has a few
refinements each measured by playing the same position out every way it could go (the
maker's partner leads trump, two cards from home a defender leads trump, throw-offs come
from the shortest suit), and with two or three cards left it checks the rules' card by
search (search.py), which plays on from many deals of the unseen cards.
"""

from __future__ import annotations

import random

from domain.bots import search
from domain.bots.known import Known
from domain.bots.memory import Memory
from domain.bots.strength import TRUMP_MASK, power
from domain.cards import FOLLOWS, POWER, SUIT_MASK, cards_of


def choose_card(k: Known, level: str, rng: random.Random | None = None) -> int:
    """The card to play. Hard (given its rng) lets search overrule the rules (search.py)."""
    options = k.cards("play")
    if not options & (options - 1):
        return options.bit_length() - 1
    hard = level == "hard"
    mem = Memory(k, full=hard)
    card = lead(k, mem, options, hard) if not k.trick else follow(k, mem, options, hard)
    if hard and rng is not None:
        card = search.choose(k, options, card, rng, search.HARD_PLAN, mem)
    return card


# -- leading ---------------------------------------------------------------------------------


def _top(cards: int, t: int) -> int:
    return max(cards_of(cards), key=lambda c: power(c, t))


def _low(cards: int, t: int) -> int:
    return min(cards_of(cards), key=lambda c: power(c, t))


def _opponents(k: Known) -> list[int]:
    return [s for s in k.playing() if not k.ours(s)]


def _safe_bosses(k: Known, mem: Memory, off: int) -> list[int]:
    """Off-suit cards of ours nothing still out beats and no opponent can ruff (shown out
    with trump to spare), shortest suit first: an ace in a long suit is likelier to be
    ruffed the next time round."""
    t = k.trump
    opps = _opponents(k)
    out = []
    for c in cards_of(off):
        s = FOLLOWS[t][c]
        if mem.is_boss(c) and mem.holds(c, s, opps):
            out.append(c)
    out.sort(key=lambda c: ((off & SUIT_MASK[t][FOLLOWS[t][c]]).bit_count(), -power(c, t)))
    return out


def lead(k: Known, mem: Memory, options: int, hard: bool = False) -> int:
    t = k.trump
    trumps = options & TRUMP_MASK[t]
    off = options & ~trumps
    opps = _opponents(k)
    their_trump = any(mem.could_hold(o) & TRUMP_MASK[t] for o in opps)
    we_make = k.ours(k.maker)

    if k.alone is not None and not we_make:
        return _lead_against_loner(k, mem, options)

    if we_make and trumps and their_trump:
        top = _top(trumps, t)
        if mem.is_boss(top):
            return top  # draw their trump with a sure winner
        if k.maker == k.me and (trumps.bit_count() >= 3 or k.alone == k.me):
            return top  # long in trump: force their bowers out
        if k.maker == k.partner and (trumps.bit_count() >= 2 or (hard and len(k.tricks) < 3)):
            return top  # lead trump to the partner who called it

    bosses = _safe_bosses(k, mem, off)
    if bosses:
        return bosses[0]

    if hard and not we_make and trumps and len(k.tricks) == 3 and their_trump:
        return _top(trumps, t)  # two cards left: trump first keeps the makers from ruffing

    if we_make and trumps and (k.alone == k.me or not off):
        return _top(trumps, t)

    if not off:
        top = _top(trumps, t)
        return top if mem.is_boss(top) else _low(trumps, t)
    return _low_lead(k, mem, off)


def _low_lead(k: Known, mem: Memory, off: int) -> int:
    """A low card from a suit worth giving up: short (to make a void) and not one an opponent
    has shown out of, and not away from a king that might still win."""
    t = k.trump
    opps = _opponents(k)
    best, best_key = -1, None
    for s in range(4):
        if s == t:
            continue
        mine = off & SUIT_MASK[t][s]
        if not mine:
            continue
        low = _low(mine, t)
        ruffed = any(mem.void[o] >> s & 1 for o in opps)
        key = (
            ruffed,
            mine.bit_count(),
            mine.bit_count() == 1 and low % 6 >= 4,  # a lone king or ace: keep it
            power(low, t),
        )
        if best_key is None or key < best_key:
            best, best_key = low, key
    return best


def _lead_against_loner(k: Known, mem: Memory, options: int) -> int:
    """Against a lone maker one trick saves the day, and the loner holds most of the trump.

    Never lead trump into it, and don't lead an off-suit ace into the loner's trump: an ace
    led is ruffed whenever the loner is void, while an ace kept still wins whenever the loner
    has to follow that suit, later. (Playing hands out both ways measured it: a low card
    from a short suit leads better than the ace, by about a tenth of a point a hand.) So lead
    low from the shortest suit the loner hasn't shown out of; an ace only when nothing else
    is left, and then one the loner hasn't shown out of.
    """
    t = k.trump
    loner = k.alone
    if loner is None:
        raise ValueError("there is no loner to lead against")
    trumps = options & TRUMP_MASK[t]
    off = options & ~trumps
    if not off:
        return _low(trumps, t)
    best, best_key = -1, None
    for c in cards_of(off):
        s = FOLLOWS[t][c]
        shown_out = mem.void[loner] >> s & 1
        key = (
            mem.is_boss(c),
            shown_out,
            (off & SUIT_MASK[t][s]).bit_count(),
            power(c, t),
        )
        if best_key is None or key < best_key:
            best, best_key = c, key
    return best


# -- following ---------------------------------------------------------------------------------


def _winning(k: Known) -> tuple[int, int, int]:
    """(seat, card, led suit) of the trick so far."""
    t = k.trump
    led = FOLLOWS[t][k.trick[0][1]]
    p = POWER[t][led]
    seat, card = max(k.trick, key=lambda sc: p[sc[1]])
    return seat, card, led


def follow(k: Known, mem: Memory, options: int, hard: bool = False) -> int:
    t = k.trump
    seat, card, led = _winning(k)
    p = POWER[t][led]
    after = k.still_to_play()
    opps_after = [s for s in after if not k.ours(s)]
    winners = [c for c in cards_of(options) if p[c] > p[card]]
    winners.sort(key=lambda c: p[c])

    if k.ours(seat):
        if mem.holds(card, led, opps_after):
            return throw(k, mem, options, led, hard)
        safe = [c for c in winners if mem.holds(c, led, opps_after)]
        if safe and (FOLLOWS[t][safe[0]] == led or card_is_in_danger(k, mem, led)):
            return safe[0]
        return throw(k, mem, options, led, hard)

    if not winners:
        return throw(k, mem, options, led, hard)
    if not opps_after:
        return winners[0]
    safe = [c for c in winners if mem.holds(c, led, opps_after)]
    if safe:
        return safe[0]
    return winners[0]


def card_is_in_danger(k: Known, mem: Memory, led: int) -> bool:
    """Whether an opponent still to play has shown out of the suit led and may ruff."""
    t = k.trump
    if led == t:
        return False
    return any(
        mem.void[s] >> led & 1 and mem.could_hold(s) & TRUMP_MASK[t]
        for s in k.still_to_play()
        if not k.ours(s)
    )


def throw(k: Known, mem: Memory, options: int, led: int, hard: bool = False) -> int:
    """The least useful card: the lowest of the suit led when following; otherwise never a
    trump while there's a choice, never a sure winner while there's a choice, and a lone low
    card before a card from a longer suit (it leaves a void to ruff later)."""
    t = k.trump
    following = options & SUIT_MASK[t][led]
    if following:
        return _low(following, t)
    off = options & ~TRUMP_MASK[t]
    if not off:
        return _low(options, t)
    has_trump = bool(k.hand & TRUMP_MASK[t])
    best, best_key = -1, None
    key: tuple[bool, float] | tuple[bool, int, int]
    for c in cards_of(off):
        suit_len = (off & SUIT_MASK[t][FOLLOWS[t][c]]).bit_count()
        if hard and not (k.alone is not None and not k.ours(k.maker)):
            # Shortest suit first, measured better than the lowest rank anywhere; except
            # against a loner, where guards in every suit are worth more than a void.
            key = (mem.is_boss(c), suit_len, power(c, t))
        else:
            key = (mem.is_boss(c), power(c, t) - (1.5 if suit_len == 1 and has_trump else 0.0))
        if best_key is None or key < best_key:
            best, best_key = c, key
    return best
