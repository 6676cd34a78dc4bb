"""The blackjack games: seed 000's Blackjack, seed 004's family, seed 003's Blackjack. Pure.

Each game is a :class:`BlackjackGame` (a :class:`recognition.cards.base.CardGame` with player decisions)
around :class:`recognition.blackjack.engine.BlackjackRules`. The result carries every hand's cards and flags,
the dealer's hand and the decisions; the outcome lists each bet's fate. Formats, windows and every rule
choice: docs/blackjack.md.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import fields, replace
from fractions import Fraction
from typing import Any

from recognition.cards.base import SIT, CardGame, DecisionError, decision_dict
from recognition.cards.cards import ShoeSpec, odds, standard_shoe

from .engine import STAKE_ACTIONS, BlackjackRules, Deal, Hand, Replay, is_blackjack, replay, value
from .fast import BlackjackLines, fast_lines_possible
from .side_bets import settle_side_bets

F = Fraction

#: the seats of a seated table, in deal order (the dealer's left first: 000:L199, 004:L143)
SEVEN_SEATS = tuple(f"seat_{i}" for i in range(1, 8))

#: Lightning Blackjack: the hand kinds that can carry a multiplier
LIGHTNING_KINDS = ("17", "18", "19", "20", "21", "blackjack")

#: BlackjackRules fields a table may set in its `game_options` (where operators differ)
RULE_OPTIONS = frozenset(
    f.name
    for f in fields(BlackjackRules)
    if f.name not in ("decks", "ranks", "double_actions", "common_stream_max")
)


def _rule_value(key: str, value: Any) -> Any:
    """A config value (TOML: bools, ints, strings, lists) as the rules field's type; ValueError if it does not fit."""
    default = getattr(BlackjackRules(), key)
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise ValueError(f"{key} is true or false, not {value!r}")
        return value
    if isinstance(default, frozenset) or key == "double_totals":
        if value is None and key == "double_totals":
            return None
        if not isinstance(value, (list, tuple)):
            raise ValueError(f"{key} is a list, not {value!r}")
        return frozenset(value)
    if isinstance(default, Fraction):
        try:
            return Fraction(str(value))
        except (ValueError, ZeroDivisionError):
            raise ValueError(f'{key} is a fraction like "3/2", not {value!r}') from None
    if isinstance(default, int) or key in ("charlie", "dealer_push_total"):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise ValueError(f"{key} is a whole number, not {value!r}")
        return value
    if isinstance(default, str) and not isinstance(value, str):
        raise ValueError(f"{key} is a string, not {value!r}")
    return value


def _fate(
    rules: BlackjackRules,
    hand: Mapping[str, Any],
    dealer: Mapping[str, Any],
    *,
    even_money: bool = False,
    peeked: bool = False,
) -> tuple[str, Fraction]:
    """The fate of a hand's main stake: ("win", net odds) / ("push", part returned) / ("loss", 0)."""
    if hand["surrendered"]:
        if dealer["blackjack"] and not rules.surrender_beats_late_blackjack and not peeked:
            return "loss", F(0)
        return "push", F(1, 2)
    if even_money:
        return "win", F(1)
    d_total = dealer["total"]
    d_bj = dealer["blackjack"]
    if hand["blackjack"]:
        return ("push", F(1)) if d_bj else ("win", rules.blackjack_pays)
    if hand["bust"]:
        return "loss", F(0)
    if hand["charlie"]:
        return "win", F(1)
    if d_bj:
        if rules.late_blackjack == "original" and not peeked and hand["stake"]:
            original = 1 if hand["hand"] == 1 else 0
            back = F(hand["stake"] - original, hand["stake"])
            if back:
                return "push", back
        return "loss", F(0)
    if d_total > 21:
        if rules.dealer_push_total is not None and d_total == rules.dealer_push_total:
            return "push", F(1)
        return "win", F(1)
    if hand["total"] > d_total:
        return "win", F(1)
    if hand["total"] == d_total:
        return "push", F(1)
    return "loss", F(0)


