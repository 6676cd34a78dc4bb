"""`studio evaluate`'s fast path of the blackjack games: a recorded round replayed in one pass and its answer
written as text. Pure.

The general path replays the deal from the start for every card and decision it checks (each decision is
checked against the windows the deal has open at that point), which makes a round's cost grow with the square
of its cards. Here a round in the usual shape, ``{"id": 17, "cards": [...], "decisions": [...]}`` (the "sit"
decisions first, each other decision in the order the deal asks for it, without cards and with no other "by"
than the backend's; Lightning's ``extras``), is dealt once, each decision checked as it is taken: the seat and
hand the deal asks, its window when given, one of the window's actions. Anything else (a decision the rules
refuse, too few or too many cards or decisions, a card not of the shoe, another shape of line) is left to the
general path (None), which gives the same answer or the error. The outcome follows docs/blackjack.md as
:meth:`recognition.blackjack.games.BlackjackGame.outcome` does; the answer is byte for byte the general path's.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from recognition.cards.cards import odds
from recognition.evaluate_fast import codes_json

from .engine import STAKE_ACTIONS, VALUE
from .side_bets import (
    PAY_TABLES,
    blackjack_total,
    bust_it_hand,
    lucky_lucky_hand,
    perfect_pairs_hand,
    suit_em_up_hand,
    twenty_one_plus_three_hand,
)

if TYPE_CHECKING:
    from .games import BlackjackGame

_JSON = {True: "true", False: "false", None: "null"}
#: the keys a decision of the usual shape may have
_DECISION_KEYS = frozenset(("window", "seat", "hand", "action", "cards", "by"))
_USUAL_KEYS = frozenset(("seat", "hand", "action"))


class _Refused(Exception):
    """Not a round this path answers: the general path will."""


#: each card's value (the ace 1)
_CARD_VALUE = {r + s: v for r, v in VALUE.items() for s in "SHDC"}


def _total(cards: list[str]) -> tuple[int, bool]:
    total = sum(map(_CARD_VALUE.__getitem__, cards))
    if total <= 11 and any(c[0] == "A" for c in cards):
        return total + 10, True
    return total, False


def _blackjack(cards: list[str]) -> bool:
    return len(cards) == 2 and _total(cards)[0] == 21


class _Hand:
    __slots__ = (
        "cards",
        "decisions",
        "doubled",
        "done",
        "free_bet",
        "number",
        "split",
        "split_aces",
        "stake",
        "surrendered",
    )

    def __init__(self, number: int, cards: list[str], stake: int = 1) -> None:
        self.number = number
        self.cards = cards
        self.stake = stake
        self.doubled: str | None = None
        self.free_bet: str | None = None
        self.split = False
        self.split_aces = False
        self.surrendered = False
        self.done = False
        self.decisions = 0


def fast_lines_possible(game: BlackjackGame) -> bool:
    """Whether this path knows the game's rules (the seven games' own; a table's other options go general)."""
    r = game.rules
    return (
        r.late_blackjack == "all"
        and r.surrender_beats_late_blackjack
        and r.dealer_always_completes
        and r.split_aces_one_card
        and not r.resplit_aces
        and r.double_totals is None
    )


