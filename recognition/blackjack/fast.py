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

A line as json.dumps writes it, its decisions of seat, hand and action only, is read off its text (the cards
split, each decision's text looked up among those already read); any other line through json.loads. Each
hand's texts (its fields after the cards, its bets' entries) are kept by what decides them under the dealer's
total, the side bets' by the three cards they read.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from recognition.cards.cards import odds
from recognition.evaluate_fast import PLAIN_ID, card_codes, codes_json

from .fast_deal import DECISION_KEYS, Deal, Decision, Hand, Refused, is_blackjack, total_of
from .side_bets import _HAND_OF, PAY_TABLES, blackjack_total, bust_it_hand

if TYPE_CHECKING:
    from .games import BlackjackGame

_JSON = {True: "true", False: "false", None: "null"}

#: a line of the usual shape (one space or none after each colon and comma): its id, the text of its cards, of
#: its decisions and of its extras object (read by json.loads)
_LINE = re.compile(
    PLAIN_ID + r'"cards": ?\[([^\]]*)\], ?"decisions": ?\[([^\]]*)\](?:, ?"extras": ?(.*))?\}\n?'
).fullmatch
#: a decision's text between its braces: seat, hand (1 when not given) and action, strings without escapes
_PART = re.compile(
    r'"seat": ?"([^"\\]*)", ?(?:"hand": ?(0|-?[1-9][0-9]*), ?)?"action": ?"([^"\\]*)"'
).fullmatch
_NEW: Any = object()
_JOIN = '","'.join
#: a seat's insurance decision as the answer writes it
_INSURANCE = {
    None: "null",
    "insurance": '"insurance"',
    "no_insurance": '"no_insurance"',
    "even_money": '"even_money"',
}
#: what a round this path does not answer raises (the general path answers it)
_NOT_THIS_PATH = (Refused, StopIteration, KeyError, TypeError, AttributeError, IndexError, ValueError)


