"""Plain implementations of the seven blackjack games' rules for `studio evaluate`, and rounds to feed them
(issue 25, target 4): seed 000's Blackjack, seed 004's Blackjack Tables, Free Bet, Power and Infinite
Blackjack, Lightning Blackjack and seed 003's Blackjack.

In the style of plain_rules.py: one `json.loads` a line, the rules as plain Python (the deal, the players'
options, the dealer's drawing rule, the settlement and the side bets, read from the seeds and docs/blackjack.md
for the choices they leave open), one `json.dumps` a line; nothing of `recognition`. The same deal procedure
deals the benchmark's rounds from a shoe, the players deciding as players do (mostly by the book, now and then
not), and replays a recorded round from its cards and decisions. `GAMES` maps a game id to its (round
generator, plain line function); plain_rules.py adds them to its own.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from bench.plain_cards import Generator, Plain, _line

VALUE = {
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
SEATS = [f"seat_{i}" for i in range(1, 8)]
STAKE = {"double": 2, "triple": 3, "quadruple": 4}
LIGHTNING_KINDS = ("17", "18", "19", "20", "21", "blackjack")

#: seed 004's Blackjack Tables: 8 decks, a hole card the dealer peeks at on an ace, one split, no double after
_LIVE: dict[str, Any] = {
    "decks": 8,
    "ranks": "A23456789TJQK",
    "hole_card": True,
    "peek": "A",
    "max_hands": 2,
    "das": False,
    "doubles": ("double",),
    "surrender": False,
    "insurance": "A",
    "even_money": "",
    "free_bets": False,
    "push_22": False,
    "charlie": None,
    "side_bets": ("perfect_pairs", "twenty_one_plus_three"),
    "common": False,
    "lightning": False,
}
RULES: dict[str, dict[str, Any]] = {
    # seed 000 L189-287: no hole card, split to four hands, double after split, surrender, even money, five
    # side bets
    "blackjack": {
        **_LIVE,
        "hole_card": False,
        "peek": "",
        "max_hands": 4,
        "das": True,
        "surrender": True,
        "even_money": "A",
        "side_bets": ("perfect_pairs", "twenty_one_plus_three", "suit_em_up", "lucky_lucky", "bust_it"),
    },
    "live_blackjack": _LIVE,
    # seed 004 L232-392: free doubles on hard 9-11, free splits but tens, a dealer 22 pushes, Six Card Charlie
    "free_bet_blackjack": {
        **_LIVE,
        "free_bets": True,
        "push_22": True,
        "charlie": 6,
        "side_bets": ("twenty_one_plus_three",),
    },
    # seed 004 L394-538: no 9s and tens, the dealer peeks on an ace and on a picture, double/triple/quadruple
    "power_blackjack": {
        **_LIVE,
        "ranks": "A2345678JQK",
        "peek": "AJQK",
        "das": True,
        "doubles": ("double", "triple", "quadruple"),
        "side_bets": ("twenty_one_plus_three",),
    },
    "infinite_blackjack": {**_LIVE, "common": True},
    "lightning_blackjack": {**_LIVE, "side_bets": (), "lightning": True},
    # seed 003 L71-105: 6 decks, no hole card, insurance and even money on an ace or a ten
    "blackjack_003": {
        **_LIVE,
        "decks": 6,
        "hole_card": False,
        "peek": "",
        "max_hands": 4,
        "das": True,
        "insurance": "ATJQK",
        "even_money": "ATJQK",
        "side_bets": (),
    },
}


def _odds(x: Fraction | int) -> int | str:
    x = Fraction(x)
    return int(x) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def total_of(cards: list[str]) -> tuple[int, bool]:
    """(total, soft): an ace counts 11 when that does not bust the hand."""
    total = sum(VALUE[c[0]] for c in cards)
    if any(c[0] == "A" for c in cards) and total + 10 <= 21:
        return total + 10, True
    return total, False


def is_blackjack(cards: list[str]) -> bool:
    return len(cards) == 2 and total_of(cards)[0] == 21


# --- the deal -------------------------------------------------------------------------------------------------

Card = Callable[[], str]
#: decide(window, seat, hand number, allowed actions, the hand's cards, the dealer's up card) -> the action
Decide = Callable[[str, str, int, tuple[str, ...], list[str], str], str]


def _new_hand(number: int, cards: list[str], stake: int = 1) -> dict[str, Any]:
    return {
        "hand": number,
        "cards": cards,
        "stake": stake,
        "doubled": None,
        "free_bet": None,
        "split": False,
        "split_aces": False,
        "surrendered": False,
        "done": False,
        "decisions": 0,
    }


def _options(rules: dict, hands: list[dict], h: dict) -> tuple[str, ...]:
    total, soft = total_of(h["cards"])
    opts = ["stand", "hit"]
    two = len(h["cards"]) == 2
    if two and (not h["split"] or rules["das"]):
        if rules["free_bets"] and not soft and total in (9, 10, 11) and not h["split"]:
            opts.append("free_double")
        else:
            opts.extend(rules["doubles"])
    pair = two and VALUE[h["cards"][0][0]] == VALUE[h["cards"][1][0]]
    if pair and len(hands) < rules["max_hands"] and not h["split_aces"]:
        if rules["free_bets"] and h["cards"][0][0] not in "TJQK" and not h["split"]:
            opts.append("free_split")
        else:
            opts.append("split")
    if rules["surrender"] and two and not h["split"] and len(hands) == 1 and h["decisions"] == 0:
        opts.append("surrender")
    return tuple(opts)


def _play_hand(
    rules: dict, seat: str, hands: list[dict], h: dict, card: Card, decide: Decide, up: str
) -> None:
    while True:
        total = total_of(h["cards"])[0]
        if h["done"] or total >= 21 or (rules["charlie"] and len(h["cards"]) >= rules["charlie"]):
            return
        window = f"{seat}/hand_{h['hand']}/{h['decisions'] + 1}"
        action = decide(window, seat, h["hand"], _options(rules, hands, h), h["cards"], up)
        h["decisions"] += 1
        if action == "stand":
            h["done"] = True
        elif action == "hit":
            h["cards"].append(card())
        elif action in ("double", "triple", "quadruple", "free_double"):
            if action == "free_double":
                h["free_bet"] = "double"
            else:
                h["stake"] *= STAKE[action]
            h["doubled"] = action
            h["cards"].append(card())
            h["done"] = True
        elif action == "surrender":
            h["surrendered"] = True
            h["done"] = True
        else:  # split, free_split: the second card to both hands at once; split aces take one card each
            free = action == "free_split"
            aces = h["cards"][0][0] == "A"
            new = _new_hand(len(hands) + 1, [h["cards"].pop()], 0 if free else 1)
            new["split"] = h["split"] = True
            new["split_aces"] = h["split_aces"] = aces
            new["free_bet"] = "split" if free else None
            hands.insert(hands.index(h) + 1, new)
            h["cards"].append(card())
            new["cards"].append(card())
            if aces:
                h["done"] = new["done"] = True


def _dealer_plays(rules: dict, dealer: list[str], card: Card) -> None:
    """The dealer's second card (no hole card), then draw to 16, stand on every 17."""
    if not rules["hole_card"]:
        dealer.append(card())
    if is_blackjack(dealer):
        return
    while total_of(dealer)[0] < 17:
        dealer.append(card())