def _hand_kind(hand: Mapping[str, Any]) -> str:
    return "blackjack" if hand["blackjack"] else str(hand["total"])


class BlackjackGame(CardGame):
    """A blackjack game with seats (or one common hand), dealt from a shoe, driven by player decisions."""

    game_id = "live_blackjack"
    decks = 8
    has_decisions = True
    seats = SEVEN_SEATS
    #: the side bets settled per seat (ids of recognition.blackjack.side_bets; () = none)
    side_bets: tuple[str, ...] = ()
    #: the decks the table may be set to (seed 003: 1, 4, 5 or 6)
    allowed_decks: tuple[int, ...] = (8,)
    #: Lightning: the multipliers drawn each round (None: no draws)
    lightning_multipliers: tuple[int, ...] | None = None

    def __init__(self, rules: BlackjackRules | None = None, **options: Any) -> None:
        self.rules = rules or self.default_rules()
        changes = {k: _rule_value(k, options.pop(k)) for k in list(options) if k in RULE_OPTIONS}
        if changes:  # a table's rule options (config `game_options`, e.g. hit_soft_17 = true)
            self.rules = replace(self.rules, **changes)
        for key, val in options.items():
            if not hasattr(type(self), key) or key.startswith("_") or callable(getattr(type(self), key)):
                raise ValueError(f"{type(self).__name__} has no option {key!r}")
            setattr(self, key, val)
        self.decks = self.rules.decks
        self.fast_evaluate = fast_lines_possible(self)
        self._fast_lines: BlackjackLines | None = None

    def evaluate_json(self, line: str) -> str | None:
        """`studio evaluate`'s line for a round in the usual shape (recognition/blackjack/fast.py), or None."""
        if not self.fast_evaluate:
            return None
        if self._fast_lines is None:
            self._fast_lines = BlackjackLines(self)
        return self._fast_lines(line)

    def default_rules(self) -> BlackjackRules:
        return BlackjackRules()

    # --- the shoe ---------------------------------------------------------------------------------

    def shoe_spec(self, decks: int | None = None) -> ShoeSpec:
        n = decks or self.rules.decks
        if n not in self.allowed_decks:
            raise ValueError(
                f"{self.game_id} is played with {' or '.join(map(str, self.allowed_decks))} decks, not {n}"
            )
        return standard_shoe(n, ranks=self.rules.ranks)

    def with_decks(self, decks: int) -> BlackjackGame:
        """The same game from a shoe of `decks` decks (seed 003's setting)."""
        game = type(self)(replace(self.rules, decks=decks))
        game.game_id = self.game_id
        game.shoe_spec(decks)
        return game

    # --- the deal --------------------------------------------------------------------------------

    def _replay(self, cards: Sequence[str], decisions: Sequence[Mapping[str, Any]]) -> Replay:
        seats = [] if self.common_hand else self.sat(decisions)
        return replay(self.rules, seats, cards, decisions, common=self.common_hand)

    def next_position(self, cards: Sequence[str], context: Any = None) -> str | None:  # pragma: no cover
        raise TypeError(f"{self.game_id} is dealt by next_step (the deal depends on player decisions)")

    def next_step(self, cards, decisions, context=None):  # type: ignore[override]
        return self._replay(cards, decisions).step

    def position_label(self, position: str) -> str:
        parts = position.split("/")
        if parts[0] == "dealer":
            n = int(parts[1])
            return "the dealer's up card" if n == 1 else f"the dealer's card {n}"
        if parts[0] == "common":
            return f"the common hand's card {parts[1]}"
        if len(parts) == 3:
            seat = parts[0].replace("_", " ")
            hand = parts[1].replace("_", " ")
            return f"{seat}, {hand}, card {parts[2]}"
        return position

    def check_decision(self, cards, decisions, decision, context=None):  # type: ignore[override]
        d = decision_dict(decision)
        if d["action"] == SIT:
            if self.common_hand:
                raise DecisionError("not_allowed", f"{self.game_id} has one common hand: no seats to sit at")
            return self.check_sit(cards, decisions, d)
        rp = self._replay(cards, decisions)
        deal = rp.deal
        if deal.complete:
            raise DecisionError("round_over", "the hand is complete: no more decisions")
        if self.common_hand:
            if d["seat"] != "common":
                raise DecisionError(
                    "seat_not_in_play",
                    f"{self.game_id} has one common hand: seat 'common', not {d['seat']!r}",
                )
            hands = {1}
        else:
            seat = next((s for s in deal.seats if s.seat == d["seat"]), None)
            if seat is None:
                raise DecisionError("seat_not_in_play", f"{d['seat']} has no main bet in this round")
            hands = {h.number for h in seat.hands} or {1}
        if d["hand"] not in hands:
            raise DecisionError(
                "hand_not_in_play",
                f"{d['seat']} has no hand {d['hand']} (hands: {', '.join(map(str, sorted(hands)))})",
            )
        asks = rp.asks or []
        if d["window"] is not None:
            ask = next((a for a in asks if a.window == d["window"]), None)
            if ask is None:
                why = "it was answered already" if d["window"] in rp.answered else "no such window is open"
                raise DecisionError("window_closed", f"window {d['window']!r} is not open: {why}")
            if ask.seat != d["seat"] or ask.hand != d["hand"]:
                raise DecisionError(
                    "window_closed",
                    f"window {d['window']!r} is {ask.seat} hand {ask.hand}'s, "
                    f"not {d['seat']} hand {d['hand']}'s",
                )
        else:
            ask = next((a for a in asks if a.seat == d["seat"] and a.hand == d["hand"]), None)
            if ask is None:
                waiting = (
                    f"the next card ({self.position_label(rp.position)})"
                    if rp.position
                    else ", ".join(a.window for a in asks)
                )
                raise DecisionError(
                    "not_your_turn",
                    f"no decision is asked of {d['seat']} hand {d['hand']} now; the deal waits for {waiting}",
                )
        if d["action"] not in ask.allowed:
            raise DecisionError(
                "not_allowed",
                f"{d['action']!r} is not allowed for {ask.window}; allowed: {', '.join(ask.allowed)}",
            )
        return {**d, "window": ask.window, "cards": []}

    # --- results ---------------------------------------------------------------------------------

    def _dealer_dict(self, deal: Deal) -> dict[str, Any]:
        total, soft = value(deal.dealer)
        return {
            "cards": list(deal.dealer),
            "up_card": deal.dealer[0],
            "total": total,
            "soft": soft,
            "blackjack": is_blackjack(deal.dealer),
            "bust": total > 21,
            "peeked_blackjack": deal.peeked_blackjack,
        }

    def result_from_play(
        self, cards: Sequence[str], decisions: Sequence[Mapping[str, Any]], context: Any = None
    ) -> dict[str, Any]:
        rp = self._replay(cards, decisions)
        if not rp.deal.complete or rp.used_cards != len(cards):
            raise ValueError("the deal is not complete")
        deal = rp.deal
        charlie = self.rules.charlie
        result: dict[str, Any] = {}
        if self.common_hand:
            h = Hand(1, cards=list(deal.common_cards))
            common = h.as_dict(True, None)
            result["common"] = {k: common[k] for k in ("cards", "total", "soft", "blackjack", "bust")}
            result["common"]["first_cards"] = list(deal.common_cards[:2])
        else:
            seats = []
            first_two = {}
            # the first two cards of each seat, from the deal order
            order = [s.seat for s in deal.seats]
            n = len(order)
            for i, seat in enumerate(order):
                first_two[seat] = [cards[i], cards[n + 1 + i]]
            for s in deal.seats:
                seats.append(
                    {
                        "seat": s.seat,
                        "first_cards": first_two[s.seat],
                        "insurance": s.insurance,
                        "hands": [h.as_dict(True, charlie) for h in s.hands],
                    }
                )
            result["seats"] = seats
        result["dealer"] = self._dealer_dict(deal)
        result["cards"] = list(cards)
        result["decisions"] = [
            {
                "window": d.get("window"),
                "seat": d["seat"],
                "hand": d.get("hand", 1),
                "action": d["action"],
                "cards": list(d.get("cards") or []),
                "by": d.get("by") or "backend",
            }
            for d in decisions
        ]
        return result

    def cards_from_result(self, result: Mapping[str, Any]) -> list[Any]:
        raise ValueError(f"a {self.game_id} result needs 'cards' (deal order) and 'decisions'")

    # --- outcomes --------------------------------------------------------------------------------

    def _side(self, player_cards: list[str], dealer: Mapping[str, Any]) -> list[dict[str, Any]]:
        if not self.side_bets:
            return []
        return settle_side_bets(
            list(player_cards), list(dealer["cards"]), dealer["up_card"], tuple(self.side_bets)
        )

    def outcome(self, result: dict[str, Any], extras: dict[str, Any] | None = None) -> dict[str, Any]:
        multipliers = self.check_extras(extras)
        rules = self.rules
        dealer = result["dealer"]
        peeked = bool(dealer.get("peeked_blackjack"))
        wins: list[dict[str, Any]] = []
        pushes: list[dict[str, Any]] = []

        def settle_main(bet: str, hand: Mapping[str, Any], even_money: bool = False) -> None:
            fate, amount = _fate(rules, hand, dealer, even_money=even_money, peeked=peeked)
            if hand["stake"]:
                if fate == "win":
                    entry: dict[str, Any] = {"bet": bet + "main", "payout": odds(amount)}
                    if even_money:
                        entry["even_money"] = True
                    if multipliers is not None:
                        entry["multiplier"] = multipliers.get(_hand_kind(hand), 1)
                    wins.append(entry)
                elif fate == "push":
                    pushes.append({"bet": bet + "main", "returned": odds(amount)})
            if hand["free_bet"] and fate == "win":
                # the free bet's win is matched to the original bet; no stake of its own comes back
                wins.append({"bet": bet + "free_bet", "payout": 1})

        if "common" in result:
            # each player's own hands are built from the common cards and their own decisions (docs/blackjack.md)
            out: dict[str, Any] = {"winning_bets": wins, "pushed_bets": pushes}
            if dealer["blackjack"]:
                wins.append({"bet": "insurance", "payout": odds(rules.insurance_pays)})
            for sb in self._side(result["common"]["first_cards"], dealer):
                (wins if "payout" in sb else pushes).append(sb)
            out["hand_fates"] = self.hand_fates(dealer, multipliers)
            out["dealer_blackjack"] = dealer["blackjack"]
            return out
        for s in result["seats"]:
            seat = s["seat"]
            if s["insurance"] == "insurance" and dealer["blackjack"]:
                wins.append({"bet": f"{seat}/insurance", "payout": odds(rules.insurance_pays)})
            for h in s["hands"]:
                settle_main(
                    f"{seat}/hand_{h['hand']}/",
                    h,
                    even_money=s["insurance"] == "even_money" and h["hand"] == 1 and h["blackjack"],
                )
            for sb in self._side(s["first_cards"], dealer):
                entry = {**sb, "bet": f"{seat}/{sb['bet']}"}
                (wins if "payout" in sb else pushes).append(entry)
        out = {"winning_bets": wins, "pushed_bets": pushes, "dealer_blackjack": dealer["blackjack"]}
        if multipliers is not None:
            out["lightning"] = dict(multipliers)
        return out

    def hand_fates(
        self, dealer: Mapping[str, Any], multipliers: Mapping[str, int] | None = None
    ) -> dict[str, dict[str, Any]]:
        """The fate of a player's hand against this dealer hand, by the hand's kind (common-hand games):
        "blackjack", "bust", "charlie" (when the rule applies), and each total "4" ... "21"; each
        {"result": "win"|"push"|"loss", "payout"|"returned": odds}. A doubled or split hand of a player
        settles by the same table (its extra stake under late_blackjack "original" is in "original_only")."""
        out: dict[str, dict[str, Any]] = {}
        peeked = bool(dealer.get("peeked_blackjack"))
        base = {
            "surrendered": False,
            "charlie": False,
            "bust": False,
            "blackjack": False,
            "stake": 1,
            "hand": 1,
            "free_bet": None,
        }
        kinds: list[tuple[str, dict[str, Any]]] = [
            ("blackjack", {**base, "blackjack": True, "total": 21}),
            ("bust", {**base, "bust": True, "total": 22}),
        ]
        if self.rules.charlie:
            kinds.append(("charlie", {**base, "charlie": True, "total": 21}))
        kinds += [(str(t), {**base, "total": t}) for t in range(4, 22)]
        for name, hand in kinds:
            fate, amount = _fate(self.rules, hand, dealer, peeked=peeked)
            entry: dict[str, Any] = {"result": fate}
            if fate == "win":
                entry["payout"] = odds(amount)
                if multipliers is not None:
                    entry["multiplier"] = multipliers.get(name, 1)
            elif fate == "push":
                entry["returned"] = odds(amount)
            out[name] = entry
        return out

    # --- computer draws (Lightning) ---------------------------------------------------------------

    def check_extras(self, extras: Any) -> dict[str, int] | None:  # type: ignore[override]
        if self.lightning_multipliers is None:
            super().check_extras(extras)
            return None
        if not isinstance(extras, Mapping) or not isinstance(extras.get("multipliers"), Mapping):
            raise ValueError(
                f"{self.game_id} needs extras {{'multipliers': {{hand kind: multiplier}}}} (the "
                "committed lightning draw)"
            )
        m = extras["multipliers"]
        for kind, mult in m.items():
            if kind not in LIGHTNING_KINDS:
                raise ValueError(
                    f"lightning multiplier for unknown hand kind {kind!r}; kinds: "
                    f"{', '.join(LIGHTNING_KINDS)}"
                )
            if isinstance(mult, bool) or not isinstance(mult, int) or mult < 2:
                raise ValueError(
                    f"lightning multiplier for {kind} must be a whole number of 2 or more, not {mult!r}"
                )
        return dict(m)

    def draw_extras(self, rng: random.Random, **settings: Any) -> dict[str, Any] | None:
        """Lightning: a multiplier for some of the hand kinds 17-21 and blackjack, drawn with the studio's
        secure generator and committed before betting closes. Settings: ``multiplier_values`` (default the
        game's), ``multiplier_weights`` (default equal), ``multiplier_kinds_min`` / ``multiplier_kinds_max``
        (how many kinds get one; default all six)."""
        if self.lightning_multipliers is None:
            return None
        values = tuple(settings.get("multiplier_values", self.lightning_multipliers))
        if not values or any(isinstance(v, bool) or not isinstance(v, int) or v < 2 for v in values):
            raise ValueError("multiplier_values must be whole numbers of 2 or more")
        weights = settings.get("multiplier_weights")
        if weights is not None and (
            len(weights) != len(values)
            or any(not isinstance(w, int) or w < 0 for w in weights)
            or not any(weights)
        ):
            raise ValueError(f"multiplier_weights needs {len(values)} whole non-negative weights")
        lo = settings.get("multiplier_kinds_min", len(LIGHTNING_KINDS))
        hi = settings.get("multiplier_kinds_max", len(LIGHTNING_KINDS))
        if not (isinstance(lo, int) and isinstance(hi, int) and 1 <= lo <= hi <= len(LIGHTNING_KINDS)):
            raise ValueError(
                f"multiplier_kinds_min/max must satisfy 1 <= min <= max <= {len(LIGHTNING_KINDS)}"
            )
        n = rng.randint(lo, hi)
        kinds = sorted(rng.sample(LIGHTNING_KINDS, n), key=LIGHTNING_KINDS.index)
        mults = rng.choices(values, weights=weights, k=n)
        return {"multipliers": dict(zip(kinds, mults))}

    def new_judge(self, **settings: Any):  # type: ignore[override]
        own = ("multiplier_values", "multiplier_weights", "multiplier_kinds_min", "multiplier_kinds_max")
        settings = {k: v for k, v in settings.items() if k not in own}
        decks = settings.get("decks")
        if decks is not None and decks != self.rules.decks:
            game = self.with_decks(decks)
            from recognition.cards.judge import CardJudge

            return CardJudge(game, **settings)
        return super().new_judge(**settings)

    # --- a player's own hands from the common cards (Infinite Blackjack) -----------------------------

    def player_hands(self, result: Mapping[str, Any], actions: Sequence[str]) -> list[dict[str, Any]]:
        """Common-hand games: one player's hands from the common cards and the player's own actions in order
        (e.g. ["split", "hit", "stand", "double"]), per docs/blackjack.md: every hand takes the common cards
        from the 3rd on, in order, as it needs them. ValueError if the actions do not fit the cards."""
        common = list(result["common"]["cards"])
        up = result["dealer"]["up_card"]
        rules = self.rules
        stream = iter(common[2:])
        acts = list(actions)

        def nxt() -> str:
            try:
                return next(stream)
            except StopIteration:
                raise ValueError("the player's actions need more common cards than were dealt") from None

        hands = [Hand(1, cards=common[:2])]
        k = 0
        while k < len(hands):
            h = hands[k]
            while True:
                if len(h.cards) < 2:
                    h.cards.append(nxt())
                    if h.split_aces and rules.split_aces_one_card:
                        h.done = True
                total, _ = value(h.cards)
                if h.done or total >= 21 or (rules.charlie and len(h.cards) >= rules.charlie):
                    break
                if not acts:
                    raise ValueError(f"no action for hand {h.number} ({' '.join(h.cards)}; dealer {up})")
                a = acts.pop(0)
                if a == "stand":
                    break
                if a == "hit":
                    h.cards.append(nxt())
                elif a in STAKE_ACTIONS or a == "free_double":
                    if len(h.cards) != 2:
                        raise ValueError(f"{a} needs a two-card hand")
                    if a == "free_double":
                        h.free_bet = "double"
                    else:
                        h.stake *= STAKE_ACTIONS[a]
                    h.doubled = a
                    h.cards.append(nxt())
                    break
                elif a in ("split", "free_split"):
                    if (
                        len(h.cards) != 2
                        or value([h.cards[0]])[0] != value([h.cards[1]])[0]
                        or len(hands) >= rules.max_hands
                    ):
                        raise ValueError(f"hand {h.number} ({' '.join(h.cards)}) cannot be split")
                    aces = h.cards[0][0] == "A"
                    new = Hand(
                        len(hands) + 1,
                        cards=[h.cards.pop()],
                        stake=0 if a == "free_split" else 1,
                        from_split=True,
                        split_aces=aces,
                        free_bet="split" if a == "free_split" else None,
                    )
                    h.from_split, h.split_aces = True, aces
                    hands.insert(k + 1, new)
                else:
                    raise ValueError(f"unknown action {a!r}")
            k += 1
        if acts:
            raise ValueError(f"{len(acts)} action(s) left over: {acts}")
        return [h.as_dict(True, rules.charlie) for h in hands]


