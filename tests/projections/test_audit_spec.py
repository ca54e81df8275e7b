"""An auditor's verifier written from docs/audit.md and docs/euchre.md alone: plain Python
(json, hashlib, hmac), none of our code but to make the exports it reads. It checks the chain,
the seed's commitment, the seals, the first dealer, every deal, every trick's winner, every
hand's score and the game's end at the house rules' target, in both format versions. If it
disagrees with our engine, one of the pages or the engine is wrong."""

from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path

import msgspec
import pytest
from log_kit import recorded
from rated_kit import committed_game, finished_game

from domain import events as ev
from projections.audit import export

DECK = [
    "9S",
    "TS",
    "JS",
    "QS",
    "KS",
    "AS",
    "9H",
    "TH",
    "JH",
    "QH",
    "KH",
    "AH",
    "9D",
    "TD",
    "JD",
    "QD",
    "KD",
    "AD",
    "9C",
    "TC",
    "JC",
    "QC",
    "KC",
    "AC",
]
SAME_COLOUR = {"S": "C", "C": "S", "H": "D", "D": "H"}


# docs/audit.md "Secrets and seals", "The hash chain" -----------------------------------------

SECRETS = {
    "TableOpened": ["seed"],
    "HandDealt": ["hands", "kitty"],
    "FarmerSwapped": ["gave", "got"],
    "CardBuried": ["card"],
}


def canonical(obj) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def canonical_bytes(code: str, line: dict, version: int) -> bytes:
    data = {k: v for k, v in line.items() if k not in ("seq", "type", "at", "hash")}
    if version == 2:
        data.update({name: None for name in SECRETS.get(line["type"], [])})
    return canonical({"data": data, "seq": line["seq"], "stream": code, "type": line["type"]})


def check_chain(header: dict, events: list[dict]) -> None:
    previous = bytes(32)
    for n, line in enumerate(events, start=1):
        assert line["seq"] == n
        bytes_ = canonical_bytes(header["code"], line, header["version"])
        link = hashlib.sha256(previous + bytes_).digest()
        assert link.hex() == line["hash"], f"event {n}'s hash"
        previous = link
    assert header["head"] == previous.hex()


# docs/euchre.md "The shuffle" -----------------------------------------------------------------


def words(seed: str, message: bytes):
    block = 0
    while True:
        digest = hmac.new(bytes.fromhex(seed), message + block.to_bytes(4, "big"), "sha256")
        raw = digest.digest()
        for k in range(8):
            yield int.from_bytes(raw[4 * k : 4 * k + 4], "big")
        block += 1


def draw(stream, m: int) -> int:
    for w in stream:
        if w < 2**32 - 2**32 % m:
            return w % m
    raise AssertionError


def game_seed(seed: str, contributions: list | None) -> str:
    """docs/euchre.md "The players' seeds"."""
    if not contributions or all(c is None for c in contributions):
        return seed
    message = b"euchre/players"
    for c in contributions:
        message += b"\x00" if c is None else b"\x01" + bytes.fromhex(c)
    return hmac.new(bytes.fromhex(seed), message, "sha256").hexdigest()


