"""Benchmark: the house edge of the basic-strategy player, simulated through our own blackjack code.

Issue 8 ("the house edge of the basic-strategy player for seed 000's blackjack rules computed by simulation
... compared with published figures for the same rules").

Every round is dealt from a seeded shuffled shoe (``--decks`` from the rules, reshuffled at a cut card after
``--penetration`` of the shoe) and driven and settled by OUR code only:

* the deal script: the round is advanced with ``game.next_step(cards, decisions)`` exactly as the judge and
  the dealer console do (a position -> the next card of the shoe goes there; decision windows -> the
  basic-strategy player answers them from the window's own ``allowed`` actions and hand detail);
* the settlement: the finished round's cards and decisions go through ``game.evaluate({"cards", "decisions"})``
  (the `studio evaluate` path: a full re-deal with every decision re-checked); the net result of a round is
  taken from the outcome's fates of the ``seat_N/hand_K/main`` bets (win: ``stake x payout``; push:
  ``-stake x (1 - returned)``; not listed: ``-stake``). Insurance and even money are never taken (basic
  strategy) and no side bets are staked (their fates in the outcome are ignored).

Independent checks on every round (counted and printed, with the first failing example): a reference
settlement of the result written here from the seed's text (3:2 blackjack, 1:1 win, push, late dealer
blackjack per ``late_blackjack``, surrender half) must give the same net as the outcome; the dealer's hand
must follow the dealer's drawing rule.

The published figure for the rule set is built from the Wizard of Odds rule-variation table (see
``PUBLISHED``); for ``live_blackjack`` it is also seed 004's own RTP 99.28% (004:L228).

    python bench/blackjack_house_edge.py                      # both games, ~2 minutes
    python bench/blackjack_house_edge.py --game blackjack --rounds 200000 --rules hit_soft_17=true
    python bench/blackjack_house_edge.py --check-chart        # the charts against an infinite-deck EV calculation
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
import time
from dataclasses import dataclass, fields, replace
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.machine import MachineLoad
from recognition.blackjack.engine import VALUE, BlackjackRules, dealer_hits, value
from recognition.blackjack.games import GAMES, BlackjackGame
from recognition.cards.cards import parse_odds

UPS = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "A")

# --- the basic-strategy charts (data) ------------------------------------------------------------------------
#
# Codes: S stand, H hit, D double (else hit), Ds double (else stand), P split (if the split is not allowed:
# play the hand by its total), Rh / Rs / Rp surrender (else hit / stand / split). "Else" = when the window
# does not offer the action (3+ cards, after a split without DAS, surrender only as the first decision of an
# unsplit hand). Columns: the dealer's up card 2 3 4 5 6 7 8 9 T A.
#
# ENHC_8D_S17_DAS_ES (game `blackjack`, seed 000 as our code implements it: 8 decks, no hole card, all stakes
# lost to a late dealer blackjack, S17, double any two, DAS, split to 4 hands, no resplit of aces, surrender
# as the first decision at any up card with half returned even against a dealer blackjack = early surrender):
#   source: the Wizard of Odds 4-8 deck basic strategy for S17/DAS (wizardofodds.com/games/blackjack/strategy/
#   4-decks/) with its "no hole card" changes (wizardofodds.com/games/blackjack/appendix/... "European no hole
#   card": hit 11 v T and A, hit A,A v A, do not split 8,8 v T and A) and its early-surrender strategy for
#   multi-deck shoes (Wizard of Odds "Early surrender" table: surrender hard 5-7 and 12-17 v A, 14-16 v T,
#   16 v 9; 3,3 6,6 7,7 8,8 v A; 7,7 8,8 v T). Every cell is checked against an infinite-deck expected-value
#   calculation of the same rules (``--check-chart``; tests/blackjack_bench): only near-ties (< 0.5% of a bet,
#   where 8 decks and an infinite deck may order the options differently) may differ.
ENHC_8D_S17_DAS_ES = {
    "hard": {
        4: "H  H  H  H  H  H  H  H  H  Rh",
        5: "H  H  H  H  H  H  H  H  H  Rh",
        6: "H  H  H  H  H  H  H  H  H  Rh",
        7: "H  H  H  H  H  H  H  H  H  Rh",
        8: "H  H  H  H  H  H  H  H  H  H",
        9: "H  D  D  D  D  H  H  H  H  H",
        10: "D  D  D  D  D  D  D  D  H  H",
        11: "D  D  D  D  D  D  D  D  H  H",
        12: "H  H  S  S  S  H  H  H  H  Rh",
        13: "S  S  S  S  S  H  H  H  H  Rh",
        14: "S  S  S  S  S  H  H  H  Rh Rh",
        15: "S  S  S  S  S  H  H  H  Rh Rh",
        16: "S  S  S  S  S  H  H  Rh Rh Rh",
        17: "S  S  S  S  S  S  S  S  S  Rs",
        18: "S  S  S  S  S  S  S  S  S  S",
        19: "S  S  S  S  S  S  S  S  S  S",
        20: "S  S  S  S  S  S  S  S  S  S",
    },
    "soft": {
        12: "H  H  H  H  H  H  H  H  H  H",
        13: "H  H  H  D  D  H  H  H  H  H",
        14: "H  H  H  D  D  H  H  H  H  H",
        15: "H  H  D  D  D  H  H  H  H  H",
        16: "H  H  D  D  D  H  H  H  H  H",
        17: "H  D  D  D  D  H  H  H  H  H",
        18: "S  Ds Ds Ds Ds S  S  H  H  H",
        19: "S  S  S  S  S  S  S  S  S  S",
        20: "S  S  S  S  S  S  S  S  S  S",
    },
    "pairs": {
        "A": "P  P  P  P  P  P  P  P  P  H",
        "T": "S  S  S  S  S  S  S  S  S  S",
        "9": "P  P  P  P  P  S  P  P  S  S",
        "8": "P  P  P  P  P  P  P  P  Rh Rh",
        "7": "P  P  P  P  P  P  H  H  Rh Rh",
        "6": "P  P  P  P  P  H  H  H  H  Rh",
        "5": "D  D  D  D  D  D  D  D  H  H",
        "4": "H  H  H  P  P  H  H  H  H  H",
        "3": "P  P  P  P  P  P  H  H  H  Rh",
        "2": "P  P  P  P  P  P  H  H  H  H",
    },
}

# PEEK_A_8D_S17_NDAS (game `live_blackjack`, seed 004's Blackjack Tables: 8 decks, hole card, the dealer peeks
# on an ace only (004:L151: no peek on a 10, so a dealer blackjack under a 10 takes doubles and splits), S17,
# double any two, no DAS, one split, no surrender):
#   source: the Wizard of Odds 4-8 deck basic strategy for S17, no DAS (wizardofodds.com/games/blackjack/
#   strategy/4-decks/), with its no-hole-card changes applied against a 10 only (hit 11 v T, hit 8,8 v T).
PEEK_A_8D_S17_NDAS = {
    "hard": {
        **{t: "H  H  H  H  H  H  H  H  H  H" for t in range(4, 9)},
        9: "H  D  D  D  D  H  H  H  H  H",
        10: "D  D  D  D  D  D  D  D  H  H",
        11: "D  D  D  D  D  D  D  D  H  H",
        12: "H  H  S  S  S  H  H  H  H  H",
        **{t: "S  S  S  S  S  H  H  H  H  H" for t in range(13, 17)},
        **{t: "S  S  S  S  S  S  S  S  S  S" for t in range(17, 21)},
    },
    "soft": dict(ENHC_8D_S17_DAS_ES["soft"]),
    "pairs": {
        "A": "P  P  P  P  P  P  P  P  P  P",
        "T": "S  S  S  S  S  S  S  S  S  S",
        "9": "P  P  P  P  P  S  P  P  S  S",
        "8": "P  P  P  P  P  P  P  P  H  P",
        "7": "P  P  P  P  P  P  H  H  H  H",
        "6": "H  P  P  P  P  H  H  H  H  H",
        "5": "D  D  D  D  D  D  D  D  H  H",
        "4": "H  H  H  H  H  H  H  H  H  H",
        "3": "H  H  P  P  P  P  H  H  H  H",
        "2": "H  H  P  P  P  P  H  H  H  H",
    },
}

CHARTS = {"blackjack": ENHC_8D_S17_DAS_ES, "live_blackjack": PEEK_A_8D_S17_NDAS}

# --- the published figures -------------------------------------------------------------------------------------
#
# Wizard of Odds, blackjack rule variations (Michael Shackleford; reproduced e.g. at
# http://www.realonlinegambling.com/blackjack/odds/ and http://www.21blackjack.net/card/): effects on the
# player's return relative to 8 decks, S17, double any two, DAS, resplit to 4 hands, no resplit of aces, dealer
# peeks (Atlantic City rules), whose player return is -0.43%.
WOO_BASE = 0.43
WOO_SOURCE = (
    "Wizard of Odds rule-variation table (base: 8 decks, S17, DA2, DAS, RSP4, no RSA, peek = "
    "house edge 0.43%)"
)
WOO_EFFECTS = {  # player return, in % of the initial bet
    "dealer hits soft 17": -0.22,
    "player may not double after splitting": -0.14,
    "player may not resplit": -0.10,
    "player may resplit aces": +0.08,
    "no-peek: ten showing": -0.10,
    "no-peek: ace showing": -0.01,
    "early surrender against ace": +0.39,
    "early surrender against ten": +0.24,
}
#: seed 004 L228: "Blackjack - 99.28%" (the RTP of its Blackjack Tables, our `live_blackjack`)
SEED_004_RTP = 99.28


def published(game_id: str, rules: BlackjackRules) -> list[tuple[float, str]]:
    """[(house edge %, source)] published for this rule set; [] when no published table covers it."""
    out: list[tuple[float, str]] = []
    default = GAMES[game_id].rules
    if game_id == "live_blackjack" and rules == default:
        out.append((round(100 - SEED_004_RTP, 2), "seed 004 L228 (RTP 99.28%)"))
    supported = (
        rules.decks == 8
        and rules.ranks == "A23456789TJQK"
        and rules.max_hands in (2, 4)
        and rules.double_totals is None
        and rules.double_actions == ("double",)
        and not rules.free_bets
        and rules.charlie is None
        and rules.dealer_push_total is None
        and rules.split_aces_one_card
        and rules.blackjack_pays == Fraction(3, 2)
    )
    if not supported:
        return out
    parts = []
    if rules.hit_soft_17:
        parts.append("dealer hits soft 17")
    if not rules.double_after_split:
        parts.append("player may not double after splitting")
    if rules.max_hands == 2:
        parts.append("player may not resplit")
    if rules.resplit_aces:
        parts.append("player may resplit aces")
    late_all = rules.late_blackjack == "all"
    peek = set(rules.peek_ranks) if rules.hole_card else set()
    if late_all and not (set("TJQK") <= peek):
        parts.append("no-peek: ten showing")
    if late_all and "A" not in peek:
        parts.append("no-peek: ace showing")
    if rules.surrender:
        # our surrender is offered before the dealer's blackjack is known (no hole card) and keeps its half even
        # against a blackjack: early surrender, on the up cards that are not peeked
        if not rules.hole_card or "A" not in peek:
            parts.append("early surrender against ace")
        if not rules.hole_card or not (set("TJQK") <= peek):
            parts.append("early surrender against ten")
        if rules.hole_card and peek:
            return out  # late surrender on peeked up cards: not in the table
    edge = WOO_BASE - sum(WOO_EFFECTS[p] for p in parts)
    label = WOO_SOURCE + (": " + ", ".join(f"{p} {WOO_EFFECTS[p]:+.2f}" for p in parts) if parts else "")
    out.append((round(edge, 2), label + " (additive)"))
    return out


# --- the player ---------------------------------------------------------------------------------------------


def _rows(chart: dict[str, dict[Any, str]]) -> dict[str, dict[Any, tuple[str, ...]]]:
    return {kind: {k: tuple(row.split()) for k, row in rows.items()} for kind, rows in chart.items()}


class BasicStrategy:
    """Answers the deal's decision windows from a chart (see the codes above)."""

    def __init__(self, chart: dict[str, dict[Any, str]]) -> None:
        self.chart = _rows(chart)
        for kind, rows in self.chart.items():
            for k, row in rows.items():
                if len(row) != 10 or any(c not in ("S", "H", "D", "Ds", "P", "Rh", "Rs", "Rp") for c in row):
                    raise ValueError(f"chart row {kind} {k}: {row}")

    def code(self, cards: list[str], up: str) -> str:
        col = UPS.index("T" if up[0] in "TJQK" else up[0])
        total, soft = value(cards)
        if len(cards) == 2 and VALUE[cards[0][0]] == VALUE[cards[1][0]]:
            rank = "T" if cards[0][0] in "TJQK" else cards[0][0]
            return self.chart["pairs"][rank][col]
        return self.chart["soft" if soft else "hard"][total][col]

    def by_total(self, cards: list[str], up: str) -> str:
        col = UPS.index("T" if up[0] in "TJQK" else up[0])
        total, soft = value(cards)
        return self.chart["soft" if soft else "hard"][total][col]

    def decide(self, cards: list[str], up: str, allowed: tuple[str, ...]) -> str:
        code = self.code(cards, up)
        if code == "P" and "split" not in allowed:
            code = self.by_total(cards, up)
        return self.resolve(code, allowed, cards, up)

    def resolve(self, code: str, allowed: tuple[str, ...], cards: list[str], up: str) -> str:
        if code[0] == "R":
            if "surrender" in allowed:
                return "surrender"
            code = {"Rh": "H", "Rs": "S", "Rp": "P"}[code]
            if code == "P" and "split" not in allowed:
                code = self.by_total(cards, up)
                return self.resolve(code, allowed, cards, up)
        if code == "P":
            return "split"
        if code in ("D", "Ds"):
            if "double" in allowed:
                return "double"
            return "hit" if code == "D" else "stand"
        return "hit" if code == "H" else "stand"

    def answer(self, ask: Any) -> str:
        if ask.detail.get("kind") == "insurance":
            return "no_insurance"  # basic strategy never insures, never takes even money
        return self.decide(list(ask.detail["cards"]), ask.detail["dealer_up"], tuple(ask.allowed))