def _decision(d: Any) -> Decision:
    """A decision of a parsed line as (seat, hand, action, window or None): no cards, no other "by" than the
    backend's, and the types the deal compares (Refused otherwise)."""
    if type(d) is not dict or not DECISION_KEYS.issuperset(d):
        raise Refused
    seat, action, hand, window = d["seat"], d["action"], d.get("hand", 1), d.get("window")
    if (
        type(seat) is not str
        or type(action) is not str
        or type(hand) is not int
        or not (window is None or type(window) is str)
        or d.get("cards")
        or d.get("by") not in (None, "backend")
    ):
        raise Refused
    return seat, hand, action, window, {}


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
        #: the first-three-card bets' winning texts (and whether the first two make 21) by what they read (at
        #: most 17,576 kinds of deal), and by the three cards (at most 140,608)
        self.by_ranks: dict[tuple[Any, ...], tuple[tuple[str, ...], bool]] = {}
        self.first_three: dict[tuple[str, str, str], tuple[tuple[str, ...], bool]] = {}
        self.lightning = game.lightning_multipliers is not None
        from .games import LIGHTNING_KINDS  # games.py imports this module

        self.lightning_kinds = frozenset(LIGHTNING_KINDS)
        self.fates: dict[tuple[int, bool, bool], str] = {}
        #: a hand's texts (hand_entry), by the dealer's total (0: a blackjack), then by what decides them
        self.hand_entries: dict[
            int, dict[tuple[Any, ...], tuple[str, str | None, str | None, str | None, str | None]]
        ] = {}
        #: the lightning draws' texts, by the draw's (kind, multiplier) pairs
        self.lightning_texts: dict[tuple[tuple[str, int], ...], str] = {}
        self.seat_rank = {seat: i for i, seat in enumerate(game.seats)}
        #: `{"bet":"SEAT/hand_N/` by seat and hand number
        self.bet_heads = {
            s: tuple(f'{{"bet":"{s}/hand_{n}/' for n in range(self.r.max_hands + 1)) for s in game.seats
        }
        #: the dealer's text after the up card, by its total, softness, blackjack and peek
        self.dealer_tails: dict[tuple[int, bool, bool, bool], str] = {}
        #: `{"hand":N,"cards":["` by hand number
        self.hand_heads = tuple(f'{{"hand":{n},"cards":["' for n in range(self.r.max_hands + 1))
        self.sit_texts = {
            s: f'{{"window":null,"seat":"{s}","hand":1,"action":"sit","cards":[],"by":"backend"}}'
            for s in game.seats
        }
        #: decisions read off a line's text, by their text (seats x hands x actions: a few hundred)
        self.parts: dict[str, Decision] = {}
        #: the multipliers of an extras object and their text in the outcome, by the object's text
        self.known_parts: dict[str, tuple[Mapping[str, int] | None, str]] = {}

    def __call__(self, line: str) -> str | None:
        m = _LINE(line)
        if m is not None:
            try:
                return self.read_text(m)
            except _NOT_THIS_PATH:
                pass  # another shape of decision (a window, cards, "by" given): read as JSON
        try:
            item = json.loads(line)
        except ValueError:
            return None
        if type(item) is not dict or type(item.get("id")) is not int:
            return None
        try:
            cards, decisions = item["cards"], item["decisions"]
            if len(item) != (3 if "extras" not in item else 4) or type(decisions) is not list:
                raise Refused
            given = list(map(_decision, decisions))
            multipliers = self.check_extras(item.get("extras"))
            return self.answer(str(item["id"]), cards, given, multipliers, self.lightning_text(multipliers))
        except _NOT_THIS_PATH:
            return None

    # --- the line --------------------------------------------------------------------------------------

    def read_text(self, m: re.Match[str]) -> str:
        """The answer to a line of the usual shape, read off its text (no JSON parser: a fifth of the time)."""
        cards = card_codes(m[2])
        if cards is None:
            raise Refused
        parts, known = self.parts, self.known_parts
        text = m[3].replace("}, {", "},{")
        if text[:1] != "{" or text[-1:] != "}":
            raise Refused
        given = []
        for part in text[1:-1].split("},{"):
            d = parts.get(part)
            if d is None:
                p = _PART(part)
                if p is None:
                    raise Refused
                d = (p[1], int(p[2] or 1), p[3], None, {})
                if len(parts) < 10_000:
                    parts[part] = d
            given.append(d)
        extras = m[4]
        if extras is None:
            multipliers = self.check_extras(None)
            return self.answer(m[1], cards, given, multipliers, self.lightning_text(multipliers))
        entry = known.get(extras)
        if entry is None:
            multipliers = self.check_extras(json.loads(extras))  # ValueError: not JSON
            entry = (multipliers, self.lightning_text(multipliers))
            if len(known) < 100_000:
                known[extras] = entry
        return self.answer(m[1], cards, given, *entry)

    def answer(
        self,
        rid: str,
        cards: list[str],
        given: list[Decision],
        multipliers: Mapping[str, int] | None,
        lightning: str,
    ) -> str:
        """The answer line; `lightning`: the outcome's text of the multipliers (lightning_text)."""
        if type(cards) is not list:
            raise Refused
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
            rank = self.seat_rank
            while k < len(given) and given[k][2] == "sit":
                seat, hand, _, window, _ = given[k]
                if seat not in rank or seat in seats or hand != 1 or window is not None:
                    raise Refused
                seats.append(seat)
                k += 1
            if not seats:
                raise Refused
            seats.sort(key=rank.__getitem__)
        deal = Deal(self.r, cards, given, k)
        texts = list(map(self.sit_texts.__getitem__, seats))
        if self.game.common_hand:
            common = deal.run_common()
        else:
            table = deal.run_seats(seats)
        if deal.i != len(cards) or deal.k != len(given):
            raise Refused  # cards or decisions the deal does not use
        texts += deal.taken
        dealer = deal.dealer
        d_total, d_soft = total_of(dealer)
        d_bj = len(dealer) == 2 and d_total == 21
        key = (d_total, d_soft, d_bj, deal.peeked)
        dealer_tail = self.dealer_tails.get(key)
        if dealer_tail is None:
            dealer_tail = self.dealer_tails[key] = (
                f'"total":{d_total},"soft":{_JSON[d_soft]},"blackjack":{_JSON[d_bj]},'
                f'"bust":{_JSON[d_total > 21]},"peeked_blackjack":{_JSON[deal.peeked]}}}'
            )
        dealer_text = f'{{"cards":["{_JOIN(dealer)}"],"up_card":"{dealer[0]}",{dealer_tail}'

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
            bust_text = self.bust_it_text(dealer) if self.bust_it else None
            self.side_bets("", common[0], common[1], dealer[0], bust_text, wins, pushes)
            outcome_tail = f',"hand_fates":{self.hand_fates(d_total, d_bj, deal.peeked)}'
        else:
            result, outcome_tail = self.seats_text(
                table, cards, dealer, d_total, d_bj, multipliers, wins, pushes
            )
        return (
            f'{{"id":{rid},"valid":true,"result":{{{result},"dealer":{dealer_text},'
            f'"cards":{codes_json(cards)},"decisions":[{",".join(texts)}]}},"outcome":{{"winning_bets":'
            f'[{",".join(wins)}],"pushed_bets":[{",".join(pushes)}]{outcome_tail}'
            f',"dealer_blackjack":{_JSON[d_bj]}{lightning}}}}}\n'
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
        n = len(table)
        # a hand's texts by what decides them, under the dealer's total (0: a blackjack)
        dkey = 0 if d_bj else d_total
        entries = self.hand_entries.get(dkey)
        if entries is None:
            entries = self.hand_entries[dkey] = {}
        side_bets = self.bets or self.bust_it
        if side_bets:
            up = dealer[0]
            bust_text = self.bust_it_text(dealer) if self.bust_it else None
        seats = []
        bet_heads, hand_heads = self.bet_heads, self.hand_heads
        for i, (seat, insurance, hands) in enumerate(table):
            hand_texts = []
            if insurance == "insurance" and d_bj:
                wins.append(f'{{"bet":"{seat}/insurance","payout":{self.insurance_pays}}}')
            heads = bet_heads[seat]
            for h in hands:
                hc = h.cards
                key = h.key
                if insurance == "even_money" and h.number == 1 and h.mods is None and len(hc) == 2:
                    key += (key[0] == 21,)  # even money taken on this blackjack
                entry = entries.get(key)
                if entry is None:
                    entry = entries[key] = self.hand_entry(h, d_total, d_bj, len(key) == 5 and key[4])
                tail, win, push, free, lightning_key = entry
                number = h.number
                hand_texts.append(f'{hand_heads[number]}{_JOIN(hc)}"],{tail}')
                if win is not None:
                    if lightning_key is not None and multipliers is not None:
                        win += f"{multipliers.get(lightning_key, 1)}}}"
                    wins.append(heads[number] + win)
                elif push is not None:
                    pushes.append(heads[number] + push)
                if free is not None:
                    wins.append(heads[number] + free)
            c1, c2 = cards[i], cards[n + 1 + i]
            if side_bets:
                self.side_bets(f"{seat}/", c1, c2, up, bust_text, wins, pushes)
            seats.append(
                f'{{"seat":"{seat}","first_cards":["{c1}","{c2}"],"insurance":{_INSURANCE[insurance]},'
                f'"hands":[{",".join(hand_texts)}]}}'
            )
        return f'"seats":[{",".join(seats)}]', ""

    def hand_entry(
        self, h: Hand, d_total: int, d_bj: bool, even_money: bool
    ) -> tuple[str, str | None, str | None, str | None, str | None]:
        """A hand's text after its cards; its main bet's winning text (after `{"bet":"SEAT/hand_N/`, without
        the multiplier and the closing brace where it has one), its pushed text, its free bet's winning text
        (None where there is none), and the lightning multiplier's kind that its main win takes."""
        total, soft = h.key[0], h.key[1]
        bj = not h.split and len(h.cards) == 2 and total == 21
        bust = total > 21
        charlie = self.r.charlie
        is_charlie = bool(charlie and len(h.cards) >= charlie and not bust)
        tail = (
            f'"total":{total},"soft":{_JSON[soft]},'
            f'"blackjack":{_JSON[bj]},"bust":{_JSON[bust]},"charlie":{_JSON[is_charlie]},'
            f'"stake":{h.stake},"doubled":{_text(h.doubled)},"free_bet":{_text(h.free_bet)},'
            f'"split":{_JSON[h.split]},"split_aces":{_JSON[h.split_aces]},'
            f'"surrendered":{_JSON[h.surrendered]}}}'
        )
        fate, pays = self.fate(h, total, bj, bust, is_charlie, d_total, d_bj, even_money)
        win = push = free = lightning_key = None
        if h.stake:
            if fate == "win":
                win = f'main","payout":{pays}'
                if even_money:
                    win += ',"even_money":true'
                if self.lightning:
                    win += ',"multiplier":'
                    lightning_key = "blackjack" if bj else str(total)
                else:
                    win += "}"
            elif fate == "push":
                push = f'main","returned":{pays}}}'
        if h.free_bet and fate == "win":
            free = 'free_bet","payout":1}'
        return tail, win, push, free, lightning_key

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
        self,
        prefix: str,
        c1: str,
        c2: str,
        up: str,
        bust_text: str | None,
        wins: list[str],
        pushes: list[str],
    ) -> None:
        """`settle_side_bets` of the seat's first two cards and the dealer's up card, as text; `bust_text`:
        Bust It's winning text for the dealer's final hand (`bust_it_text`, made once a round)."""
        first = self.first_three.get((c1, c2, up))
        if first is None:
            first = self.first_three[c1, c2, up] = self.first_three_bets(c1, c2, up)
        texts, player_21 = first
        for text in texts:
            wins.append(f'{{"bet":"{prefix}{text}')
        if self.bust_it:
            if player_21:
                pushes.append(f'{{"bet":"{prefix}bust_it","returned":1,"hand":"player_blackjack"}}')
            elif bust_text is not None:
                wins.append(f'{{"bet":"{prefix}{bust_text}')

    def bust_it_text(self, dealer: list[str]) -> str | None:
        """Bust It's winning text after the seat, for the dealer's final hand, or None."""
        hand = bust_it_hand(dealer)
        if hand is None:
            return None
        return f'bust_it","payout":{PAY_TABLES["bust_it"][hand]},"hand":"{hand}"}}'

    def first_three_bets(self, c1: str, c2: str, up: str) -> tuple[tuple[str, ...], bool]:
        """The winning bets on the first three cards, each as its text after `{"bet":"` and the seat, and
        whether the first two cards make 21 (Bust It is then returned)."""
        # what the bets read: the ranks, whether the cards share a suit, a colour
        key = (
            c1[0],
            c2[0],
            up[0],
            c1[1] == c2[1],
            c1[1] == c2[1] == up[1],
            (c1[1] in "HD") == (c2[1] in "HD"),
        )
        first = self.by_ranks.get(key)
        if first is None:
            out = []
            for bet in self.bets:
                if bet not in _HAND_OF:  # Bust It: the dealer's hand
                    continue
                hand = _HAND_OF[bet](c1, c2, up)
                if hand is not None:
                    out.append(f'{bet}","payout":{json.dumps(PAY_TABLES[bet][hand])},"hand":"{hand}"}}')
            first = self.by_ranks[key] = (tuple(out), blackjack_total((c1, c2)) == 21)
        return first

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
