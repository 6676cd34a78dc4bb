"""The dealer-banked draw-poker games of seed 000, dealt as one common player hand against the dealer. Pure.

Games (ids) and seed lines:

* ``five_card_poker``: 5-card poker, 000:L289-347;
* ``five_card_poker_exchange``: 5-card poker with card exchange, 000:L349-403;
* ``six_card_poker``: the second "CARD POKER" heading, the 6-card poker of L5, 000:L405-451;
* ``joker_poker``: poker with joker, 000:L453-515.

**Deal** (one deck, a fresh deck every round): the player's five cards ``player_1..5``, the dealer's face-up card
``dealer_1``; then, in the games with a card decision, the decision window and the card(s) it calls for
(``draw_1`` replacing the discarded card; 6-card poker's bought card ``player_6``); then the dealer's four other
cards ``dealer_2..5``, which the dealer opens after the players decided (L318, L374, L426). The seeds' land table
deals the dealer's closed cards with the players' (L295); a studio shoe reads every card, so dealing them after
the decisions keeps them unknown until the players have decided (seed 004 L30 deals a live Caribbean Stud so).

**Decisions**. The exchange (``five_card_poker_exchange``, ``joker_poker``: give back one of the five cards and
get another, L372, L483) and the purchase of a sixth card (``six_card_poker``, L424) change which cards come out,
so they are decision windows of the deal (``has_decisions``): the window ``player/hand_1/exchange`` allows
``discard`` (the card given back in the decision's ``cards``) and ``keep`` (default); ``player/hand_1/buy``
allows ``buy`` and ``keep`` (default). Fold or raise (play) does not change the cards: it stays on the betting
platform, and the outcome is for a player who raised. The common hand is always in play (no "sit").

**Outcome** of a raised hand (net odds to 1): the dealer does not qualify (ace-king or better; a pair in poker
with joker): ``ante`` 1, ``raise`` returned; the player's hand beats the qualified dealer's: ``ante`` 1 and
``raise`` by the game's table; equal hands (every card): both returned; otherwise both lose. The bet for the
exchange or the sixth card (an amount equal to the ante, taken by the dealer) is never returned: not listed.
``bonus`` (flush or better on the five cards dealt; the organiser sets its multipliers, which the seed does not
give, so it is listed without ``payout`` unless the game is built with ``bonus_odds``) is lost when the card is
exchanged (L401, L515).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import Any

from recognition.cards import poker_fast
from recognition.cards.base import (
    Ask,
    CardGame,
    DecisionError,
    card_list,
    decision_dict,
    need,
)
from recognition.cards.cards import (
    BLACK_JOKER,
    JOKER,
    RED_JOKER,
    STANDARD_52,
    Settlement,
    ShoeSpec,
    parse_odds,
)
from recognition.cards.poker import (
    FLUSH,
    FOUR_OF_A_KIND,
    FULL_HOUSE,
    ROYAL_FLUSH,
    STRAIGHT_FLUSH,
)
from recognition.evaluate_fast import CardLines

from .fast import decision_lines
from .hands import (
    FOUR_OF_A_KIND_AND_JOKER,
    best_value,
    name,
    qualifies_ace_king,
    qualifies_pair,
    value5,
)

#: the common player hand's seat and hand in decision windows and decisions
PLAYER = "player"

#: the raise's odds by the player's hand, when it beats a qualifying dealer (net odds to 1 on the raise)
FIVE_CARD_RAISE: dict[str, int] = {  # L322-331: "One pair or lower (Ace and King)" 2 ... Royal Flush 125
    "high_card": 2,
    "pair": 2,
    "two_pair": 3,
    "three_of_a_kind": 4,
    "straight": 5,
    "flush": 6,
    "full_house": 8,
    "four_of_a_kind": 30,
    "straight_flush": 75,
    "royal_flush": 125,
}
EXCHANGE_RAISE: dict[str, int] = {  # L378-387
    "high_card": 1,
    "pair": 1,
    "two_pair": 2,
    "three_of_a_kind": 3,
    "straight": 4,
    "flush": 5,
    "full_house": 7,
    "four_of_a_kind": 20,
    "straight_flush": 50,
    "royal_flush": 100,
}
SIX_CARD_RAISE: dict[str, int] = dict(EXCHANGE_RAISE)  # L430-439: the same numbers
JOKER_RAISE: dict[
    str, int
] = {  # L493-503; the dealer qualifies with a pair, so a winning hand is a pair or better
    "pair": 1,
    "two_pair": 2,
    "three_of_a_kind": 3,
    "straight": 4,
    "flush": 5,
    "full_house": 7,
    "four_of_a_kind": 15,
    "straight_flush": 35,
    "royal_flush": 75,
    "four_of_a_kind_and_joker": 150,
}

#: the hands the Bonus bet wins with (L399-401, L449-451, L513-515; 3.1 names none: the same as 3.2/3.3)
BONUS_HANDS: frozenset[int] = frozenset({FLUSH, FULL_HOUSE, FOUR_OF_A_KIND, STRAIGHT_FLUSH, ROYAL_FLUSH})
JOKER_BONUS_HANDS: frozenset[int] = BONUS_HANDS | {FOUR_OF_A_KIND_AND_JOKER}


def joker_deck() -> ShoeSpec:
    """53 cards: the 52 and one joker (L455), reported as JK, RJ or BJ (whichever the vendor table says)."""
    copies = {c: 1 for c in STANDARD_52}
    copies.update({JOKER: 1, RED_JOKER: 1, BLACK_JOKER: 1})
    return ShoeSpec("one deck of 53 cards (52 and a joker)", copies, joker_limit=1)


class DrawPokerGame(CardGame):
    """Shared by the four games: the deal, the showdown, the outcome. Subclasses say the decision, if any."""

    decks = 1
    reshuffle_each_round = True
    common_hand = True
    #: "exchange", "buy" or None
    decision: str | None = None
    raise_table: Mapping[str, int] = EXCHANGE_RAISE
    bonus_hands: frozenset[int] = BONUS_HANDS
    #: an exchange forfeits the bonus (L401, L515)
    exchange_loses_bonus = True

    def __init__(self, *, bonus_odds: Mapping[str, int | str] | None = None, max_discards: int = 1) -> None:
        """bonus_odds: the organiser's Bonus multipliers by hand name (net odds to 1; the seed gives none), e.g.
        {"flush": 5, "full_house": 10, ...}; None lists a winning bonus without payout.
        max_discards: cards a player may exchange (the seed: one, L372, L483)."""
        self.bonus_odds: dict[str, int | str] | None = None
        if bonus_odds is not None:
            known = {name((c,)) for c in self.bonus_hands}
            unknown = set(bonus_odds) - known
            if unknown:
                raise ValueError(
                    f"bonus_odds: {sorted(unknown)} are not bonus hands ({', '.join(sorted(known))})"
                )
            missing = known - set(bonus_odds)
            if missing:
                raise ValueError(f"bonus_odds needs odds for {sorted(missing)}")
            for v in bonus_odds.values():
                parse_odds(v)
            self.bonus_odds = dict(bonus_odds)
        if isinstance(max_discards, bool) or not isinstance(max_discards, int) or not 1 <= max_discards <= 5:
            raise ValueError(f"max_discards is 1 to 5, not {max_discards!r}")
        self.max_discards = max_discards

    # --- the deal ----------------------------------------------------------------------------------

    def qualifies(self, value: tuple[int, ...]) -> bool:
        return qualifies_ace_king(value)

    def window(self) -> str:
        return f"{PLAYER}/hand_1/{self.decision}"

    def allowed(self) -> tuple[str, ...]:
        return ("discard", "keep") if self.decision == "exchange" else ("buy", "keep")

    def _taken(self, decisions: Sequence[Mapping[str, Any]]) -> Mapping[str, Any] | None:
        for d in decisions:
            if d.get("window") == self.window() or (
                d.get("seat") == PLAYER and d.get("action") in self.allowed()
            ):
                return d
        return None

    def _extra_cards(self, decision: Mapping[str, Any] | None) -> int:
        if decision is None:
            return 0
        if self.decision == "exchange":
            return len(decision.get("cards") or ()) if decision["action"] == "discard" else 0
        return 1 if decision["action"] == "buy" else 0

    def next_step(
        self, cards: Sequence[str], decisions: Sequence[Mapping[str, Any]], context: Any = None
    ) -> str | list[Ask] | None:
        n = len(cards)
        if n < 5:
            return f"player_{n + 1}"
        if n == 5:
            return "dealer_1"
        if self.decision is None:
            return f"dealer_{n - 4}" if n < 10 else None
        taken = self._taken(decisions)
        if taken is None:
            return [self.ask(cards)]
        extra = self._extra_cards(taken)
        if n < 6 + extra:
            if self.decision == "buy":
                return "player_6"
            return f"draw_{n - 5}"
        k = n - 6 - extra  # dealer cards after the first
        return f"dealer_{k + 2}" if k < 4 else None

    def next_position(self, cards: Sequence[str], context: Any = None) -> str | None:
        if self.decision is not None:
            raise TypeError(f"{self.game_id} deals by decisions: use next_step(cards, decisions)")
        step = self.next_step(cards, [], context)
        assert not isinstance(step, list)
        return step

    def ask(self, cards: Sequence[str]) -> Ask:
        player = list(cards[:5])
        detail: dict[str, Any] = {"player_cards": player, "dealer_up_card": cards[5]}
        try:
            detail["player_hand"] = name(value5(player))
        except ValueError:  # two jokers: impossible from one deck; the copy check refuses the deal
            pass
        if self.decision == "exchange":
            detail["max_discards"] = self.max_discards
        return Ask(
            window=self.window(), seat=PLAYER, hand=1, allowed=self.allowed(), default="keep", detail=detail
        )

    def position_label(self, position: str) -> str:
        if position.startswith("draw_"):
            return f"the player's replacement card ({position.replace('_', ' ')})"
        if position == "dealer_1":
            return "the dealer's face-up card"
        return super().position_label(position)

    def check_decision(
        self,
        cards: Sequence[str],
        decisions: Sequence[Mapping[str, Any]],
        decision: Mapping[str, Any],
        context: Any = None,
    ) -> dict[str, Any]:
        d = decision_dict(decision)
        if self.decision is None:
            raise DecisionError(
                "not_allowed",
                f"{self.game_id} takes no card decisions (fold or raise is the betting platform's)",
            )
        if d["action"] == "sit":
            raise DecisionError(
                "not_allowed", f"{self.game_id} deals one common player hand: there are no seats to sit at"
            )
        if d["seat"] != PLAYER:
            raise DecisionError(
                "seat_not_in_play", f"{self.game_id} has one common hand, seat {PLAYER!r}, not {d['seat']!r}"
            )
        if d["hand"] != 1:
            raise DecisionError("hand_not_in_play", f"the common hand is hand 1, not {d['hand']}")
        step = self.next_step(cards, decisions, context)
        if not isinstance(step, list):
            if (
                d["window"] is not None
                and d["window"] == self.window()
                and self._taken(decisions) is not None
            ):
                raise DecisionError("window_closed", f"the window {self.window()} was already answered")
            if step is None:
                raise DecisionError("round_over", "the hand is complete")
            if not cards:
                raise DecisionError(
                    "betting_open",
                    f"no cards dealt yet: the {self.decision} window opens after "
                    "the player's five cards and the dealer's face-up card",
                )
            if self._taken(decisions) is not None:
                raise DecisionError("window_closed", f"the window {self.window()} was already answered")
            raise DecisionError(
                "not_your_turn",
                f"the {self.decision} window opens after the player's five cards "
                f"and the dealer's face-up card ({len(cards)} dealt)",
            )
        ask = step[0]
        if d["window"] is not None and d["window"] != ask.window:
            raise DecisionError("window_closed", f"the open window is {ask.window}, not {d['window']}")
        if d["action"] not in ask.allowed:
            raise DecisionError(
                "not_allowed", f"{d['action']!r} is not allowed now; allowed: {', '.join(ask.allowed)}"
            )
        chosen = list(d["cards"])
        if d["action"] == "discard":
            hand = Counter(cards[:5])
            if not chosen:
                raise DecisionError("bad_cards", "a discard names the card(s) given back in 'cards'")
            if len(chosen) > self.max_discards:
                raise DecisionError(
                    "bad_cards",
                    f"at most {self.max_discards} card"
                    f"{'s' if self.max_discards != 1 else ''} may be exchanged, not "
                    f"{len(chosen)}",
                )
            wanted = Counter(chosen)
            for card, k in wanted.items():
                if hand[card] < k:
                    raise DecisionError(
                        "bad_cards", f"{card} is not in the player's hand ({' '.join(cards[:5])})"
                    )
        elif chosen:
            raise DecisionError("bad_cards", f"{d['action']!r} takes no cards (given {' '.join(chosen)})")
        return {**d, "window": ask.window, "cards": chosen}

    # --- results -----------------------------------------------------------------------------------------

    def _hands(self, cards: Sequence[str], decisions: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        dealt = list(cards[:5])
        taken = self._taken(decisions) if self.decision else None
        extra = self._extra_cards(taken)
        drawn = list(cards[6 : 6 + extra])
        discards = list(taken["cards"]) if taken is not None and taken["action"] == "discard" else []
        player = list(dealt)
        for old, new in zip(discards, drawn):
            player[player.index(old)] = new  # the new card takes the place of the card given back
        if self.decision == "buy":
            player += drawn
        dealer = [cards[5]] + list(cards[6 + extra :])
        return {
            "dealt": dealt,
            "player": player,
            "dealer": dealer,
            "discards": discards,
            "drawn": drawn,
            "decision": taken,
        }

    def result_from_play(
        self, cards: Sequence[str], decisions: Sequence[Mapping[str, Any]], context: Any = None
    ) -> dict[str, Any]:
        h = self._hands(cards, decisions)
        p, p_best = best_value(h["player"])
        d = value5(h["dealer"])
        winner = "player" if p > d else "dealer" if d > p else "tie"
        result: dict[str, Any] = {
            "cards": list(cards),
            "player_cards": h["player"],
            "dealer_cards": h["dealer"],
            "dealer_up_card": h["dealer"][0],
            "player_hand": name(p),
            "dealer_hand": name(d),
            "dealer_qualifies": self.qualifies(d),
            "winner": winner,
        }
        if len(h["player"]) == 6:
            result["player_best_cards"] = list(p_best)
        if self.decision is not None:
            result["dealt_player_cards"] = h["dealt"]
            result["dealt_player_hand"] = name(value5(h["dealt"]))
            if self.decision == "exchange":
                result["discards"] = h["discards"]
                result["draws"] = h["drawn"]
            else:
                result["bought_card"] = h["drawn"][0] if h["drawn"] else None
            result["decisions"] = [dict(x) for x in decisions]
        return result

    def result_from_cards(self, cards: Sequence[str], context: Any = None) -> dict[str, Any]:
        return self.result_from_play(cards, [], context)

    def cards_from_result(self, result: Mapping[str, Any]) -> list[Any]:
        return card_list(need(result, "cards", self.game_id), "cards")

    # --- the outcome ---------------------------------------------------------------------------------------

    def outcome(self, result: dict[str, Any], extras: dict[str, Any] | None = None) -> dict[str, Any]:
        self.check_extras(extras)
        s = Settlement()
        player_hand = result["player_hand"]
        if not result["dealer_qualifies"]:
            s.win("ante", 1)  # L318, L374, L426, L485: the ante paid, the raise returned
            s.push("raise")
        elif result["winner"] == "player":
            s.win("ante", 1)
            s.win("raise", self.raise_table[player_hand], hand=player_hand)
        elif result["winner"] == "tie":
            s.push("ante")  # L320, L376, L428, L489: every card equal: ante and raise back
            s.push("raise")
        dealt = result.get("dealt_player_cards", result["player_cards"][:5])
        exchanged = bool(result.get("discards"))
        bonus_value = value5(dealt)
        if bonus_value[0] in self.bonus_hands and not (exchanged and self.exchange_loses_bonus):
            bonus_name = name(bonus_value)
            if self.bonus_odds is None:
                s.wins.append({"bet": "bonus", "hand": bonus_name})
            else:
                s.win("bonus", parse_odds(self.bonus_odds[bonus_name]), hand=bonus_name)
        return s.as_dict()


#: the misdeal of 5-card poker and its exchange variant (000:L335, L391): a wrong number of cards in the player
#: hand, or a wrong deal of the dealer's own cards (other than 4 cards instead of 5, which the dealer completes),
#: voids the hands; the bets are returned with a fine of 50 % of the Ante
MISDEAL_CODE = "misdeal"


def misdeal_terms(rule: str) -> dict[str, Any]:
    return {"refund": "all_bets", "compensation": {"ante": "1/2"}, "rule": rule}


class FiveCardPoker(DrawPokerGame):
    """000:L289-347: five cards each, the dealer's first face up; no card decision. The dealer qualifies with
    ace-king or better (L318); the raise pays L322-331 (one pair or lower 2 ... royal flush 125)."""

    game_id = "five_card_poker"
    decision = None
    raise_table = FIVE_CARD_RAISE
    fast_evaluate = True

    @cached_property
    def _fast(self) -> CardLines:
        return CardLines(self.evaluate, self.shoe_spec().copies, poker_fast.five_card_poker)

    def evaluate_json(self, line: str) -> str | None:
        """`studio evaluate`'s line for a plain round: the answer past the cards follows from the hands'
        categories, whether the dealer qualifies and the winner (recognition/evaluate_fast.py)."""
        if self.bonus_odds is not None:  # the organiser's bonus odds: the general path
            return None
        return self._fast(line)

    def void_terms(self, code: str) -> dict[str, Any] | None:
        return misdeal_terms("000:L335") if code == MISDEAL_CODE else None


class DecidingDrawPoker(DrawPokerGame):
    """A draw-poker game with the player's decision: its fast path (recognition/draw_poker/fast.py)."""

    fast_evaluate = True

    @cached_property
    def _decision_lines(self) -> CardLines:
        return decision_lines(self)

    def evaluate_json(self, line: str) -> str | None:
        """`studio evaluate`'s line for a plain round (recognition/draw_poker/fast.py)."""
        return self._decision_lines(line)


