"""A small decision game that follows docs/decisions.md's contract exactly, and a whole studio around it.

The game ("test_hit_stand"): players "sit" while betting is open; when betting closes the judge deals one card
to each seated seat in seat order, then asks each seat in turn hit or stand (default stand) until it stands or
goes over 21; a hit waits for the seat's next card. Then the result is every seat's cards and total.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
import uvicorn
from journal_records import records
from waiting import WAIT_S
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect as ws_connect

from app.api import create_app
from devices.events import CardDrawn
from recognition.game import (
    AskDecision,
    BaseGame,
    BaseJudge,
    DecisionRefused,
    DecisionTaken,
    Hold,
    PlayerDecision,
    ResultReady,
    RoundSignal,
    Void,
)
from studio.config import parse_config
from studio.service import Studio

GAME_ID = "test_hit_stand"
DECIDE_TOKEN = "decisions-backend-token-0001"
FEED_TOKEN = "decisions-feed-only-token-01"
OTHER_TOKEN = "decisions-other-table-token1"
TABLE = "bj-1"
OTHER_TABLE = "bj-2"

VALUES = {"A": 11, "T": 10, "J": 10, "Q": 10, "K": 10, **{str(n): n for n in range(2, 10)}}


def total(cards: list[str]) -> int:
    t = sum(VALUES[c[0]] for c in cards)
    aces = sum(1 for c in cards if c[0] == "A")
    while t > 21 and aces:
        t, aces = t - 10, aces - 1
    return t


class HitStandJudge(BaseJudge):
    def __init__(self) -> None:
        self.round_number = 0
        self.phase = "idle"  # idle, betting, dealing, deciding, done
        self.seats: list[str] = []
        self.hands: dict[str, list[str]] = {}
        self.turn = 0  # index into seats of the seat playing now (after the first card to each)
        self.window: str | None = None  # the open window
        self.asked: dict[str, int] = {}
        self.decisions: list[dict[str, Any]] = []
        self.cards: list[str] = []
        self.device_id: str | None = None

    # where the next card goes (None: the deal waits for a decision or is complete)
    def _next_position(self) -> str | None:
        if self.phase != "dealing":
            return None
        for s in self.seats:
            if not self.hands[s]:
                return s
        return self.seats[self.turn]

    def status(self) -> dict[str, Any] | None:
        if self.phase in ("idle", "done"):
            return None
        pos = self._next_position()
        awaiting = []
        if self.phase == "deciding" and self.window is not None:
            seat = self.seats[self.turn]
            awaiting.append(
                {
                    "window": self.window,
                    "seat": seat,
                    "hand": 1,
                    "allowed": ["hit", "stand"],
                    "default": "stand",
                }
            )
        return {"next": {"position": pos, "label": f"card to {pos}"} if pos else None, "awaiting": awaiting}

    def _ask(self, seat: str) -> AskDecision:
        self.asked[seat] = self.asked.get(seat, 0) + 1
        self.window = f"{seat}/hand_1/{self.asked[seat]}"
        self.phase = "deciding"
        return AskDecision(
            window=self.window,
            seat=seat,
            hand=1,
            allowed=("hit", "stand"),
            default="stand",
            detail={"cards": list(self.hands[seat]), "total": total(self.hands[seat])},
        )

    def _after_seat(self) -> list[Any]:
        """The seat playing now is finished: ask the next one, or give the result."""
        self.turn += 1
        self.window = None
        if self.turn < len(self.seats):
            return [self._ask(self.seats[self.turn])]
        self.phase = "done"
        result = {
            "seats": {s: {"cards": list(self.hands[s]), "total": total(self.hands[s])} for s in self.seats}
        }
        return [
            ResultReady(
                result=result,
                source={
                    "device_id": self.device_id,
                    "cards": list(self.cards),
                    "decisions": list(self.decisions),
                },
            )
        ]

    def _take(self, pd: PlayerDecision, window: str) -> DecisionTaken:
        self.decisions.append(
            {
                "window": window,
                "seat": pd.seat,
                "hand": pd.hand,
                "action": pd.action,
                "cards": list(pd.cards),
                "by": pd.by,
            }
        )
        return DecisionTaken(
            window=window, seat=pd.seat, hand=pd.hand, action=pd.action, cards=pd.cards, by=pd.by
        )

    def _decide(self, pd: PlayerDecision) -> list[Any]:
        if self.phase == "idle" or pd.round_number != self.round_number:
            return [DecisionRefused(code="no_round", message=f"round {pd.round_number} is not in play")]
        if pd.action == "sit":
            if self.phase != "betting":
                return [
                    DecisionRefused(code="betting_closed", message="seats sit only while betting is open")
                ]
            if pd.seat in self.seats:
                return [DecisionRefused(code="not_allowed", message=f"seat {pd.seat} already sat")]
            self.seats.append(pd.seat)
            self.seats.sort()
            return [self._take(pd, f"{pd.seat}/sit")]
        if self.phase == "betting":
            return [DecisionRefused(code="betting_open", message="no decision is needed before the deal")]
        if self.phase == "done":
            return [DecisionRefused(code="round_over", message="the deal is complete")]
        if pd.seat not in self.seats:
            return [DecisionRefused(code="seat_not_in_play", message=f"seat {pd.seat} is not in play")]
        if pd.hand != 1:
            return [DecisionRefused(code="hand_not_in_play", message=f"seat {pd.seat} has no hand {pd.hand}")]
        mine = self.phase == "deciding" and self.seats[self.turn] == pd.seat
        if pd.window is not None and (not mine or pd.window != self.window):
            return [DecisionRefused(code="window_closed", message=f"window {pd.window} is not open")]
        if not mine:
            return [DecisionRefused(code="not_your_turn", message=f"no window is open for seat {pd.seat}")]
        if pd.action not in ("hit", "stand"):
            return [DecisionRefused(code="not_allowed", message=f"{pd.action!r} is not allowed: hit, stand")]
        taken = self._take(pd, self.window)  # type: ignore[arg-type]
        if pd.action == "stand":
            return [taken, *self._after_seat()]
        self.window = None
        self.phase = "dealing"
        return [taken]

    def _card(self, event: CardDrawn) -> list[Any]:
        self.device_id = event.device_id
        if not event.card or self.phase not in ("dealing", "deciding"):
            return []
        if self.phase == "deciding":
            return [
                Hold(code="card_before_decision", message=f"a card came before {self.window} was answered")
            ]
        seat = self._next_position()
        assert seat is not None
        self.hands[seat].append(event.card)
        self.cards.append(event.card)
        if any(not self.hands[s] for s in self.seats):
            return []
        if len(self.cards) == len(self.seats):  # the first card to each seat: the first seat decides
            return [self._ask(self.seats[0])]
        if total(self.hands[seat]) > 21:
            return self._after_seat()
        return [self._ask(seat)]

    def feed(self, item: Any) -> list[Any]:
        if isinstance(item, RoundSignal):
            if item.signal == "round_opened":
                self.__init__()  # type: ignore[misc]
                self.round_number, self.phase = item.round_number, "betting"
            elif item.signal == "betting_closed":
                if not self.seats:
                    self.phase = "done"
                    return [Void(code="no_players", message="no seat sat this round")]
                self.hands = {s: [] for s in self.seats}
                self.phase = "dealing"
            elif item.signal == "round_ended":
                self.phase = "idle"
            return []
        if isinstance(item, PlayerDecision):
            return self._decide(item)
        if isinstance(item, CardDrawn):
            return self._card(item)
        return []


class HitStand(BaseGame):
    game_id = GAME_ID
    device_kinds = ("serial-shoe",)
    pacing = "dealer"
    has_decisions = True

    def new_judge(self, **settings: Any) -> HitStandJudge:
        return HitStandJudge()

    def validate_result(self, result: dict[str, Any]) -> dict[str, Any]:
        seats = result.get("seats")
        if not isinstance(seats, dict) or not seats:
            raise ValueError("a result is {'seats': {seat: {'cards': [...], 'total': n}}}")
        for seat, hand in seats.items():
            if hand.get("total") != total(hand.get("cards") or []):
                raise ValueError(f"seat {seat}: the total is not its cards' total")
        return {
            "seats": {s: {"cards": list(h["cards"]), "total": h["total"]} for s, h in sorted(seats.items())}
        }

    def outcome(self, result: dict[str, Any], extras: dict[str, Any] | None = None) -> dict[str, Any]:
        return {"bust": sorted(s for s, h in result["seats"].items() if h["total"] > 21)}


# --- a whole studio on real uvicorn -------------------------------------------------------------------------


def studio_config(
    data,
    *,
    decision_seconds: float = 30.0,
    tables: tuple[str, ...] = (TABLE, OTHER_TABLE),
    game: str = GAME_ID,
) -> Any:
    return parse_config(
        {
            "studio": {"data_dir": str(data)},
            "consumers": [
                {"name": "backend", "token": DECIDE_TOKEN, "decision_tables": [TABLE]},
                {"name": "feed-reader", "token": FEED_TOKEN},
                {"name": "other-backend", "token": OTHER_TOKEN, "decision_tables": [OTHER_TABLE]},
            ],
            "tables": [
                {
                    "id": t,
                    "game": game,
                    "betting_seconds": 0,
                    "decision_seconds": decision_seconds,
                    "device": {
                        "kind": "serial-shoe",
                        "role": "shoe",
                        "url": "loop://",
                        "serial_number": f"SHOE-{t}",
                    },
                }
                for t in tables
            ],
        }
    )


class Running:
    """A Studio served by real uvicorn on an ephemeral 127.0.0.1 port, on a thread of its own."""

    def __init__(self, data, **config: Any) -> None:
        self.studio = Studio(studio_config(data, **config))
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(
            uvicorn.Config(
                create_app(self.studio),
                log_level="warning",
                lifespan="on",
                ws_ping_interval=None,
                ws_per_message_deflate=False,
                timeout_graceful_shutdown=2,
            )
        )
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, name="decisions-uvicorn", daemon=True
        )
        self.thread.start()
        deadline = time.monotonic() + WAIT_S
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the studio did not start")
            time.sleep(0.02)
        self.http = httpx.Client(base_url=self.url, timeout=20)

    def stop(self) -> None:
        self.http.close()
        self.server.should_exit = True
        self.thread.join(WAIT_S)
        self.sock.close()
        assert not self.thread.is_alive(), "uvicorn did not stop"

    def on_loop(self, fn: Callable[[], Any], timeout: float = WAIT_S) -> Any:
        async def run() -> Any:
            return fn()

        return asyncio.run_coroutine_threadsafe(run(), self.studio.loop).result(timeout)

    def table(self, table_id: str = TABLE) -> Any:
        return self.studio.tables[table_id]

    def open_round(self, table_id: str = TABLE) -> str:
        return self.on_loop(lambda: self.table(table_id).open_round_by("dealer-dana")).round_id

    def close_betting(self, table_id: str = TABLE) -> None:
        self.on_loop(lambda: self.table(table_id).close_betting_by("dealer-dana"))

    def card(self, code: str, table_id: str = TABLE) -> None:
        event = CardDrawn(device_id=f"{table_id}/shoe", at=datetime.now(UTC), card=code, payload=f"P{code}")
        self.on_loop(lambda: self.table(table_id).device_event(event))

    def post(self, body: Any, token: str | None = DECIDE_TOKEN, table_id: str = TABLE) -> httpx.Response:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        if isinstance(body, (dict, list)):
            return self.http.post(f"/v1/tables/{table_id}/decisions", json=body, headers=headers)
        return self.http.post(f"/v1/tables/{table_id}/decisions", content=body, headers=headers)

    def windows(self, token: str = FEED_TOKEN, table_id: str = TABLE) -> httpx.Response:
        return self.http.get(f"/v1/tables/{table_id}/decisions", headers={"Authorization": f"Bearer {token}"})

    def feed(self) -> list[dict[str, Any]]:
        """The feed without its betting kinds (`decision_messages`)."""
        self.studio.journal.flush()
        return decision_messages([json.loads(t) for _, t in self.studio.journal.read_after(0, 100_000)])

    def records(self, kind: str) -> list[dict[str, Any]]:
        return records(self.studio, kind)


#: the round-lifecycle kinds every round has (tests/contract checks them): the decision tests look past them
BETTING_KINDS = ("betting_opened", "betting_closed")


def decision_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages without the betting kinds: the decisions, windows, results and voids, in seq order."""
    return [m for m in messages if m["kind"] not in BETTING_KINDS]


