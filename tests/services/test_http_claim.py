"""Claiming the rest over HTTP (docs/api.md "Moves"): on your lead a claim certain from what
your own view shows is taken (200, the hand scored, your cards shown to everyone); any other is
refused with 422 naming the cards in the way, and the log doesn't move; another seat's claim is
409 and a claim from someone not seated 403."""

from __future__ import annotations

import random
import re
import time

import httpx
from test_http_game import assert_keeps_secrets, choose, public_cards

from domain.cards import CODES, INDEX, SUITS, card_words
from domain.claim import out_of_play, verdict


def certain(v: dict) -> bool:
    """What the rules will say of the viewer's claim, worked out from their view alone."""
    me = v["you"]
    hand = sum(1 << INDEX[c] for c in v["hand"])
    tricks = [tuple((p["seat"], INDEX[p["card"]]) for p in t["cards"]) for t in v["tricks"]]
    buried = None if v["buried"] is None else INDEX[v["buried"]]
    out = out_of_play(me, v["dealer"], INDEX[v["up"]], v["kitty_state"], buried)
    return not verdict(me, hand, SUITS.index(v["trump"]), tricks, out, v["sitting"])


def sent(person, code: str, body: dict) -> httpx.Response:
    answer = person.move(code, body)
    while answer.status_code == 429:  # faster than a person: wait as told, like a client
        time.sleep(float(answer.headers["retry-after"]))
        answer = person.move(code, body)
    return answer


def test_a_certain_claim_is_taken_and_a_false_one_refused_over_http(api):
    rng = random.Random(46)
    people = [api.player(name) for name in ("Ada", "Bo", "Cy", "Di")]

    def new_table() -> str:
        code = people[0].ok("POST", "/api/tables", json={})["code"]
        for seat, person in enumerate(people[1:], start=1):
            person.ok("POST", f"/api/tables/{code}/seats/{seat}")
        people[0].ok("POST", f"/api/tables/{code}/start")
        return code

    code = new_table()
    outsider = api.player("Eve")

    taken = refused = 0
    for _ in range(3000):
        views = [p.ok("GET", f"/api/tables/{code}") for p in people]
        if taken and refused >= 3:
            break
        if views[0]["status"] == "over":  # the deal is the server's: a game may end first
            code = new_table()
            continue
        seat = next(n for n, v in enumerate(views) if set(v["can"]) - {"deal"})
        v = views[seat]
        if "claim" in v["can"]:
            other = sent(people[(seat + 1) % 4], code, {"type": "claim"})
            assert other.status_code == 409, other.text
            assert sent(outsider, code, {"type": "claim"}).status_code == 403
            logged = len(api.log(code))
            answer = sent(people[seat], code, {"type": "claim", "seq": v["seq"]})
            if certain(v):
                assert answer.status_code == 200, answer.text
                after = answer.json()
                assert after["claimed"] == {
                    "seat": seat,
                    "cards": v["hand"],
                    "tricks": 5 - len(v["tricks"]),
                }
                # Scored, or over when the claimed hand won the game.
                assert after["phase"] in ("scored", "over") and after["hand"] == []
                assert after["outcome"]["tricks"] == after["taken"][after["maker"] % 2]
                assert sum(after["taken"]) == 5
                kinds = [line["type"] for line in api.log(code)[logged:]]
                assert kinds[:2] == ["TricksClaimed", "HandScored"]
                for n, person in enumerate(people):
                    seen = person.ok("GET", f"/api/tables/{code}")
                    assert seen["claimed"]["cards"] == v["hand"]
                    assert_keeps_secrets(seen, n, public_cards(v) | set(v["hand"]))
                taken += 1
                continue
            assert answer.status_code == 422, answer.text
            problem = answer.json()
            assert answer.headers["content-type"].startswith("application/problem+json")
            assert "aren't certain from your cards" in problem["detail"]
            words = re.split(r", | or ", problem["detail"].split(": ", 1)[1].split(" could")[0])
            trump = SUITS.index(v["trump"])
            by_words = {card_words(INDEX[c], trump): c for c in CODES}
            named = {by_words[w] for w in words}  # every card named in words, no code
            played = {p["card"] for t in v["tricks"] for p in t["cards"]}
            # The turned card may be named: a dealer who picked it up may hold it still.
            assert named and not named & (set(v["hand"]) | played)
            assert "claim" in problem["legal"] and "play" in problem["legal"]
            assert len(api.log(code)) == logged
            assert people[seat].ok("GET", f"/api/tables/{code}")["seq"] == v["seq"]
            refused += 1
        answer = sent(people[seat], code, choose(v, rng) | {"seq": v["seq"]})
        assert answer.status_code == 200, answer.text
    assert taken and refused >= 3, (taken, refused)
