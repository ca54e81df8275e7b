"""Which passwords a name may be registered with: long enough, and not easy to guess.

As NIST SP 800-63B asks: at least 8 characters, long passphrases welcome (up to 200), no rules
about which kinds of character to mix in, and a check against the passwords people use most
and those found in breaches. That check is zxcvbn's estimate, offline: its lists of common
and breached passwords, words, names and keyboard patterns, with the player's own name added,
and how many guesses a combination of them would take. It asks for a score of 3 ("safely
unguessable", about 10^10 guesses): a password that an offline attack on a stolen hash would
find quickly is refused, whatever its length. The refusal says why, in the estimator's own
advice ("Add another word or two").
"""

from __future__ import annotations

from zxcvbn import zxcvbn

ENOUGH = 3  # zxcvbn's score, 0 to 4
# The estimator's own bound: its work grows quickly with length. A longer passphrase is judged
# on its start, which for one worth having is strong already.
JUDGED = 72
ADVICE = "Add another word or two; a few uncommon words make a passphrase easy to remember."


class WeakPassword(Exception):
    """The password is too easy to guess; the message says why and what to do instead."""


def check(password: str, name: str) -> None:
    """WeakPassword unless `password` would take long to guess, knowing the player's `name`."""
    own = [name.casefold(), *name.casefold().split()]
    judged = zxcvbn(password[:JUDGED], user_inputs=own)
    if judged["score"] >= ENOUGH:
        return
    advice = [judged["feedback"]["warning"], *judged["feedback"]["suggestions"]]
    if any(part.get("dictionary_name") == "user_inputs" for part in judged["sequence"]):
        advice.insert(0, "It has your name in it, which everyone at your table can see.")
    said = " ".join(line for line in advice if line) or ADVICE
    raise WeakPassword(f"that password is too easy to guess. {said}")
