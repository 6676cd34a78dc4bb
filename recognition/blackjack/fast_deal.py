"""One pass of the blackjack deal procedure (recognition/blackjack/engine.py) over a recorded round's cards and
decisions, for `studio evaluate`'s fast path (recognition/blackjack/fast.py). Pure.

The decisions come as (seat, hand, action, window or None) tuples (recognition/blackjack/fast.py reads them
off the line and checks each has no cards and no other "by" than the backend's). Each is taken as the deal
asks for it, checked as it is taken: the seat and hand the deal asks, its window when given, one of the
window's actions. Anything else raises `Refused` (or IndexError: too few cards or decisions): the general path
answers that round.
"""

from __future__ import annotations

from typing import Any

from .engine import STAKE_ACTIONS, VALUE

#: the keys a decision of the usual shape may have
DECISION_KEYS = frozenset(("window", "seat", "hand", "action", "cards", "by"))
#: a decision: (seat, hand, action, window or None, its answer's texts by the number of the hand's decision)
Decision = tuple[str, int, str, "str | None", dict[int, str]]


class Refused(Exception):
    """Not a round this path answers: the general path will."""


#: each card's value (the ace 1)
CARD_VALUE = {r + s: v for r, v in VALUE.items() for s in "SHDC"}
ACES = frozenset(("AS", "AH", "AD", "AC"))


def total_of(cards: list[str]) -> tuple[int, bool]:
    total = sum(map(CARD_VALUE.__getitem__, cards))
    if total <= 11 and not ACES.isdisjoint(cards):
        return total + 10, True
    return total, False


def is_blackjack(cards: list[str]) -> bool:
    return len(cards) == 2 and total_of(cards)[0] == 21


