"""Driver.check_options, over every registered driver: what the configuration check asks each driver."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from devices.registry import all_drivers
from simulators.roulette_camera import View
from studio.simulated import all_simulators

DRIVERS = all_drivers()
#: what a technician configures for a driver beyond its URL
REQUIRED: dict[str, dict[str, Any]] = {"roulette-camera": {"calibration": View().calibration()}}


@pytest.fixture(params=sorted(DRIVERS))
def served(request: pytest.FixtureRequest) -> Iterator[tuple[str, str]]:
    """A driver kind and the URL its simulator serves (a real pty, socket or Modbus server)."""
    kind = request.param
    sim, url = all_simulators()[kind](speed=10.0, seed=1)
    sim.start()
    try:
        yield kind, url
    finally:
        sim.stop()


def test_every_driver_accepts_its_simulators_url_and_its_options(served: tuple[str, str]) -> None:
    kind, url = served
    cls = DRIVERS[kind]
    options = REQUIRED.get(kind, {})
    assert cls.check_options(url, options) == []
    assert cls.check_options(None, options) == []  # a simulated device: the options alone


def test_every_driver_names_an_option_it_does_not_take() -> None:
    for kind, cls in DRIVERS.items():
        problems = cls.check_options(None, {**REQUIRED.get(kind, {}), "no_such_option": 1})
        assert problems and "no_such_option" in " ".join(problems), (kind, problems)
        assert all(isinstance(p, str) and "check/" not in p for p in problems), problems


@pytest.mark.parametrize(
    "kind, url, words",
    [
        ("modbus-ball-machine", "socket://10.0.0.5:502", "modbus-tcp://10.0.0.5:502"),
        ("wheel-encoder", "socket://10.0.0.5:502", "modbus-tcp://"),
        ("modbus-ball-machine", "modbus-tcp://10.0.0.5:99999", "1-65535"),
        ("cammegh-ss2", "htp://10.0.0.5:4001", "not a serial port"),
        ("cammegh-ss2", "socket://10.0.0.5", "host:port"),
        ("serial-shoe", "socket://10.0.0.5:70000", "port 1-65535"),
        ("camera-ball-reader", "/dev/video0", "frames+tcp://"),
    ],
)
def test_a_url_the_driver_cannot_open_is_refused_in_words(kind: str, url: str, words: str) -> None:
    problems = DRIVERS[kind].check_options(url, REQUIRED.get(kind, {}))
    assert problems and words in problems[0], problems


def test_a_missing_tty_is_no_problem_for_the_check() -> None:
    # the device may be plugged in later: its table pauses until it is (tests/config/test_config_cli.py)
    assert DRIVERS["cammegh-ss2"].check_options("/dev/ttyUSB-not-plugged-in", {}) == []
