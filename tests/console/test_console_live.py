"""The live hub: it follows a table's events (device events included), keeps what a late page needs, and does
not flood the screens with repeating device states."""

from __future__ import annotations

from types import SimpleNamespace

from dealer_ui.live import ConsoleHub
from devices.events import CardDrawn, WheelResult


class FakeTable:
    def __init__(self) -> None:
        self.table_id = "t1"
        self.listeners: list = []
        self.seen: list = []

    def device_event(self, event) -> None:  # what studio/table.py does, minus the journal and the rules
        self.seen.append(event)
        self.emit("device", event.model_dump(mode="json"))

    def emit(self, what: str, data: dict) -> None:
        for listener in list(self.listeners):
            listener(what, data)


def hub_for(table: FakeTable, last_round: dict | None = None) -> ConsoleHub:
    studio = SimpleNamespace(tables={"t1": table}, journal=SimpleNamespace(last_round=lambda tid: last_round))
    hub = ConsoleHub(studio)
    hub.attach()
    return hub


def test_device_events_are_followed_as_the_table_tells_them():
    table = FakeTable()
    hub = hub_for(table)
    table.device_event(CardDrawn(device_id="t1/shoe", card="AS", payload="P1"))
    table.device_event(WheelResult(device_id="t1/wheel", game_counter=3, number="17", raw="17"))
    assert [e["summary"] for e in hub.device_log("t1/shoe")] == ["card AS (P1)"]  # once
    assert [e["summary"] for e in hub.device_log("t1/wheel")] == ["number 17 (game 3)"]
    assert [e["kind"] for e in hub.round_events("t1")] == ["card_drawn", "wheel_result"]
    table.emit("round", {"round_id": "r2", "state": "betting_open", "transition": "open_round"})
    assert hub.round_events("t1") == []  # a new round starts with nothing drawn
    hub.detach()
    assert table.listeners == []
    table.device_event(CardDrawn(device_id="t1/shoe", card="KS", payload="P2"))
    assert len(hub.device_log("t1/shoe")) == 1  # detached: no longer followed


def test_recent_rounds_keep_final_rounds_newest_first_and_replace_corrections():
    table = FakeTable()
    hub = hub_for(table, last_round={"round_id": "r0", "state": "certified", "round_number": 1})
    table.emit("round", {"round_id": "r1", "state": "in_play", "transition": "start_play"})
    table.emit(
        "round", {"round_id": "r1", "state": "certified", "version": 1, "transition": "certify", "by": "x"}
    )
    table.emit("round", {"round_id": "r2", "state": "voided", "transition": "void"})
    assert [r["round_id"] for r in hub.recent_rounds("t1")] == ["r2", "r1", "r0"]
    assert "transition" not in hub.recent_rounds("t1")[1] and "by" not in hub.recent_rounds("t1")[1]
    hub.round_changed("t1", {"round_id": "r1", "state": "certified", "version": 2, "transition": "correct"})
    assert [(r["round_id"], r.get("version")) for r in hub.recent_rounds("t1")] == [
        ("r1", 2),
        ("r2", None),
        ("r0", None),
    ]
    table.emit("note", {"code": "launch_retry", "message": "The wheel is launching the ball again."})
    assert hub.table_events("t1")[0]["message"].startswith("The wheel is launching")


def test_repeating_device_states_are_logged_but_not_flooded_to_screens():
    import asyncio

    from dealer_ui.auth import SessionStore, User
    from devices.events import WheelStatus

    table = FakeTable()
    hub = hub_for(table)

    async def run() -> list:
        client = hub.subscribe(SessionStore().create(User("dana", "dealer"), "ip"), {"t1"}, False)
        for counter in range(10):
            table.device_event(
                WheelStatus(
                    device_id="t1/wheel",
                    phase="spin_started",
                    game_counter=counter,
                    speed_rpm=15.0,
                    direction="clockwise",
                )
            )
        table.device_event(CardDrawn(device_id="t1/shoe", card="AS", payload="P1"))
        return list(client.events)

    sent = asyncio.run(run())
    assert len(hub.device_log("t1/wheel")) == 10  # the log keeps every one
    assert [e["kind"] for e in hub.round_events("t1")] == ["card_drawn"]  # not the round's readings
    kinds = [m["event"]["kind"] for m in sent if m["type"] == "device"]
    assert kinds == ["wheel_status", "card_drawn"]  # ten statuses in a burst reach the screen once