class Hand:
    __slots__ = (
        "cards",
        "decisions",
        "done",
        "doubled",
        "free_bet",
        "key",
        "mods",
        "number",
        "split",
        "split_aces",
        "stake",
        "surrendered",
        "total",
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
        #: (total, soft, number of cards, mods) once the hand is played
        self.key: tuple[Any, ...] = ()
        #: what the answer says of the hand besides its cards and total: None while it has its first stake
        #: and no double, split, free bet or surrender
        self.mods: tuple[Any, ...] | None = None

    def changed(self) -> None:
        self.mods = (self.stake, self.doubled, self.free_bet, self.split, self.split_aces, self.surrendered)


class Deal:
    """One pass of the deal procedure of engine.py over the round's cards and decisions."""

    def __init__(self, rules: Any, cards: list[str], given: list[Decision], k: int) -> None:
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
        """The next decision, checked against the window the deal opens and its actions."""
        seat_, hand_, action, window_, _ = self.given[self.k]  # IndexError: too few decisions
        if (
            seat_ != seat
            or hand_ != hand
            or (window_ is not None and window_ != window)
            or action not in allowed
        ):
            raise Refused
        self.k += 1
        self.taken.append(
            f'{{"window":"{window}","seat":"{seat}","hand":{hand},"action":"{action}","cards":[],"by":"backend"}}'
        )
        return action

    def peek(self) -> bool:
        r = self.r
        self.peeked = r.hole_card and self.dealer[0][0] in r.peek_ranks and is_blackjack(self.dealer)
        return self.peeked

    def dealer_plays(self) -> None:
        r, dealer = self.r, self.dealer
        if not r.hole_card:
            dealer.append(self.card())
        if is_blackjack(dealer):
            return
        hard, ace = sum(map(CARD_VALUE.__getitem__, dealer)), not ACES.isdisjoint(dealer)
        while True:
            total, soft = (hard + 10, True) if ace and hard <= 11 else (hard, False)
            if not (total < 17 or (total == 17 and soft and r.hit_soft_17)):
                return
            c = self.card()
            dealer.append(c)
            hard += CARD_VALUE[c]
            ace = ace or c in ACES

    def run_common(self) -> list[str]:
        r = self.r
        common = [self.card()]
        self.dealer.append(self.card())
        common.append(self.card())
        if r.hole_card:
            self.dealer.append(self.card())
        if self.peek():
            return common
        if not is_blackjack(common):
            while len(common) < r.common_stream_max:
                n = len(common) + 1
                if self.decide(f"common/{n}", "common", 1, ("hit", "stand")) != "hit":
                    break
                common.append(self.card())
        self.dealer_plays()
        return common

    def run_seats(self, seats: list[str]) -> list[tuple[str, str | None, list[Hand]]]:
        r = self.r
        cards = self.cards
        n = len(seats)
        # the first card to each seat, the dealer's up card, the second card to each seat (IndexError: too few)
        hands = [[Hand(1, [cards[j], cards[n + 1 + j]])] for j in range(n)]
        self.dealer.append(cards[n])
        self.i = 2 * n + 1
        if r.hole_card:
            self.dealer.append(self.card())
        up = self.dealer[0][0]
        insurance: list[str | None] = [None] * n
        if up in r.insurance_upcards or (r.even_money and up in r.even_money_upcards):
            for j, seat in enumerate(seats):
                if r.even_money and up in r.even_money_upcards and is_blackjack(hands[j][0].cards):
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
        else:  # the dealer's blackjack ends the round before any hand is played
            for (h,) in hands:
                h.key = (*total_of(h.cards), 2, None)
        return list(zip(seats, insurance, hands, strict=True))

    def play(self, seat: str, hands: list[Hand], h: Hand) -> None:
        charlie = self.r.charlie or 1_000_000  # no Charlie: a hand never has that many cards
        cards = h.cards
        shoe, given, taken = self.cards, self.given, self.taken
        number = h.number
        i, k, n = self.i, self.k, h.decisions
        hard, ace = sum(map(CARD_VALUE.__getitem__, cards)), not ACES.isdisjoint(cards)
        while True:
            total, soft = (hard + 10, True) if ace and hard <= 11 else (hard, False)
            if h.done or total >= 21 or len(cards) >= charlie:
                break
            seat_, hand_, action, window_, texts = given[k]  # IndexError: too few decisions
            n += 1
            if seat_ != seat or hand_ != number:
                raise Refused
            if window_ is not None and window_ != f"{seat}/hand_{number}/{n}":
                raise Refused
            k += 1
            text = texts.get(n)
            if text is None:  # the same decision's text at the same point of a hand: formatted once
                text = texts[n] = (
                    f'{{"window":"{seat}/hand_{number}/{n}","seat":"{seat}","hand":{number},'
                    f'"action":"{action}","cards":[],"by":"backend"}}'
                )
            taken.append(text)
            if action == "hit":
                c = shoe[i]  # IndexError: too few cards
                i += 1
                cards.append(c)
                hard += CARD_VALUE[c]
                ace = ace or c in ACES
                continue
            if action == "stand":
                break
            h.decisions = n - 1  # the hand's options are those before this decision
            self.allow(action, hands, h, total, soft)
            if action in STAKE_ACTIONS or action == "free_double":
                if action == "free_double":
                    h.free_bet = "double"
                else:
                    h.stake *= STAKE_ACTIONS[action]
                h.doubled = action
                c = shoe[i]
                i += 1
                cards.append(c)
                hard += CARD_VALUE[c]
                ace = ace or c in ACES
                h.done = True
                h.changed()
            elif action == "surrender":
                h.surrendered = True
                h.changed()
                break
            else:
                free = action == "free_split"
                new = Hand(len(hands) + 1, [cards.pop()], 0 if free else 1)
                new.split = h.split = True
                new.split_aces = h.split_aces = cards[0][0] == "A"
                new.free_bet = "split" if free else None
                hands.insert(hands.index(h) + 1, new)
                cards.append(shoe[i])
                new.cards.append(shoe[i + 1])
                i += 2
                if new.split_aces:
                    h.done = new.done = True
                h.changed()
                new.changed()
                hard, ace = sum(map(CARD_VALUE.__getitem__, cards)), not ACES.isdisjoint(cards)
        h.done = True
        h.decisions = n
        h.key = (total, soft, len(cards), h.mods)
        self.i, self.k = i, k

    def allow(self, action: str, hands: list[Hand], h: Hand, total: int, soft: bool) -> None:
        """Refused unless `action` (not "stand" or "hit", which a hand in play always has) is one of the
        hand's options now."""
        r = self.r
        two = len(h.cards) == 2
        allowed: list[str] = []
        if two and (not h.split or r.double_after_split):
            if r.free_bets and not soft and total in (9, 10, 11) and not h.split:
                allowed.append("free_double")
            else:
                allowed.extend(r.double_actions)
        pair = two and VALUE[h.cards[0][0]] == VALUE[h.cards[1][0]]
        if pair and len(hands) < r.max_hands and not h.split_aces:
            free = r.free_bets and h.cards[0][0] not in "TJQK" and not h.split
            allowed.append("free_split" if free else "split")
        if r.surrender and two and not h.split and len(hands) == 1 and h.decisions == 0:
            allowed.append("surrender")
        if action not in allowed:
            raise Refused
