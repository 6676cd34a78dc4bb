"""What a running studio sends on its feed is what its AsyncAPI document (docs/asyncapi.json) says: every
message, of every kind, validates against its kind's payload schema; every round's betting opens and closes on
the feed, for every game, in order; the client library types them; `studio verify` accepts the journal."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import jsonschema_rs
import pytest
from contract_helpers import AUTH, ContractStudio
from studio_client import BettingClosed, BettingOpened, Verifier, parse_message
from waiting import WAIT_S
from websockets.sync.client import connect

ROOT = Path(__file__).resolve().parents[2]
ASYNCAPI = json.loads((ROOT / "docs" / "asyncapi.json").read_text(encoding="utf-8"))
#: the kinds a roulette table and a blackjack table with one seated player send within a few rounds
EXPECTED = {"betting_opened", "betting_closed", "result", "decision_window", "decision", "checkpoint"}


def _validator(kind: str) -> Any:
    """A validator of `kind`'s payload, its references resolved inside the AsyncAPI document."""
    payload = ASYNCAPI["components"]["messages"][kind]["payload"]
    return jsonschema_rs.validator_for({**ASYNCAPI, **payload})


def _play(studio: ContractStudio) -> list[dict[str, Any]]:
    """Sit seat_1 at every blackjack round while its betting is open (the windows run to their default) until
    the feed holds every expected kind at both tables; then the feed, as sent."""
    path = f"/v1/tables/{studio.blackjack}/decisions"
    sat: set[str] = set()
    deadline = time.monotonic() + 4 * WAIT_S
    with httpx.Client(base_url=studio.url, headers=AUTH, timeout=30) as http:
        while True:
            assert time.monotonic() < deadline, "timed out waiting for every kind on the feed"
            view = http.get(path).json()
            if view["round_id"] and view["state"] == "betting_open" and view["round_id"] not in sat:
                sat.add(view["round_id"])
                http.post(path, json={"round_id": view["round_id"], "seat": "seat_1", "action": "sit"})
            feed = studio.feed()
            results = {m["table_id"] for m in feed if m["kind"] == "result"}
            if EXPECTED <= {m["kind"] for m in feed} and len(results) == 2:
                return feed
            time.sleep(0.1)


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ContractStudio, list[dict[str, Any]]]]:
    studio = ContractStudio(tmp_path_factory.mktemp("contract-feed") / "data")
    try:
        yield studio, _play(studio)
    finally:
        studio.stop()


def test_the_document_is_asyncapi_3_with_a_message_per_kind() -> None:
    from streaming.messages import CHECKPOINT, FeedKind

    kinds = {*FeedKind.__args__, CHECKPOINT}  # type: ignore[attr-defined]
    assert ASYNCAPI["asyncapi"] == "3.0.0"
    channel = ASYNCAPI["channels"]["feed"]
    assert channel["address"] == "/v1/feed" and set(channel["messages"]) == kinds
    assert set(ASYNCAPI["components"]["messages"]) == kinds
    assert ASYNCAPI["components"]["securitySchemes"]["bearer"] == {
        **ASYNCAPI["components"]["securitySchemes"]["bearer"],
        "type": "http",
        "scheme": "bearer",
    }
    assert "after" in channel["bindings"]["ws"]["query"]["properties"]


def test_every_message_sent_validates_against_its_kind_in_the_asyncapi(
    live: tuple[ContractStudio, list[dict[str, Any]]],
) -> None:
    feed = live[1]
    assert EXPECTED <= {m["kind"] for m in feed}
    for message in feed:
        errors = [e.message for e in _validator(message["kind"]).iter_errors(message)]
        assert errors == [], f"seq {message['seq']} ({message['kind']}): {errors}"


def test_a_kind_does_not_validate_as_another(live: tuple[ContractStudio, list[dict[str, Any]]]) -> None:
    """The per-kind schemas are not one loose schema under eight names."""
    by_kind = {m["kind"]: m for m in live[1]}
    for kind, message in by_kind.items():
        for other in EXPECTED - {kind}:
            assert not _validator(other).is_valid(message), f"a {kind} validates as a {other}"


def test_every_round_opens_and_closes_betting_on_the_feed_in_order(
    live: tuple[ContractStudio, list[dict[str, Any]]],
) -> None:
    studio, feed = live
    rounds: dict[str, list[dict[str, Any]]] = {}
    for m in feed:
        if m["round_id"] is not None:
            rounds.setdefault(m["round_id"], []).append(m)
    ended = [msgs for msgs in rounds.values() if msgs[-1]["kind"] in ("result", "void")]
    assert {msgs[0]["table_id"] for msgs in ended} == {"roulette-1", studio.blackjack}
    for msgs in ended:
        kinds = [m["kind"] for m in msgs]
        first = kinds.index("betting_opened")
        assert kinds[:first] in ([], ["commitment"]), kinds  # a commitment comes before betting opens
        if "betting_closed" in kinds:
            closed = kinds.index("betting_closed")
            assert kinds.count("betting_closed") == 1 and first < closed
            # after betting closed: only the rules' windows and decisions, then the end
            assert set(kinds[closed + 1 : -1]) <= {"decision_window", "decision"}, kinds
            before = msgs[first + 1 : closed]
            assert all(m["kind"] == "decision" and m["action"] == "sit" for m in before), kinds  # sits only
        else:
            assert kinds[-1] == "void", kinds  # a round voided while betting was open
        opened = msgs[first]
        if opened["table_id"] == studio.blackjack:
            assert opened["closes_at"] is not None and opened["source"] == {"type": "timer"}
        else:  # the wheel opens and closes betting
            assert opened["closes_at"] is None and opened["source"]["type"] == "device"


def test_the_client_library_types_the_betting_messages(
    live: tuple[ContractStudio, list[dict[str, Any]]],
) -> None:
    studio, feed = live
    verifier = Verifier(studio.studio.public_key_b64)
    typed = []
    for m in feed:
        verifier.accept(verifier.check(m))
        typed.append(parse_message(m))
    opened = [t for t in typed if isinstance(t, BettingOpened)]
    closed = [t for t in typed if isinstance(t, BettingClosed)]
    assert opened and closed
    assert {t.round_id for t in closed} <= {t.round_id for t in opened}


def test_studio_verify_accepts_the_journal_with_them(
    live: tuple[ContractStudio, list[dict[str, Any]]],
) -> None:
    studio, feed = live
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", "verify", "--data", str(studio.studio.data_dir)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=WAIT_S,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    signed = int(done.stdout.split(" signed feed messages")[0].rsplit(" ", 1)[1])
    assert signed >= len(feed)  # the betting messages among them


def test_a_consumer_resumes_at_a_betting_message_like_any_other(
    live: tuple[ContractStudio, list[dict[str, Any]]],
) -> None:
    studio, feed = live
    for kind in ("betting_opened", "betting_closed"):
        m = next(m for m in feed if m["kind"] == kind)
        # max_queue=None: a client closing with more messages coming would otherwise stop reading at its queue's
        # limit and wait out its close timeout, the server's close frame being behind them
        url = studio.ws_url(f"/v1/feed?after={m['seq'] - 1}")
        with connect(url, additional_headers=AUTH, max_queue=None) as ws:
            got = [json.loads(ws.recv(timeout=WAIT_S)) for _ in range(2)]
        assert got == feed[m["seq"] - 1 : m["seq"] + 1]