def deal(rules: dict, seats: list[str], card: Card, decide: Decide) -> dict[str, Any]:
    """The whole deal: the seats' hands (or the common hand), the dealer's, and whether the dealer peeked at a
    blackjack."""
    if rules["common"]:
        common = [card()]
        dealer = [card()]
        common.append(card())
        dealer.append(card())
        peeked = dealer[0][0] in rules["peek"] and is_blackjack(dealer)
        if not peeked:
            if not is_blackjack(common):
                while len(common) < 30:
                    n = len(common) + 1
                    if decide(f"common/{n}", "common", 1, ("hit", "stand"), common, dealer[0]) != "hit":
                        break
                    common.append(card())
            _dealer_plays(rules, dealer, card)
        return {"common": common, "dealer": dealer, "peeked": peeked}
    table: list[dict[str, Any]] = [
        {"seat": s, "insurance": None, "hands": [_new_hand(1, [card()])]} for s in seats
    ]
    dealer = [card()]
    for s in table:
        s["hands"][0]["cards"].append(card())
    if rules["hole_card"]:
        dealer.append(card())
    up = dealer[0]
    if up[0] in rules["insurance"] or up[0] in rules["even_money"]:
        for s in table:
            if is_blackjack(s["hands"][0]["cards"]) and up[0] in rules["even_money"]:
                allowed: tuple[str, ...] = ("even_money", "no_insurance")
            elif up[0] in rules["insurance"]:
                allowed = ("insurance", "no_insurance")
            else:
                continue
            s["insurance"] = decide(
                f"{s['seat']}/insurance", s["seat"], 1, allowed, s["hands"][0]["cards"], up
            )
    peeked = rules["hole_card"] and up[0] in rules["peek"] and is_blackjack(dealer)
    if not peeked:
        for s in table:
            k = 0
            while k < len(s["hands"]):
                _play_hand(rules, s["seat"], s["hands"], s["hands"][k], card, decide, up)
                k += 1
        _dealer_plays(rules, dealer, card)
    return {"seats": table, "dealer": dealer, "peeked": peeked}


