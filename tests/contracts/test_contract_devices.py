"""The driver contract (devices.base.Driver) and the simulator contract (studio.simulated.Simulator), run over
every registered driver and simulator.

Every driver kind has its software twin, so each driver is run against its own simulator, as the studio runs it
with `url = "simulator"`: real ptys, sockets and threads, no mocks.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from waiting import WAIT_S

from devices.base import DeviceNotConnected, Driver
from devices.events import DeviceConnected, DeviceEvent
from devices.registry import all_drivers
from devices.serial_line import SerialLineDriver
from simulators.abilities import FollowsWheel, ForcesNumber
from studio.simulated import Simulator, all_simulators, link_simulators

DRIVERS = all_drivers()
SIMULATORS = all_simulators()
#: what a technician configures for a driver beyond its URL, taken from its simulator
DRIVER_OPTIONS: dict[str, Callable[[Any], dict[str, Any]]] = {
    "roulette-camera": lambda sim: {"calibration": sim.calibration()},
}


def wait_for(condition: Callable[[], bool], what: str) -> None:
    end = time.monotonic() + WAIT_S
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.01)


def _started(kind: str) -> Iterator[tuple[str, Simulator, str]]:
    sim, url = SIMULATORS[kind](speed=10.0, seed=1)
    sim.start()
    try:
        yield kind, sim, url
    finally:
        sim.stop()


@pytest.fixture(params=sorted(SIMULATORS))
def simulated(request: pytest.FixtureRequest) -> Iterator[tuple[str, Simulator, str]]:
    yield from _started(request.param)


@pytest.fixture(params=sorted(k for k in SIMULATORS if issubclass(DRIVERS[k], SerialLineDriver)))
def serial_simulated(request: pytest.FixtureRequest) -> Iterator[tuple[str, Simulator, str]]:
    yield from _started(request.param)


def test_every_driver_kind_is_registered_under_its_own_kind_and_has_a_simulator() -> None:
    assert DRIVERS
    for kind, cls in DRIVERS.items():
        assert issubclass(cls, Driver) and not inspect.isabstract(cls), kind
        assert cls.kind == kind
    assert set(SIMULATORS) == set(DRIVERS)


def test_a_simulator_serves_a_url_and_declares_its_dealer_part(simulated: tuple[str, Simulator, str]) -> None:
    _kind, sim, url = simulated
    assert isinstance(url, str) and url
    assert sim.table_event is None or callable(sim.table_event)
    if sim.table_event is not None:  # a table event it does not follow changes nothing and raises nothing
        sim.table_event("note", {"code": "contract_test", "message": "a note"})


#: the abilities of simulators.abilities, by which the simulators of one table are linked
SIMULATOR_ABILITIES = (FollowsWheel, ForcesNumber)


def test_a_simulator_declares_the_abilities_it_has(simulated: tuple[str, Simulator, str]) -> None:
    """A simulator with an ability's method inherits the ability: the studio links by isinstance only."""
    kind, sim, _url = simulated
    for ability in SIMULATOR_ABILITIES:
        has_methods = all(callable(getattr(type(sim), m, None)) for m in ability.__abstractmethods__)
        assert has_methods == isinstance(sim, ability), f"{kind}: {ability.__name__}"


class _Wheel(ForcesNumber):
    """A wheel twin that only keeps what it is told (the camera's side of the link is under test)."""

    def __init__(self) -> None:
        self.told: list[str] = []

    def force_next_number(self, label: str | int) -> None:
        self.told.append(str(label))


def test_a_tables_camera_is_linked_to_its_wheel_by_their_abilities() -> None:
    camera, _url = SIMULATORS["roulette-camera"](speed=10.0, seed=1)
    assert isinstance(camera, FollowsWheel)
    wheel = _Wheel()
    link_simulators([wheel, camera])
    link_simulators([wheel, camera])  # linked again as the table's next simulator starts: still one wheel
    plan = camera.spin()
    assert wheel.told == [plan.pockets[0]]


def test_a_simulator_stops_twice() -> None:
    for kind, factory in sorted(SIMULATORS.items()):
        before = set(threading.enumerate())
        sim, _url = factory(speed=10.0, seed=2)
        sim.start()
        sim.stop()
        sim.stop()

        def ended(before: set[threading.Thread] = before) -> bool:
            return set(threading.enumerate()) <= before

        wait_for(ended, f"{kind}'s threads to end")


def test_a_driver_connects_to_its_simulator_reports_and_stops(simulated: tuple[str, Simulator, str]) -> None:
    kind, sim, url = simulated
    events: list[DeviceEvent] = []
    options = DRIVER_OPTIONS[kind](sim) if kind in DRIVER_OPTIONS else {}
    driver = DRIVERS[kind](f"contract/{kind}", url, events.append, **options)
    assert not driver.connected
    with pytest.raises((DeviceNotConnected, ValueError)):  # not started: the link is down, or no such command
        driver.send("contract-test")
    driver.read_on_loop(None)  # declared for every driver: None keeps (or asks for) the driver's own thread
    assert driver.ball_set is None or kind.endswith("ball-reader")
    started = time.monotonic()
    driver.start()
    assert time.monotonic() - started < WAIT_S  # start returns at once; the connection is the driver's
    try:
        wait_for(lambda: driver.connected, f"{kind} to connect")
        wait_for(lambda: any(isinstance(e, DeviceConnected) for e in events), f"{kind}'s DeviceConnected")
        assert all(isinstance(e, DeviceEvent) and e.device_id == f"contract/{kind}" for e in list(events))
        health = driver.health()
        assert health["device_id"] == f"contract/{kind}" and health["kind"] == kind
        assert health["connected"] is True
    finally:
        driver.stop()
        driver.stop()
    assert not driver.connected


def test_a_serial_driver_reads_on_the_loop_when_asked(serial_simulated: tuple[str, Simulator, str]) -> None:
    kind, sim, url = serial_simulated
    assert url.startswith("/dev/"), f"{kind}'s simulator serves a pty"
    events: list[DeviceEvent] = []
    loop = asyncio.new_event_loop()
    runner = threading.Thread(target=loop.run_forever, daemon=True)
    runner.start()
    driver = DRIVERS[kind](
        f"contract/{kind}",
        url,
        events.append,
        **(DRIVER_OPTIONS[kind](sim) if kind in DRIVER_OPTIONS else {}),
    )
    driver.read_on_loop(loop)
    driver.start()
    try:
        wait_for(lambda: driver.connected, f"{kind} to connect")
    finally:
        driver.stop()
        loop.call_soon_threadsafe(loop.stop)
        runner.join()
        loop.close()