class FeedConsumer:
    """A real websockets consumer of /v1/feed on a thread: collects every message it receives."""

    def __init__(self, url: str, token: str, after: int = 0) -> None:
        self.messages: list[dict[str, Any]] = []
        self.ws = ws_connect(
            url.replace("http", "ws") + f"/v1/feed?after={after}",
            additional_headers={"Authorization": f"Bearer {token}"},
            open_timeout=10,
        )
        self.thread = threading.Thread(target=self._run, name="feed-consumer", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            for text in self.ws:
                self.messages.append(json.loads(text))
        except ConnectionClosed:  # the studio stopped: wait_for says what did not come
            pass

    def wait_for(
        self, cond: Callable[[list[dict[str, Any]]], bool], timeout: float = WAIT_S
    ) -> list[dict[str, Any]]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if cond(self.messages):
                return decision_messages(self.messages)
            time.sleep(0.02)
        raise AssertionError(f"the feed did not deliver in time; got {[m['kind'] for m in self.messages]}")

    def close(self) -> None:
        self.ws.close()
        self.thread.join(10)


def until(cond: Callable[[], Any], timeout: float = WAIT_S, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = cond()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


# --- fixtures (conftest.py registers them for this directory) ----------------------------------------------


@pytest.fixture(autouse=True)
def hit_stand_game(monkeypatch):
    from recognition.games import GAMES

    monkeypatch.setitem(GAMES, GAME_ID, HitStand())


@pytest.fixture
def start(tmp_path):
    """start(**config) -> a running studio; stopped (and its journal verified) at the end of the test."""
    from studio.journal import verify_journal

    started: list[Running] = []

    def go(**config: Any) -> Running:
        r = Running(tmp_path / "data", **config)
        started.append(r)
        return r

    yield go
    for r in started:
        r.stop()
    if started:
        report = verify_journal(tmp_path / "data")
        assert report.ok, report.error
