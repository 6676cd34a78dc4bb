"""The blackjack deal: rules, hand values, the dealer's drawing rule, and the deal replayed from cards and
decisions. Pure: no I/O, no clock, no randomness.

The deal is a procedure that reads the round's cards and decisions in order (:func:`replay`). When it
needs a card it has not got it stops with the card's position; when it needs decisions it has not got it
stops with the decision windows (:class:`recognition.cards.base.Ask`). The same procedure drives the
judge (where does the next card go, which windows are open), ``check_decision`` (is this decision the
answer to an open window, and allowed) and ``studio evaluate`` (re-deal a recorded round).

Positions: ``seat_3/hand_1/2`` (the 2nd card of seat 3's hand 1), ``dealer/1`` (the dealer's up card),
``dealer/2`` ..., and for the common hand of Infinite Blackjack ``common/1``, ``common/2`` ...
Windows: ``seat_3/hand_1/1`` (the 1st decision on that hand), ``seat_3/insurance``; ``common/3`` (whether
the 3rd common card is dealt). Every choice is in docs/blackjack.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from recognition.cards.base import SIT, Ask, DecisionError

F = Fraction

#: blackjack value of each rank (the ace as 1; soft totals add 10)
VALUE: dict[str, int] = {
    "A": 1,
    "2": 2,
    "3": 3,
    "4": 4,
    "5": 5,
    "6": 6,
    "7": 7,
    "8": 8,
    "9": 9,
    "T": 10,
    "J": 10,
    "Q": 10,
    "K": 10,
}
TEN_RANKS = frozenset("TJQK")

#: the extra-stake actions and the stake (in original bets) they make the hand carry
STAKE_ACTIONS: dict[str, int] = {"double": 2, "triple": 3, "quadruple": 4}
ACTIONS = (
    "hit",
    "stand",
    "double",
    "triple",
    "quadruple",
    "free_double",
    "split",
    "free_split",
    "surrender",
    "insurance",
    "even_money",
    "no_insurance",
)


def value(cards: Sequence[str]) -> tuple[int, bool]:
    """(total, soft): the best total without busting when possible; soft = an ace counts 11 in it."""
    total = 0
    ace = False
    for c in cards:
        v = VALUE[c[0]]
        total += v
        ace = ace or v == 1
    if ace and total + 10 <= 21:
        return total + 10, True
    return total, False


def is_blackjack(cards: Sequence[str]) -> bool:
    """Two cards worth 21 (an ace and a ten-value card); whether the hand may be one is the caller's."""
    return len(cards) == 2 and value(cards)[0] == 21


def dealer_hits(cards: Sequence[str], hit_soft_17: bool = False) -> bool:
    """The dealer's fixed rule: draw on 16 or less, stand on 17 or more; a soft 17 draws only with hit_soft_17."""
    total, soft = value(cards)
    return total < 17 or (total == 17 and soft and hit_soft_17)


def same_value(a: str, b: str) -> bool:
    return VALUE[a[0]] == VALUE[b[0]]


@dataclass(frozen=True)
class BlackjackRules:
    """One blackjack variant's rules (the choices are documented in docs/blackjack.md)."""

    decks: int = 8
    #: ranks in the shoe (Power Blackjack: no 9s and 10s)
    ranks: str = "A23456789TJQK"
    #: the dealer's second card is dealt face down after the players' second cards (else: no hole card,
    #: the dealer's second card comes after the players have played)
    hole_card: bool = True
    #: up-card ranks on which the dealer peeks at the hole card (a dealer blackjack then ends the round)
    peek_ranks: frozenset[str] = frozenset("A")
    hit_soft_17: bool = False
    #: most hands a seat may have by splitting (2 = one split, 4 = re-split up to four hands)
    max_hands: int = 2
    resplit_aces: bool = False
    #: split aces get one card each and no more decisions
    split_aces_one_card: bool = True
    double_after_split: bool = False
    #: hard totals a two-card hand may double on (None: any two cards)
    double_totals: frozenset[int] | None = None
    #: the extra-stake actions offered (Power Blackjack: double, triple, quadruple)
    double_actions: tuple[str, ...] = ("double",)
    surrender: bool = False
    #: a surrendered hand keeps its half stake when the dealer turns out to have blackjack (seed 000 settles the
    #: surrender when made); False: a later dealer blackjack takes the whole stake (the usual no-hole-card rule)
    surrender_beats_late_blackjack: bool = True
    insurance_upcards: frozenset[str] = frozenset("A")
    #: a blackjack hand is offered even money (else it is offered insurance like any hand)
    even_money: bool = False
    even_money_upcards: frozenset[str] = frozenset("A")
    blackjack_pays: Fraction = F(3, 2)
    insurance_pays: Fraction = F(2)
    #: a dealer blackjack found after the players acted (no hole card, or no peek on its up card): "all"
    #: the stakes of every hand are lost (doubles and splits too), or "original": only the original bet is
    #: lost and the extra stakes (doubles, split hands) are returned
    late_blackjack: str = "all"
    #: Free Bet Blackjack: free doubles on hard 9-11, free splits of pairs other than tens, dealer 22 pushes
    free_bets: bool = False
    #: a dealer final total that pushes every standing hand (Free Bet: 22)
    dealer_push_total: int | None = None
    #: a hand of this many cards worth 21 or less wins (Six Card Charlie); None: no such rule
    charlie: int | None = None
    #: the dealer completes the hand even when no player hand is left standing (side bets need it)
    dealer_always_completes: bool = True
    #: cap on the common hand's card stream (Infinite Blackjack)
    common_stream_max: int = 30

    def __post_init__(self) -> None:
        if self.late_blackjack not in ("all", "original"):
            raise ValueError(f"late_blackjack is 'all' or 'original', not {self.late_blackjack!r}")
        if self.max_hands < 1:
            raise ValueError("max_hands must be 1 or more")
        for a in self.double_actions:
            if a not in STAKE_ACTIONS:
                raise ValueError(f"unknown double action {a!r}")


