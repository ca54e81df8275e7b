"""§ Claiming the rest: a claim the rules take is never beaten with the hands as they lie, and
is scored as the hand played out would be; a false claim is refused, naming only cards the
claimer hasn't seen, and changes nothing, whatever the hidden hands hold."""

from __future__ import annotations

import random
from functools import cache

from euchre_kit import bot_table, crafted, events_of, refused, run, seed_of
from hypothesis import given
from hypothesis import strategies as st
from msgspec.structs import replace
from test_properties import property_settings

from domain import apply, deciding, legal, view
from domain import commands as cmd
from domain import events as ev
from domain.cards import CODES, INDEX, cards_of
from domain.errors import IllegalMove, NotYourTurn
from domain.state import State
from domain.tricks import playable, winner

# Clubs turned up; seat 0, left of the dealer (3), holds the top four trumps and the ace of
# hearts. Only three trumps are out: 9C (the dealer takes it), QC and TC (in the kitty).
HANDS = ["JC JS AC KC AH", "9S TS QS KS AS", "9H TH JH QH KH", "9D TD QD KD AD"]
# The same, but the king of clubs is the dealer's and seat 0 holds the ace of diamonds: four
# trumps out, and all seat 0 knows is that the dealer may hold the turned 9C.
SHORT = ["JC JS AC AD AH", "9S TS QS KS AS", "9H TH JH QH KH", "9D TD QD KD KC"]


def ordered(hands: list[str], alone: bool = False) -> State:
    """Seat 0 orders clubs; the dealer buries the 9 of diamonds; seat 0 is on lead."""
    state = crafted(hands, "9C", "QC TC JD", dealer=3, humans=True)
    state, _ = run(state, cmd.Order(seat=0, alone=alone), cmd.Discard(seat=3, card="9D"))
    assert state.phase == "play" and state.turn == 0
    return state


def test_the_top_trumps_and_a_boss_ace_claim_a_march():
    state = ordered(HANDS)
    assert "claim" in view(state, 0).can
    after, events = apply(state, cmd.Claim(seat=0))
    claimed, scored = events
    assert claimed == ev.TricksClaimed(seat=0, cards=["JC", "JS", "AC", "KC", "AH"], tricks=5)
    assert isinstance(scored, ev.HandScored)
    assert (scored.how, scored.team, scored.points, scored.tricks) == ("march", 0, 2, 5)
    # Everyone sees the claimer's cards; nobody else's.
    for seat in (None, 1, 2, 3):
        seen = view(after, seat)
        assert seen.claimed is not None and seen.claimed.cards == claimed.cards
        assert seen.hand == ([] if seat is None else view(state, seat).hand)


def test_a_lone_claim_scores_four():
    state = ordered(HANDS, alone=True)
    _, events = apply(state, cmd.Claim(seat=0))
    (scored,) = events_of(ev.HandScored, events)
    assert (scored.how, scored.points) == ("march", 4)


def test_a_claim_that_would_work_but_isnt_certain_from_your_cards_is_refused():
    """The dealer really holds only two trumps, but seat 0 can't know that a fourth isn't
    with one seat: it would ruff the last ace. The refusal names the cards out, which seat 0
    can list itself, and changes nothing."""
    state = ordered(SHORT)
    error = refused(state, cmd.Claim(seat=0), IllegalMove)
    assert str(error).endswith(
        ": the king of clubs, the queen of clubs, the ten of clubs or the nine of clubs could "
        "still take one from you"
    )
    assert "claim" in view(state, 0).can and "play" in view(state, 0).can


def test_a_claim_is_certain_once_the_trumps_are_drawn_and_scores_what_was_taken():
    state = ordered(SHORT)
    state, _ = run(
        state,
        *(cmd.Play(seat=n, card=c) for n, c in enumerate(["JC", "9S", "9H", "9C"])),
        *(cmd.Play(seat=n, card=c) for n, c in enumerate(["JS", "TS", "TH", "KC"])),
    )
    refused(state, cmd.Claim(seat=0), IllegalMove)  # the dealer hasn't shown out of trump
    state, _ = run(
        state, *(cmd.Play(seat=n, card=c) for n, c in enumerate(["AC", "QS", "JH", "TD"]))
    )
    after, events = apply(state, cmd.Claim(seat=0))
    assert events[0] == ev.TricksClaimed(seat=0, cards=["AH", "AD"], tricks=2)
    assert (after.deal.taken, after.score, after.phase) == ((5, 0), (2, 0), "scored")


def test_a_claim_is_made_on_your_own_lead_only():
    state = ordered(HANDS)
    refused(state, cmd.Claim(seat=1), NotYourTurn)
    state, _ = apply(state, cmd.Play(seat=0, card="JC"))
    assert "claim" not in view(state, 1).can
    error = refused(state, cmd.Claim(seat=1), IllegalMove)
    assert "only when it's your turn to lead" in str(error)


# With every hand open: the plays each seat after `seat` may make to its lead, in turn.
def _answers(hands: tuple[int, ...], trump: int, seat: int, sitting: tuple[int, ...], lead: int):
    after = [n for n in ((seat + k) % 4 for k in range(1, 4)) if n not in sitting]

    def each(i: int, trick: tuple[tuple[int, int], ...]):
        if i == len(after):
            yield trick
            return
        n = after[i]
        for card in cards_of(playable(hands[n], trick, trump)):
            yield from each(i + 1, (*trick, (n, card)))

    yield from each(0, ((seat, lead),))


