"""`studio evaluate`'s fast path of the baccarats with multiplier cards (Golden Wealth, Lightning). Pure.

A plain line, ``{"id": 17, "cards": [4-6 codes], "extras": {"gold_cards": [{"card": "AH", "multiplier": 5},
...]}}``: the deal read by the tableau, the base settlement (the bets won and pushed) kept by the deal's facts
as the game keeps it, each winning bet's payout times the multiplier cards in its hand. Anything else (and
any multiplier card the game would refuse: a card twice, a multiplier it does not draw, too many or too few)
is left to the general path, which gives the same answer or the error.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from .cards import odds

if TYPE_CHECKING:
    from .baccarat import BaccaratGame

_CARD = r'"([2-9TJQKA][SHDC])"'
_ENTRY = r'\{"card": ?"[2-9TJQKA][SHDC]", ?"multiplier": ?[1-9][0-9]*\}'
_WINNER = ("tie", "player", "banker")
_ENTRIES = re.compile(r'\{"card": ?"([2-9TJQKA][SHDC])", ?"multiplier": ?([1-9][0-9]*)\}').findall


def _line_pattern(key: str) -> Callable[[str], re.Match[str] | None]:
    return re.compile(
        r'\{"id": ?(0|-?[1-9][0-9]*), ?"cards": ?\['
        + _CARD
        + (r", ?" + _CARD) * 3
        + (r"(?:, ?" + _CARD + ")?") * 2
        + rf'\], ?"extras": ?\{{"{key}": ?\[({_ENTRY}(?:, ?{_ENTRY})*)\]\}}\}}\n?'
    ).fullmatch


class MultipliedLines:
    """`evaluate_json` of a baccarat with multiplier cards (`game.multiplier_key`)."""

    def __init__(self, game: BaccaratGame, value: dict[str, int], banker_draws: tuple[tuple[bool, ...], ...]):
        assert game.multiplier_key is not None
        self.game = game
        self.key = game.multiplier_key
        self.match = _line_pattern(self.key)
        self.value = value
        self.draws = banker_draws
        self.multipliers = frozenset(str(x) for x in game.multipliers)
        self.low, self.high = game.multiplier_cards
        self.multiplied = frozenset(game.multiplied_bets)
        self.names: dict[tuple[Any, ...], tuple[str, ...]] = {}
        #: the deal's facts (and each hand's cards' multipliers, None for a plain card, if any is a multiplier
        #: card) -> the outcome's text
        self.outcomes: dict[tuple[Any, ...], str] = {}
        #: (the deal's facts, each winning bet's multiplier...) -> the outcome's text
        self.settled: dict[tuple[Any, ...], str] = {}

    def __call__(self, line: str) -> str | None:
        m = self.match(line)
        if m is None:
            return None
        g = m.groups()
        c0, c1, c2, c3, c4, c5, listed = g[1:]
        n = 4 if c4 is None else 5 if c5 is None else 6
        entries = _ENTRIES(listed)
        drawn = dict(entries)  # card -> its multiplier's text
        if not self.low <= len(entries) <= self.high or len(drawn) != len(entries):
            return None
        if not self.multipliers.issuperset(drawn.values()):
            return None
        v = self.value
        p = (v[c0] + v[c2]) % 10
        b = (v[c1] + v[c3]) % 10
        # each hand as a tuple of its cards, in the order they were dealt
        player: tuple[str, ...]
        banker: tuple[str, ...]
        if p >= 8 or b >= 8:
            if n != 4:
                return None
            pt, bt = p, b
            player, banker = (c0, c2), (c1, c3)
        elif p <= 5:
            if n == 4:
                return None
            v4 = v[c4]
            pt = (p + v4) % 10
            player = (c0, c2, c4)
            if self.draws[b][v4]:
                if n != 6:
                    return None
                bt = (b + v[c5]) % 10
                banker = (c1, c3, c5)
            else:
                if n != 5:
                    return None
                bt = b
                banker = (c1, c3)
        elif b <= 5:
            if n != 5:
                return None
            pt, bt = p, (b + v[c4]) % 10
            player, banker = (c0, c2), (c1, c3, c4)
        else:
            if n != 4:
                return None
            pt, bt = p, b
            player, banker = (c0, c2), (c1, c3)
        facts = (pt, bt, len(player), len(banker), c0[0] == c2[0], c1[0] == c3[0], c0 == c2, c1 == c3)
        # no multiplier card in the deal: every multiplier 1
        if drawn.keys().isdisjoint((c0, c1, c2, c3, c4, c5)):
            key: tuple[Any, ...] = facts
        else:  # the bets' multipliers follow from the facts and each hand's cards' multipliers
            key = (facts, tuple(map(drawn.get, player)), tuple(map(drawn.get, banker)))
        outcome = self.outcomes.get(key)
        if outcome is None:
            xs = self.multipliers_of(facts, list(player), list(banker), drawn)
            settled = (facts, *xs)  # fewer than the keys above: each settled once
            outcome = self.settled.get(settled)
            if outcome is None:
                outcome = self.settled[settled] = self.settle(facts, xs)
            self.outcomes[key] = outcome
        # the multiplier cards as json.dumps writes them: the matched text without its spaces
        return (
            f'{{"id":{g[0]},"valid":true,"result":{{"winner":"{_WINNER[(pt > bt) - (pt < bt)]}",'
            '"player_cards":["'
            + '","'.join(player)
            + '"],"banker_cards":["'
            + '","'.join(banker)
            + f'"],"player_total":{pt},"banker_total":{bt}}},"outcome":{outcome}{listed.replace(" ", "")}]}}}}\n'
        )

    def multipliers_of(
        self, facts: tuple[Any, ...], player: list[str], banker: list[str], drawn: dict[str, str]
    ) -> list[int]:
        """Each winning bet's multiplier: the product of the multipliers of the cards in its scope."""
        scope = {"player": player, "banker": banker, "player_pair": player[:2], "banker_pair": banker[:2]}
        scope["tie"] = player + banker
        xs = []
        for bet in self.bets(facts):
            x = 1
            if bet in self.multiplied:
                for card in scope[bet]:
                    if card in drawn:
                        x *= int(drawn[card])
            xs.append(x)
        return xs

    def bets(self, facts: tuple[Any, ...]) -> tuple[str, ...]:
        """The winning bets of a deal with these facts, in the outcome's order."""
        names = self.names.get(facts)
        if names is None:
            names = self.names[facts] = tuple(bet for bet, _ in self._base(facts)[0])
        return names

    def _base(self, facts: tuple[Any, ...]) -> tuple[tuple[tuple[str, Any], ...], tuple[str, ...]]:
        game = self.game
        settled = game._outcome_cache.get(facts)
        if settled is None:
            settled = game._outcome_cache[facts] = game._settle_base(*facts)
        return settled

    def settle(self, facts: tuple[Any, ...], xs: list[int]) -> str:
        """The outcome's text up to the multiplier cards' list: the bets won (each payout times its
        multiplier) and pushed."""
        wins, pushes = self._base(facts)
        won = []
        for (bet, payout), x in zip(wins, xs):
            if x != 1:
                payout = odds(Fraction(payout) * x)
            shown = f'"{payout}"' if type(payout) is str else payout
            won.append(f'{{"bet":"{bet}","payout":{shown},"multiplier":{x}}}')
        pushed = ",".join(f'{{"bet":"{bet}","returned":1}}' for bet in pushes)
        return f'{{"winning_bets":[{",".join(won)}],"pushed_bets":[{pushed}],"{self.key}":['