# --- settlement -----------------------------------------------------------------------------------------------


def _fate(rules: dict, hand: dict, dealer: dict, even_money: bool = False) -> tuple[str, Fraction]:
    """("win", net odds) / ("push", part returned) / ("loss", 0) of a hand's main stake."""
    if hand["surrendered"]:
        return "push", Fraction(1, 2)
    if even_money:
        return "win", Fraction(1)
    if hand["blackjack"]:
        return ("push", Fraction(1)) if dealer["blackjack"] else ("win", Fraction(3, 2))
    if hand["bust"]:
        return "loss", Fraction(0)
    if hand["charlie"]:
        return "win", Fraction(1)
    if dealer["blackjack"]:
        return "loss", Fraction(0)
    if dealer["total"] > 21:
        return ("push", Fraction(1)) if rules["push_22"] and dealer["total"] == 22 else ("win", Fraction(1))
    if hand["total"] > dealer["total"]:
        return "win", Fraction(1)
    if hand["total"] == dealer["total"]:
        return "push", Fraction(1)
    return "loss", Fraction(0)


_SEQ = {r: i + 2 for i, r in enumerate("23456789TJQKA")}


def side_bets(bets: tuple[str, ...], first: list[str], dealer: list[str]) -> list[dict]:
    """Seed 000 L233-281 on the first two cards and the dealer's up card (Bust It: the dealer's final hand)."""
    c1, c2 = first
    up = dealer[0]
    out: list[dict] = []
    three = [c1, c2, up]
    suited3 = len({c[1] for c in three}) == 1
    for bet in bets:
        hand = None
        if bet == "perfect_pairs":
            if c1[0] == c2[0]:
                if c1[1] == c2[1]:
                    hand, pays = "perfect_pair", 25
                elif (c1[1] in "HD") == (c2[1] in "HD"):
                    hand, pays = "coloured_pair", 12
                else:
                    hand, pays = "mixed_pair", 6
        elif bet == "twenty_one_plus_three":
            values = sorted(_SEQ[c[0]] for c in three)
            sequence = len(set(values)) == 3 and (values[2] - values[0] == 2 or values == [2, 3, 14])
            if len({c[0] for c in three}) == 1:
                hand, pays = ("suited_trips", 100) if suited3 else ("three_of_a_kind", 30)
            elif sequence:
                hand, pays = ("straight_flush", 40) if suited3 else ("straight", 10)
            elif suited3:
                hand, pays = "flush", 5
        elif bet == "suit_em_up":
            if c1[1] == c2[1]:
                v = {VALUE[c1[0]], VALUE[c2[0]]}
                if c1[0] == c2[0] == "A":
                    hand, pays = "suited_aces", 60
                elif v == {1, 10}:
                    hand, pays = "suited_blackjack", 10
                elif c1[0] == c2[0]:
                    hand, pays = "suited_pair", 5
                elif VALUE[c1[0]] + VALUE[c2[0]] == 11 and "A" not in (c1[0], c2[0]):
                    hand, pays = "suited_eleven", 3
                else:
                    hand, pays = "suited", 2
        elif bet == "lucky_lucky":
            ranks = sorted(c[0] for c in three)
            total = total_of(three)[0]
            if ranks == ["7", "7", "7"]:
                hand, pays = ("suited_777", 200) if suited3 else ("any_777", 50)
            elif ranks == ["6", "7", "8"]:
                hand, pays = ("suited_678", 100) if suited3 else ("any_678", 30)
            elif total == 21:
                hand, pays = ("suited_21", 15) if suited3 else ("any_21", 3)
            elif total in (19, 20):
                hand, pays = f"any_{total}", 2
        else:  # bust_it: returned on a player blackjack, else paid by the busted dealer's number of cards
            if total_of([c1, c2])[0] == 21:
                out.append({"bet": bet, "returned": 1, "hand": "player_blackjack"})
                continue
            if sum(VALUE[c[0]] for c in dealer) > 21:
                n = len(dealer)
                hand = "bust_8_or_more_cards" if n >= 8 else f"bust_{n}_cards"
                pays = {8: 250, 7: 100, 6: 50, 5: 9, 4: 2, 3: 1}[min(n, 8)]
        if hand is not None:
            out.append({"bet": bet, "payout": pays, "hand": hand})
    return out