# --- the shoe and one round ---------------------------------------------------------------------------------


class Shoe:
    """`decks` standard decks shuffled by a seeded random.Random; reshuffled when a round starts past the cut."""

    def __init__(self, game: BlackjackGame, rng: random.Random, penetration: float) -> None:
        spec = game.shoe_spec()
        self.cards = [c for c, n in spec.copies.items() for _ in range(n)]
        self.rng = rng
        self.cut = int(len(self.cards) * penetration)
        self.shuffles = 0
        self.shuffle()

    def shuffle(self) -> None:
        self.rng.shuffle(self.cards)
        self.i = 0
        self.shuffles += 1

    def start_round(self) -> None:
        if self.i >= self.cut:
            self.shuffle()

    def draw(self) -> str:
        if self.i >= len(self.cards):  # the cut card is placed so that this never happens with 7 seats
            raise RuntimeError("the shoe ran out in a round")
        c = self.cards[self.i]
        self.i += 1
        return c


def play_round(
    game: BlackjackGame, shoe: Shoe, player: BasicStrategy, seats: list[str]
) -> tuple[list[str], list[dict[str, Any]]]:
    """Deal one round through the game's deal script; (cards, decisions) as `studio evaluate` takes them."""
    shoe.start_round()
    cards: list[str] = []
    decisions: list[dict[str, Any]] = [{"seat": s, "action": "sit"} for s in seats]
    while True:
        step = game.next_step(cards, decisions)
        if step is None:
            return cards, decisions
        if isinstance(step, str):
            cards.append(shoe.draw())
            continue
        for ask in step:
            decisions.append(
                {"seat": ask.seat, "hand": ask.hand, "window": ask.window, "action": player.answer(ask)}
            )


