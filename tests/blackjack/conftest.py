"""Helpers for the blackjack tests."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from recognition.blackjack.games import GAMES

AT = datetime(2024, 1, 1, tzinfo=UTC)


@pytest.fixture
def games():
    return GAMES