class BlackjackLines:
    """`evaluate_json` of one blackjack game."""

    def __init__(self, game: BlackjackGame) -> None:
        self.game = game
        self.r = game.rules
        self.copies = dict(game.shoe_spec().copies)
        self.least = min(self.copies.values())
        self.blackjack_pays = json.dumps(odds(self.r.blackjack_pays))
        self.insurance_pays = json.dumps(odds(self.r.insurance_pays))
        self.bets = tuple(b for b in PAY_TABLES if b in game.side_bets)
        self.bust_it = "bust_it" in self.bets
        #: the first-three-card bets' winning texts by what they read (at most 17,576 kinds of deal)
        self.first_three: dict[tuple[Any, ...], tuple[str, ...]] = {}
        self.lightning = game.lightning_multipliers is not None
        self.fates: dict[tuple[int, bool, bool], str] = {}

    def __call__(self, line: str) -> str | None:
        try:
            item = json.loads(line)
        except ValueError:
            return None
        if type(item) is not dict or type(item.get("id")) is not int:
            return None
        try:
            return self.answer(item)
        except (_Refused, StopIteration, KeyError, TypeError, AttributeError, IndexError):
            return None

    # --- the line --------------------------------------------------------------------------------------

    def answer(self, item: dict[str, Any]) -> str:
        cards, given = item["cards"], item["decisions"]
        extras = item.get("extras")
        if len(item) != (3 if "extras" not in item else 4) or type(cards) is not list or type(given) is not list:
            raise _Refused
        multipliers = self.check_extras(extras)
        copies = self.copies
        if not copies.keys() >= set(cards):  # each a code of the shoe (TypeError: not even a string)
            raise _Refused
        if len(cards) > self.least and any(n > copies[c] for c, n in Counter(cards).items()):
            raise _Refused
        seats: list[str] = []
        k = 0
        if not self.game.common_hand:
            order = self.game.seats
            while k < len(given) and type(given[k]) is dict and given[k].get("action") == "sit":
                d = given[k]
                seat = d["seat"]
                if (
                    not _DECISION_KEYS.issuperset(d)
                    or seat not in order
                    or seat in seats
                    or d.get("hand", 1) != 1
                    or type(d.get("hand", 1)) is not int
                    or d.get("window") is not None
                    or d.get("cards")
                    or d.get("by") not in (None, "backend")
                ):
                    raise _Refused
                seats.append(seat)
                k += 1
            if not seats:
                raise _Refused
            seats.sort(key=order.index)
        deal = _Deal(self.r, cards, given, k)
        texts = [
            f'{{"window":null,"seat":"{s}","hand":1,"action":"sit","cards":[],"by":"backend"}}' for s in seats
        ]
        if self.game.common_hand:
            common = deal.run_common()
        else:
            table = deal.run_seats(seats)
        if deal.i != len(cards) or deal.k != len(given):
            raise _Refused  # cards or decisions the deal does not use
        texts += deal.taken
        dealer = deal.dealer
        d_total, d_soft = _total(dealer)
        d_bj = _blackjack(dealer)
        dealer_text = (
            f'{{"cards":{codes_json(dealer)},"up_card":"{dealer[0]}","total":{d_total},'
            f'"soft":{_JSON[d_soft]},"blackjack":{_JSON[d_bj]},"bust":{_JSON[d_total > 21]},'
            f'"peeked_blackjack":{_JSON[deal.peeked]}}}'
        )
        wins: list[str] = []
        pushes: list[str] = []
        if self.game.common_hand:
            total, soft = _total(common)
            result = (
                f'"common":{{"cards":{codes_json(common)},"total":{total},"soft":{_JSON[soft]},'
                f'"blackjack":{_JSON[_blackjack(common)]},"bust":{_JSON[total > 21]},'
                f'"first_cards":{codes_json(common[:2])}}}'
            )
            if d_bj:
                wins.append(f'{{"bet":"insurance","payout":{self.insurance_pays}}}')
            self.side_bets("", common[0], common[1], dealer, wins, pushes)
            outcome_tail = f',"hand_fates":{self.hand_fates(d_total, d_bj, deal.peeked)}'
        else:
            result, outcome_tail = self.seats_text(table, cards, dealer, d_total, d_bj, multipliers, wins, pushes)
        return (
            f'{{"id":{item["id"]},"valid":true,"result":{{{result},"dealer":{dealer_text},'
            f'"cards":{codes_json(cards)},"decisions":[{",".join(texts)}]}},"outcome":{{"winning_bets":'
            f'[{",".join(wins)}],"pushed_bets":[{",".join(pushes)}]{outcome_tail}'
            f',"dealer_blackjack":{_JSON[d_bj]}{self.lightning_text(multipliers)}}}}}\n'
        )

    def check_extras(self, extras: Any) -> dict[str, Any] | None:
        if not self.lightning:
            if extras not in (None, {}):
                raise _Refused
            return None
        try:
            m = self.game.check_extras(extras)
        except ValueError:
            raise _Refused from None
        return extras["multipliers"] if m is not None else None

    def lightning_text(self, multipliers: Mapping[str, int] | None) -> str:
        if multipliers is None:
            return ""
        return ',"lightning":' + json.dumps(multipliers, separators=(",", ":"))

    # --- the seats ----------------------------------------------------------------------------------------

    def seats_text(
        self,
        table: list[tuple[str, str | None, list[_Hand]]],
        cards: list[str],
        dealer: list[str],
        d_total: int,
        d_bj: bool,
        multipliers: Mapping[str, int] | None,
        wins: list[str],
        pushes: list[str],
    ) -> tuple[str, str]:
        r = self.r
        charlie = r.charlie
        n = len(table)
        seats = []
        for i, (seat, insurance, hands) in enumerate(table):
            hand_texts = []
            if insurance == "insurance" and d_bj:
                wins.append(f'{{"bet":"{seat}/insurance","payout":{self.insurance_pays}}}')
            for h in hands:
                total, soft = _total(h.cards)
                bj = not h.split and len(h.cards) == 2 and total == 21
                bust = total > 21
                is_charlie = bool(charlie and len(h.cards) >= charlie and not bust)
                hand_texts.append(
                    f'{{"hand":{h.number},"cards":{codes_json(h.cards)},"total":{total},"soft":{_JSON[soft]},'
                    f'"blackjack":{_JSON[bj]},"bust":{_JSON[bust]},"charlie":{_JSON[is_charlie]},'
                    f'"stake":{h.stake},"doubled":{_text(h.doubled)},"free_bet":{_text(h.free_bet)},'
                    f'"split":{_JSON[h.split]},"split_aces":{_JSON[h.split_aces]},'
                    f'"surrendered":{_JSON[h.surrendered]}}}'
                )
                bet = f"{seat}/hand_{h.number}/"
                even_money = insurance == "even_money" and h.number == 1 and bj
                fate, pays = self.fate(h, total, bj, bust, is_charlie, d_total, d_bj, even_money)
                if h.stake:
                    if fate == "win":
                        entry = f'{{"bet":"{bet}main","payout":{pays}'
                        if even_money:
                            entry += ',"even_money":true'
                        if multipliers is not None:
                            entry += f',"multiplier":{multipliers.get("blackjack" if bj else str(total), 1)}'
                        wins.append(entry + "}")
                    elif fate == "push":
                        pushes.append(f'{{"bet":"{bet}main","returned":{pays}}}')
                if h.free_bet and fate == "win":
                    wins.append(f'{{"bet":"{bet}free_bet","payout":1}}')
            first = (cards[i], cards[n + 1 + i])
            self.side_bets(f"{seat}/", first[0], first[1], dealer, wins, pushes)
            seats.append(
                f'{{"seat":"{seat}","first_cards":["{first[0]}","{first[1]}"],"insurance":{_text(insurance)},'
                f'"hands":[{",".join(hand_texts)}]}}'
            )
        return f'"seats":[{",".join(seats)}]', ""

    def fate(
        self,
        h: _Hand,
        total: int,
        bj: bool,
        bust: bool,
        charlie: bool,
        d_total: int,
        d_bj: bool,
        even_money: bool,
    ) -> tuple[str, str]:
        """`_fate` of games.py for the rules this path takes, the odds as the answer writes them."""
        if h.surrendered:
            return "push", '"1/2"'
        if even_money:
            return "win", "1"
        if bj:
            return ("push", "1") if d_bj else ("win", self.blackjack_pays)
        if bust:
            return "loss", ""
        if charlie:
            return "win", "1"
        if d_bj:
            return "loss", ""
        if d_total > 21:
            push = self.r.dealer_push_total
            return ("push", "1") if push is not None and d_total == push else ("win", "1")
        if total > d_total:
            return "win", "1"
        return ("push", "1") if total == d_total else ("loss", "")

    def side_bets(
        self, prefix: str, c1: str, c2: str, dealer: list[str], wins: list[str], pushes: list[str]
    ) -> None:
        """`settle_side_bets` of the seat's first two cards and the dealer's hand, as text."""
        up = dealer[0]
        # what the bets on the first three cards read: the ranks, whether the cards share a suit, a colour
        key = (c1[0], c2[0], up[0], c1[1] == c2[1], c1[1] == c2[1] == up[1], (c1[1] in "HD") == (c2[1] in "HD"))
        first = self.first_three.get(key)
        if first is None:
            first = self.first_three[key] = self.first_three_bets(c1, c2, up)
        for text in first:
            wins.append(f'{{"bet":"{prefix}{text}')
        if self.bust_it:
            if blackjack_total((c1, c2)) == 21:
                pushes.append(f'{{"bet":"{prefix}bust_it","returned":1,"hand":"player_blackjack"}}')
                return
            hand = bust_it_hand(dealer)
            if hand is not None:
                wins.append(f'{{"bet":"{prefix}bust_it","payout":{PAY_TABLES["bust_it"][hand]},"hand":"{hand}"}}')

    def first_three_bets(self, c1: str, c2: str, up: str) -> tuple[str, ...]:
        """The winning bets on the first three cards, each as its text after `{"bet":"` and the seat."""
        out = []
        for bet in self.bets:
            if bet == "perfect_pairs":
                hand = perfect_pairs_hand(c1, c2)
            elif bet == "twenty_one_plus_three":
                hand = twenty_one_plus_three_hand(c1, c2, up)
            elif bet == "suit_em_up":
                hand = suit_em_up_hand(c1, c2)
            elif bet == "lucky_lucky":
                hand = lucky_lucky_hand(c1, c2, up)
            else:
                continue
            if hand is not None:
                out.append(f'{bet}","payout":{json.dumps(PAY_TABLES[bet][hand])},"hand":"{hand}"}}')
        return tuple(out)

    def hand_fates(self, d_total: int, d_bj: bool, peeked: bool) -> str:
        key = (d_total, d_bj, peeked)
        text = self.fates.get(key)
        if text is None:
            dealer = {"total": d_total, "blackjack": d_bj, "peeked_blackjack": peeked}
            text = json.dumps(self.game.hand_fates(dealer), separators=(",", ":"))
            self.fates[key] = text
        return text