def net_from_outcome(result: dict[str, Any], outcome: dict[str, Any]) -> Fraction:
    """The players' net on their main bets (in initial bets), from OUR outcome's fates."""
    wins = {w["bet"]: w for w in outcome["winning_bets"]}
    pushes = {p["bet"]: p for p in outcome["pushed_bets"]}
    net = Fraction(0)
    for s in result["seats"]:
        for h in s["hands"]:
            bet = f"{s['seat']}/hand_{h['hand']}/main"
            stake = h["stake"]
            if bet in wins:
                net += stake * parse_odds(wins[bet]["payout"])
            elif bet in pushes:
                net -= stake * (1 - parse_odds(pushes[bet]["returned"]))
            else:
                net -= stake
        if s["insurance"] not in (None, "no_insurance"):
            raise AssertionError(f"{s['seat']} took {s['insurance']}: basic strategy never does")
    return net


def reference_net(rules: BlackjackRules, result: dict[str, Any]) -> Fraction:
    """An independent settlement of the result, from the seed texts (000:L201-231, 004:L151-171)."""
    d_cards = result["dealer"]["cards"]
    d_total, _ = value(d_cards)
    d_bj = len(d_cards) == 2 and d_total == 21
    up = d_cards[0][0]
    peeked = rules.hole_card and up in rules.peek_ranks and d_bj
    net = Fraction(0)
    for s in result["seats"]:
        hands = s["hands"]
        for h in hands:
            cards = h["cards"]
            total, _ = value(cards)
            stake = h["stake"]
            player_bj = len(hands) == 1 and len(cards) == 2 and total == 21
            if h["surrendered"]:
                net -= Fraction(stake, 2)
            elif player_bj:
                net += 0 if d_bj else Fraction(3, 2)
            elif total > 21:
                net -= stake
            elif d_bj:
                if peeked or rules.late_blackjack == "all":
                    net -= stake
                else:  # "original": only the original bet (hand 1's first unit) is lost
                    net -= 1 if h["hand"] == 1 else 0
            elif d_total > 21 or total > d_total:
                net += stake
            elif total < d_total:
                net -= stake
    return net


