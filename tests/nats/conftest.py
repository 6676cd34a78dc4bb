"""The NATS tests run real nats-server processes (tests/nats/brokers.py); without the binary they are skipped."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # brokers.py and nats_helpers.py, by name

import brokers

if not brokers.available():  # pragma: no cover - the setup script installs nats-server
    pytest.skip("nats-server is not installed (scripts/setup installs it)", allow_module_level=True)


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[brokers.Broker]:
    b = brokers.Broker(tmp_path / "nats")
    yield b
    b.stop()


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[brokers.Broker]:
    b = brokers.Broker(tmp_path / "nats", nodes=3)
    yield b
    b.stop()
