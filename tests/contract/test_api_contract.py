"""Schemathesis over the OpenAPI the running studio serves (GET /openapi.json): every REST route of /v1 and
/metrics (the consumer token sent), with generated parameters and bodies, a bounded number of cases each. No
answer is a 5xx, every status is one the route documents, and every body matches the documented schema of its
status. The console's reads, as a signed-in admin: no 5xx, and a 200 matches its schema."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from contract_helpers import AUTH, ContractStudio
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from waiting import until

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ContractStudio]:
    studio = ContractStudio(tmp_path_factory.mktemp("contract-api") / "data")
    try:
        # a round at each table, so that /v1/tables and the decisions view have one to show
        until(
            lambda: all(t.round is not None for t in studio.studio.tables.values()), "a round at each table"
        )
        yield studio
    finally:
        studio.stop()


@pytest.fixture(scope="module")
def api(served: ContractStudio) -> Any:
    return schemathesis.openapi.from_url(f"{served.url}/openapi.json")


DOCS = Path(__file__).resolve().parents[2] / "docs"
#: (method, path) of every /v1 route and /metrics, from the committed OpenAPI (the last test checks it is what is served)
V1_ROUTES = [
    (method.upper(), path)
    for path, item in json.loads((DOCS / "openapi.json").read_text(encoding="utf-8"))["paths"].items()
    if path.startswith("/v1/") or path == "/metrics"
    for method in item
]


# schemathesis's own pytest integration (schema.parametrize over a fixture) does not run under pytest 9: each
# operation's hypothesis strategy is driven here instead
@pytest.mark.parametrize(("method", "path"), V1_ROUTES, ids=[f"{m} {p}" for m, p in V1_ROUTES])
def test_every_v1_route_answers_as_its_openapi_says(api: Any, method: str, path: str) -> None:
    operation = api[path][method]

    @given(case=operation.as_strategy())
    @settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    def check(case: Any) -> None:
        case.call_and_validate(headers=AUTH, checks=CHECKS)

    check()


#: the console's reads (its writes act on tables and users: the console's own tests drive them)
CONSOLE_READS = [
    path
    for path, item in json.loads((DOCS / "openapi.json").read_text(encoding="utf-8"))["paths"].items()
    if path.startswith("/console/api/") and "get" in item
]


def test_the_console_reads_are_made_signed_in(served: ContractStudio, api: Any) -> None:
    headers = served.console_headers()
    for path in ("/console/api/me", "/console/api/tables", "/console/api/devices"):
        answer = _case(api, path, "GET").call_and_validate(headers=headers, checks=CHECKS)
        assert answer.status_code == 200, path


@pytest.mark.parametrize("path", CONSOLE_READS)
def test_no_console_read_is_a_server_error_and_each_answer_matches(
    served: ContractStudio, api: Any, path: str
) -> None:
    """The console's routes document their 200s only: any status but a 5xx, and a 200 matching its schema."""
    headers = served.console_headers()
    operation = api[path]["GET"]

    @given(case=operation.as_strategy())
    @settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    def check(case: Any) -> None:
        case.call_and_validate(headers=headers, checks=[not_a_server_error, response_schema_conformance])

    check()


def _case(api: Any, path: str, method: str, **kwargs: Any) -> Any:
    return api[path][method].Case(**kwargs)


def test_a_real_round_and_the_tables_match_their_schemas(served: ContractStudio, api: Any) -> None:
    """Generated round ids are never the studio's: ask for real ones, open and finished."""
    until(
        lambda: any(m["kind"] == "result" for m in served.feed()),
        "a certified result",
    )
    round_ids = {m["round_id"] for m in served.feed() if m.get("round_id")}
    assert round_ids
    for round_id in sorted(round_ids)[:6]:
        case = _case(api, "/v1/rounds/{round_id}", "GET", path_parameters={"round_id": round_id})
        response = case.call_and_validate(headers=AUTH, checks=CHECKS)
        assert response.status_code == 200
    tables = _case(api, "/v1/tables", "GET").call_and_validate(headers=AUTH, checks=CHECKS)
    assert {t["table_id"] for t in tables.json()} == {"roulette-1", served.blackjack}


def test_a_decision_refused_and_the_open_windows_match_their_schemas(
    served: ContractStudio, api: Any
) -> None:
    path = "/v1/tables/{table_id}/decisions"
    view = _case(api, path, "GET", path_parameters={"table_id": served.blackjack})
    assert view.call_and_validate(headers=AUTH, checks=CHECKS).status_code == 200
    body = {"round_id": "not-the-open-round", "seat": "seat_1", "action": "sit"}
    post = _case(api, path, "POST", path_parameters={"table_id": served.blackjack}, body=body)
    assert post.call_and_validate(headers=AUTH, checks=CHECKS).status_code == 409


def test_the_served_documents_are_the_committed_ones(served: ContractStudio) -> None:
    for route, name in (("/openapi.json", "openapi.json"), ("/asyncapi.json", "asyncapi.json")):
        served_doc = httpx.get(served.url + route, timeout=30).json()
        assert served_doc == json.loads((DOCS / name).read_text(encoding="utf-8")), route
