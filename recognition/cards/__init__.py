"""Card games dealt from a shoe without player decisions: card codes, the shoe, the deal scripts, the judge.

* :mod:`.cards`: card codes, values, shoe compositions, exact odds;
* :mod:`.base`: :class:`CardGame`, the deal-script contract shared by every game;
* :mod:`.judge`: :class:`CardJudge`, shoe events and round signals in, decisions out;
* one module per game or family, each with a module-level ``GAMES`` dict that
  ``recognition.games`` discovers (see docs/card-games.md for every game).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from discovery import discover

from .base import CardGame

if TYPE_CHECKING:
    from .judge import CardJudge

__all__ = ["CardGame", "CardJudge", "all_card_games"]


def __getattr__(name: str) -> Any:
    """The judge (device events, pydantic) on first use: a game's rules alone (`studio evaluate`) need none."""
    if name == "CardJudge":
        from .judge import CardJudge

        return CardJudge
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def all_card_games() -> dict[str, CardGame]:
    """The card games of this package, found the way recognition.games finds them (module-level GAMES)."""
    return discover(sys.modules[__name__], "GAMES", what="card game id", recursive=False)
