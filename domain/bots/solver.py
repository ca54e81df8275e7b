"""Double-dummy play: with every hand known, can the makers still take `need` more tricks?

The hard bot's search (search.py) deals the unseen cards out many ways and asks this of each
deal. A hand's points depend on the makers' tricks only through thresholds (3 makes, 5
marches), so a yes/no question per threshold is all the search needs, and a yes/no search
prunes far harder than computing exact trick counts. Perfect play by both sides with every
card known is a minimax game, and the points are a monotone function of the makers' tricks,
so answering the thresholds gives the points of perfect play exactly.

It is the bot's inner loop, so it is written for speed. Inside, a card is renumbered by its
place once trump is known: follow-suit * 8 + rank within that suit, weakest first (the left
bower sits among the trumps, below the right). Then a suit is one byte of a hand, "higher in
the suit" is "higher bit", and two cards of one hand with no other card still in play between
them (they win and lose alike, so only one need be tried) are found by a table lookup. At the
start of each trick it keeps what it has learned (a lower and upper bound on the makers'
tricks from there), so the many questions asked of one deal share their work.
"""

from __future__ import annotations

from collections.abc import Callable

from domain.bots.strength import RANKED
from domain.cards import cards_of

# PLACE[t][card]: the card's place with trump t (NO_TRUMP too: no place is then trump).
PLACE: tuple[tuple[int, ...], ...] = tuple(
    tuple(
        next(
            s * 8 + (len(RANKED[t][s]) - 1 - RANKED[t][s].index(c))
            for s in range(4)
            if c in RANKED[t][s]
        )
        for c in range(24)
    )
    for t in range(5)
)
# CHUNK[t][printed suit][six bits of that suit]: the same cards as places.
CHUNK: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(
        tuple(
            sum(1 << PLACE[t][s * 6 + r] for r in range(6) if bits >> r & 1) for bits in range(64)
        )
        for s in range(4)
    )
    for t in range(5)
)


def _keep(live: int, mine: int) -> int:
    """Of `mine` (within `live`, one suit's byte), the top card of each unbroken run."""
    out = 0
    prev = False
    for r in range(7, -1, -1):
        if live >> r & 1:
            if mine >> r & 1:
                if not prev:
                    out |= 1 << r
                prev = True
            else:
                prev = False
    return out


# KEEP[live << 7 | mine] for a suit's seven places (no suit has more than seven cards).
KEEP: tuple[int, ...] = tuple(_keep(i >> 7, i & 127) for i in range(1 << 14))
BYTE = (0xFF, 0xFF << 8, 0xFF << 16, 0xFF << 24)


def _power(x: int, led: int, trump: int) -> int:
    if x >> 3 == trump:
        return 100 + (x & 7)
    if x >> 3 == led:
        return 50 + (x & 7)
    return 0


# POW[trump][led][place]: a card's strength in a trick led in suit `led`.
POW: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(_power(x, led, t) for x in range(32)) for led in range(4)) for t in range(5)
)


def places(mask: int, trump: int) -> int:
    """A hand of cards as a hand of places."""
    ch = CHUNK[trump]
    return ch[0][mask & 63] | ch[1][mask >> 6 & 63] | ch[2][mask >> 12 & 63] | ch[3][mask >> 18]


# BITS[byte]: the set bits of a byte, lowest first; HIGH_FIRST likewise, highest first.
BITS: tuple[tuple[int, ...], ...] = tuple(tuple(cards_of(b)) for b in range(256))
HIGH_FIRST: tuple[tuple[int, ...], ...] = tuple(tuple(reversed(b)) for b in BITS)


class Solver:
    """One deal, fixed: the four hands as they stand, trump, who plays, who makes."""

    __slots__ = ("_reach", "hands", "nxt", "trump")

    def __init__(self, hands: list[int], trump: int, playing: list[int], maker_team: int):
        self.trump = trump
        self.hands = [places(h, trump) for h in hands]
        nxt = [0, 0, 0, 0]
        for i, s in enumerate(playing):
            nxt[s] = playing[(i + 1) % len(playing)]
        self.nxt = tuple(nxt)
        self._reach = _search(self.hands, trump, self.nxt, len(playing), maker_team)

    def deal(self, hands: list[int]) -> None:
        """Solve another deal of the same hand from here on (same trump, seats and makers).
        What was learned of positions carries over: a position is its four hands."""
        t = self.trump
        self.hands[:] = [places(h, t) for h in hands]

    def reach(self, trick: tuple[tuple[int, int], ...], turn: int, need: int) -> bool:
        """Whether the makers can take `need` of the tricks left (the current one included)
        from `trick` on the table, `turn` to play. A card on the table still in its seat's
        hand here (a move being tried) is taken out of it for the question."""
        hands = self.hands
        at = PLACE[self.trump]
        taken = []
        placed = []
        for seat, c in trick:
            p = at[c]
            if hands[seat] >> p & 1:
                hands[seat] ^= 1 << p
                taken.append((seat, p))
            placed.append((seat, p))
        try:
            return self._reach(placed, turn, need)
        finally:
            for seat, p in taken:
                hands[seat] |= 1 << p