def deal(seed: str, n: int, dealer: int) -> tuple[list[list[str]], str, list[str]]:
    stream = words(seed, b"euchre/deal/" + n.to_bytes(4, "big"))
    deck = list(DECK)
    for i in range(23, 0, -1):
        j = draw(stream, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    hands: list[list[str]] = [[], [], [], []]
    for k in range(4):
        hands[(dealer + 1 + k) % 4] = deck[5 * k : 5 * k + 5]
    return hands, deck[20], deck[21:]


# docs/euchre.md "The cards and the bowers", "Play", "Scoring" --------------------------------


def suit_of(card: str, trump: str) -> str:
    """The left bower belongs to trump; in no trump ("N") every card is of its own suit."""
    if trump == "N":
        return card[1]
    return trump if card == "J" + SAME_COLOUR[trump] else card[1]


def power(card: str, trump: str, led: str) -> int:
    """In no trump there are no bowers: the highest of the suit led wins, jacks between the
    ten and the queen."""
    order = "9TJQKA"
    if trump == "N":
        return 10 + order.index(card[0]) if card[1] == led else 0
    if card == "J" + trump:
        return 100
    if card == "J" + SAME_COLOUR[trump]:
        return 99
    if suit_of(card, trump) == trump:
        return 50 + order.index(card[0])
    if suit_of(card, trump) == led:
        return 10 + order.index(card[0])
    return 0


def trick_winner(plays: list[tuple[int, str]], trump: str) -> int:
    led = suit_of(plays[0][1], trump)
    return max(plays, key=lambda p: power(p[1], trump, led))[0]


def points(tricks: int, alone: bool, lone_defender: bool) -> tuple[bool, int]:
    """(the makers scored, how many points)"""
    if tricks >= 3:
        return True, (4 if alone else 2) if tricks == 5 else 1
    return False, 4 if lone_defender else 2


# The auditor's whole check --------------------------------------------------------------------


def check_seals(seed: str, events: list[dict]) -> int:
    sealed = 0
    for e in events:
        if e["type"] in SECRETS and e["type"] != "TableOpened":
            nonce = hmac.new(bytes.fromhex(seed), b"euchre/seal/%d" % e["seq"], "sha256").digest()
            secret = canonical({name: e[name] for name in SECRETS[e["type"]]})
            assert hashlib.sha256(nonce + secret).hexdigest() == e["seal"], f"seal {e['seq']}"
            sealed += 1
    return sealed


def audit(lines: list[dict]) -> dict:
    header, events = lines[0], lines[1:]
    assert header["format"] == "euchre-log" and header["complete"]
    opened = events[0]
    assert opened["type"] == "TableOpened"
    assert header["version"] == opened.get("version", 1) in (1, 2)
    check_chain(header, events)
    seed = opened["seed"]
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == opened["seed_hash"]
    sealed = check_seals(seed, events) if header["version"] == 2 else 0
    given: dict[int, str | None] = {}
    committed: dict[int, str | None] = {}
    score = [0, 0]
    target = opened["settings"].get("points", 10)  # "Winning": a log without it was to 10
    trump = maker = None
    alone = lone = False
    plays: list[tuple[int, str]] = []
    taken = [0, 0]
    seen = {"deals": 0, "tricks": 0, "hands": 0, "sealed": sealed}
    for e in events:
        kind = e["type"]
        if kind in ("SeatTaken", "SeatLeft", "BotSeated") and "contributions" not in seen:
            given[e["seat"]] = e.get("contribution") if kind == "SeatTaken" else None
            committed[e["seat"]] = e.get("commitment") if kind == "SeatTaken" else None
        if kind == "SettingsChanged":
            target = e["settings"].get("points", 10)
        elif kind == "StartCalled":
            assert e["asked"] == [n for n in range(4) if committed.get(n)]
        elif kind == "SeedRevealed":
            pledge = hashlib.sha256(bytes.fromhex(e["seed"])).hexdigest()
            assert pledge == committed[e["seat"]]
            given[e["seat"]] = e["seed"]
            seen["revealed"] = seen.get("revealed", 0) + 1
        elif kind == "GameStarted":
            contributions = e.get("contributions")
            people = [given.get(n) for n in range(4)]
            assert contributions == (people if any(people) else None)
            seed = game_seed(seed, contributions)
            seen["contributions"] = sum(c is not None for c in people)
            first = draw(words(seed, b"euchre/first-dealer"), 4)
            assert e["first_dealer"] == first
        elif kind == "HandDealt":
            assert max(score) < target, "no hand is dealt once the game is won"
            assert e["dealer"] == (first + e["deal_no"] - 1) % 4
            assert (e["hands"], e["up"], e["kitty"]) == deal(seed, e["deal_no"], e["dealer"])
            trump, maker, alone, lone, taken = None, None, False, False, [0, 0]
            seen["deals"] += 1
        elif kind in ("TrumpOrdered", "TrumpCalled"):
            trump, maker, alone = e["suit"], e["seat"], e["alone"]
        elif kind == "DefenceChosen" and e["alone"]:
            lone = True
        elif kind == "CardPlayed":
            plays.append((e["seat"], e["card"]))
        elif kind == "TrickTaken":
            assert e["winner"] == trick_winner(plays, trump)
            assert e["cards"] == [card for _, card in plays]
            taken[e["winner"] % 2] += 1
            plays = []
            seen["tricks"] += 1
        elif kind == "HandScored":
            makers = maker % 2
            scored, won = points(taken[makers], alone, lone)
            team = makers if scored else 1 - makers
            score[team] += won
            assert (e["maker"], e["trump"], e["tricks"]) == (maker, trump, taken[makers])
            assert (e["team"], e["points"], e["score"]) == (team, won, score)
            seen["hands"] += 1
        elif kind == "GameWon":
            assert max(score) >= target and e["score"] == score
            assert e["team"] == score.index(max(score))
            seen["target"] = target
    assert events[-1]["type"] == "GameWon" or any(e["type"] == "GameWon" for e in events)
    return seen


@pytest.mark.parametrize("seed", range(12))
def test_the_pages_alone_reproduce_every_deal_trick_and_score(seed):
    people = [("ada", True), None, ("bo", False), None] if seed % 2 else [None] * 3 + [("cy", True)]
    events = finished_game("SPEC", seed, people, "hard", leaver=None)
    lines = msgspec.json.decode(msgspec.json.encode(export("SPEC", recorded("SPEC", events))))
    seen = audit(lines)
    assert seen["deals"] >= 1 and seen["tricks"] >= 5 and seen["hands"] >= 1
    assert seen["contributions"] == sum(p is not None for p in people)
    assert seen["sealed"] >= seen["deals"]


@pytest.mark.parametrize("points", [5, 7, 11, 15])
def test_the_pages_alone_end_the_game_at_the_target_the_host_chose(points):
    """A whole game to another target, each hand and the end checked as the pages say."""
    people = [("ada", True), None, None, None]
    events = finished_game("SPEC", points, people, "hard", settings={"points": points})
    lines = msgspec.json.decode(msgspec.json.encode(export("SPEC", recorded("SPEC", events))))
    assert lines[1]["settings"]["points"] == points
    seen = audit(lines)
    assert seen["target"] == points and seen["hands"] >= 1


@pytest.mark.parametrize("seed", range(4))
def test_the_pages_alone_check_seeds_revealed_at_the_start(seed):
    seeds = {"ada": "a1" * 32, "bo": "b0" * 32, "cy": "c9" * 32}
    events = committed_game("SPEC", seed, seeds, reveal={"ada", "cy"} if seed % 2 else {"bo"})
    lines = msgspec.json.decode(msgspec.json.encode(export("SPEC", recorded("SPEC", events))))
    seen = audit(lines)
    assert seen["revealed"] == (2 if seed % 2 else 1) == seen["contributions"]


@pytest.mark.parametrize("name", ["all_on", "people"])
def test_the_pages_alone_check_a_version_1_log_as_it_was_written(name):
    """Logs written before seals (tests/projections/v1, exported by the server as it was then)."""
    text = (Path(__file__).parent / "v1" / f"{name}.ndjson").read_text()
    lines = [json.loads(line) for line in text.splitlines()]
    assert "points" not in lines[1]["settings"]  # written before the target could be chosen
    seen = audit(lines)
    assert seen["hands"] >= 5 and seen["sealed"] == 0 and seen["target"] == 10


# docs/audit.md "Signed heads", "The public log" ---------------------------------------------


def ed25519_valid(key: str, message: bytes, signature: str) -> bool:
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(key)).verify(
            bytes.fromhex(signature), message
        )
    except InvalidSignature:
        return False
    return True


