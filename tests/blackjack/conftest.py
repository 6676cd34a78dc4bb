"""Helpers for the blackjack tests."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest

from recognition.blackjack.games import GAMES

AT = datetime(2024, 1, 1, tzinfo=timezone.utc)


@pytest.fixture
def games():
    return GAMES
