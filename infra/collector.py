"""The garbage collector's settings for a long-lived serving process: the API and a worker.

CPython's default thresholds (700, 10, 10) suit a short script. A serving process keeps what it
started with for its whole life, and its work (a request, a stream's message, a bot's move)
makes short-lived objects that outlive a 700-allocation young generation. Promoted, they bring
full collections that walk everything alive: at 2,500 streams the API stalled ~290 ms every
7-10 s, and a worker at 1,000 tables ~150 ms every 3 s (docs/scaling.md).
"""

from __future__ import annotations

import gc

# A young generation of 50,000 lets a move's objects die young; the older two as CPython's.
THRESHOLDS = (50_000, 20, 10)


def settle() -> None:
    """Call once started: what start-up made lives as long as the process, so it goes out of
    the collector's sight, and collections from now on walk only what was made since."""
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)