# --- the games ------------------------------------------------------------------------------------------


class Blackjack000(BlackjackGame):
    """Seed 000's Blackjack (L189-287): 8 decks, no hole card, surrender, even money, the five side bets."""

    game_id = "blackjack"
    side_bets = ("perfect_pairs", "twenty_one_plus_three", "suit_em_up", "lucky_lucky", "bust_it")

    def default_rules(self) -> BlackjackRules:
        return BlackjackRules(
            decks=8,
            hole_card=False,
            peek_ranks=frozenset(),
            hit_soft_17=False,
            max_hands=4,
            double_after_split=True,
            surrender=True,
            insurance_upcards=frozenset("A"),
            even_money=True,
            even_money_upcards=frozenset("A"),
            late_blackjack="all",
        )


class LiveBlackjack(BlackjackGame):
    """Seed 004's Blackjack Tables (L91-230): 8 decks, hole card, peek on an ace, S17, one split, no DAS."""

    game_id = "live_blackjack"
    side_bets = ("perfect_pairs", "twenty_one_plus_three")

    def default_rules(self) -> BlackjackRules:
        return BlackjackRules(
            decks=8,
            hole_card=True,
            peek_ranks=frozenset("A"),
            max_hands=2,
            double_after_split=False,
            insurance_upcards=frozenset("A"),
            late_blackjack="all",
        )


