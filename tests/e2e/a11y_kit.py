"""Checking a page with axe-core, the vendored copy in vendor/ (see vendor/README.md).

axe goes into the page as a script tag of its own, which the page's Content-Security-Policy
(script-src 'self') would refuse: a context opened with `AXE_CONTEXT` lets it in. That is the
only thing the option changes; the page's own scripts run as they always do.
"""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page

AXE = Path(__file__).parent / "vendor" / "axe.min.js"
AXE_CONTEXT = {"bypass_csp": True}


def axe_violations(page: Page) -> list[dict]:
    """Every rule axe finds broken on the page as it is now, with the elements that break it."""
    if not page.evaluate("() => 'axe' in window"):
        page.add_script_tag(path=str(AXE))
    return page.evaluate(
        """async () => (await axe.run(document)).violations.map(v => ({
            id: v.id,
            impact: v.impact,
            help: v.help,
            nodes: v.nodes.map(n => ({ target: n.target.join(' '), summary: n.failureSummary })),
        }))"""
    )


def describe(violations: list[dict]) -> str:
    """One line per element that breaks a rule: the rule, how bad, where, and what is wrong."""
    lines = []
    for v in violations:
        for node in v["nodes"]:
            summary = " ".join(node["summary"].split())
            lines.append(f"{v['id']} ({v['impact']}) at {node['target']}: {summary}")
    return "\n".join(lines)
