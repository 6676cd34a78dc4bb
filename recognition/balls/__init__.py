"""Ball draws: the shared draw judge and the ball-set check. Pure.

* :mod:`.judge` - :class:`DrawJudge`, the judge of every draw game
  (recognition/draw_games): it paces the machine, pairs each release the machine
  reports with a read at the chute, and certifies only a draw it is sure of;
* :mod:`.ballset_check` - the check of a ball set before a table opens.

See docs/balls.md.
"""

from __future__ import annotations

from .ballset_check import BallSetCheck, BallSetReport, ball_set_check
from .judge import DrawJudge

__all__ = ["BallSetCheck", "BallSetReport", "DrawJudge", "ball_set_check"]