@cache
def never_beaten(hands: tuple[int, ...], trump: int, seat: int, sitting: tuple[int, ...]) -> bool:
    """With the hands as they lie, `seat` has a lead each trick that wins it against every
    answer the others may legally make, to the end of the hand."""
    if not hands[seat]:
        return True
    for lead in cards_of(hands[seat]):
        if all(
            winner(trick, trump) == seat
            and never_beaten(
                tuple(h & ~sum(1 << c for _, c in trick) for h in hands), trump, seat, sitting
            )
            for trick in _answers(hands, trump, seat, sitting, lead)
        ):
            return True
    return False


def played_out(state: State, seat: int, rng: random.Random) -> ev.HandScored:
    """The hand played to its end: `seat` leads a card that can't be beaten each trick, the
    others play anything legal."""
    assert state.deal.trump is not None
    while state.phase == "play":
        turn = state.turn
        assert turn is not None
        if turn == seat:
            hands = state.deal.hands
            lead = next(
                c
                for c in cards_of(hands[seat])
                if all(
                    winner(t, state.deal.trump) == seat
                    and never_beaten(
                        tuple(h & ~sum(1 << x for _, x in t) for h in hands),
                        state.deal.trump,
                        seat,
                        state.deal.sitting,
                    )
                    for t in _answers(hands, state.deal.trump, seat, state.deal.sitting, c)
                )
            )
            move: cmd.Command = cmd.Play(seat=seat, card=CODES[lead])
        else:
            move = rng.choice(legal(state, turn))
        state, events = apply(state, move)
    (scored,) = events_of(ev.HandScored, events)
    return scored


def scrambled(state: State, seat: int, rng: random.Random) -> State:
    """The cards `seat` can't see dealt out again among the other hands and the kitty."""
    others = [n for n in range(4) if n != seat]
    hidden = [c for n in others for c in cards_of(state.deal.hands[n])] + list(state.deal.kitty)
    rng.shuffle(hidden)
    hands = list(state.deal.hands)
    for n in others:
        k = state.deal.hands[n].bit_count()
        hands[n], hidden = sum(1 << c for c in hidden[:k]), hidden[k:]
    dealt = replace(state.deal, hands=(hands[0], hands[1], hands[2], hands[3]), kitty=tuple(hidden))
    return replace(state, deal=dealt)


def seen_by(state: State, seat: int) -> set[str]:
    seen = {CODES[c] for c in cards_of(state.deal.hands[seat])}
    seen |= {CODES[c] for t in state.deal.tricks for _, c in t.cards}
    return seen


def claims_in_a_game(seed: str, rules: dict, moves: int) -> dict[str, int]:
    """A random game with a claim tried on every lead, each checked; how many were taken and
    refused."""
    rng = random.Random(moves)
    seen = {"taken": 0, "refused": 0}
    state, _ = bot_table(seed, rules)
    while state.status == "playing":
        turn = deciding(state)[0].seat
        if state.phase == "play" and not state.deal.trick:
            assert state.deal.trump is not None
            try:
                after, events = apply(state, cmd.Claim(seat=turn))
            except IllegalMove as error:
                seen["refused"] += 1
                named = set(str(error).split(": ", 1)[1].split(" could")[0].split(", "))
                assert named and not named & seen_by(state, turn)
                again = refused(scrambled(state, turn, rng), cmd.Claim(seat=turn), IllegalMove)
                assert str(again) == str(error)
            else:
                seen["taken"] += 1
                assert never_beaten(state.deal.hands, state.deal.trump, turn, state.deal.sitting)
                (scored,) = events_of(ev.HandScored, events)
                assert played_out(state, turn, rng) == scored
                claimed = events[0]
                assert isinstance(claimed, ev.TricksClaimed)
                assert {INDEX[c] for c in claimed.cards} == set(cards_of(state.deal.hands[turn]))
                state = after
                continue
        state, _ = apply(state, rng.choice(legal(state, turn)))
    return seen


@property_settings(max_examples=40)
@given(
    seed=st.binary(min_size=32, max_size=32).map(bytes.hex),
    rules=st.fixed_dictionaries(
        {k: st.sampled_from(("on", "off")) for k in ("alone", "defend_alone", "farmers")}
    ),
    moves=st.integers(0, 2**32 - 1),
)
def test_a_claim_taken_is_never_beaten_and_a_false_one_changes_nothing(seed, rules, moves):
    claims_in_a_game(seed, rules, moves)


def test_random_games_try_claims_both_taken_and_refused():
    """The property above isn't vacuous: in a few games, plenty of each kind."""
    seen = {"taken": 0, "refused": 0}
    for n in range(20):
        for kind, k in claims_in_a_game(seed_of(n), {"defend_alone": "on"}, n).items():
            seen[kind] += k
    assert seen["taken"] >= 15 and seen["refused"] >= 100, seen


def test_in_no_trump_a_suit_nobody_else_holds_is_a_certain_claim():
    """§ Claiming the rest, § No trump: with no trump nobody can ruff, so the five hearts
    (which nobody else holds) take every trick; called in clubs instead, a club could."""
    hands = ["9S TS QS KS AS", "9H TH QH KH AH", "9D TD QD KD AD", "9C TC QC KC AC"]
    state = crafted(hands, up="JS", kitty="JH JD JC", settings={"no_trump": "on"})
    for _ in range(4):
        state, _ = apply(state, cmd.Pass(seat=state.turn))
    state_nt, _ = run(state, cmd.Call(seat=1, suit="N"))
    state_nt, events = run(state_nt, cmd.Claim(seat=1))
    assert events_of(ev.TricksClaimed, events)[0].tricks == 5
    state_c, _ = run(state, cmd.Call(seat=1, suit="C"))
    refused(state_c, cmd.Claim(seat=1), IllegalMove)