def _hand_dict(rules: dict, h: dict) -> dict[str, Any]:
    total, soft = total_of(h["cards"])
    return {
        "hand": h["hand"],
        "cards": h["cards"],
        "total": total,
        "soft": soft,
        "blackjack": not h["split"] and is_blackjack(h["cards"]),
        "bust": total > 21,
        "charlie": bool(rules["charlie"] and len(h["cards"]) >= rules["charlie"] and total <= 21),
        "stake": h["stake"],
        "doubled": h["doubled"],
        "free_bet": h["free_bet"],
        "split": h["split"],
        "split_aces": h["split_aces"],
        "surrendered": h["surrendered"],
    }


def _evaluator(game_id: str) -> Plain:
    rules = RULES[game_id]

    def evaluate(line: str) -> str:
        item = json.loads(line)
        cards = item["cards"]
        given = item["decisions"]
        sat = {d["seat"] for d in given if d["action"] == "sit"}
        seats = [s for s in SEATS if s in sat]
        decisions: list[dict[str, Any]] = [
            {"window": None, "seat": s, "hand": 1, "action": "sit", "cards": [], "by": "backend"}
            for s in seats
        ]
        plays = iter(d for d in given if d["action"] != "sit")
        shoe = iter(cards)

        def decide(window: str, seat: str, hand: int, allowed: tuple, held: list, up: str) -> str:
            action = next(plays)["action"]
            decisions.append(
                {"window": window, "seat": seat, "hand": hand, "action": action, "cards": [], "by": "backend"}
            )
            return action

        played = deal(rules, seats, shoe.__next__, decide)
        d_cards = played["dealer"]
        d_total, d_soft = total_of(d_cards)
        dealer = {
            "cards": d_cards,
            "up_card": d_cards[0],
            "total": d_total,
            "soft": d_soft,
            "blackjack": is_blackjack(d_cards),
            "bust": d_total > 21,
            "peeked_blackjack": played["peeked"],
        }
        wins: list[dict] = []
        pushes: list[dict] = []
        result: dict[str, Any] = {}
        if rules["common"]:
            common = played["common"]
            total, soft = total_of(common)
            result["common"] = {
                "cards": common,
                "total": total,
                "soft": soft,
                "blackjack": is_blackjack(common),
                "bust": total > 21,
                "first_cards": common[:2],
            }
            if dealer["blackjack"]:
                wins.append({"bet": "insurance", "payout": 2})
            for sb in side_bets(rules["side_bets"], common[:2], d_cards):
                (wins if "payout" in sb else pushes).append(sb)
            fates = {}
            kinds = [("blackjack", 21, True, False), ("bust", 22, False, True)]
            kinds += [(str(t), t, False, False) for t in range(4, 22)]
            for kind, t, bj, bust in kinds:
                hand = {"surrendered": False, "charlie": False, "bust": bust, "blackjack": bj, "total": t}
                fate, amount = _fate(rules, hand, dealer)
                if fate == "win":
                    fates[kind] = {"result": fate, "payout": _odds(amount)}
                elif fate == "push":
                    fates[kind] = {"result": fate, "returned": _odds(amount)}
                else:
                    fates[kind] = {"result": fate}
            outcome = {"winning_bets": wins, "pushed_bets": pushes, "hand_fates": fates}
            outcome["dealer_blackjack"] = dealer["blackjack"]
        else:
            lightning = item["extras"]["multipliers"] if rules["lightning"] else None
            n = len(seats)
            result["seats"] = []
            for i, s in enumerate(played["seats"]):
                hands = [_hand_dict(rules, h) for h in s["hands"]]
                first = [cards[i], cards[n + 1 + i]]
                result["seats"].append(
                    {"seat": s["seat"], "first_cards": first, "insurance": s["insurance"], "hands": hands}
                )
                seat = s["seat"]
                if s["insurance"] == "insurance" and dealer["blackjack"]:
                    wins.append({"bet": f"{seat}/insurance", "payout": 2})
                for h in hands:
                    bet = f"{seat}/hand_{h['hand']}/"
                    even_money = s["insurance"] == "even_money" and h["hand"] == 1 and h["blackjack"]
                    fate, amount = _fate(rules, h, dealer, even_money)
                    if h["stake"] and fate == "win":
                        entry: dict[str, Any] = {"bet": bet + "main", "payout": _odds(amount)}
                        if even_money:
                            entry["even_money"] = True
                        if lightning is not None:
                            entry["multiplier"] = lightning.get(
                                "blackjack" if h["blackjack"] else str(h["total"]), 1
                            )
                        wins.append(entry)
                    elif h["stake"] and fate == "push":
                        pushes.append({"bet": bet + "main", "returned": _odds(amount)})
                    if h["free_bet"] and fate == "win":
                        wins.append({"bet": bet + "free_bet", "payout": 1})
                for sb in side_bets(rules["side_bets"], first, d_cards):
                    (wins if "payout" in sb else pushes).append({**sb, "bet": f"{seat}/{sb['bet']}"})
            outcome = {"winning_bets": wins, "pushed_bets": pushes, "dealer_blackjack": dealer["blackjack"]}
            if lightning is not None:
                outcome["lightning"] = lightning
        result["dealer"] = dealer
        result["cards"] = cards
        result["decisions"] = decisions
        return _line({"id": item["id"], "valid": True, "result": result, "outcome": outcome})

    return evaluate


