"""Baccarat (punto banco) and its family: No Commission, Golden Wealth, Lightning. Pure.

Rules: seed 000 L1497-1587 (digest seed-A §11), seed 003 L107-145 (Punto Banco, digest
seed-D A.3), seed 004 L540-733 (Baccarat, No Commission, Lightning; seed-D B.5-B.7),
seed 000 L4005-4191 (Golden Wealth and Lightning Baccarat; seed-C §14-15). Every choice
where they are silent or disagree is in docs/card-games.md.

Deal order (seed 003 L135-141: the first card always goes to the Player; the seeds give no
other order, the standard alternation is used): ``player_1, banker_1, player_2, banker_2``,
then ``player_3`` if the Player draws, then ``banker_3`` if the Banker draws.

Drawing (the standard punto banco tableau; the seeds give only parts of it, seed 003 L121-131
and 004 L576-590 the most):

* either two-card total 8 or 9 (a natural): nobody draws;
* the Player draws on 0-5 and stands on 6-7;
* a Banker whose Player stood draws on 0-5 and stands on 6-7;
* a Banker whose Player drew a third card of value v: 0-2 draws; 3 draws unless v = 8;
  4 draws on v 2-7; 5 draws on v 4-7; 6 draws on v 6-7; 7 stands.

Result: ``{"winner", "player_cards", "banker_cards", "player_total", "banker_total"}``.
Outcome: ``{"winning_bets": [{"bet", "payout"}...], "pushed_bets": [{"bet", "returned"}...]}``
with net odds to 1 (``"19/20"`` for the Banker's 0.95:1); Golden Wealth and Lightning add a
``"multiplier"`` to each winning bet and list the round's multiplier cards.

:meth:`BaccaratGame.evaluate` and :meth:`BaccaratGame.evaluate_json` are the fast paths for
``studio evaluate`` (tables instead of the generic deal walk; no pydantic).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from json.encoder import encode_basestring_ascii  # type: ignore[attr-defined]
from typing import Any

from .baccarat_multiplied import MultipliedLines
from .base import CardGame, card_list, need
from .cards import BACCARAT_VALUE, STANDARD_52, odds

#: an input line of `studio evaluate` in its usual shape, ``{"id": 17, "cards": ["9H", "5D", "2C", "KS"]}``: an
#: integer id as json.dumps writes it (no leading zero, no "-0") and 4-6 plain card codes; the values the CLI
#: writes back are then the very text of the line
_CARD = r'"([2-9TJQKA][SHDC])"'
_PLAIN_LINE = re.compile(
    r'\{"id": ?(0|-?[1-9][0-9]*), ?"cards": ?\['
    + _CARD
    + (r", ?" + _CARD) * 3
    + (r"(?:, ?" + _CARD + ")?") * 2
    + r"\]\}\n?"
).fullmatch

# --- the tableau --------------------------------------------------------------------------------

#: the Player draws on a two-card total of 0-5 (seed 000 L1525, 003 L121, 004 L578)
PLAYER_DRAWS: tuple[bool, ...] = tuple(t <= 5 for t in range(10))


def _banker_draws(total: int, third: int | None) -> bool:
    if third is None:  # the Player stood on 6 or 7 (seed 000 L1527-1529, 004 L590)
        return total <= 5
    if total <= 2:
        return True
    return third in {3: (0, 1, 2, 3, 4, 5, 6, 7, 9), 4: (2, 3, 4, 5, 6, 7), 5: (4, 5, 6, 7), 6: (6, 7)}.get(
        total, ()
    )


#: BANKER_DRAWS[banker two-card total][player's third card value, or 10 when the Player stood]
BANKER_DRAWS: tuple[tuple[bool, ...], ...] = tuple(
    tuple(_banker_draws(b, v if v < 10 else None) for v in range(11)) for b in range(10)
)

#: card code -> baccarat value (seed 000 L1501-1507); only the 52 standard codes
VALUE: dict[str, int] = {c: BACCARAT_VALUE[c[0]] for c in STANDARD_52}

POSITIONS = ("player_1", "banker_1", "player_2", "banker_2")
WINNERS = ("player", "banker", "tie")


def is_complete(values: Sequence[int]) -> bool:
    """Whether these card values (in deal order) are exactly a complete baccarat deal."""
    n = len(values)
    if n < 4 or n > 6:
        return False
    p = (values[0] + values[2]) % 10
    b = (values[1] + values[3]) % 10
    if p >= 8 or b >= 8:
        return n == 4
    if p <= 5:  # the Player draws the fifth card
        return n == (6 if BANKER_DRAWS[b][values[4]] else 5) if n >= 5 else False
    return n == (5 if b <= 5 else 4)


# --- payouts ------------------------------------------------------------------------------------

F = Fraction


@dataclass(frozen=True)
class BaccaratPayouts:
    """Net odds to 1 for every bet spot; the defaults are the seed 000 table read as in docs/card-games.md."""

    player: Fraction = F(1)  # seed 003 L113
    banker: Fraction = F(19, 20)  # seed 003 L115: 5% commission
    #: No Commission: a Banker win on this total pays `banker_on_six` instead (None: no such rule)
    banker_six_total: int | None = None
    banker_on_six: Fraction = F(1, 2)
    tie: Fraction = F(8)  # seed 000 L1539, 003 L117
    player_pair: Fraction = F(11)  # seed 000 L1541 says 25:1 (contradicts L1537): standard 11:1
    banker_pair: Fraction = F(11)  # seed 000 L1537 "1:11", read as 11:1
    perfect_pair_one: Fraction = F(25)  # seed 000 L1543, 004 L600
    perfect_pair_both: Fraction = F(200)  # seed 000 L1545, 004 L600
    either_pair: Fraction = F(5)  # seed 000 L1547 (pairs of rank only: see the docs)
    #: bonus (seed 000 L1549-1583): non-natural win by N points -> odds
    bonus_margin: tuple[tuple[int, Fraction], ...] = (
        (9, F(30)),
        (8, F(10)),
        (7, F(6)),
        (6, F(4)),
        (5, F(2)),
        (4, F(1)),
    )
    bonus_natural: Fraction = F(1)  # seed 000 L1563/L1581
    #: "win" pays bonus_natural_tie (seed 000 L1565/L1583: 1:1); "push" returns the stake (the common rule)
    bonus_natural_tie: str = "win"
    bonus_natural_tie_odds: Fraction = F(1)

    def __post_init__(self) -> None:
        if self.bonus_natural_tie not in ("win", "push"):
            raise ValueError(f"bonus_natural_tie is 'win' or 'push', not {self.bonus_natural_tie!r}")


STANDARD_PAYOUTS = BaccaratPayouts()
NO_COMMISSION_PAYOUTS = BaccaratPayouts(banker=F(1), banker_six_total=6)


# --- the games ----------------------------------------------------------------------------------


class BaccaratGame(CardGame):
    """Punto banco from an 8-deck shoe: the base of the family."""

    game_id = "baccarat"
    decks = 8
    shoe_start_burn = "face_value"
    #: the id of the either-pair bet spot
    either_pair_bet = "either_pair"
    #: name of the multiplier-card list in extras (None: no computer draws)
    multiplier_key: str | None = None
    multipliers: tuple[int, ...] = ()
    multiplier_cards: tuple[int, int] = (0, 0)  # (min, max) cards drawn
    #: bets whose payout the multiplier cards in their hand multiply
    multiplied_bets: tuple[str, ...] = ()

    def __init__(self, payouts: BaccaratPayouts | None = None, **options: Any) -> None:
        self.payouts = payouts or self.default_payouts()
        for key, value in options.items():
            if not hasattr(type(self), key) or key.startswith("_") or callable(getattr(type(self), key)):
                raise ValueError(f"{type(self).__name__} has no option {key!r}")
            setattr(self, key, value)
        self._outcome_cache: dict[tuple[Any, ...], tuple[tuple[tuple[str, Any], ...], tuple[str, ...]]] = {}
        self._json_cache: dict[tuple[Any, ...], tuple[str, str]] = {}

    def default_payouts(self) -> BaccaratPayouts:
        return STANDARD_PAYOUTS

    # --- deal script -------------------------------------------------------------------------

    def next_position(self, cards: Sequence[str], context: Any = None) -> str | None:
        n = len(cards)
        if n < 4:
            return POSITIONS[n]
        values = [VALUE[c] for c in cards]
        p = (values[0] + values[2]) % 10
        b = (values[1] + values[3]) % 10
        if p >= 8 or b >= 8:
            return None
        if n == 4:
            if PLAYER_DRAWS[p]:
                return "player_3"
            return "banker_3" if b <= 5 else None
        if n == 5 and PLAYER_DRAWS[p] and BANKER_DRAWS[b][values[4]]:
            return "banker_3"
        return None

    def result_from_cards(self, cards: Sequence[str], context: Any = None) -> dict[str, Any]:
        n = len(cards)
        if n == 4:
            player, banker = [cards[0], cards[2]], [cards[1], cards[3]]
        elif n == 6:
            player, banker = [cards[0], cards[2], cards[4]], [cards[1], cards[3], cards[5]]
        elif PLAYER_DRAWS[(VALUE[cards[0]] + VALUE[cards[2]]) % 10]:
            player, banker = [cards[0], cards[2], cards[4]], [cards[1], cards[3]]
        else:
            player, banker = [cards[0], cards[2]], [cards[1], cards[3], cards[4]]
        pt = sum(VALUE[c] for c in player) % 10
        bt = sum(VALUE[c] for c in banker) % 10
        return {
            "winner": "player" if pt > bt else "banker" if bt > pt else "tie",
            "player_cards": player,
            "banker_cards": banker,
            "player_total": pt,
            "banker_total": bt,
        }

    def cards_from_result(self, result: Mapping[str, Any]) -> list[Any]:
        player = card_list(need(result, "player_cards", self.game_id), "player_cards")
        banker = card_list(need(result, "banker_cards", self.game_id), "banker_cards")
        for name, hand in (("player_cards", player), ("banker_cards", banker)):
            if len(hand) not in (2, 3):
                raise ValueError(f"{name} holds 2 or 3 cards, not {len(hand)}")
        cards = [player[0], banker[0], player[1], banker[1]]
        cards += player[2:] + banker[2:]
        return cards

    # --- evaluate (fast path) ---------------------------------------------------------------------

    def evaluate(self, item: dict[str, Any]) -> dict[str, Any]:
        cards = item.get("cards")
        if type(cards) is list and 4 <= len(cards) <= 6:
            try:
                values = [VALUE[c] for c in cards]
            except (KeyError, TypeError):
                values = None
            if values is not None and is_complete(values):
                extras = item.get("extras")
                result = self.result_from_cards(cards)
                return {"result": result, "outcome": self.outcome(result, extras)}
        return super().evaluate(item)

    fast_evaluate = True

    def evaluate_json(
        self,
        line: str,
        _plain_match: Any = _PLAIN_LINE,
        _loads: Any = json.loads,
        _v: dict[str, int] = VALUE,
        _draws: tuple[tuple[bool, ...], ...] = BANKER_DRAWS,
        _enc: Any = encode_basestring_ascii,
    ) -> str | None:
        """The output line of ``studio evaluate`` for a plain valid item (``{"id", "cards"}``), exactly as the CLI
        writes it (``json.dumps(..., separators=(",", ":"))`` and a newline), or None for anything else (the
        CLI's general path then gives the answer or the error). Written for speed: no function calls per card."""
        if self.multiplier_key is not None:
            return self._multiplied(line)
        m = _plain_match(line)
        if m is not None:  # the common shape, read without json.loads (a quarter of its time)
            g = m.groups()
            rid_text = g[0]
            cards: Any = g[1:5] if g[5] is None else g[1:6] if g[6] is None else g[1:]
        else:
            try:
                item = _loads(line)
            except ValueError:
                return None
            if type(item) is not dict:
                return None
            k = len(item)
            if k == 2 and "id" in item:
                rid = item["id"]
            elif k != 1:
                return None
            else:
                rid = None
            if type(rid) is int:
                rid_text = str(rid)
            elif type(rid) is str:
                rid_text = _enc(rid)
            elif rid is None:
                rid_text = "null"
            else:
                return None
            cards = item.get("cards")
            if type(cards) is not list:
                return None
        n = len(cards)
        try:
            if n == 4:
                c0, c1, c2, c3 = cards
            elif n == 5:
                c0, c1, c2, c3, c4 = cards
                v4 = _v[c4]
            elif n == 6:
                c0, c1, c2, c3, c4, c5 = cards
                v4 = _v[c4]
                v5 = _v[c5]
            else:
                return None
            p = (_v[c0] + _v[c2]) % 10
            b = (_v[c1] + _v[c3]) % 10
        except (KeyError, TypeError):
            return None
        if p >= 8 or b >= 8:  # a natural: nobody draws
            if n != 4:
                return None
            pt, bt, np, nb = p, b, 2, 2
            hands = f'"{c0}","{c2}"],"banker_cards":["{c1}","{c3}"'
        elif p <= 5:  # the Player draws the fifth card
            if n == 4:
                return None
            pt, np = (p + v4) % 10, 3
            if _draws[b][v4]:
                if n != 6:
                    return None
                bt, nb = (b + v5) % 10, 3
                hands = f'"{c0}","{c2}","{c4}"],"banker_cards":["{c1}","{c3}","{c5}"'
            else:
                if n != 5:
                    return None
                bt, nb = b, 2
                hands = f'"{c0}","{c2}","{c4}"],"banker_cards":["{c1}","{c3}"'
        elif b <= 5:  # the Player stood; the Banker draws the fifth card
            if n != 5:
                return None
            pt, bt, np, nb = p, (b + v4) % 10, 2, 3
            hands = f'"{c0}","{c2}"],"banker_cards":["{c1}","{c3}","{c4}"'
        else:
            if n != 4:
                return None
            pt, bt, np, nb = p, b, 2, 2
            hands = f'"{c0}","{c2}"],"banker_cards":["{c1}","{c3}"'
        key = (pt, bt, np, nb, c0[0] == c2[0], c1[0] == c3[0], c0 == c2, c1 == c3)
        cached = self._json_cache.get(key)
        if cached is None:
            winner = "player" if pt > bt else "banker" if bt > pt else "tie"
            outcome = json.dumps(self._settle(*key, None, None), separators=(",", ":"))
            cached = self._json_cache[key] = (
                f'"{winner}","player_cards":[',
                f'],"player_total":{pt},"banker_total":{bt}}},"outcome":{outcome}}}\n',
            )
        return f'{{"id":{rid_text},"valid":true,"result":{{"winner":{cached[0]}{hands}{cached[1]}'

    @cached_property
    def _multiplied(self) -> MultipliedLines:
        return MultipliedLines(self, VALUE, BANKER_DRAWS)

    # --- outcome ---------------------------------------------------------------------------------------

    def outcome(self, result: dict[str, Any], extras: dict[str, Any] | None = None) -> dict[str, Any]:
        """Every winning and pushed bet spot of a validated result (a bet not listed loses)."""
        player, banker = result["player_cards"], result["banker_cards"]
        pt, bt = result["player_total"], result["banker_total"]
        multiplier_cards = self.check_extras(extras) if self.multiplier_key or extras else None
        return self._settle(
            pt,
            bt,
            len(player),
            len(banker),
            player[0][0] == player[1][0],
            banker[0][0] == banker[1][0],
            player[0] == player[1],
            banker[0] == banker[1],
            multiplier_cards,
            (player, banker),
        )

    def _settle(
        self,
        pt: int,
        bt: int,
        np: int,
        nb: int,
        p_pair: bool,
        b_pair: bool,
        p_perfect: bool,
        b_perfect: bool,
        multiplier_cards: dict[str, int] | None,
        hands: tuple[list[str], list[str]] | None,
    ) -> dict[str, Any]:
        key = (pt, bt, np, nb, p_pair, b_pair, p_perfect, b_perfect)
        cached = self._outcome_cache.get(key)
        if cached is None:
            cached = self._outcome_cache[key] = self._settle_base(*key)
        wins, pushes = cached
        winning = [{"bet": bet, "payout": payout} for bet, payout in wins]
        pushed = [{"bet": bet, "returned": 1} for bet in pushes]
        if self.multiplier_key is None:
            return {"winning_bets": winning, "pushed_bets": pushed}
        assert hands is not None and multiplier_cards is not None
        player, banker = hands
        scope = {
            "player": player,
            "banker": banker,
            "tie": player + banker,
            "player_pair": player[:2],
            "banker_pair": banker[:2],
            "player_bonus": player,
            "banker_bonus": banker,
        }
        for w in winning:
            m = 1
            if w["bet"] in self.multiplied_bets:
                for card in scope.get(w["bet"], ()):
                    m *= multiplier_cards.get(card, 1)
            if m != 1:
                w["payout"] = odds(Fraction(w["payout"]) * m)
            w["multiplier"] = m
        extras_list = [{"card": c, "multiplier": m} for c, m in multiplier_cards.items()]
        return {"winning_bets": winning, "pushed_bets": pushed, self.multiplier_key: extras_list}

    def _settle_base(
        self, pt: int, bt: int, np: int, nb: int, p_pair: bool, b_pair: bool, p_perfect: bool, b_perfect: bool
    ) -> tuple[tuple[tuple[str, Any], ...], tuple[str, ...]]:
        pay = self.payouts
        wins: list[tuple[str, Any]] = []
        pushes: list[str] = []
        if pt > bt:
            wins.append(("player", odds(pay.player)))
        elif bt > pt:
            six = pay.banker_six_total is not None and bt == pay.banker_six_total
            banker = pay.banker_on_six if six else pay.banker
            wins.append(("banker", odds(banker)))
        else:
            wins.append(("tie", odds(pay.tie)))
            pushes += ["player", "banker"]  # seed 000 L1513, 004 L568
        if p_pair:
            wins.append(("player_pair", odds(pay.player_pair)))
        if b_pair:
            wins.append(("banker_pair", odds(pay.banker_pair)))
        if p_perfect or b_perfect:
            wins.append(
                (
                    "perfect_pair",
                    odds(pay.perfect_pair_both if p_perfect and b_perfect else pay.perfect_pair_one),
                )
            )
        if p_pair or b_pair:
            wins.append((self.either_pair_bet, odds(pay.either_pair)))
        p_natural = np == 2 and pt >= 8
        b_natural = nb == 2 and bt >= 8
        for side, mine, theirs, natural in (("player", pt, bt, p_natural), ("banker", bt, pt, b_natural)):
            bet = f"{side}_bonus"
            if mine > theirs:
                if natural:
                    wins.append((bet, odds(pay.bonus_natural)))
                else:
                    for margin, o in pay.bonus_margin:
                        if mine - theirs == margin:
                            wins.append((bet, odds(o)))
                            break
            elif mine == theirs and natural:
                if pay.bonus_natural_tie == "win":
                    wins.append((bet, odds(pay.bonus_natural_tie_odds)))
                else:
                    pushes.append(bet)
        return tuple(wins), tuple(pushes)

    # --- computer draws -------------------------------------------------------------------------------

    def check_extras(self, extras: Any) -> dict[str, int] | None:  # type: ignore[override]
        """The multiplier cards of a round's extras as {card: multiplier}; ValueError if malformed."""
        if self.multiplier_key is None:
            return super().check_extras(extras)  # type: ignore[func-returns-value]
        if extras is None:
            raise ValueError(
                f"{self.game_id} needs the round's extras ({self.multiplier_key!r}: the multiplier "
                "cards drawn before betting closed)"
            )
        if not isinstance(extras, Mapping) or self.multiplier_key not in extras:
            raise ValueError(
                f"{self.game_id} extras need {self.multiplier_key!r}, a list of "
                "{'card': 'AH', 'multiplier': 5}"
            )
        entries = extras[self.multiplier_key]
        if not isinstance(entries, list):
            raise ValueError(f"{self.multiplier_key!r} must be a list, not {type(entries).__name__}")
        low, high = self.multiplier_cards
        if not low <= len(entries) <= high:
            raise ValueError(f"{self.game_id} draws {low}-{high} multiplier cards, not {len(entries)}")
        out: dict[str, int] = {}
        for e in entries:
            if not isinstance(e, Mapping) or set(e) != {"card", "multiplier"}:
                raise ValueError(f"each multiplier card is {{'card': ..., 'multiplier': ...}}, not {e!r}")
            card, m = e["card"], e["multiplier"]
            if card not in VALUE:
                raise ValueError(f"multiplier card {card!r} is not one of the 52 cards")
            if card in out:
                raise ValueError(f"multiplier card {card} is drawn twice (they come from one 52-card pack)")
            if type(m) is not int or m not in self.multipliers:
                raise ValueError(f"multiplier {m!r} is not one of {list(self.multipliers)}")
            out[card] = m
        return out

    def draw_extras(self, rng: random.Random, **settings: Any) -> dict[str, Any] | None:
        """The multiplier cards: distinct cards of one virtual 52-card pack, each with a multiplier.

        Settings (all optional, others are the judge's and ignored here): ``multiplier_cards_min``,
        ``multiplier_cards_max`` (within the game's range), ``multiplier_weights`` (one weight per
        multiplier, in the game's order; default equal)."""
        if self.multiplier_key is None:
            return None
        low, high = self.multiplier_cards
        lo = settings.get("multiplier_cards_min", low)
        hi = settings.get("multiplier_cards_max", high)
        if not (isinstance(lo, int) and isinstance(hi, int) and low <= lo <= hi <= high):
            raise ValueError(f"multiplier_cards_min/max must satisfy {low} <= min <= max <= {high}")
        weights = settings.get("multiplier_weights")
        if weights is not None and (
            len(weights) != len(self.multipliers)
            or any(not isinstance(w, int) or w < 0 for w in weights)
            or not any(weights)
        ):
            raise ValueError(f"multiplier_weights needs {len(self.multipliers)} whole non-negative weights")
        n = rng.randint(lo, hi)
        cards = rng.sample(STANDARD_52, n)
        mults = rng.choices(self.multipliers, weights=weights, k=n)
        return {self.multiplier_key: [{"card": c, "multiplier": m} for c, m in zip(cards, mults)]}

    def new_judge(self, **settings: Any):  # type: ignore[override]
        own = ("multiplier_cards_min", "multiplier_cards_max", "multiplier_weights")
        return super().new_judge(**{k: v for k, v in settings.items() if k not in own})


class NoCommissionBaccarat(BaccaratGame):
    """Banker wins pay 1:1, except a Banker win on 6 pays 1:2 (the common no-commission rule; seed 004
    L622-678 names the game but its rule text is lost)."""

    game_id = "no_commission_baccarat"

    def default_payouts(self) -> BaccaratPayouts:
        return NO_COMMISSION_PAYOUTS


class GoldenWealthBaccarat(BaccaratGame):
    """Baccarat with five Gold cards drawn from a virtual 52-card pack, multipliers 2x 3x 5x 8x (seed 000 L4021)."""

    game_id = "golden_wealth_baccarat"
    either_pair_bet = "golden_pair"  # seed 000 L4061
    multiplier_key = "gold_cards"
    multipliers = (2, 3, 5, 8)
    multiplier_cards = (5, 5)
    multiplied_bets = ("player", "banker", "tie")


class LightningBaccarat(BaccaratGame):
    """Baccarat with Lightning cards: multipliers 2x 3x 4x 5x 8x (seed 000 L4119; seed 004 L706-710).

    Seed 000 draws five cards, seed 004 "from one to five": the range is 1-5 and the default draw is
    five (``multiplier_cards_min`` = 1 gives seed 004's form)."""

    game_id = "lightning_baccarat"
    multiplier_key = "lightning_cards"
    multipliers = (2, 3, 4, 5, 8)
    multiplier_cards = (1, 5)
    multiplied_bets = ("player", "banker", "tie", "player_pair", "banker_pair")

    def draw_extras(self, rng: random.Random, **settings: Any) -> dict[str, Any] | None:
        settings.setdefault("multiplier_cards_min", 5)
        return super().draw_extras(rng, **settings)


GAMES = {
    g.game_id: g
    for g in (BaccaratGame(), NoCommissionBaccarat(), GoldenWealthBaccarat(), LightningBaccarat())
}