# --- the state of a deal --------------------------------------------------------------------------


@dataclass
class Hand:
    number: int
    cards: list[str] = field(default_factory=list)
    stake: int = 1  # in original bets (0: a free split hand carries only its free bet)
    doubled: str | None = None  # "double" / "triple" / "quadruple" / "free_double"
    free_bet: str | None = None  # "double" / "split": the hand carries a free bet
    from_split: bool = False
    split_aces: bool = False
    surrendered: bool = False
    done: bool = False
    decisions: int = 0

    def as_dict(self, blackjack_allowed: bool, charlie: int | None) -> dict[str, Any]:
        total, soft = value(self.cards)
        bj = blackjack_allowed and not self.from_split and is_blackjack(self.cards)
        return {
            "hand": self.number,
            "cards": list(self.cards),
            "total": total,
            "soft": soft,
            "blackjack": bj,
            "bust": total > 21,
            "charlie": bool(charlie and len(self.cards) >= charlie and total <= 21),
            "stake": self.stake,
            "doubled": self.doubled,
            "free_bet": self.free_bet,
            "split": self.from_split,
            "split_aces": self.split_aces,
            "surrendered": self.surrendered,
        }


@dataclass
class SeatState:
    seat: str
    hands: list[Hand] = field(default_factory=list)
    insurance: str | None = None  # the answer to the insurance window, when one was opened


@dataclass
class Deal:
    seats: list[SeatState] = field(default_factory=list)
    dealer: list[str] = field(default_factory=list)
    common: bool = False
    common_cards: list[str] = field(default_factory=list)
    peeked_blackjack: bool = False
    complete: bool = False


class _NeedCard(Exception):
    def __init__(self, position: str) -> None:
        self.position = position


class _NeedDecisions(Exception):
    def __init__(self, asks: list[Ask]) -> None:
        self.asks = asks


@dataclass
class Replay:
    """What a replay found: the deal so far, and what it waits for (a position, windows, or nothing)."""

    deal: Deal
    position: str | None = None
    asks: list[Ask] | None = None
    used_cards: int = 0
    answered: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: every window opened so far (answered or open), by id
    opened: dict[str, Ask] = field(default_factory=dict)

    @property
    def step(self) -> str | list[Ask] | None:
        if self.asks:
            return list(self.asks)
        return self.position


