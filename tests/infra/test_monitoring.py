"""The alert rules and the Grafana dashboard under infra/monitoring: valid to Prometheus's own
checker, and asking only for series the service exports (a renamed series would otherwise
leave a panel empty and an alert silent, with nothing failing)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from infra import metrics

MONITORING = Path(__file__).resolve().parents[2] / "infra" / "monitoring"
SERIES = re.compile(r"\beuchre_[a-z0-9_]+")


def promtool() -> str:
    """Debian's prometheus package's checker; CI installs it (.ci/run) and requires it."""
    found = shutil.which("promtool")
    if found is None:
        if os.environ.get("EUCHRE_TEST_REQUIRE_PROMETHEUS") == "1":
            pytest.fail("promtool is missing: apt-get install prometheus")
        pytest.skip("no promtool: apt-get install prometheus (CI does)")
    return found


def check_rules(path: Path) -> None:
    checked = subprocess.run(
        [promtool(), "check", "rules", str(path)], capture_output=True, text=True, timeout=60
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def dashboard_queries() -> list[str]:
    dashboard = json.loads((MONITORING / "dashboard.json").read_text())
    return [target["expr"] for panel in dashboard["panels"] for target in panel["targets"]]


def test_the_alert_rules_pass_promtool_and_name_exported_series():
    rules = MONITORING / "alerts.yml"
    check_rules(rules)
    named = set(SERIES.findall(rules.read_text()))
    assert named, "the rules name no series"
    assert named <= set(metrics.names()), named - set(metrics.names())


def test_every_dashboard_query_parses_and_names_exported_series(tmp_path: Path):
    queries = dashboard_queries()
    assert len(queries) > 10
    named = {name for query in queries for name in SERIES.findall(query)}
    assert named <= set(metrics.names()), named - set(metrics.names())
    # Every series the service exports has a panel (the histograms' by one of their parts).
    exported = {re.sub(r"_(bucket|count|sum)$", "", name) for name in metrics.names()}
    shown = {re.sub(r"_(bucket|count|sum)$", "", name) for name in named}
    assert exported == shown, exported ^ shown
    # Each query as a recording rule, for promtool to parse.
    lines = ["groups:", "  - name: dashboard", "    rules:"]
    for n, query in enumerate(queries):
        lines += [f"      - record: euchre:panel_{n}", f"        expr: {json.dumps(query)}"]
    parsed = tmp_path / "queries.yml"
    parsed.write_text("\n".join(lines) + "\n")
    check_rules(parsed)
