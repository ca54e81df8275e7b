"""The OpenAPI document against the server: schemathesis sends what `/schema` allows (and, in
its negative phase, what it doesn't) to every operation and checks each answer against it.

A real server on the test's own database; a signed-in player who hosts a real table, so paths
reach real resources rather than stopping at 401 and 404. Bounded and seeded, so it fits CI and
fails the same way twice. The endless `/events` stream is left out.
"""

from __future__ import annotations

import time
from collections import Counter

import pytest
import schemathesis
from hypothesis import HealthCheck, given, seed, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    response_schema_conformance,
    content_type_conformance,
    response_headers_conformance,
]
EXAMPLES = 20  # per operation and mode: what the schema allows, and what it doesn't
SEED = 20261201
SKIPPED = ("/events",)


@pytest.fixture
def player(api):
    ada = api.player("Fuzzy")
    table = ada.ok("POST", "/api/tables", json={"code": "FUZZ"})
    return ada, table["code"]


def _fuzz(operation, mode, label, base_url, auth, real, requests, failures):
    """A seeded hypothesis test for one operation, recording each distinct failure once."""

    @seed(SEED)
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=operation.as_strategy(generation_mode=mode))
    def probe(case):
        for name, value in real.items():
            if case.path_parameters and name in case.path_parameters:
                case.path_parameters[name] = value
        response = case.call(base_url=base_url, headers=auth, timeout=10)
        requests[label] += 1
        try:
            case.validate_response(response, checks=CHECKS)
        except (Exception, BaseExceptionGroup) as error:  # each distinct failure, once
            found = error.exceptions if isinstance(error, BaseExceptionGroup) else [error]
            for failure in found:
                text = str(failure).strip()
                key = (label, f"{type(failure).__name__}: {text.splitlines()[0] if text else ''}")
                failures.setdefault(key, f"{case.method} {response.request.url}\n{text}")

    return probe


def test_the_server_keeps_to_its_schema(base_url, player, record_property):
    ada, code = player
    schema = schemathesis.openapi.from_url(f"{base_url}/schema/openapi.json")
    auth = {"Authorization": f"Bearer {ada.token}"}
    real = {"code": code, "player_id": ada.id}
    operations = [
        result.ok()
        for result in schema.get_all_operations()
        if not result.ok().path.endswith(SKIPPED)
    ]
    requests: Counter[str] = Counter()
    failures: dict[tuple[str, str], str] = {}
    started = time.monotonic()

    took: dict[str, float] = {}
    for operation in operations:
        label = f"{operation.method.upper()} {operation.path}"
        began = time.monotonic()
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            try:
                _fuzz(operation, mode, label, base_url, auth, real, requests, failures)()
            except Unsatisfiable:  # nothing to break: no parameters and no body
                assert mode is GenerationMode.NEGATIVE, label
        took[label] = time.monotonic() - began

    elapsed = time.monotonic() - started
    counts = {
        "operations": len(operations),
        "requests": sum(requests.values()),
        "failures": len(failures),
        "seconds": round(elapsed, 1),
    }
    for name, value in counts.items():
        record_property(f"fuzz_{name}", value)
    print(f"\nschema fuzz: {counts}")
    for label, made in sorted(requests.items()):
        print(f"  {made:4d} requests  {took[label]:5.1f} s  {label}")
    assert len(operations) >= 15
    assert not failures, "\n\n".join(f"{k[0]}: {v}" for k, v in failures.items())
