"""Peek Baccarat (seed 000:L5, "Peek Baccarat": named, no rules given). Pure.

The published game is punto banco from an 8-deck shoe with a pause: after the first four cards the dealer
reveals one to four of them, and a player with a Player or Banker bet may double or triple it before the
third-card rules are played out. The deal, the result and the payouts are baccarat's (this is
:class:`recognition.cards.baccarat.BaccaratGame` under its own id, with the standard payouts); what differs
is the betting backend's: the 20 % peek fee on Player and Banker bets and the doubled or tripled stakes,
which settle at the same odds. The pause is the dealer's: the studio's judge takes the cards as they come.
"""

from __future__ import annotations

from recognition.cards.baccarat import BaccaratGame


class PeekBaccarat(BaccaratGame):
    game_id = "peek_baccarat"


GAMES = {g.game_id: g for g in (PeekBaccarat(),)}