class FiveCardPokerExchange(DecidingDrawPoker):
    """000:L349-403: as 5-card poker, and the player may give back one card for another (L372); the raise pays
    L378-387. The qualification sentence says "player" where the dealer is meant (L374): read as the dealer."""

    game_id = "five_card_poker_exchange"
    has_decisions = True
    decision = "exchange"
    raise_table = EXCHANGE_RAISE

    def void_terms(self, code: str) -> dict[str, Any] | None:
        return misdeal_terms("000:L391") if code == MISDEAL_CODE else None


class SixCardPoker(DecidingDrawPoker):
    """000:L405-451: the player may buy a sixth card (L424) and plays the best five of six; the raise pays
    L430-439. The bonus is judged on the five cards dealt ("without additional card purchase", L451); buying does
    not forfeit it (the seed says so only for the exchange games)."""

    game_id = "six_card_poker"
    has_decisions = True
    decision = "buy"
    raise_table = SIX_CARD_RAISE
    exchange_loses_bonus = False


class JokerPoker(DecidingDrawPoker):
    """000:L453-515: 53 cards with a joker that stands for any card (L455); Four of a Kind and Joker above the
    royal flush (L473); equal hands: the one without the joker wins (L475); the player may exchange one card
    (L483); the dealer qualifies with a pair (L485); the raise pays L493-503."""

    game_id = "joker_poker"
    has_decisions = True
    decision = "exchange"
    raise_table = JOKER_RAISE
    bonus_hands = JOKER_BONUS_HANDS

    def shoe_spec(self, decks: int | None = None) -> ShoeSpec:
        if decks not in (None, 1):
            raise ValueError("poker with joker is dealt from one 53-card deck")
        return joker_deck()

    def qualifies(self, value: tuple[int, ...]) -> bool:
        return qualifies_pair(value)


GAMES = {g.game_id: g for g in (FiveCardPoker(), FiveCardPokerExchange(), SixCardPoker(), JokerPoker())}
