"""What a screen reader hears over one whole hand: every message the page puts into its live
regions, checked against the game's own log."""

from __future__ import annotations

import httpx
from browser_kit import open_person, play_out_the_hand, sign_in_and_open, wait_for_sheet
from playwright.sync_api import expect
from test_web_record import log_of

# Every text a live region is given, in order, as a screen reader would be told it: a log's
# new lines one by one, any other region's whole text each time it changes; an image by its
# name, and nothing hidden from screen readers.
RECORD = """
window.__transcript = [];
const LIVE = '[aria-live], [role=status], [role=log], [role=alert]';
const heard = (node) => {
  if (node.nodeType === Node.TEXT_NODE) return node.textContent;
  if (node.nodeType !== Node.ELEMENT_NODE || node.getAttribute('aria-hidden') === 'true') return '';
  if (node.getAttribute('role') === 'img') return node.getAttribute('aria-label') || '';
  return [...node.childNodes].map(heard).join('');
};
new MutationObserver((mutations) => {
  for (const m of mutations) {
    const target = m.target.nodeType === Node.ELEMENT_NODE ? m.target : m.target.parentElement;
    const region = target?.closest(LIVE);
    if (!region) continue;
    const said = region.getAttribute('role') === 'log' && target === region
      ? [...m.addedNodes].map(heard)
      : [heard(region)];
    for (const text of said.map((t) => t.trim()).filter(Boolean)) {
      if (window.__transcript.at(-1) !== text) window.__transcript.push(text);
    }
  }
}).observe(document, { subtree: true, childList: true, characterData: true });
"""

RANKS = {"9": "nine", "T": "ten", "J": "jack", "Q": "queen", "K": "king", "A": "ace"}
SUITS = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}


def test_the_live_regions_tell_every_card_every_trick_and_the_score_of_a_hand(browser, server):
    ada = open_person(browser, server, "Ada", viewport={"width": 1366, "height": 768})
    page = ada.page
    page.add_init_script(RECORD)
    code = sign_in_and_open(ada)
    page.click("button[name=start]")
    expect(page.locator("#app")).to_have_attribute("data-view", "game")
    play_out_the_hand(ada)
    wait_for_sheet(ada)  # the hand is told in full by then

    log = log_of(server, code)
    hand = log[: next(n for n, e in enumerate(log) if e["type"] == "HandScored") + 1]
    names = {s["seat"]: s["name"] for s in httpx.get(f"{server}/api/tables/{code}").json()["seats"]}
    bots = ["Tin", "Cog", "Bolt", "Dot"]  # the names the page gives each seat's bot
    said = {0: "You", **{seat: names[seat] or bots[seat] for seat in (1, 2, 3)}}
    heard = page.evaluate("() => window.__transcript")
    transcript = "\n".join(heard)

    def told(*parts: str) -> bool:
        return any(all(p in line for p in parts) for line in heard)

    plays = [e for e in hand if e["type"] == "CardPlayed"]
    assert plays, "a scored hand has cards played"
    for e in plays:
        card = f"{RANKS[e['card'][0]]} of {SUITS[e['card'][1]]}"
        assert told(f"{said[e['seat']]} played", card), (
            f"nobody was told {said[e['seat']]} played the {card}:\n{transcript}"
        )
    taken = [0, 0]
    for e in (e for e in hand if e["type"] == "TrickTaken"):
        taken[e["winner"] % 2] += 1
        tally = f"Us {taken[0]}, Them {taken[1]}"
        assert told(f"{said[e['winner']]} took the trick", tally), (
            f"nobody was told {said[e['winner']]} took the trick ({tally}):\n{transcript}"
        )
    score = hand[-1]["score"]
    assert told(f"Score: Us {score[0]}, Them {score[1]}"), f"the score went untold:\n{transcript}"
    assert "Sending" not in transcript, f"every move was announced as sending:\n{transcript}"
    ada.assert_no_errors()