def _text(value: str | None) -> str:
    return "null" if value is None else f'"{value}"'


class _Deal:
    """One pass of the deal procedure of engine.py over the round's cards and decisions."""

    def __init__(self, rules: Any, cards: list[str], given: list[Any], k: int) -> None:
        self.r = rules
        self.cards = cards
        self.given = given
        self.i = 0
        self.k = k
        self.taken: list[str] = []
        self.dealer: list[str] = []
        self.peeked = False

    def card(self) -> str:
        c = self.cards[self.i]  # IndexError: too few cards
        self.i += 1
        return c

    def decide(self, window: str, seat: str, hand: int, allowed: tuple[str, ...]) -> str:
        d = self.given[self.k]  # IndexError: too few decisions
        if d.keys() == _USUAL_KEYS:  # {"seat", "hand", "action"}: AttributeError, not a dict
            if d["seat"] != seat or d["hand"] != hand or d["hand"] is True:
                raise _Refused
        elif (
            type(d) is not dict
            or not _DECISION_KEYS.issuperset(d)
            or d["seat"] != seat
            or d.get("hand", 1) != hand
            or type(d.get("hand", 1)) is not int
            or d.get("window", window) not in (None, window)
            or d.get("cards")
            or d.get("by") not in (None, "backend")
        ):
            raise _Refused
        action = d["action"]
        if action not in allowed:
            raise _Refused
        self.k += 1
        self.taken.append(
            f'{{"window":"{window}","seat":"{seat}","hand":{hand},"action":"{action}","cards":[],"by":"backend"}}'
        )
        return str(action)

    def peek(self) -> bool:
        r = self.r
        self.peeked = r.hole_card and self.dealer[0][0] in r.peek_ranks and _blackjack(self.dealer)
        return self.peeked

    def dealer_plays(self) -> None:
        r, dealer = self.r, self.dealer
        if not r.hole_card:
            dealer.append(self.card())
        if _blackjack(dealer):
            return
        while True:
            total, soft = _total(dealer)
            if not (total < 17 or (total == 17 and soft and r.hit_soft_17)):
                return
            dealer.append(self.card())

    def run_common(self) -> list[str]:
        r = self.r
        common = [self.card()]
        self.dealer.append(self.card())
        common.append(self.card())
        if r.hole_card:
            self.dealer.append(self.card())
        if self.peek():
            return common
        if not _blackjack(common):
            while len(common) < r.common_stream_max:
                n = len(common) + 1
                if self.decide(f"common/{n}", "common", 1, ("hit", "stand")) != "hit":
                    break
                common.append(self.card())
        self.dealer_plays()
        return common

    def run_seats(self, seats: list[str]) -> list[tuple[str, str | None, list[_Hand]]]:
        r = self.r
        hands = [[_Hand(1, [self.card()])] for _ in seats]
        self.dealer.append(self.card())
        for h in hands:
            h[0].cards.append(self.card())
        if r.hole_card:
            self.dealer.append(self.card())
        up = self.dealer[0][0]
        insurance: list[str | None] = [None] * len(seats)
        if up in r.insurance_upcards or (r.even_money and up in r.even_money_upcards):
            for j, seat in enumerate(seats):
                if r.even_money and up in r.even_money_upcards and _blackjack(hands[j][0].cards):
                    allowed: tuple[str, ...] = ("even_money", "no_insurance")
                elif up in r.insurance_upcards:
                    allowed = ("insurance", "no_insurance")
                else:
                    continue
                insurance[j] = self.decide(f"{seat}/insurance", seat, 1, allowed)
        if not self.peek():
            for seat, seat_hands in zip(seats, hands, strict=True):
                n = 0
                while n < len(seat_hands):
                    self.play(seat, seat_hands, seat_hands[n])
                    n += 1
            self.dealer_plays()
        return list(zip(seats, insurance, hands, strict=True))

    def play(self, seat: str, hands: list[_Hand], h: _Hand) -> None:
        r = self.r
        while True:
            total, soft = _total(h.cards)
            if h.done or total >= 21 or (r.charlie and len(h.cards) >= r.charlie):
                return
            two = len(h.cards) == 2
            allowed = ["stand", "hit"]
            if two and (not h.split or r.double_after_split):
                if r.free_bets and not soft and total in (9, 10, 11) and not h.split:
                    allowed.append("free_double")
                else:
                    allowed.extend(r.double_actions)
            if two and VALUE[h.cards[0][0]] == VALUE[h.cards[1][0]] and len(hands) < r.max_hands:
                if not h.split_aces:
                    free = r.free_bets and h.cards[0][0] not in "TJQK" and not h.split
                    allowed.append("free_split" if free else "split")
            if r.surrender and two and not h.split and len(hands) == 1 and h.decisions == 0:
                allowed.append("surrender")
            action = self.decide(f"{seat}/hand_{h.number}/{h.decisions + 1}", seat, h.number, tuple(allowed))
            h.decisions += 1
            if action == "stand":
                h.done = True
            elif action == "hit":
                h.cards.append(self.card())
            elif action in STAKE_ACTIONS or action == "free_double":
                if action == "free_double":
                    h.free_bet = "double"
                else:
                    h.stake *= STAKE_ACTIONS[action]
                h.doubled = action
                h.cards.append(self.card())
                h.done = True
            elif action == "surrender":
                h.surrendered = True
                h.done = True
            else:
                free = action == "free_split"
                new = _Hand(len(hands) + 1, [h.cards.pop()], 0 if free else 1)
                new.split = h.split = True
                new.split_aces = h.split_aces = h.cards[0][0] == "A"
                new.free_bet = "split" if free else None
                hands.insert(hands.index(h) + 1, new)
                h.cards.append(self.card())
                new.cards.append(self.card())
                if new.split_aces:
                    h.done = new.done = True
