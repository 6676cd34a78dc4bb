"""The table's side of decisions without HTTP: prepare off the loop in order, the judge's status in the
snapshot and its change events, the decision feed kinds' rules, the configuration."""

from __future__ import annotations

import asyncio
import threading
import time
from datetime import UTC, datetime
from typing import Any

import pytest
from decisions_helpers import GAME_ID, TABLE, HitStand, HitStandJudge
from journal_records import records
from pydantic import ValidationError
from waiting import WAIT_S

from devices.events import CardDrawn
from recognition.game import BaseGame, BaseJudge, RoundSignal
from streaming.canonical import sign_message
from streaming.messages import FeedMessage
from studio.config import ConfigError, parse_config
from studio.journal import Journal, verify_journal
from studio.keys import load_or_create_key
from studio.table import DeviceSlot, Table

DEV = f"{TABLE}/shoe"


def card(code: str) -> CardDrawn:
    return CardDrawn(device_id=DEV, at=datetime.now(UTC), card=code, payload=f"P{code}")


@pytest.fixture
def journal(tmp_path):
    j = Journal(tmp_path, load_or_create_key(tmp_path))
    yield j
    j.close()
    report = verify_journal(tmp_path)
    assert report.ok, report.error


def make_table(game: Any, journal: Journal, **kw: Any) -> Table:
    return Table(
        TABLE,
        game,
        journal,
        betting_seconds=0,
        devices=[DeviceSlot(DEV, "serial-shoe", "shoe", "SHOE-1")],
        **kw,
    )


async def until(cond, timeout: float = WAIT_S) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        await asyncio.sleep(0.01)


# --- prepare -------------------------------------------------------------------------------------------------


class SlowPrepareJudge(BaseJudge):
    """Records what it is fed; its prepare takes a while (a camera frame's vision) and fails on card 'BAD'."""

    def __init__(self) -> None:
        self.fed: list[tuple[str, str]] = []
        self.prepare_threads: set[int] = set()

    def prepare(self, event: Any) -> Any:
        self.prepare_threads.add(threading.get_ident())
        time.sleep(0.03)
        if getattr(event, "card", None) == "BAD":
            raise ValueError("unreadable frame")
        return ("prepared", event.card)

    def feed(self, item: Any) -> list[Any]:
        if isinstance(item, RoundSignal):
            self.fed.append(("signal", item.signal))
        elif isinstance(item, tuple):
            self.fed.append(item)
        elif isinstance(item, CardDrawn):
            self.fed.append(("raw", item.card))
        return []


class SlowGame(BaseGame):
    game_id = "test_slow_prepare"
    device_kinds = ("serial-shoe",)
    pacing = "dealer"

    def __init__(self) -> None:
        self.judge = SlowPrepareJudge()

    def new_judge(self, **settings: Any) -> SlowPrepareJudge:
        return self.judge


def test_prepare_runs_on_a_worker_and_the_judge_gets_everything_in_order(journal):
    game = SlowGame()
    judge = game.judge

    async def main() -> None:
        table = make_table(game, journal)
        rid = table.open_round_by("dealer-dana").round_id
        for c in ("2S", "3S", "BAD"):
            table.device_event(card(c))
        table.close_betting_by("dealer-dana")  # its signal waits for the frames before it
        for c in ("4S", "5S"):
            table.device_event(card(c))
        # the loop was never left: nothing prepared has been fed yet, and every event is already journaled
        assert judge.fed == [("signal", "round_opened")]
        await until(lambda: len(judge.fed) == 7)
        assert threading.get_ident() not in judge.prepare_threads and len(judge.prepare_threads) == 1
        table.stop()
        journal.flush()
        history = [
            (h["kind"], h["data"].get("card") or h["data"].get("transition") or h["data"].get("message"))
            for h in journal.round_records(rid)
        ]
        assert [h for h in history if h[0] == "device_event"] == [
            ("device_event", c) for c in ("2S", "3S", "BAD", "4S", "5S")
        ]
        assert history.index(("round_state", "close_betting")) == history.index(
            ("device_event", "4S")
        ) - 1 or history.index(("round_state", "close_betting")) < history.index(("device_event", "4S"))
        refused = records(journal.path.parent, "refused")
        assert refused == [
            {
                "action": "judge_error",
                "message": "the game rules failed preparing card_drawn: unreadable frame",
            }
        ]

    asyncio.run(main())
    assert judge.fed == [
        ("signal", "round_opened"),
        ("prepared", "2S"),
        ("prepared", "3S"),
        ("raw", "BAD"),
        ("signal", "betting_closed"),
        ("prepared", "4S"),
        ("prepared", "5S"),
    ]


class PreparedHitStandJudge(HitStandJudge):
    def prepare(self, event: Any) -> Any:
        time.sleep(0.05)
        return event


class PreparedHitStand(HitStand):
    game_id = GAME_ID

    def new_judge(self, **settings: Any) -> PreparedHitStandJudge:
        return PreparedHitStandJudge()


def test_a_decision_waits_for_the_device_events_before_it(journal):
    async def main() -> None:
        table = make_table(PreparedHitStand(), journal)
        rid = table.open_round_by("dealer-dana").round_id
        table.decisions.decide_now(rid, "1", 1, "sit")
        table.close_betting_by("dealer-dana")
        table.device_event(card("9H"))  # still being prepared when the decision comes: it opens the window
        accepted = await table.decisions.decide(rid, "1", 1, "hit", window="1/hand_1/1")
        assert (
            accepted.decision.window == "1/hand_1/1" and accepted.feed_seq == 5
        )  # after opened, sit, closed, window
        table.device_event(card("2H"))
        await until(lambda: "1/hand_1/2" in table.windows)
        table.stop()

    asyncio.run(main())


