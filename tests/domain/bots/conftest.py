"""The bot tests build tables with the domain tests' kit (tests/domain/euchre_kit.py)."""

import sys
from pathlib import Path

DOMAIN_TESTS = str(Path(__file__).resolve().parent.parent)
if DOMAIN_TESTS not in sys.path:
    sys.path.insert(0, DOMAIN_TESTS)