def dealer_ok(rules: BlackjackRules, dealer_cards: list[str]) -> bool:
    """The dealer drew by the rule: hit below 17 (and soft 17 under H17), not after a blackjack, stopped after."""
    if len(dealer_cards) == 2 and value(dealer_cards)[0] == 21:
        return True
    for k in range(2, len(dealer_cards)):
        if not dealer_hits(dealer_cards[:k], rules.hit_soft_17):
            return False
    return not dealer_hits(dealer_cards, rules.hit_soft_17)


@dataclass
class Stats:
    rounds: int = 0
    bets: int = 0  # initial bets (one per seat per round)
    net: float = 0.0
    sq: float = 0.0  # sum of the squared per-round nets (for the variance of the ratio)
    hands: int = 0
    splits: int = 0
    doubles: int = 0
    surrenders: int = 0
    mismatches: int = 0
    first_mismatch: str = ""
    dealer_errors: int = 0
    first_dealer_error: str = ""
    seconds: float = 0.0
    shuffles: int = 0

    def edge(self) -> tuple[float, float]:
        """(house edge, half-width of its 95% interval), as fractions of the initial bet. Rounds are the
        independent units (the seats of one round share the dealer's hand): the per-round net divided by the
        seats, whose variance gives the standard error of the mean."""
        seats = self.bets / self.rounds
        mean = self.net / self.rounds / seats
        var = (self.sq / self.rounds / seats**2 - mean**2) * self.rounds / max(1, self.rounds - 1)
        return -mean, 1.959964 * math.sqrt(max(var, 0.0) / self.rounds)


