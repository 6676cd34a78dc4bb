"""The decisions API through the client: each refusal is its own exception, with the API's code."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from client_studio import DECISIONS_TOKEN, FEED_TOKEN, ServedStudio, run, wheel_table
from studio_client import (
    DecisionError,
    DecisionRefused,
    DecisionsClient,
    Forbidden,
    Malformed,
    Unauthorized,
    UnknownTable,
)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServedStudio]:
    studio = ServedStudio(tmp_path_factory.mktemp("client-decisions") / "data", [wheel_table(speed=5)])
    yield studio
    studio.stop()


async def _decide(url: str, token: str, table_id: str, **kwargs: object) -> DecisionError:
    async with DecisionsClient(url, token) as client:
        try:
            await client.decide(table_id, "no-such-round", "seat_1", "hit", **kwargs)  # type: ignore[arg-type]
        except DecisionError as exc:
            return exc
    raise AssertionError("the decision was taken")


@pytest.mark.parametrize(
    ("token", "table_id", "kwargs", "error", "status", "code"),
    [
        (DECISIONS_TOKEN, "no-such-table", {}, UnknownTable, 404, "unknown_table"),
        (FEED_TOKEN, "t1", {}, Forbidden, 403, "forbidden"),
        ("an-unknown-token-0123456789", "t1", {}, Unauthorized, 401, "unauthorized"),
        (DECISIONS_TOKEN, "t1", {"hand": 0}, Malformed, 422, "malformed"),
    ],
    ids=["unknown_table", "feed_only_token", "unknown_token", "bad_hand"],
)
def test_refusals_map_to_their_exception(
    served: ServedStudio,
    token: str,
    table_id: str,
    kwargs: dict[str, object],
    error: type[DecisionError],
    status: int,
    code: str,
) -> None:
    exc = run(_decide(served.url, token, table_id, **kwargs))
    assert type(exc) is error and exc.status == status and exc.code == code and exc.body["message"]


def test_a_rules_refusal_is_a_decision_refused_with_its_code(served: ServedStudio) -> None:
    exc = run(_decide(served.url, DECISIONS_TOKEN, "t1"))
    assert isinstance(exc, DecisionRefused) and exc.status == 409
    assert exc.code in {"no_decisions", "no_round"}


def test_a_malformed_body_names_its_problems(served: ServedStudio) -> None:
    exc = run(_decide(served.url, DECISIONS_TOKEN, "t1", hand=0))
    assert isinstance(exc, Malformed) and any("hand" in p["where"] for p in exc.problems)


def test_open_windows_are_read_with_a_feed_token(served: ServedStudio) -> None:
    async def windows() -> dict[str, object]:
        async with DecisionsClient(served.url, FEED_TOKEN) as client:
            return await client.windows("t1")

    body = run(windows())
    assert body["table_id"] == "t1"