def _search(
    hands: list[int], trump: int, nxt: tuple[int, ...], seats: int, mk: int
) -> Callable[[list[tuple[int, int]], int, int], bool]:
    """The search over one deal, as closures over its fixed facts (the fastest Python has)."""
    bounds: dict[tuple[int, int, int, int, int], tuple[int, int]] = {}
    keep = KEEP
    high_first = HIGH_FIRST
    low_first = BITS
    pow_ = POW[trump]
    # Suits to try, trump first: a void seat's way to win, and the makers' usual lead.
    suits = (trump * 8, *(s * 8 for s in range(4) if s != trump))

    def moves(h: int, live: int, low: bool) -> list[int]:
        """The distinct cards of `h`, each suit's weakest first if `low`, else strongest."""
        out = []
        order = low_first if low else high_first
        for s8 in suits:
            mine = h >> s8 & 0xFF
            if mine:
                for r in order[keep[(live >> s8 & 0x7F) << 7 | mine]]:
                    out.append(s8 + r)
        return out

    def start(leader: int, need: int) -> bool:
        if need <= 0:
            return True
        n = hands[leader].bit_count()
        if need > n:
            return False
        key = (hands[0], hands[1], hands[2], hands[3], leader)
        b = bounds.get(key)
        if b is None:
            lo, hi = 0, n
        else:
            lo, hi = b
            if lo >= need:
                return True
            if hi < need:
                return False
        if n == 1:
            won = last(leader)
            bounds[key] = (won, won)
            return won >= need
        live = hands[0] | hands[1] | hands[2] | hands[3]
        ok = lead(leader, live, need)
        if ok:
            lo = need
        else:
            hi = need - 1
        bounds[key] = (lo, hi)
        return ok

    def last(leader: int) -> int:
        """The last trick, one card each: 1 if the makers take it."""
        c = hands[leader].bit_length() - 1
        p = pow_[c >> 3]
        best_seat, best = leader, p[c]
        s = nxt[leader]
        while s != leader:
            c = hands[s].bit_length() - 1
            if p[c] > best:
                best_seat, best = s, p[c]
            s = nxt[s]
        return 1 if best_seat & 1 == mk else 0

    def lead(turn: int, live: int, need: int) -> bool:
        maxing = turn & 1 == mk
        h = hands[turn]
        nx = nxt[turn]
        for c in moves(h, live, False):
            hands[turn] = h ^ (1 << c)
            led = c >> 3
            ok = follow(nx, led, pow_[led][c], turn, 1, live, need)
            hands[turn] = h
            if ok == maxing:
                return ok
        return not maxing

    def follow(
        turn: int, led: int, best: int, best_seat: int, played: int, live: int, need: int
    ) -> bool:
        maxing = turn & 1 == mk
        h = hands[turn]
        f = h & BYTE[led]
        p = pow_[led]
        # The side already winning the trick tries its cheapest card first; the other side
        # its strongest.
        low = (best_seat & 1 == mk) == maxing
        if f:
            s8 = led * 8
            order = low_first if low else high_first
            cards = [s8 + r for r in order[keep[(live >> s8 & 0x7F) << 7 | f >> s8]]]
        else:
            cards = moves(h, live, low)
        final = played + 1 == seats
        nx = nxt[turn]
        for c in cards:
            hands[turn] = h ^ (1 << c)
            q = p[c]
            if q > best:
                nb, ns = q, turn
            else:
                nb, ns = best, best_seat
            if final:
                ok = start(ns, need - (ns & 1 == mk))
            else:
                ok = follow(nx, led, nb, ns, played + 1, live, need)
            hands[turn] = h
            if ok == maxing:
                return ok
        return not maxing

    def reach(placed: list[tuple[int, int]], turn: int, need: int) -> bool:
        if not placed:
            return start(turn, need)
        led = placed[0][1] >> 3
        p = pow_[led]
        best_seat, best = placed[0][0], -1
        live = hands[0] | hands[1] | hands[2] | hands[3]
        for seat, c in placed:
            live |= 1 << c
            if p[c] > best:
                best_seat, best = seat, p[c]
        if len(placed) == seats:
            return start(best_seat, need - (best_seat & 1 == mk))
        return follow(turn, led, best, best_seat, len(placed), live, need)

    return reach


def runs(h: int, live: int, trump: int) -> dict[int, int]:
    """Each card of `h` with the top of its run: the cards of `h` with no other `live` card
    between them in their suit's order, which win and lose alike."""
    out = {}
    for ranked in RANKED[trump]:
        top = -1
        for x in ranked:
            if h >> x & 1:
                if top < 0:
                    top = x
                out[x] = top
            elif live >> x & 1:
                top = -1
    return out