def simulate(
    game: BlackjackGame,
    rounds: int,
    seed: int,
    seats: int = 1,
    penetration: float = 2 / 3,
    chart: dict[str, dict[Any, str]] | None = None,
    progress: bool = False,
) -> Stats:
    """Play `rounds` rounds of `game` with the basic-strategy player on `seats` seats, settled by evaluate."""
    rng = random.Random(seed)
    shoe = Shoe(game, rng, penetration)
    player = BasicStrategy(chart or CHARTS[game.game_id])
    seat_ids = list(game.seats[:seats])
    st = Stats()
    t0 = time.perf_counter()
    next_report = t0 + 15
    for _ in range(rounds):
        cards, decisions = play_round(game, shoe, player, seat_ids)
        out = game.evaluate({"cards": cards, "decisions": decisions})
        result, outcome = out["result"], out["outcome"]
        net = net_from_outcome(result, outcome)
        ref = reference_net(game.rules, result)
        if ref != net:
            st.mismatches += 1
            if not st.first_mismatch:
                st.first_mismatch = (
                    f"cards {cards} decisions {[d['action'] for d in decisions]}: outcome net "
                    f"{net}, reference {ref}; outcome {outcome}"
                )
        if not dealer_ok(game.rules, result["dealer"]["cards"]):
            st.dealer_errors += 1
            if not st.first_dealer_error:
                st.first_dealer_error = f"cards {cards}: dealer {result['dealer']['cards']}"
        for s in result["seats"]:
            st.hands += len(s["hands"])
            st.splits += len(s["hands"]) - 1
            st.doubles += sum(1 for h in s["hands"] if h["doubled"])
            st.surrenders += sum(1 for h in s["hands"] if h["surrendered"])
        f = float(net)
        st.rounds += 1
        st.bets += len(seat_ids)
        st.net += f
        st.sq += f * f
        if progress and time.perf_counter() > next_report:
            e, hw = st.edge()
            print(f"  ... {st.rounds:,} rounds, edge {100 * e:.3f}% +- {100 * hw:.3f}%", flush=True)
            next_report += 15
    st.seconds = time.perf_counter() - t0
    st.shuffles = shoe.shuffles
    return st


def _worker(job: tuple[str, BlackjackRules, int, int, int, float]) -> Stats:
    game_id, rules, rounds, seed, seats, penetration = job
    return simulate(type(GAMES[game_id])(rules), rounds, seed, seats=seats, penetration=penetration)


