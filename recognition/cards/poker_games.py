"""Poker games dealt as one common hand against the dealer, and Side Bet City. Pure.

Every card is dealt whatever the players decide (a live studio deals one common player hand for
everyone, seed 004 L17-21), so the deal script is a fixed list of positions. The outcome says what
each bet spot pays for a player who stayed in (called / played); a player who folded has lost the
ante (and blind) and placed no call/play bet, and the platform knows who folded. Side bets are
settled from the cards alone.

Games and seed lines: Side Bet City 000 L3419-3493; Three Card Poker and Teen Patti 000 L517-561;
Caribbean Stud 000 L714-773 (and 004 L11-89); Casino Hold'em 000 L563-617 with the land rules of
seed 001 where 000 is silent; Texas Hold'em against the dealer 000 L619-679.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from functools import cached_property
from typing import Any

from recognition.evaluate_fast import CardLines, Shape, TailCache, plain_line

from . import poker_fast
from .base import CardGame, card_list, need
from .cards import ACE_HIGH, Settlement
from .poker import (
    FLUSH,
    FOUR_OF_A_KIND,
    FULL_HOUSE,
    HIGH_CARD,
    PAIR,
    ROYAL_FLUSH,
    STRAIGHT,
    STRAIGHT_FLUSH,
    T_FLUSH,
    T_HIGH_CARD,
    T_MINI_ROYAL,
    T_PAIR,
    T_STRAIGHT,
    T_STRAIGHT_FLUSH,
    T_THREE_OF_A_KIND,
    THREE_OF_A_KIND,
    TWO_PAIR,
    HandValue,
    best5,
    best_category,
    compare,
    name3,
    name5,
    rank3,
    rank5,
)

F = Fraction


class FixedDealGame(CardGame):
    """A deal script that is a fixed list of positions."""

    positions: tuple[str, ...] = ()
    #: result keys holding the cards of consecutive runs of positions, in deal order: (key, how many)
    layout: tuple[tuple[str, int], ...] = ()
    decks = 1
    reshuffle_each_round = True  # one deck, shuffled for every round (seed 000 L569, 004 L18)

    def next_position(self, cards: Sequence[str], context: Any = None) -> str | None:
        return self.positions[len(cards)] if len(cards) < len(self.positions) else None

    def position_label(self, position: str) -> str:
        if position in ("turn", "river"):
            return f"the {position}"
        return super().position_label(position)

    @cached_property
    def _card_lines(self) -> CardLines:
        return CardLines(self.evaluate, self.shoe_spec().copies, self.fast_shape())

    def fast_shape(self) -> Shape:
        """The reading of a deal's cards for `studio evaluate`'s fast path (recognition/cards/poker_fast.py);
        a game with `fast_evaluate` defines it."""
        raise NotImplementedError

    def evaluate_json(self, line: str) -> str | None:
        return self._card_lines(line)

    def split(self, cards: Sequence[str]) -> dict[str, list[str]]:
        out, i = {}, 0
        for key, n in self.layout:
            out[key] = list(cards[i : i + n])
            i += n
        return out

    def cards_from_result(self, result: Mapping[str, Any]) -> list[Any]:
        cards: list[Any] = []
        for key, n in self.layout:
            hand = card_list(need(result, key, self.game_id), key)
            if len(hand) != n:
                raise ValueError(f"{key} holds {n} cards, not {len(hand)}")
            cards += hand
        return cards


def _pay(table: Mapping[int, Fraction], value: HandValue) -> Fraction | None:
    return table.get(value[0])


# --- Side Bet City -------------------------------------------------------------------------------

#: seed 000 L3481-3491 (3 Card Hand column), by three-card category
SBC_THREE = {
    T_MINI_ROYAL: F(100),
    T_STRAIGHT_FLUSH: F(40),
    T_THREE_OF_A_KIND: F(35),
    T_STRAIGHT: F(5),
    T_FLUSH: F(4),
    T_PAIR: F(1),
}
SBC_FIVE = {
    ROYAL_FLUSH: F(1000),
    STRAIGHT_FLUSH: F(250),
    FOUR_OF_A_KIND: F(100),
    FULL_HOUSE: F(50),
    FLUSH: F(40),
    STRAIGHT: F(25),
    THREE_OF_A_KIND: F(7),
    TWO_PAIR: F(4),
}
SBC_FIVE_HIGH_PAIR = F(1)  # "Pair JJ-AA (5 Card Hand only)"
SBC_SEVEN = {
    ROYAL_FLUSH: F(500),
    STRAIGHT_FLUSH: F(100),
    FOUR_OF_A_KIND: F(50),
    FULL_HOUSE: F(7),
    FLUSH: F(5),
    STRAIGHT: F(4),
    THREE_OF_A_KIND: F(3),
}
SBC_ALL_LOSE = F(7, 10)  # L3493: 0.7:1, stake returned on top


class SideBetCity(FixedDealGame):
    """Seven cards from one deck: cards 1-3 the 3 Card Hand, 1-5 the 5 Card Hand, the best five of all seven the
    7 Card Hand; All Lose wins when none of the three hands pays."""

    game_id = "side_bet_city"
    positions = tuple(f"card_{i}" for i in range(1, 8))
    layout = (("cards", 7),)

    fast_evaluate = True

    def fast_shape(self) -> Shape:
        return poker_fast.side_bet_city

    def result_from_cards(self, cards: Sequence[str], context: Any = None) -> dict[str, Any]:
        three, five, (seven, _) = rank3(cards[:3]), best5(cards[:5])[0], best5(cards)
        five_name = name5(five)
        if five[0] == PAIR:
            five_name = "pair_jacks_or_better" if five[1] >= ACE_HIGH["J"] else "pair_below_jacks"
        return {
            "cards": list(cards),
            "three_card_hand": name3(three),
            "five_card_hand": five_name,
            "seven_card_hand": name5(seven),
        }

    def cards_from_result(self, result: Mapping[str, Any]) -> list[Any]:
        return card_list(need(result, "cards", self.game_id), "cards")

    def outcome(self, result: dict[str, Any], extras: dict[str, Any] | None = None) -> dict[str, Any]:
        self.check_extras(extras)
        cards = result["cards"]
        s = Settlement()
        three = _pay(SBC_THREE, rank3(cards[:3]))
        five_value = best5(cards[:5])[0]
        five = _pay(SBC_FIVE, five_value)
        if five is None and five_value[0] == PAIR and five_value[1] >= ACE_HIGH["J"]:
            five = SBC_FIVE_HIGH_PAIR
        seven = _pay(SBC_SEVEN, best5(cards)[0])
        for bet, odds in (("three_card_hand", three), ("five_card_hand", five), ("seven_card_hand", seven)):
            if odds is not None:
                s.win(bet, odds)
        if not s.wins:
            s.win("all_lose", SBC_ALL_LOSE)
        return s.as_dict()


# --- Three Card Poker / Teen Patti -------------------------------------------------------------

ANTE_BONUS = {
    T_MINI_ROYAL: F(5),
    T_STRAIGHT_FLUSH: F(5),
    T_THREE_OF_A_KIND: F(4),
    T_STRAIGHT: F(1),
}  # L536-538
PAIR_PLUS = {
    T_MINI_ROYAL: F(100),
    T_STRAIGHT_FLUSH: F(40),
    T_THREE_OF_A_KIND: F(30),
    T_STRAIGHT: F(5),
    T_FLUSH: F(4),
    T_PAIR: F(1),
}  # L543-548
SIX_CARD = {
    ROYAL_FLUSH: F(1000),
    STRAIGHT_FLUSH: F(200),
    FOUR_OF_A_KIND: F(100),
    FULL_HOUSE: F(20),
    FLUSH: F(15),
    STRAIGHT: F(10),
    THREE_OF_A_KIND: F(7),
}  # L553-559


def _showdown(
    s: Settlement,
    qualifies: bool,
    winner: str,
    ante: Fraction | None,
    call_bet: str,
    call: Fraction | None,
    no_qualify_ante: Fraction | None,
) -> None:
    """Ante and call/play of a player who stayed in. `ante`/`call`: odds when the player wins a qualified hand;
    `no_qualify_ante`: odds of the ante when the dealer does not qualify (None: pushed)."""
    if not qualifies:
        if no_qualify_ante is None:
            s.push("ante")
        else:
            s.win("ante", no_qualify_ante)
        s.push(call_bet)
    elif winner == "player":
        if ante is not None:
            s.win("ante", ante)
        if call is not None:
            s.win(call_bet, call)
    elif winner == "tie":
        s.push("ante")
        s.push(call_bet)


class ThreeCardPoker(FixedDealGame):
    """Three cards to the player, then three to the dealer (L521); the dealer plays with a queen high or better
    (L527). A player who plays: Ante and Play 1:1 on a win against a qualifying dealer; a dealer who does not
    qualify pays the Ante 1:1 and pushes the Play (the standard rule; the seed is silent); a tie pushes both.
    The Ante Bonus pays even when the dealer wins (L529); Pair Plus (L531) and the 6 Card Bonus (the player's
    and the dealer's six cards) are side bets."""

    game_id = "three_card_poker"
    positions = ("player_1", "player_2", "player_3", "dealer_1", "dealer_2", "dealer_3")
    layout = (("player_cards", 3), ("dealer_cards", 3))

    def result_from_cards(self, cards: Sequence[str], context: Any = None) -> dict[str, Any]:
        hands = self.split(cards)
        p, d = rank3(hands["player_cards"]), rank3(hands["dealer_cards"])
        qualifies = d[0] > T_HIGH_CARD or d[1] >= ACE_HIGH["Q"]
        winner = {"first": "player", "second": "dealer", "tie": "tie"}[compare(p, d)]
        return {
            **hands,
            "player_hand": name3(p),
            "dealer_hand": name3(d),
            "dealer_qualifies": qualifies,
            "winner": winner,
        }

    def outcome(self, result: dict[str, Any], extras: dict[str, Any] | None = None) -> dict[str, Any]:
        self.check_extras(extras)
        player, dealer = result["player_cards"], result["dealer_cards"]
        p = rank3(player)
        s = Settlement()
        _showdown(s, result["dealer_qualifies"], result["winner"], F(1), "play", F(1), F(1))
        for bet, table, value in (
            ("ante_bonus", ANTE_BONUS, p),
            ("pair_plus", PAIR_PLUS, p),
            ("six_card_bonus", SIX_CARD, (best_category(player + dealer),)),
        ):
            odds = _pay(table, value)
            if odds is not None:
                s.win(bet, odds)
        return s.as_dict()

    @cached_property
    def _tails(self) -> TailCache:
        return TailCache(self.evaluate)

    fast_evaluate = True

    def evaluate_json(self, line: str) -> str | None:
        """`studio evaluate`'s line for a plain round ``{"id": 17, "cards": [six cards]}``; None for anything
        else. The answer past the cards follows from the hands' categories, whether the dealer qualifies,
        the winner and the six cards' best category (recognition/evaluate_fast.py)."""
        m = _SIX_CARDS(line)
        if m is None:
            return None
        cards = m.groups()[1:]
        if len(set(cards)) != 6:  # a card twice: the general path says so
            return None
        p, d = rank3(cards[:3]), rank3(cards[3:])
        qualifies = d[0] > T_HIGH_CARD or d[1] >= ACE_HIGH["Q"]
        facts = (p[0], d[0], qualifies, compare(p, d), best_category(cards))
        c0, c1, c2, c3, c4, c5 = cards
        head = f'"valid":true,"result":{{"player_cards":["{c0}","{c1}","{c2}"],"dealer_cards":["{c3}","{c4}","{c5}"],'
        return self._tails.line(m[1], head, facts, {"cards": list(cards)})


_CARD = r'"([2-9TJQKA][SHDC])"'
_SIX_CARDS = plain_line(r'"cards": ?\[' + _CARD + (r", ?" + _CARD) * 5 + r"\]").fullmatch


class TeenPatti(ThreeCardPoker):
    """Seed 000 L517-519: Teen Patti is played under the Three Card Poker rules."""

    game_id = "teen_patti"


# --- Caribbean Stud ------------------------------------------------------------------------------

CARIBBEAN_CALL = {
    ROYAL_FLUSH: F(100),
    STRAIGHT_FLUSH: F(20),
    FOUR_OF_A_KIND: F(10),
    FULL_HOUSE: F(3),
    FLUSH: F(2),
    STRAIGHT: F(1),
    THREE_OF_A_KIND: F(1),
    TWO_PAIR: F(1),
    PAIR: F(1),
    HIGH_CARD: F(1),
}  # L750-758
FIVE_PLUS_ONE = {
    ROYAL_FLUSH: F(1000),
    STRAIGHT_FLUSH: F(200),
    FOUR_OF_A_KIND: F(100),
    FULL_HOUSE: F(20),
    FLUSH: F(15),
    STRAIGHT: F(10),
    THREE_OF_A_KIND: F(7),
}  # L763-769


class CaribbeanStud(FixedDealGame):
    """Five cards to the player, then five to the dealer, the dealer's first card face up (L718, 004 L30).
    The dealer qualifies with an ace and a king or better (L741). Called hands: a qualifying dealer beaten pays
    the Ante 1:1 (L771) and the Call by the table (L745-758); a dealer who does not qualify pays the Ante 1:1
    and pushes the Call (004 L70-80, the standard rule); a tie pushes both (004 L50-64). 5+1 Bonus: the
    player's five and the dealer's up card, three of a kind or better (L739)."""

    game_id = "caribbean_stud"
    positions = tuple(f"player_{i}" for i in range(1, 6)) + tuple(f"dealer_{i}" for i in range(1, 6))
    layout = (("player_cards", 5), ("dealer_cards", 5))

    fast_evaluate = True

    def fast_shape(self) -> Shape:
        return poker_fast.caribbean_stud

    def result_from_cards(self, cards: Sequence[str], context: Any = None) -> dict[str, Any]:
        hands = self.split(cards)
        p, d = rank5(hands["player_cards"]), rank5(hands["dealer_cards"])
        qualifies = d[0] > HIGH_CARD or (d[1] == ACE_HIGH["A"] and d[2] == ACE_HIGH["K"])
        winner = {"first": "player", "second": "dealer", "tie": "tie"}[compare(p, d)]
        return {
            **hands,
            "dealer_up_card": hands["dealer_cards"][0],
            "player_hand": name5(p),
            "dealer_hand": name5(d),
            "dealer_qualifies": qualifies,
            "winner": winner,
        }

    def outcome(self, result: dict[str, Any], extras: dict[str, Any] | None = None) -> dict[str, Any]:
        self.check_extras(extras)
        player = result["player_cards"]
        p = rank5(player)
        s = Settlement()
        _showdown(s, result["dealer_qualifies"], result["winner"], F(1), "call", CARIBBEAN_CALL[p[0]], F(1))
        bonus = _pay(FIVE_PLUS_ONE, best5(player + [result["dealer_up_card"]])[0])
        if bonus is not None:
            s.win("five_plus_one_bonus", bonus)
        return s.as_dict()


# --- Casino Hold'em and Texas Hold'em against the dealer -------------------------------------------

HOLDEM_POSITIONS = (
    "player_1",
    "player_2",
    "dealer_1",
    "dealer_2",
    "flop_1",
    "flop_2",
    "flop_3",
    "turn",
    "river",
)
HOLDEM_LAYOUT = (("player_cards", 2), ("dealer_cards", 2), ("board", 5))

CASINO_ANTE = {
    ROYAL_FLUSH: F(100),
    STRAIGHT_FLUSH: F(20),
    FOUR_OF_A_KIND: F(10),
    FULL_HOUSE: F(3),
    FLUSH: F(2),
    STRAIGHT: F(1),
    THREE_OF_A_KIND: F(1),
    TWO_PAIR: F(1),
    PAIR: F(1),
    HIGH_CARD: F(1),
}  # 000 L594-602
CASINO_BONUS = {
    ROYAL_FLUSH: F(100),
    STRAIGHT_FLUSH: F(50),
    FOUR_OF_A_KIND: F(40),
    FULL_HOUSE: F(30),
    FLUSH: F(20),
    STRAIGHT: F(7),
    THREE_OF_A_KIND: F(7),
    TWO_PAIR: F(7),
}  # 000 L607-614; a pair of aces 7:1 (L615)
LAND_BONUS = {
    c: F(7)
    for c in (
        ROYAL_FLUSH,
        STRAIGHT_FLUSH,
        FOUR_OF_A_KIND,
        FULL_HOUSE,
        FLUSH,
        STRAIGHT,
        THREE_OF_A_KIND,
        TWO_PAIR,
    )
}  # 001 L43: 7:1 for "Bullets" (aces) and higher


class HoldemGame(FixedDealGame):
    positions = HOLDEM_POSITIONS
    layout = HOLDEM_LAYOUT

    fast_evaluate = True

    def fast_shape(self) -> Shape:
        return poker_fast.holdem(self.qualifies)

    def qualifies(self, dealer: HandValue) -> bool:
        raise NotImplementedError

    def result_from_cards(self, cards: Sequence[str], context: Any = None) -> dict[str, Any]:
        hands = self.split(cards)
        p = best5(hands["player_cards"] + hands["board"])[0]
        d = best5(hands["dealer_cards"] + hands["board"])[0]
        winner = {"first": "player", "second": "dealer", "tie": "tie"}[compare(p, d)]
        return {
            **hands,
            "player_hand": name5(p),
            "dealer_hand": name5(d),
            "dealer_qualifies": self.qualifies(d),
            "winner": winner,
        }


class CasinoHoldem(HoldemGame):
    """Seed 000 L563-617: the player's two cards, the dealer's two, the flop; (the decision); the turn and the
    river. The dealer qualifies with a pair of fours or better (L587, 001 L13). A called hand beating a
    qualifying dealer: Ante by the table (L591-602), Call 1:1 (L589). Where seed 000 is silent, seed 001's land
    rules: a dealer who does not qualify pays the Ante 1:1 up to a straight and by the table from a flush up,
    and the Call is not paid (returned) (001 L37); equal best five cards push (001 L13). The Bonus bet pays on
    the player's first five cards (the two and the flop), a pair of aces or better (L577-581, L607-615)."""

    game_id = "casino_holdem"
    ante_table = CASINO_ANTE
    bonus_table = CASINO_BONUS
    bonus_pair_of_aces = F(7)  # 000 L615
    #: "seed_001": 1:1 up to a straight, the table from a flush (001 L37); "table": the table for every hand
    no_qualify_ante = "seed_001"

    def __init__(self, no_qualify_ante: str | None = None) -> None:
        if no_qualify_ante is not None:
            if no_qualify_ante not in ("seed_001", "table"):
                raise ValueError(f"no_qualify_ante is 'seed_001' or 'table', not {no_qualify_ante!r}")
            self.no_qualify_ante = no_qualify_ante

    def qualifies(self, dealer: HandValue) -> bool:
        return dealer[0] > PAIR or (dealer[0] == PAIR and dealer[1] >= 4)

    def outcome(self, result: dict[str, Any], extras: dict[str, Any] | None = None) -> dict[str, Any]:
        self.check_extras(extras)
        p = best5(result["player_cards"] + result["board"])[0]
        ante = self.ante_table[p[0]]
        no_qualify = ante if self.no_qualify_ante == "table" or p[0] >= FLUSH else F(1)
        s = Settlement()
        _showdown(s, result["dealer_qualifies"], result["winner"], ante, "call", F(1), no_qualify)
        first5 = best5(result["player_cards"] + result["board"][:3])[0]
        bonus = _pay(self.bonus_table, first5)
        if bonus is None and first5[0] == PAIR and first5[1] == ACE_HIGH["A"]:
            bonus = self.bonus_pair_of_aces
        if bonus is not None:
            s.win("bonus", bonus)
        return s.as_dict()


class CasinoHoldemLand(CasinoHoldem):
    """Seed 001 (the land-based Terms of Play) throughout: the same deal and Ante table (its last row "Pair of
    fours 1:1", L35), the Bonus 7:1 for a pair of aces or better (L43)."""

    game_id = "casino_holdem_land"
    bonus_table = LAND_BONUS


TEXAS_BLIND = {
    ROYAL_FLUSH: F(500),
    STRAIGHT_FLUSH: F(50),
    FOUR_OF_A_KIND: F(10),
    FULL_HOUSE: F(3),
    FLUSH: F(3, 2),
    STRAIGHT: F(1),
}  # 000 L660-666 (the rest: the Blind is returned)
TEXAS_TRIPS = {
    ROYAL_FLUSH: F(50),
    STRAIGHT_FLUSH: F(40),
    FOUR_OF_A_KIND: F(30),
    FULL_HOUSE: F(8),
    FLUSH: F(7),
    STRAIGHT: F(4),
    THREE_OF_A_KIND: F(3),
}  # 000 L671-677


class TexasHoldem(HoldemGame):
    """Seed 000 L619-679 (Casino Hold'em's rules except these): the player's two cards and the dealer's two, the
    flop, the turn and river, each after a decision. The dealer qualifies with a pair or better (L645). A player
    who did not fold: a win pays Play 1:1 (L653), the Ante 1:1 when the dealer qualifies (L649) and is a push
    when the dealer does not (L651, for a loss too: the standard rule), the Blind by its table or returned
    (L657-666); a tie pushes Ante, Blind and Play; a loss loses them (the Ante pushes if the dealer did not
    qualify). Trips pays on the player's best five of seven whatever the dealer has (L637-639)."""

    game_id = "texas_holdem"

    def qualifies(self, dealer: HandValue) -> bool:
        return dealer[0] >= PAIR

    def outcome(self, result: dict[str, Any], extras: dict[str, Any] | None = None) -> dict[str, Any]:
        self.check_extras(extras)
        p = best5(result["player_cards"] + result["board"])[0]
        s = Settlement()
        winner, qualifies = result["winner"], result["dealer_qualifies"]
        if winner == "player":
            if qualifies:
                s.win("ante", 1)
            else:
                s.push("ante")
            blind = TEXAS_BLIND.get(p[0])
            if blind is None:
                s.push("blind")
            else:
                s.win("blind", blind)
            s.win("play", 1)
        elif winner == "tie":
            for bet in ("ante", "blind", "play"):
                s.push(bet)
        elif not qualifies:
            s.push("ante")
        trips = TEXAS_TRIPS.get(p[0])
        if trips is not None:
            s.win("trips", trips)
        return s.as_dict()


GAMES = {
    g.game_id: g
    for g in (
        SideBetCity(),
        ThreeCardPoker(),
        TeenPatti(),
        CaribbeanStud(),
        CasinoHoldem(),
        CasinoHoldemLand(),
        TexasHoldem(),
    )
}