class FreeBetBlackjack(BlackjackGame):
    """Seed 004's Free Bet Blackjack (L232-392)."""

    game_id = "free_bet_blackjack"
    side_bets = ("twenty_one_plus_three",)

    def default_rules(self) -> BlackjackRules:
        return BlackjackRules(
            decks=8,
            hole_card=True,
            peek_ranks=frozenset("A"),
            max_hands=2,
            double_after_split=False,
            insurance_upcards=frozenset("A"),
            free_bets=True,
            dealer_push_total=22,
            charlie=6,
            late_blackjack="all",
        )


class PowerBlackjack(BlackjackGame):
    """Seed 004's Power Blackjack (L394-538): no 9s and 10s; double, triple, quadruple down."""

    game_id = "power_blackjack"
    side_bets = ("twenty_one_plus_three",)

    def default_rules(self) -> BlackjackRules:
        return BlackjackRules(
            decks=8,
            ranks="A2345678JQK",
            hole_card=True,
            peek_ranks=frozenset("AJQK"),
            max_hands=2,
            double_after_split=True,
            double_actions=("double", "triple", "quadruple"),
            insurance_upcards=frozenset("A"),
            late_blackjack="all",
        )


class InfiniteBlackjack(BlackjackGame):
    """Infinite Blackjack (004:L99, under the Blackjack Tables rules): one common hand, unlimited players."""

    game_id = "infinite_blackjack"
    common_hand = True
    seats = ()
    side_bets = ("perfect_pairs", "twenty_one_plus_three")

    def default_rules(self) -> BlackjackRules:
        return LiveBlackjack().rules


class LightningBlackjack(BlackjackGame):
    """Lightning Blackjack (named only in 000:L5): the Blackjack Tables rules plus committed multipliers."""

    game_id = "lightning_blackjack"
    side_bets = ()
    lightning_multipliers = (2, 3, 4, 5, 8)

    def default_rules(self) -> BlackjackRules:
        return LiveBlackjack().rules


class Blackjack003(BlackjackGame):
    """Seed 003's Blackjack (L71-105): 1, 4, 5 or 6 decks, no hole card, insurance and even money on A/10."""

    game_id = "blackjack_003"
    allowed_decks = (1, 4, 5, 6)

    def default_rules(self) -> BlackjackRules:
        tens = frozenset("ATJQK")
        return BlackjackRules(
            decks=6,
            hole_card=False,
            peek_ranks=frozenset(),
            max_hands=4,
            double_after_split=True,
            insurance_upcards=tens,
            even_money=True,
            even_money_upcards=tens,
            late_blackjack="all",
        )


GAMES = {
    g.game_id: g
    for g in (
        Blackjack000(),
        LiveBlackjack(),
        FreeBetBlackjack(),
        PowerBlackjack(),
        InfiniteBlackjack(),
        LightningBlackjack(),
        Blackjack003(),
    )
}