def simulate_jobs(
    game_id: str,
    rules: BlackjackRules,
    rounds: int,
    seed: int,
    seats: int = 1,
    penetration: float = 2 / 3,
    jobs: int = 1,
) -> Stats:
    """`simulate` split over `jobs` processes, each with its own shoe seeded `seed * 1000 + job`; merged."""
    if jobs <= 1:
        return simulate(
            type(GAMES[game_id])(rules), rounds, seed, seats=seats, penetration=penetration, progress=True
        )
    import multiprocessing

    shares = [rounds // jobs + (1 if j < rounds % jobs else 0) for j in range(jobs)]
    t0 = time.perf_counter()
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        parts = pool.map(
            _worker, [(game_id, rules, n, seed * 1000 + j, seats, penetration) for j, n in enumerate(shares)]
        )
    total = Stats()
    for part in parts:
        for f in fields(Stats):
            v = getattr(part, f.name)
            if isinstance(v, str):
                if v and not getattr(total, f.name):
                    setattr(total, f.name, v)
            elif f.name != "seconds":
                setattr(total, f.name, getattr(total, f.name) + v)
    total.seconds = time.perf_counter() - t0
    return total


# --- an infinite-deck expected-value calculation (checks the charts) ------------------------------------------

_P = {v: (4 / 13 if v == 10 else 1 / 13) for v in range(1, 11)}


def _add(state: tuple[int, bool], v: int) -> tuple[int, bool]:
    return state[0] + v, state[1] or v == 1


def _total(state: tuple[int, bool]) -> int:
    hard, ace = state
    return hard + 10 if ace and hard + 10 <= 21 else hard


def _soft(state: tuple[int, bool]) -> bool:
    return state[1] and state[0] + 10 <= 21


@cache
def dealer_final(up: int, h17: bool) -> dict[Any, float]:
    """Infinite deck: the dealer's final hand from an up card (value 1-10): {17..21, "bust", "bj": p}."""
    out: dict[Any, float] = {}

    def draw(state: tuple[int, bool], p: float) -> None:
        t = _total(state)
        if t > 21:
            out["bust"] = out.get("bust", 0.0) + p
            return
        if t >= 18 or (t == 17 and not (h17 and _soft(state))):
            out[t] = out.get(t, 0.0) + p
            return
        for v, pv in _P.items():
            draw(_add(state, v), p * pv)

    for v, pv in _P.items():
        state = _add((up, up == 1), v)
        if _total(state) == 21:
            out["bj"] = out.get("bj", 0.0) + pv
        else:
            draw(state, pv)
    return out


class InfiniteDeckEV:
    """Expected values of the first decision on every two-card hand, for one rule set, infinite deck.

    Per up card the dealer's blackjack is handled by the rules: peeked (the round ended before any decision:
    decisions are made knowing there is none), late with `late_blackjack="all"` (a dealer outcome that takes
    every stake: the unconditioned dealer distribution) or `"original"` (a loss of one bet whatever was added,
    a surrender keeps its half). Splits are not re-split (a small under-estimate of the split's value)."""

    def __init__(self, rules: BlackjackRules) -> None:
        self.r = rules

    def mode(self, up: str) -> str:
        r = self.r
        if r.hole_card and up in r.peek_ranks:
            return "peek"
        return r.late_blackjack

    def dist(self, up: str) -> tuple[dict[Any, float], float]:
        """(the dealer distribution the decisions face, p(dealer blackjack))."""
        d = dealer_final(VALUE[up[0]], self.r.hit_soft_17)
        p_bj = d.get("bj", 0.0)
        if self.mode(up) == "all":
            return d, p_bj
        return {k: p / (1 - p_bj) for k, p in d.items() if k != "bj"}, p_bj

    def actions(self, cards: list[str], up: str) -> dict[str, float]:
        """EV (per initial bet) of each first action on a two-card unsplit hand, as seen when deciding."""
        r = self.r
        d, p_bj = self.dist(up)
        mode = self.mode(up)
        dist_key = tuple(sorted((str(k), p) for k, p in d.items()))

        @cache
        def stand(t: int) -> float:
            if t > 21:
                return -1.0
            ev = 0.0
            for k, p in d.items():
                if k == "bj" or (k != "bust" and k > t):
                    ev -= p
                elif k == "bust" or k < t:
                    ev += p
            return ev

        @cache
        def best_hit(state: tuple[int, bool]) -> float:
            t = _total(state)
            if t > 21:
                return -1.0
            if t == 21:
                return stand(21)
            h = sum(pv * best_hit(_add(state, v)) for v, pv in _P.items())
            return max(stand(t), h)

        def hit(state: tuple[int, bool]) -> float:
            return sum(pv * best_hit(_add(state, v)) for v, pv in _P.items())

        def double(state: tuple[int, bool]) -> float:
            return 2 * sum(pv * stand(_total(_add(state, v))) for v, pv in _P.items())

        def split_hand(v0: int) -> float:
            ev = 0.0
            for v, pv in _P.items():
                state = _add((v0, v0 == 1), v)
                if v0 == 1 and r.split_aces_one_card:
                    ev += pv * stand(_total(state))
                    continue
                opts = [best_hit(state)]
                if r.double_after_split:
                    opts.append(double(state))
                ev += pv * max(opts)
            return ev

        state = (0, False)
        for c in cards:
            state = _add(state, VALUE[c[0]])
        ev = {"stand": stand(_total(state)), "hit": hit(state), "double": double(state)}
        v0 = VALUE[cards[0][0]]
        if v0 == VALUE[cards[1][0]] and r.max_hands >= 2:
            ev["split"] = 2 * split_hand(v0)
        if mode == "original":  # decided before the blackjack is known: each action's loss to it
            ev = {a: p_bj * -1.0 + (1 - p_bj) * e for a, e in ev.items()}
        if r.surrender:
            ev["surrender"] = -0.5
        del dist_key
        return ev


def check_chart(
    game: BlackjackGame, chart: dict[str, dict[Any, str]] | None = None, tol: float = 0.005
) -> list[str]:
    """Cells of the chart whose first action is worse than the best action by more than `tol` of a bet,
    by the infinite-deck calculation (two-card hands of every hard total 5-20, soft 13-20 and pair)."""
    player = BasicStrategy(chart or CHARTS[game.game_id])
    calc = InfiniteDeckEV(game.rules)
    allowed = ["stand", "hit", "double"] + (["surrender"] if game.rules.surrender else [])
    bad = []
    hands: list[list[str]] = []
    for a in range(2, 11):
        for b in range(a + 1, 11):
            hands.append([str(a) if a < 10 else "T", str(b) if b < 10 else "T"])
    for b in range(2, 10):
        hands.append(["A", str(b)])
    for p in "A23456789T":
        hands.append([p, p])
    seen = set()
    for cards in hands:
        total, soft = value(cards)
        pair = cards[0] == cards[1]
        key = ("pair", cards[0]) if pair else ("soft" if soft else "hard", total)
        if key in seen:
            continue
        seen.add(key)
        for up in UPS:
            ev = calc.actions(cards, up)
            offer = tuple(a for a in allowed + (["split"] if pair else []) if a in ev)
            choice = player.decide([c + "S" for c in cards], up + "S", offer)
            best = max(ev[a] for a in offer)
            if best - ev[choice] > tol:
                top = max(offer, key=lambda a: ev[a])
                bad.append(
                    f"{key[0]} {key[1]} v {up}: chart {choice} {ev[choice]:+.4f}, best {top} {best:+.4f}"
                )
    return bad


def infinite_deck_edge(game: BlackjackGame, chart: dict[str, dict[Any, str]] | None = None) -> float:
    """The house edge (fraction of the initial bet) of the chart's first decisions (later hit/stand decisions
    optimal) with an infinite deck, splits not re-split: a cross-check of the simulation, not a published
    figure (an infinite deck is slightly worse for the player than 8 decks; no re-split too)."""
    player = BasicStrategy(chart or CHARTS[game.game_id])
    calc = InfiniteDeckEV(game.rules)
    ranks = {1: "A", 10: "T", **{v: str(v) for v in range(2, 10)}}
    allowed = ["stand", "hit", "double"] + (["surrender"] if game.rules.surrender else [])
    total = 0.0
    for u, pu in _P.items():
        up = ranks[u]
        mode = calc.mode(up)
        _, p_bj = calc.dist(up)
        for a, pa in _P.items():
            for b, pb in _P.items():
                cards = [ranks[a], ranks[b]]
                if value(cards)[0] == 21:
                    ev = 1.5 * (1 - p_bj)
                else:
                    ev_a = calc.actions(cards, up)
                    offer = tuple(x for x in allowed + (["split"] if a == b else []) if x in ev_a)
                    ev = ev_a[player.decide([c + "S" for c in cards], up + "S", offer)]
                    if mode == "peek":
                        ev = p_bj * -1.0 + (1 - p_bj) * ev
                total += pu * pa * pb * ev
    return -total


# --- the command line ---------------------------------------------------------------------------------------


def parse_rules(base: BlackjackRules, items: list[str]) -> BlackjackRules:
    kinds = {f.name: f.type for f in fields(BlackjackRules)}
    changes: dict[str, Any] = {}
    for item in items:
        key, _, raw = item.partition("=")
        key = key.strip()
        if key not in kinds:
            raise SystemExit(f"unknown rule {key!r}; rules: {', '.join(kinds)}")
        old = getattr(base, key)
        raw = raw.strip()
        if isinstance(old, bool):
            if raw.lower() not in ("true", "false", "1", "0", "yes", "no"):
                raise SystemExit(f"{key} is true or false, not {raw!r}")
            changes[key] = raw.lower() in ("true", "1", "yes")
        elif isinstance(old, int):
            changes[key] = int(raw)
        elif isinstance(old, Fraction):
            changes[key] = Fraction(raw)
        elif isinstance(old, frozenset):
            changes[key] = frozenset(raw)
        else:
            changes[key] = raw
    return replace(base, **changes)


def report(game_id: str, rules: BlackjackRules, st: Stats, seats: int, jobs: int = 1) -> None:
    edge, hw = st.edge()
    lo, hi = edge - hw, edge + hw
    print(f"\n== {game_id} ==")
    changed = {
        f.name: getattr(rules, f.name)
        for f in fields(BlackjackRules)
        if getattr(rules, f.name) != getattr(GAMES[game_id].rules, f.name)
    }
    print(f"rules: {'the game default' if not changed else changed}")
    print(
        f"rounds {st.rounds:,} x {seats} seat(s) = {st.bets:,} initial bets, {st.hands:,} hands "
        f"({st.splits:,} from splits, {st.doubles:,} doubled, {st.surrenders:,} surrendered), "
        f"{st.shuffles:,} shoes"
    )
    print(
        f"house edge {100 * edge:+.3f}%  95% interval [{100 * lo:+.3f}%, {100 * hi:+.3f}%]  "
        f"(RTP {100 - 100 * edge:.3f}%)"
    )
    print(
        f"speed {st.rounds / st.seconds:,.0f} rounds/s with {jobs} process(es) ({st.seconds:.1f} s wall; each "
        f"round dealt card by card through next_step and settled by evaluate)"
    )
    print(
        f"checks: outcome vs reference settlement mismatches {st.mismatches}, dealer-rule errors "
        f"{st.dealer_errors}"
    )
    if st.first_mismatch:
        print(f"  first mismatch: {st.first_mismatch}")
    if st.first_dealer_error:
        print(f"  first dealer error: {st.first_dealer_error}")
    inf = infinite_deck_edge(type(GAMES[game_id])(rules))
    print(
        f"cross-check (this script's infinite-deck calculation of the same chart, no re-splits; not published): "
        f"{100 * inf:+.3f}% ({'inside' if lo <= inf <= hi else 'OUTSIDE'} the interval)"
    )
    pubs = published(game_id, rules)
    if not pubs:
        print("published figure: none for this rule set")
    for fig, source in pubs:
        inside = lo <= fig / 100 <= hi
        print(
            f"published {fig:+.2f}% ({source}): {'INSIDE' if inside else 'OUTSIDE'} the interval "
            f"(simulated - published = {100 * edge - fig:+.3f}%)"
        )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--game",
        action="append",
        choices=sorted(CHARTS),
        help="blackjack (seed 000) and/or live_blackjack (seed 004); default both",
    )
    ap.add_argument(
        "--rounds",
        type=int,
        default=None,
        help="rounds per game (default: 200,000 for blackjack, 100,000 for live_blackjack)",
    )
    ap.add_argument("--seats", type=int, default=1, help="seats playing each round (1-7; default 1)")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument(
        "--jobs",
        type=int,
        default=min(2, os.cpu_count() or 1),
        help="processes (default: 2 or the cores, if fewer); each plays its own seeded shoe",
    )
    ap.add_argument(
        "--penetration",
        type=float,
        default=2 / 3,
        help="share of the shoe dealt before the cut card (default 2/3: 000:L199's 2/3 cut)",
    )
    ap.add_argument(
        "--rules",
        nargs="*",
        default=[],
        metavar="K=V",
        help="BlackjackRules changes, e.g. hit_soft_17=true late_blackjack=original surrender=false",
    )
    ap.add_argument(
        "--check-chart",
        action="store_true",
        help="only compare the chart(s) with the infinite-deck EV calculation",
    )
    args = ap.parse_args(argv)
    games = args.game or ["blackjack", "live_blackjack"]
    if not 1 <= args.seats <= 7:
        ap.error("--seats is 1 to 7")
    for game_id in games:
        base = GAMES[game_id]
        rules = parse_rules(base.rules, args.rules)
        game = type(base)(rules)
        if args.check_chart:
            bad = check_chart(game)
            print(f"{game_id}: {len(bad)} chart cells worse than the infinite-deck best by > 0.5% of a bet")
            for line in bad:
                print("  " + line)
            continue
        rounds = args.rounds or (200_000 if game_id == "blackjack" else 100_000)
        load = MachineLoad()
        children0 = os.times().children_user + os.times().children_system
        st = simulate_jobs(
            game_id, rules, rounds, args.seed, seats=args.seats, penetration=args.penetration, jobs=args.jobs
        )
        load.stop()
        load.own += os.times().children_user + os.times().children_system - children0  # the worker processes
        report(game_id, rules, st, args.seats, args.jobs)
        print(load.summary())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
