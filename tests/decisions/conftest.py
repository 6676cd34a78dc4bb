"""Fixtures of the decisions tests (defined in decisions_helpers.py): the hit/stand test game, registered for
every test here, and `start`, a running studio."""

from __future__ import annotations

from decisions_helpers import hit_stand_game, start

__all__ = ["hit_stand_game", "start"]
