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

from .fast_deal import DECISION_KEYS, Deal, Hand, Refused, is_blackjack, total_of
from .side_bets import _HAND_OF, PAY_TABLES, blackjack_total, bust_it_hand

if TYPE_CHECKING:
    from .games import BlackjackGame

_JSON = {True: "true", False: "false", None: "null"}


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
        from .games import LIGHTNING_KINDS  # games.py imports this module

        self.lightning_kinds = frozenset(LIGHTNING_KINDS)
        self.fates: dict[tuple[int, bool, bool], str] = {}
        #: a hand's text after its cards, by what it says (a few hundred kinds)
        self.hand_tails: dict[tuple[Any, ...], str] = {}
        #: the lightning draws' texts, by the draw's (kind, multiplier) pairs
        self.lightning_texts: dict[tuple[tuple[str, int], ...], str] = {}

    def __call__(self, line: str) -> str | None:
        try:
            item = json.loads(line)
        except ValueError:
            return None
        if type(item) is not dict or type(item.get("id")) is not int:
            return None
        try:
            return self.answer(item)
        except (Refused, StopIteration, KeyError, TypeError, AttributeError, IndexError):
            return None

    # --- the line --------------------------------------------------------------------------------------

    def answer(self, item: dict[str, Any]) -> str:
        cards, given = item["cards"], item["decisions"]
        extras = item.get("extras")
        if (
            len(item) != (3 if "extras" not in item else 4)
            or type(cards) is not list
            or type(given) is not list
        ):
            raise Refused
        multipliers = self.check_extras(extras)
        copies = self.copies
        codes = set(cards)
        if not copies.keys() >= codes:  # each a code of the shoe (TypeError: not even a string)
            raise Refused
        # more copies of a card than the shoe holds needs `least` repeats at least
        if len(cards) - len(codes) >= self.least and any(n > copies[c] for c, n in Counter(cards).items()):
            raise Refused
        seats: list[str] = []
        k = 0
        if not self.game.common_hand:
            order = self.game.seats
            while k < len(given) and type(given[k]) is dict and given[k].get("action") == "sit":
                d = given[k]
                seat = d["seat"]
                if (
                    not DECISION_KEYS.issuperset(d)
                    or seat not in order
                    or seat in seats
                    or d.get("hand", 1) != 1
                    or type(d.get("hand", 1)) is not int
                    or d.get("window") is not None
                    or d.get("cards")
                    or d.get("by") not in (None, "backend")
                ):
                    raise Refused
                seats.append(seat)
                k += 1
            if not seats:
                raise Refused
            seats.sort(key=order.index)
        deal = Deal(self.r, cards, given, k)
        texts = [
            f'{{"window":null,"seat":"{s}","hand":1,"action":"sit","cards":[],"by":"backend"}}' for s in seats
        ]
        if self.game.common_hand:
            common = deal.run_common()
        else:
            table = deal.run_seats(seats)
        if deal.i != len(cards) or deal.k != len(given):
            raise Refused  # cards or decisions the deal does not use
        texts += deal.taken
        dealer = deal.dealer
        d_total, d_soft = total_of(dealer)
        d_bj = is_blackjack(dealer)
        dealer_text = (
            f'{{"cards":{codes_json(dealer)},"up_card":"{dealer[0]}","total":{d_total},'
            f'"soft":{_JSON[d_soft]},"blackjack":{_JSON[d_bj]},"bust":{_JSON[d_total > 21]},'
            f'"peeked_blackjack":{_JSON[deal.peeked]}}}'
        )
        wins: list[str] = []
        pushes: list[str] = []
        if self.game.common_hand:
            total, soft = total_of(common)
            result = (
                f'"common":{{"cards":{codes_json(common)},"total":{total},"soft":{_JSON[soft]},'
                f'"blackjack":{_JSON[is_blackjack(common)]},"bust":{_JSON[total > 21]},'
                f'"first_cards":{codes_json(common[:2])}}}'
            )
            if d_bj:
                wins.append(f'{{"bet":"insurance","payout":{self.insurance_pays}}}')
            self.side_bets("", common[0], common[1], dealer, wins, pushes)
            outcome_tail = f',"hand_fates":{self.hand_fates(d_total, d_bj, deal.peeked)}'
        else:
            result, outcome_tail = self.seats_text(
                table, cards, dealer, d_total, d_bj, multipliers, wins, pushes
            )
        return (
            f'{{"id":{item["id"]},"valid":true,"result":{{{result},"dealer":{dealer_text},'
            f'"cards":{codes_json(cards)},"decisions":[{",".join(texts)}]}},"outcome":{{"winning_bets":'
            f'[{",".join(wins)}],"pushed_bets":[{",".join(pushes)}]{outcome_tail}'
            f',"dealer_blackjack":{_JSON[d_bj]}{self.lightning_text(multipliers)}}}}}\n'
        )

    def check_extras(self, extras: Any) -> dict[str, Any] | None:
        if not self.lightning:
            if extras not in (None, {}):
                raise Refused
            return None
        m = extras.get("multipliers") if type(extras) is dict else None
        if (
            type(m) is dict
            and self.lightning_kinds.issuperset(m)
            and all(type(v) is int and v >= 2 for v in m.values())
        ):
            return m  # what the game's check_extras takes, without its isinstance(Mapping) checks
        try:
            checked = self.game.check_extras(extras)
        except ValueError:
            raise Refused from None
        return extras["multipliers"] if checked is not None else None

    def lightning_text(self, multipliers: Mapping[str, int] | None) -> str:
        if multipliers is None:
            return ""
        key = tuple(multipliers.items())  # checked: str kinds, int multipliers
        text = self.lightning_texts.get(key)
        if text is None:
            text = ',"lightning":' + json.dumps(multipliers, separators=(",", ":"))
            if len(self.lightning_texts) < 100_000:
                self.lightning_texts[key] = text
        return text

    # --- the seats ----------------------------------------------------------------------------------------

    def seats_text(
        self,
        table: list[tuple[str, str | None, list[Hand]]],
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
                total, soft = h.total or total_of(h.cards)
                bj = not h.split and len(h.cards) == 2 and total == 21
                bust = total > 21
                is_charlie = bool(charlie and len(h.cards) >= charlie and not bust)
                key = (
                    total,
                    soft,
                    bj,
                    is_charlie,
                    h.stake,
                    h.doubled,
                    h.free_bet,
                    h.split,
                    h.split_aces,
                    h.surrendered,
                )
                tail = self.hand_tails.get(key)
                if tail is None:
                    tail = self.hand_tails[key] = (
                        f'"total":{total},"soft":{_JSON[soft]},'
                        f'"blackjack":{_JSON[bj]},"bust":{_JSON[bust]},"charlie":{_JSON[is_charlie]},'
                        f'"stake":{h.stake},"doubled":{_text(h.doubled)},"free_bet":{_text(h.free_bet)},'
                        f'"split":{_JSON[h.split]},"split_aces":{_JSON[h.split_aces]},'
                        f'"surrendered":{_JSON[h.surrendered]}}}'
                    )
                hand_texts.append(f'{{"hand":{h.number},"cards":{codes_json(h.cards)},{tail}')
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
        h: Hand,
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
        key = (
            c1[0],
            c2[0],
            up[0],
            c1[1] == c2[1],
            c1[1] == c2[1] == up[1],
            (c1[1] in "HD") == (c2[1] in "HD"),
        )
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
                wins.append(
                    f'{{"bet":"{prefix}bust_it","payout":{PAY_TABLES["bust_it"][hand]},"hand":"{hand}"}}'
                )

    def first_three_bets(self, c1: str, c2: str, up: str) -> tuple[str, ...]:
        """The winning bets on the first three cards, each as its text after `{"bet":"` and the seat."""
        out = []
        for bet in self.bets:
            if bet not in _HAND_OF:  # Bust It: the dealer's hand
                continue
            hand = _HAND_OF[bet](c1, c2, up)
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