def rfc9162_root(leaves: list[bytes]) -> bytes:
    """MTH (RFC 9162 2.1.1), as the page points to it."""
    if not leaves:
        return hashlib.sha256(b"").digest()
    if len(leaves) == 1:
        return hashlib.sha256(b"\x00" + leaves[0]).digest()
    k = 1 << (len(leaves) - 1).bit_length() - 1
    return hashlib.sha256(b"\x01" + rfc9162_root(leaves[:k]) + rfc9162_root(leaves[k:])).digest()


def rfc9162_included(leaf: bytes, index: int, size: int, proof: list[bytes], root: bytes) -> bool:
    """RFC 9162 2.1.3.2, step by step."""
    if index >= size:
        return False
    fn, sn, r = index, size - 1, hashlib.sha256(b"\x00" + leaf).digest()
    for p in proof:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = hashlib.sha256(b"\x01" + p + r).digest()
            if not fn & 1:
                while fn and not fn & 1:
                    fn, sn = fn >> 1, sn >> 1
        else:
            r = hashlib.sha256(b"\x01" + r + p).digest()
        fn, sn = fn >> 1, sn >> 1
    return sn == 0 and r == root


def test_the_pages_alone_check_a_signed_head_and_a_games_place_in_the_public_log():
    """A view's signed head and a tree of finished games, made by our code; checked here from
    docs/audit.md with a third party's Ed25519 and the RFC's algorithms."""
    from domain.merkle import Tree, leaf_hash
    from infra.signing import Signer
    from projections.heads import sign_head
    from projections.transparency import game_leaf, tree_message

    signer = Signer.ephemeral()
    lines = msgspec.json.decode(
        msgspec.json.encode(
            export("SPEC", recorded("SPEC", finished_game("SPEC", 1, [None] * 3 + [("cy", True)])))
        )
    )
    won = next(e for e in lines[1:] if e["type"] == "GameWon")
    head = sign_head(signer.sign, signer.key, "SPEC", won["seq"], won["hash"])
    statement = {"code": "SPEC", "hash": won["hash"], "seq": won["seq"], "statement": "head"}
    assert ed25519_valid(head.key, canonical(statement), head.signature)
    assert not ed25519_valid(head.key, canonical({**statement, "seq": 1}), head.signature)

    games = [game_leaf(f"G{n}", n + 40, f"{n:064x}") for n in range(6)]
    mine = {"code": "SPEC", "hash": won["hash"], "seq": won["seq"], "statement": "game"}
    assert game_leaf("SPEC", won["seq"], won["hash"]) == canonical(mine)
    games.append(canonical(mine))
    tree = Tree(leaf_hash(g) for g in games)
    root = tree.root()
    assert root == rfc9162_root(games)
    assert rfc9162_included(games[6], 6, 7, tree.inclusion(6), root)
    assert not rfc9162_included(games[5], 6, 7, tree.inclusion(6), root)
    signed = signer.sign(tree_message(7, root.hex()))
    tree_statement = {"root": root.hex(), "size": 7, "statement": "tree"}
    assert ed25519_valid(signer.key, canonical(tree_statement), signed)


@pytest.mark.parametrize("seed", [9, 19, 24, 26])
def test_the_pages_alone_check_games_with_no_trump_calls(seed):
    """House rule `no_trump` on: in these games random legal moves call no trump (round two
    is rare), and each such hand's tricks and score are checked as the pages say."""
    people = [("ada", True), None, None, None]
    events = finished_game("SPEC", seed, people, "hard", settings={"no_trump": "on"})
    assert any(isinstance(e, ev.TrumpCalled) and e.suit == "N" for e in events)
    lines = msgspec.json.decode(msgspec.json.encode(export("SPEC", recorded("SPEC", events))))
    seen = audit(lines)
    assert seen["hands"] >= 1