class _Play:
    """One run of the deal procedure over given cards and decisions."""

    def __init__(
        self,
        rules: BlackjackRules,
        seats: Sequence[str],
        cards: Sequence[str],
        decisions: Sequence[Mapping[str, Any]],
        common: bool,
    ) -> None:
        self.r = rules
        self.cards = cards
        self.i = 0
        self.answers: dict[str, Mapping[str, Any]] = {}
        for d in decisions:
            if d.get("action") != SIT and d.get("window"):
                self.answers[d["window"]] = d
        self.deal = Deal(seats=[SeatState(s) for s in seats], common=common)
        self.opened: dict[str, Ask] = {}
        self.used: dict[str, dict[str, Any]] = {}

    # --- inputs ---------------------------------------------------------------------------------

    def card(self, position: str) -> str:
        if self.i >= len(self.cards):
            raise _NeedCard(position)
        c = self.cards[self.i]
        self.i += 1
        return c

    def ask(self, asks: list[Ask]) -> dict[str, str]:
        for a in asks:
            self.opened[a.window] = a
        missing = [a for a in asks if a.window not in self.answers]
        if missing:
            raise _NeedDecisions(missing)
        out = {}
        for a in asks:
            d = self.answers[a.window]
            self.used[a.window] = dict(d)
            out[a.window] = d["action"]
        return out

    # --- the procedure --------------------------------------------------------------------------

    def run(self) -> None:
        if self.deal.common:
            self.run_common()
        else:
            self.run_seats()
        self.deal.complete = True

    def up(self) -> str:
        return self.deal.dealer[0]

    def dealer_card(self) -> None:
        self.deal.dealer.append(self.card(f"dealer/{len(self.deal.dealer) + 1}"))

    def initial_dealer_blackjack_peek(self) -> bool:
        """Hole-card games: the dealer peeks on the listed up cards; a blackjack ends the round."""
        if self.r.hole_card and self.up()[0] in self.r.peek_ranks and is_blackjack(self.deal.dealer):
            self.deal.peeked_blackjack = True
            return True
        return False

    def dealer_plays(self) -> None:
        if not self.r.hole_card:
            self.dealer_card()
        if is_blackjack(self.deal.dealer):
            return
        if not self.r.dealer_always_completes and not self.any_live_hand():
            return
        while dealer_hits(self.deal.dealer, self.r.hit_soft_17):
            self.dealer_card()

    def any_live_hand(self) -> bool:
        for s in self.deal.seats:
            for h in s.hands:
                t = value(h.cards)[0]
                if not h.surrendered and t <= 21 and not (not h.from_split and is_blackjack(h.cards)):
                    return True
        return bool(self.deal.common)

    def run_seats(self) -> None:
        seats = self.deal.seats
        for s in seats:
            s.hands.append(Hand(1))
            s.hands[0].cards.append(self.card(f"{s.seat}/hand_1/1"))
        self.dealer_card()
        for s in seats:
            s.hands[0].cards.append(self.card(f"{s.seat}/hand_1/2"))
        if self.r.hole_card:
            self.dealer_card()
        up = self.up()[0]
        if up in self.r.insurance_upcards or (self.r.even_money and up in self.r.even_money_upcards):
            asks = []
            for s in seats:
                bj = is_blackjack(s.hands[0].cards)
                if bj and self.r.even_money and up in self.r.even_money_upcards:
                    allowed: tuple[str, ...] = ("even_money", "no_insurance")
                elif up in self.r.insurance_upcards:
                    allowed = ("insurance", "no_insurance")
                else:
                    continue
                asks.append(
                    Ask(
                        window=f"{s.seat}/insurance",
                        seat=s.seat,
                        hand=1,
                        allowed=allowed,
                        default="no_insurance",
                        detail={
                            "kind": "insurance",
                            "cards": list(s.hands[0].cards),
                            "dealer_up": self.up(),
                            "blackjack": bj,
                        },
                    )
                )
            if asks:
                answers = self.ask(asks)
                for s in seats:
                    s.insurance = answers.get(f"{s.seat}/insurance")
        if self.initial_dealer_blackjack_peek():
            return
        for s in seats:
            k = 0
            while k < len(s.hands):
                self.play_hand(s, s.hands[k])
                k += 1
        self.dealer_plays()

    def options(self, s: SeatState, h: Hand) -> tuple[str, ...]:
        r = self.r
        total, soft = value(h.cards)
        opts = ["stand", "hit"]
        two = len(h.cards) == 2
        if two and (not h.from_split or r.double_after_split):
            if r.free_bets and not soft and total in (9, 10, 11) and not h.from_split:
                opts.append("free_double")
            elif r.double_totals is None or (not soft and total in r.double_totals):
                opts.extend(r.double_actions)
        can_split = two and same_value(h.cards[0], h.cards[1]) and len(s.hands) < r.max_hands
        if can_split and not (h.split_aces and not r.resplit_aces):
            if r.free_bets and h.cards[0][0] not in TEN_RANKS and not h.from_split:
                opts.append("free_split")
            else:
                opts.append("split")
        if r.surrender and two and not h.from_split and len(s.hands) == 1 and h.decisions == 0:
            opts.append("surrender")
        return tuple(opts)

    def hand_done(self, h: Hand) -> bool:
        total, _ = value(h.cards)
        if h.done or h.surrendered or total >= 21:
            return True
        return bool(self.r.charlie and len(h.cards) >= self.r.charlie)

    def play_hand(self, s: SeatState, h: Hand) -> None:
        r = self.r
        while True:
            if len(h.cards) < 2:
                h.cards.append(self.card(f"{s.seat}/hand_{h.number}/{len(h.cards) + 1}"))
                if (
                    h.split_aces
                    and r.split_aces_one_card
                    and not (r.resplit_aces and h.cards[1][0] == "A" and len(s.hands) < r.max_hands)
                ):
                    h.done = True
            if self.hand_done(h):
                h.done = True
                return
            if h.split_aces and r.split_aces_one_card:
                # re-splittable split aces: only split or stand
                allowed: tuple[str, ...] = tuple(a for a in self.options(s, h) if a in ("stand", "split"))
            else:
                allowed = self.options(s, h)
            window = f"{s.seat}/hand_{h.number}/{h.decisions + 1}"
            total, soft = value(h.cards)
            ask = Ask(
                window=window,
                seat=s.seat,
                hand=h.number,
                allowed=allowed,
                default="stand",
                detail={
                    "kind": "play",
                    "cards": list(h.cards),
                    "total": total,
                    "soft": soft,
                    "dealer_up": self.up(),
                },
            )
            action = self.ask([ask])[window]
            h.decisions += 1
            if action == "stand":
                h.done = True
            elif action == "hit":
                h.cards.append(self.card(f"{s.seat}/hand_{h.number}/{len(h.cards) + 1}"))
            elif action in STAKE_ACTIONS or action == "free_double":
                if action == "free_double":
                    h.free_bet = "double"
                else:
                    h.stake = STAKE_ACTIONS[action] * h.stake
                h.doubled = action
                h.cards.append(self.card(f"{s.seat}/hand_{h.number}/{len(h.cards) + 1}"))
                h.done = True
            elif action == "surrender":
                h.surrendered = True
                h.done = True
            elif action in ("split", "free_split"):
                self.split(s, h, free=action == "free_split")
            else:  # cannot happen: check_decision allows only the window's actions
                raise DecisionError("not_allowed", f"{action!r} is not a play action")

    def split(self, s: SeatState, h: Hand, free: bool) -> None:
        aces = h.cards[0][0] == "A"
        new = Hand(
            len(s.hands) + 1,
            cards=[h.cards.pop()],
            stake=0 if free else 1,
            from_split=True,
            split_aces=aces,
            free_bet="split" if free else None,
        )
        h.from_split = True
        h.split_aces = aces
        s.hands.insert(s.hands.index(h) + 1, new)
        # the dealer deals the second card to both hands before the player decides (000:L213, 004:L159)
        h.cards.append(self.card(f"{s.seat}/hand_{h.number}/2"))
        new.cards.append(self.card(f"{s.seat}/hand_{new.number}/2"))
        for x in (h, new):
            if (
                aces
                and self.r.split_aces_one_card
                and not (self.r.resplit_aces and x.cards[1][0] == "A" and len(s.hands) < self.r.max_hands)
            ):
                x.done = True

    # --- the common hand (Infinite Blackjack) ------------------------------------------------------

    def run_common(self) -> None:
        d = self.deal
        d.common_cards.append(self.card("common/1"))
        self.dealer_card()
        d.common_cards.append(self.card("common/2"))
        if self.r.hole_card:
            self.dealer_card()
        if self.initial_dealer_blackjack_peek():
            return
        if not is_blackjack(d.common_cards):
            while len(d.common_cards) < self.r.common_stream_max:
                n = len(d.common_cards) + 1
                window = f"common/{n}"
                ask = Ask(
                    window=window,
                    seat="common",
                    hand=1,
                    allowed=("hit", "stand"),
                    default="stand",
                    detail={
                        "kind": "common_card",
                        "cards": list(d.common_cards),
                        "dealer_up": self.up(),
                        "card": n,
                    },
                )
                if self.ask([ask])[window] != "hit":
                    break
                d.common_cards.append(self.card(f"common/{n}"))
        self.dealer_plays()


def replay(
    rules: BlackjackRules,
    seats: Sequence[str],
    cards: Sequence[str],
    decisions: Sequence[Mapping[str, Any]],
    common: bool = False,
) -> Replay:
    """Run the deal over `cards` and `decisions` (accepted ones, any order): what it got to and what it waits for."""
    p = _Play(rules, seats, cards, decisions, common)
    out = Replay(deal=p.deal)
    try:
        p.run()
    except _NeedCard as need:
        out.position = need.position
    except _NeedDecisions as need:
        out.asks = need.asks
    out.used_cards = p.i
    out.answered = p.used
    out.opened = p.opened
    return out
