"""Card games dealt from a shoe without player decisions: card codes, the shoe, the deal scripts, the judge.

* :mod:`.cards`: card codes, values, shoe compositions, exact odds;
* :mod:`.base`: :class:`CardGame`, the deal-script contract shared by every game;
* :mod:`.judge`: :class:`CardJudge`, shoe events and round signals in, decisions out;
* one module per game or family, each with a module-level ``GAMES`` dict that
  ``recognition.games`` discovers (see docs/card-games.md for every game).
"""

from __future__ import annotations

import sys

from discovery import discover

from .base import CardGame
from .judge import CardJudge

__all__ = ["CardGame", "CardJudge", "all_card_games"]


def all_card_games() -> dict[str, CardGame]:
    """The card games of this package, found the way recognition.games finds them (module-level GAMES)."""
    return discover(sys.modules[__name__], "GAMES", what="card game id", recursive=False)
