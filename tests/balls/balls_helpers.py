"""A ball table without the studio: simulators + the real drivers + the real DrawJudge.

The harness plays the table's part: it feeds the judge every device event and the
round signals, sends every SendCommand to the machine (routing by role, as the
table will once SendCommand carries ``device_role``), and records the rest.
(A unique module name: tests/ has other helper modules.)
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from waiting import WAIT_S

from devices.balls.camera_reader import CameraBallReaderDriver
from devices.balls.modbus_machine import ModbusBallMachineDriver
from devices.balls.reader import SerialBallReaderDriver
from devices.events import DeviceConnected, DeviceEvent
from recognition.balls.judge import DrawJudge
from recognition.game import Decision, Hold, Release, ResultReady, RoundSignal, SendCommand, Void
from simulators.balls import BallCameraSimulator, BallMachineSimulator, BallReaderSimulator

MACHINE = "t1/machine"
READER = "t1/reader"


def now() -> datetime:
    return datetime.now(UTC)


class DrawHarness:
    def __init__(
        self,
        *,
        transport: str = "tcp",
        speed: float = 10.0,
        seed: int = 7,
        ball_set: str = "1-20",
        draw_count: int = 5,
        game: Any = None,
        reader: str = "serial",
        judge: dict | None = None,
        driver: dict | None = None,
        sim: dict | None = None,
    ) -> None:
        self.transport = transport
        self.speed = speed
        self.seed = seed
        self.ball_set = ball_set
        self.draw_count = draw_count
        self.game = game
        self.reader_kind = reader
        self.judge_settings = {
            "mix_seconds": 0.05,
            "jam_timeout_s": 1.0,
            "read_timeout_s": 1.0,
            "release_timeout_s": 1.5,
            "blower_timeout_s": 3.0,
            **(judge or {}),
        }
        self.driver_settings = {
            "poll_interval": 0.01,
            "heartbeat_s": 0.05,
            "reconnect_min": 0.05,
            "reconnect_max": 0.2,
            **(driver or {}),
        }
        self.sim_settings = sim or {}
        self.queue: queue.Queue[DeviceEvent] = queue.Queue()
        self.events: list[DeviceEvent] = []
        self.decisions: list[Decision] = []
        self.commands: list[str] = []
        self.command_errors: list[str] = []
        self.round_number = 0
        self.machine_sim: BallMachineSimulator | None = None
        self.reader_sim: Any = None
        self.machine: ModbusBallMachineDriver | None = None
        self.reader: Any = None

    # -- lifecycle -----------------------------------------------------------------------

    def start(self) -> None:
        key = f"harness-{id(self)}"
        self.machine_sim = BallMachineSimulator(
            transport=self.transport,
            speed=self.speed,
            seed=self.seed,
            machine_id=key,
            ball_set=self.ball_set,
            **self.sim_settings,
        )
        if self.reader_kind == "camera":
            self.reader_sim = BallCameraSimulator(machine_id=key)
            self.reader_sim.start()
            self.reader = CameraBallReaderDriver(
                READER, self.reader_sim.url, self.queue.put, ball_set=self.ball_set
            )
        else:
            self.reader_sim = BallReaderSimulator(machine_id=key)
            self.reader = SerialBallReaderDriver(
                READER, self.reader_sim.slave_path, self.queue.put, ball_set=self.ball_set
            )
        self.machine_sim.start()
        self.machine = ModbusBallMachineDriver(
            MACHINE, self.machine_sim.url, self.queue.put, **self.driver_settings
        )
        if self.game is not None:
            self.judge = self.game.new_judge(**self.judge_settings)
        else:
            labels = [
                str(n) for n in range(int(self.ball_set.split("-")[0]), int(self.ball_set.split("-")[1]) + 1)
            ]
            self.judge = DrawJudge(ball_labels=labels, draw_count=self.draw_count, **self.judge_settings)
        self.machine.start()
        self.reader.start()
        self.pump(lambda: self._connected(), timeout=10, what="both devices connected")
        if self.reader_kind == "camera":
            deadline = time.monotonic() + WAIT_S
            while self.reader_sim.clients < 1 and time.monotonic() < deadline:
                time.sleep(0.01)

    def stop(self) -> None:
        for dev in (self.machine, self.reader):
            if dev is not None:
                dev.stop()
        for sim in (self.machine_sim, self.reader_sim):
            if sim is not None:
                sim.stop()

    def _connected(self) -> bool:
        ids = {e.device_id for e in self.events if isinstance(e, DeviceConnected)}
        return {MACHINE, READER} <= ids

    # -- the table's part ----------------------------------------------------------------

    def signal(self, signal: str) -> None:
        extras = getattr(self, "extras", None) if signal != "round_opened" else None
        self._apply_all(
            self.judge.feed(
                RoundSignal(signal=signal, round_number=self.round_number, at=now(), extras=extras)
            )
        )

    def open_and_close(self, extras: dict | None = None) -> None:
        self.round_number += 1
        self.extras = extras
        self.signal("round_opened")
        self.signal("betting_closed")

    def end_round(self) -> None:
        self.signal("round_ended")

    def _apply_all(self, decisions: list[Decision]) -> None:
        for d in decisions:
            self.decisions.append(d)
            if isinstance(d, SendCommand):
                self.commands.append(d.command)
                try:
                    assert self.machine is not None
                    self.machine.send(d.command)
                except Exception as exc:  # noqa: BLE001 - as the table: it logs a failed send and goes on
                    self.command_errors.append(f"{d.command}: {exc}")

    def pump(self, until: Callable[[], Any], timeout: float = 10.0, what: str = "condition") -> Any:
        deadline = time.monotonic() + timeout
        while True:
            value = until()
            if value:
                return value
            left = deadline - time.monotonic()
            if left <= 0:
                kinds = [
                    f"{type(d).__name__}:{getattr(d, 'code', getattr(d, 'command', ''))}"
                    for d in self.decisions[-12:]
                ]
                raise AssertionError(
                    f"timed out waiting for {what}; last decisions: {kinds}; "
                    f"judge phase {getattr(getattr(self, 'judge', None), 'phase', None)}"
                )
            try:
                event = self.queue.get(timeout=min(left, 0.05))
            except queue.Empty:
                continue
            self.events.append(event)
            if hasattr(self, "judge"):
                self._apply_all(self.judge.feed(event))

    def settle(self, seconds: float) -> None:
        """Keep the table running for a while (events keep flowing to the judge)."""
        end = time.monotonic() + seconds
        self.pump(lambda: time.monotonic() >= end, timeout=seconds + 5)

    # -- what happened -------------------------------------------------------------------

    def of(self, cls: type) -> list[Any]:
        return [d for d in self.decisions if isinstance(d, cls)]

    def hold_codes(self) -> list[str]:
        return [h.code for h in self.of(Hold)]

    def release_codes(self) -> list[str]:
        return [r.code for r in self.of(Release)]

    def results(self) -> list[ResultReady]:
        return self.of(ResultReady)

    def voids(self) -> list[Void]:
        return self.of(Void)

    def drawn_labels(self) -> list[str]:
        """What physically reached the reader, as the simulator logged it (tag -> label by the ball set)."""
        assert self.machine_sim is not None
        out = []
        for tag, mode in self.machine_sim.path_log:
            ball = self.machine_sim.ball_set.lookup(tag)
            out.append(ball.label if ball and mode == "ok" else f"<{mode}:{tag}>")
        return out