def test_a_table_without_prepare_uses_no_worker(journal):
    async def main() -> None:
        table = make_table(HitStand(), journal)
        rid = table.open_round_by("d").round_id
        table.decisions.decide_now(rid, "1", 1, "sit")
        table.close_betting_by("d")
        table.device_event(card("9H"))
        assert table._preparer is None and list(table.windows) == ["1/hand_1/1"]  # fed at once
        table.stop()

    asyncio.run(main())


# --- status -------------------------------------------------------------------------------------------------


def test_the_judge_status_with_deadlines_is_in_the_snapshot_and_announced(journal):
    seen: list[dict] = []

    async def main() -> None:
        table = make_table(HitStand(), journal, decision_seconds=12)
        table.listeners.append(lambda what, data: seen.append(data) if what == "judge" else None)
        rid = table.open_round_by("d").round_id
        assert table.snapshot()["judge"] == {"next": None, "awaiting": []}
        table.decisions.decide_now(rid, "1", 1, "sit")
        table.close_betting_by("d")
        assert table.snapshot()["judge"]["next"] == {"position": "1", "label": "card to 1"}
        n = len(seen)
        table.device_event(card("9H"))
        status = table.snapshot()["judge"]
        deadline = table.windows["1/hand_1/1"].deadline
        assert status["next"] is None and status["awaiting"][0]["window"] == "1/hand_1/1"
        assert status["awaiting"][0]["deadline"] == deadline.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        assert 11 <= (deadline - datetime.now(UTC)).total_seconds() <= 12
        assert seen[-1] == {"judge": status} and len(seen) == n + 1
        table.device_event(CardDrawn(device_id=DEV, card=None, payload="noise"))  # same status: no new event
        assert len(seen) == n + 1
        table.stop()

    asyncio.run(main())


def test_a_game_without_status_has_no_judge_key_and_refuses_decisions(journal):
    table = make_table(SlowGame(), journal)
    assert "judge" not in table.snapshot()
    rid = table.open_round_by("d").round_id
    from studio.table import DecisionError

    with pytest.raises(DecisionError) as exc:
        table.decisions.decide_now(rid, "1", 1, "sit")
    assert exc.value.code == "no_decisions"


# --- the feed kinds -----------------------------------------------------------------------------------------


def base(**kw: Any) -> dict[str, Any]:
    return {
        "seq": 2,
        "table_id": "t",
        "game": "g",
        "round_id": "r",
        "round_number": 1,
        "version": 1,
        "result": None,
        "outcome": None,
        "reason": None,
        "source": {"type": "rules"},
        "commitment": None,
        "reveal": None,
        "occurred_at": "2026-11-29T12:00:00.000000Z",
        "prev_hash": "a" * 64,
        **kw,
    }


WINDOW = {
    "kind": "decision_window",
    "window": "3/hand_1/1",
    "seat": "3",
    "hand": 1,
    "allowed": ["hit", "stand"],
    "default": "stand",
    "detail": {"cards": ["9S"], "total": 9},
    "deadline": "2026-11-29T12:00:15.000000Z",
}
DECISION = {
    "kind": "decision",
    "window": "3/hand_1/1",
    "seat": "3",
    "hand": 1,
    "action": "hit",
    "cards": [],
    "by": "backend",
}
KEY = load_or_create_key


def test_the_decision_kinds_validate_and_round_trip(tmp_path):
    key = load_or_create_key(tmp_path)
    for fields in (WINDOW, DECISION):
        signed = sign_message(base(**fields), key)
        assert FeedMessage.model_validate(signed).model_dump(mode="json") == signed


@pytest.mark.parametrize(
    "bad",
    [
        {**WINDOW, "deadline": None},
        {**WINDOW, "default": "double"},  # the default must be allowed
        {**WINDOW, "detail": {"odds": 1.5}},  # no floats
        {**WINDOW, "action": "hit"},  # a decision's field
        {**WINDOW, "result": {"x": 1}},
        {**DECISION, "by": "dealer"},
        {**DECISION, "cards": None},
        {**DECISION, "hand": 0},
        {**DECISION, "reason": {"code": "c", "message": "m"}},
        {**DECISION, "deadline": "2026-11-29T12:00:15.000000Z"},
        {"kind": "result", "result": {"n": 1}, "window": "w"},  # other kinds carry no decision fields
    ],
)
def test_the_decision_kinds_are_refused_when_wrong(tmp_path, bad):
    signed = sign_message(base(**bad), load_or_create_key(tmp_path))
    with pytest.raises(ValidationError):
        FeedMessage.model_validate(signed)


# --- configuration ------------------------------------------------------------------------------------------


def config(consumers: list[dict], **table: Any) -> Any:
    return parse_config(
        {
            "consumers": consumers,
            "tables": [
                {"id": TABLE, "game": GAME_ID, "device": {"kind": "serial-shoe", "url": "loop://"}, **table}
            ],
        }
    )


def test_decision_tables_and_decision_seconds_are_configured_and_checked():
    cfg = config(
        [
            {"name": "a", "token": "x" * 16, "decision_tables": [TABLE]},
            {"name": "b", "token": "y" * 16, "decision_tables": ["*"]},
            {"name": "c", "token": "z" * 16},
        ]
    )
    assert [c.may_decide(TABLE) for c in cfg.consumers] == [True, True, False]
    assert cfg.tables[0].decision_seconds == 15
    with pytest.raises(ConfigError, match="decision_tables names no configured table: bj-9"):
        config([{"name": "a", "token": "x" * 16, "decision_tables": ["bj-9"]}])
    with pytest.raises(ConfigError, match="decision_seconds"):
        config([], decision_seconds=0)
