"""The collector's settings for a serving process, tried in a fresh interpreter: freezing
what the test process made would keep its garbage for the rest of the run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SETTLED = """
import gc
from infra import collector
made = [[] for _ in range(1000)]  # lists, which the collector tracks
before = gc.get_freeze_count()
collector.settle()
print(gc.get_threshold() == collector.THRESHOLDS, gc.get_freeze_count() >= before + 1000)
"""


def test_a_settled_process_keeps_what_it_started_with_out_of_sight_and_collects_young_late():
    shown = subprocess.run(
        [sys.executable, "-c", SETTLED], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert shown.stdout.split() == ["True", "True"]
