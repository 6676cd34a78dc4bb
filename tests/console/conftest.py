"""Console test fixtures: signed-in HTTP clients and Debian's Chromium through Playwright (the studio and
its helpers are in console_helpers.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from console_helpers import CHROMIUM, CHROMIUM_ARGS, PINS, Person
from waiting import WAIT_S


@pytest.fixture
def people() -> Iterator[Callable[..., Person]]:
    made: list[Person] = []

    def make(base: str, key: str) -> Person:
        name, pin = PINS[key]
        p = Person(base, name, pin)
        made.append(p)
        return p

    yield make
    for p in made:
        p.close()


# --- the browser ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Chromium for one test module. Module scope, not session: Playwright's sync API keeps an event loop
    running in this thread while it is open, and other tests of the suite call asyncio.run()."""
    from playwright import sync_api  # a test dependency: missing must fail, not skip

    # expect() waits 5 s by default: on a loaded machine a page can take longer to show what it must
    sync_api.expect.set_options(timeout=WAIT_S * 1000)

    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (.ci/run does)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()