# --- rounds as a table plays them -----------------------------------------------------------------------------


def _player(rng: random.Random) -> Decide:
    """A player who mostly plays by the book: insurance now and then, even money half the time, surrender 15
    and 16 against a ten or an ace, split aces and eights (other pairs now and then), double 9-11 (any of the
    extra stakes offered), hit to 17 (soft 18), and one decision in twenty at random."""

    def decide(window: str, seat: str, hand: int, allowed: tuple, held: list, up: str) -> str:
        if "no_insurance" in allowed:
            if "even_money" in allowed:
                return "even_money" if rng.random() < 0.5 else "no_insurance"
            return "insurance" if rng.random() < 0.15 else "no_insurance"
        if rng.random() < 0.05:
            return rng.choice(allowed)
        total, soft = total_of(held)
        dealer = 11 if up[0] == "A" else VALUE[up[0]]
        if "surrender" in allowed and total in (15, 16) and dealer >= 10 and rng.random() < 0.7:
            return "surrender"
        splits = [a for a in allowed if a in ("split", "free_split")]
        if splits and (held[0][0] in "A8" or rng.random() < 0.3):
            return splits[0]
        extra = [a for a in allowed if a in ("double", "triple", "quadruple", "free_double")]
        if extra and not soft and total in (9, 10, 11):
            return rng.choice(extra)
        return "hit" if total < (18 if soft else 17) else "stand"

    return decide


def _rounds(game_id: str) -> Generator:
    """Rounds from the game's shoe (shuffled anew when fewer than a fifth of its cards are left): one to seven
    seats sit (the common hand draws while a player asks for a card), Lightning's six multipliers drawn."""
    rules = RULES[game_id]
    deck = [r + s for r in rules["ranks"] for s in "SHDC"]

    def generate(rng: random.Random, rounds: int) -> list[str]:
        shoe: list[str] = []
        decide = _player(rng)
        out = []
        for i in range(rounds):
            if len(shoe) < len(deck) * rules["decks"] // 5:
                shoe = deck * rules["decks"]
                rng.shuffle(shoe)
            seats = [] if rules["common"] else [s for s in SEATS if rng.random() < 0.5] or [rng.choice(SEATS)]
            dealt: list[str] = []
            decisions: list[dict] = [{"seat": s, "action": "sit"} for s in seats]

            def card(dealt: list[str] = dealt, shoe: list[str] = shoe) -> str:
                dealt.append(shoe.pop())
                return dealt[-1]

            def record(
                window: str,
                seat: str,
                hand: int,
                allowed: tuple,
                held: list,
                up: str,
                decisions: list = decisions,
            ) -> str:
                if seat == "common":  # the stream goes on while some player wants a card
                    total = total_of(held)[0]
                    action = "hit" if total < 17 or (len(held) < 6 and rng.random() < 0.4) else "stand"
                else:
                    action = decide(window, seat, hand, allowed, held, up)
                decisions.append({"seat": seat, "hand": hand, "action": action})
                return action

            deal(rules, seats, card, record)
            item: dict[str, Any] = {"id": i, "cards": dealt, "decisions": decisions}
            if rules["lightning"]:
                item["extras"] = {"multipliers": {k: rng.choice((2, 3, 4, 5, 8)) for k in LIGHTNING_KINDS}}
            out.append(json.dumps(item) + "\n")
        return out

    return generate


GAMES: dict[str, tuple[Generator, Plain]] = {
    game_id: (_rounds(game_id), _evaluator(game_id)) for game_id in RULES
}
