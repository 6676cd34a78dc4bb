"""Plain implementations of the card games' rules for `studio evaluate`, and rounds to feed them (issue 25,
target 4): every card game (dealt from the studio's shoe) that bench/plain_rules.py does not hold.

In the style of plain_rules.py: one `json.loads` a line, the rules as plain Python read from the seed and the
game's module for the choices the seed leaves open, one `json.dumps` a line; nothing of `recognition`.
`GAMES` maps a game id to its (round generator, plain line function); plain_rules.py adds them to its own.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from fractions import Fraction
from itertools import combinations

Generator = Callable[[random.Random, int], list[str]]
Plain = Callable[[str], str]
Deal = Callable[[Callable[[], str]], list[str]]

SUITS = "SHDC"
RANKS = "A23456789TJQK"
DECK = [r + s for r in RANKS for s in SUITS]
ACE_HIGH = {r: 14 if r == "A" else i + 1 for i, r in enumerate(RANKS)}
ACE_LOW = {r: i + 1 for i, r in enumerate(RANKS)}
SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}


def _line(answer: dict) -> str:
    return json.dumps(answer, separators=(",", ":")) + "\n"


def _answer(item: dict, result: dict, outcome: dict) -> str:
    return _line({"id": item["id"], "valid": True, "result": result, "outcome": outcome})


def _odds(value: Fraction | int) -> int | str:
    value = Fraction(value)
    return int(value) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def _rounds(
    deck: list[str], decks: int, deal: Deal, fresh: bool = False, extras: Callable | None = None
) -> Generator:
    """Rounds dealt by `deal` (it draws one card a call) from a shoe of `decks` decks: a fresh shoe for every
    round (`fresh`), else a new one when fewer than 30 cards are left; `extras(rng)` for the computer draws."""

    def generate(rng: random.Random, rounds: int) -> list[str]:
        shoe: list[str] = []
        out = []
        for i in range(rounds):
            if fresh or len(shoe) < 30:
                shoe = deck * decks
                rng.shuffle(shoe)
            item: dict = {"id": i, "cards": deal(shoe.pop)}
            if extras is not None:
                item["extras"] = extras(rng)
            out.append(json.dumps(item) + "\n")
        return out

    return generate


# --- one card: Speedy 7 (seed 000 L2513-2534), Jokerbet (L3153-3320) ----------------------------------------


def speedy_7(line: str) -> str:
    """The card's colour wins (diamonds and hearts red)."""
    item = json.loads(line)
    card = item["cards"][0]
    colour = "red" if card[1] in "HD" else "black"
    return _answer(
        item, {"card": card, "colour": colour}, {"winning_bets": [{"bet": colour}], "pushed_bets": []}
    )


_JB_RANK = {r: r for r in "23456789"} | {"T": "10", "J": "jack", "Q": "queen", "K": "king", "A": "ace"}


def jokerbet_rounds(rng: random.Random, rounds: int) -> list[str]:
    """One card a round from 54-card decks (two jokers), a deck drawn to its end before the next."""
    deck = DECK + ["RJ", "BJ"]
    shoe: list[str] = []
    out = []
    for i in range(rounds):
        if not shoe:
            shoe = deck[:]
            rng.shuffle(shoe)
        out.append(json.dumps({"id": i, "cards": [shoe.pop()]}) + "\n")
    return out


def jokerbet(line: str) -> str:
    """The card's rank, the card itself, its suit, its colour, digital (2-10) or not; a joker by its colour."""
    item = json.loads(line)
    card = item["cards"][0]
    if card in ("RJ", "BJ"):
        bets = ["joker", "red_joker" if card == "RJ" else "black_joker", "red" if card == "RJ" else "black"]
        bets.append("non_digital")
    else:
        bets = [f"rank_{_JB_RANK[card[0]]}", f"card_{card}", SUIT_NAMES[card[1]]]
        bets.append("red" if card[1] in "HD" else "black")
        bets.append("digital" if card[0] in "23456789T" else "non_digital")
    return _answer(item, {"card": card}, {"winning_bets": [{"bet": b} for b in bets], "pushed_bets": []})


# --- Draw Hi-Lo (seed 000 L1593-1595), Red Dog (L1589-1591), Top Card Trumps (L1597-1599) ---------------------


def draw_hi_lo(line: str) -> str:
    """The draw against the base card, ace low: higher, lower, or the same (the Tie bet pays 10:1)."""
    item = json.loads(line)
    base, draw = item["cards"]
    b, d = ACE_LOW[base[0]], ACE_LOW[draw[0]]
    relation = "higher" if d > b else "lower" if d < b else "same"
    wins = [{"bet": "tie", "payout": 10}] if relation == "same" else [{"bet": relation}]
    result = {"base_card": base, "draw_card": draw, "relation": relation}
    return _answer(item, result, {"winning_bets": wins, "pushed_bets": [], "base_card": base})


def _red_dog_deal(draw: Callable[[], str]) -> list[str]:
    cards = [draw(), draw()]
    if abs(ACE_HIGH[cards[0][0]] - ACE_HIGH[cards[1][0]]) != 1:
        cards.append(draw())
    return cards


_RD_SPREAD = {1: 5, 2: 4, 3: 2}


def red_dog(line: str) -> str:
    """Consecutive ranks push; a pair draws a third card, three of a kind 11:1, else a push; otherwise a
    third card strictly between wins the ante and the raise by the spread (1: 5:1, 2: 4:1, 3: 2:1, wider 1:1)."""
    item = json.loads(line)
    cards = item["cards"]
    first, second = cards[0], cards[1]
    third = cards[2] if len(cards) > 2 else None
    a, b = ACE_HIGH[first[0]], ACE_HIGH[second[0]]
    spread = abs(a - b) - 1
    wins: list[dict] = []
    pushes: list[dict] = []
    if spread == 0:
        hand = "consecutive"
        pushes.append({"bet": "ante", "returned": 1})
    elif spread < 0:
        if third is not None and third[0] == first[0]:
            hand = "three_of_a_kind"
            wins.append({"bet": "ante", "payout": 11})
        else:
            hand = "pair"
            pushes.append({"bet": "ante", "returned": 1})
        spread = 0
    else:
        assert third is not None
        hand = "win" if min(a, b) < ACE_HIGH[third[0]] < max(a, b) else "lose"
        if hand == "win":
            pays = _RD_SPREAD.get(spread, 1)
            wins += [{"bet": "ante", "payout": pays}, {"bet": "raise", "payout": pays}]
    result = {"first_card": first, "second_card": second, "third_card": third, "spread": spread, "hand": hand}
    return _answer(
        item, result, {"winning_bets": wins, "pushed_bets": pushes, "hand": hand, "spread": spread}
    )


def _top_card_deal(draw: Callable[[], str]) -> list[str]:
    cards = [draw(), draw()]
    if cards[0][0] == cards[1][0]:
        cards += [draw() for _ in range(5)]
    return cards


def top_card_trumps(line: str) -> str:
    """Casino War: the higher card wins the ante 1:1, ace high; equal ranks: the Tie bet 10:1, half the ante
    back on surrender, three burnt cards and a war card each, the player's equal or higher wins the raise."""
    item = json.loads(line)
    cards = item["cards"]
    player, dealer = cards[0], cards[1]
    p, d = ACE_HIGH[player[0]], ACE_HIGH[dealer[0]]
    result: dict = {
        "player_card": player,
        "dealer_card": dealer,
        "burn_cards": [],
        "war_player_card": None,
        "war_dealer_card": None,
    }
    wins: list[dict] = []
    pushes: list[dict] = []
    if p != d:
        winner, war = ("player" if p > d else "dealer"), None
        if winner == "player":
            wins.append({"bet": "ante", "payout": 1})
    else:
        result["burn_cards"] = cards[2:5]
        result["war_player_card"], result["war_dealer_card"] = cards[5], cards[6]
        winner = "tie"
        war = "player" if ACE_HIGH[cards[5][0]] >= ACE_HIGH[cards[6][0]] else "dealer"
        wins.append({"bet": "tie", "payout": 10})
        pushes.append({"bet": "surrender", "returned": "1/2"})
        if war == "player":
            wins.append({"bet": "raise", "payout": 1})
            pushes.append({"bet": "ante", "returned": 1})
    result["winner"], result["war"] = winner, war
    return _answer(item, result, {"winning_bets": wins, "pushed_bets": pushes, "winner": winner, "war": war})


# --- Rock Paper Scissors (seed 000 L2869-2904) ----------------------------------------------------------------

_SYMBOLS = ("ROCK", "PAPER", "SCISSORS")
_BEATS = {"ROCK": "SCISSORS", "PAPER": "ROCK", "SCISSORS": "PAPER"}


def rock_paper_scissors_rounds(rng: random.Random, rounds: int) -> list[str]:
    return [
        json.dumps({"id": i, "cards": [rng.choice(_SYMBOLS), rng.choice(_SYMBOLS)]}) + "\n"
        for i in range(rounds)
    ]


def rock_paper_scissors(line: str) -> str:
    """Each zone's card against every symbol: the one it beats... the symbol that beats it wins, the same
    symbol is a draw (stake returned)."""
    item = json.loads(line)
    silver, gold = item["cards"]
    wins, pushes = [], []
    for zone, dealer in (("silver", silver), ("gold", gold)):
        for symbol in _SYMBOLS:
            bet = f"{zone}_{symbol.lower()}"
            if symbol == dealer:
                pushes.append({"bet": bet, "returned": 1})
            elif _BEATS[symbol] == dealer:
                wins.append({"bet": bet})
    result = {"silver_card": silver, "gold_card": gold}
    return _answer(item, result, {"winning_bets": wins, "pushed_bets": pushes})


# --- Andar Bahar (seed 000 L3539-3597) ------------------------------------------------------------------------

_AB_RANGES = ((1, 5), (6, 10), (11, 15), (16, 25), (26, 30), (31, 35), (36, 40))


def _andar_bahar_deal(draw: Callable[[], str]) -> list[str]:
    cards = [draw()]
    while True:
        cards.append(draw())
        if cards[-1][0] == cards[0][0]:
            return cards


def _andar_bahar_extras(rng: random.Random) -> dict:
    return {"first_side": rng.choice(("andar", "bahar"))}


def andar_bahar(line: str) -> str:
    """The Joker, then one card a side in turn from the drawn first side, until the Joker's rank: that side
    wins. Side bets: how many cards after the Joker, the winning card's colour, the Joker's colour, suit and
    rank against 7 and 8 (ace low)."""
    item = json.loads(line)
    cards = item["cards"]
    first = item["extras"]["first_side"]
    second = "bahar" if first == "andar" else "andar"
    joker, after = cards[0], cards[1:]
    hands = {first: after[0::2], second: after[1::2]}
    winner = first if len(after) % 2 else second
    n = len(after)
    bets = [winner]
    for low, high in _AB_RANGES:
        if low <= n <= high:
            bets.append(f"cards_{low}_{high}")
    if n >= 41:
        bets.append("cards_41_or_more")
    bets.append("winning_card_red" if after[-1][1] in "HD" else "winning_card_black")
    bets.append("joker_red" if joker[1] in "HD" else "joker_black")
    bets.append(f"joker_{SUIT_NAMES[joker[1]]}")
    value = ACE_LOW[joker[0]]
    for pivot in (7, 8):
        bets.append(
            f"joker_{pivot}"
            if value == pivot
            else f"joker_lower_than_{pivot}"
            if value < pivot
            else f"joker_higher_than_{pivot}"
        )
    result = {
        "winner": winner,
        "joker": joker,
        "first_side": first,
        "andar_cards": hands["andar"],
        "bahar_cards": hands["bahar"],
        "cards_dealt": n,
        "winning_card": after[-1],
    }
    return _answer(item, result, {"winning_bets": [{"bet": b} for b in bets], "pushed_bets": []})


# --- 32 Cards (seed 000 L5: the published rules) --------------------------------------------------------------

_TT_POINTS = {"6": 6, "7": 7, "8": 8, "9": 9, "T": 10, "J": 11, "Q": 12, "K": 13}
_TT_DECK = [r + s for r in "6789TJQK" for s in SUITS]


def _thirty_two_deal(draw: Callable[[], str]) -> list[str]:
    totals = {8: 8, 9: 9, 10: 10, 11: 11}
    cards: list[str] = []
    playing = [8, 9, 10, 11]
    while True:
        for h in playing:
            cards.append(draw())
            totals[h] += _TT_POINTS[cards[-1][0]]
        best = max(totals.values())
        playing = [h for h in totals if totals[h] == best]
        if len(playing) == 1:
            return cards


def thirty_two_cards(line: str) -> str:
    """Four hands start at 8, 9, 10 and 11 points, one card each (6-10 face, J 11, Q 12, K 13); the hands
    sharing the highest total draw again, in seat order, until one alone is highest."""
    item = json.loads(line)
    cards = item["cards"]
    hands: dict[int, list[str]] = {8: [], 9: [], 10: [], 11: []}
    totals = {8: 8, 9: 9, 10: 10, 11: 11}
    playing = [8, 9, 10, 11]
    i = 0
    while True:
        for h in playing:
            hands[h].append(cards[i])
            totals[h] += _TT_POINTS[cards[i][0]]
            i += 1
        best = max(totals.values())
        playing = [h for h in totals if totals[h] == best]
        if len(playing) == 1:
            break
    winner = f"player_{playing[0]}"
    result: dict = {"winner": winner}
    for h, hand in hands.items():
        result[f"player_{h}_cards"] = hand
        result[f"player_{h}_total"] = totals[h]
    outcome = {
        "winning_bets": [{"bet": winner}],
        "pushed_bets": [],
        "totals": {f"player_{h}": totals[h] for h in totals},
    }
    return _answer(item, result, outcome)


# --- 21 Bet (seed 000 L3495-3537) -----------------------------------------------------------------------------

_TO_POINTS = {"6": 6, "7": 7, "8": 8, "9": 9, "T": 10, "J": 2, "Q": 3, "K": 4, "A": 1}
_TO_DECK = [r + s for r in "6789TJQKA" for s in SUITS]


def _to_total(hand: list[str]) -> int:
    points = sum(_TO_POINTS[c[0]] for c in hand)
    return points + 10 if points <= 11 and any(c[0] == "A" for c in hand) else points


def _to_golden(hand: list[str]) -> bool:
    return len(hand) == 2 and (_to_total(hand) == 21 or (hand[0][0] == "A" and hand[1][0] == "A"))


def _twenty_one_play(draw: Callable[[], str]) -> tuple[list[str], list[str]]:
    """Two cards to each player, then up to three rounds of one card to each below 17, ending at a bust."""
    h1, h2 = [draw(), draw()], [draw(), draw()]
    if _to_golden(h1) or _to_golden(h2):
        return h1, h2
    for _ in range(3):
        dealt = False
        for hand in (h1, h2):
            if _to_total(hand) >= 17:
                continue
            hand.append(draw())
            dealt = True
            if _to_total(hand) > 21:
                return h1, h2
        if not dealt:
            break
    return h1, h2


def _twenty_one_deal(draw: Callable[[], str]) -> list[str]:
    order: list[str] = []

    def take() -> str:
        order.append(draw())
        return order[-1]

    _twenty_one_play(take)
    return order


def twenty_one_bet(line: str) -> str:
    """Points 6-10 face, J 2, Q 3, K 4, ace 1 or 11; a golden point (21 or two aces in two cards) ends the
    game; the other player wins on a bust, else the higher total, equal a draw."""
    item = json.loads(line)
    cards = iter(item["cards"])
    h1, h2 = _twenty_one_play(cards.__next__)
    t1, t2 = _to_total(h1), _to_total(h2)
    g1, g2 = _to_golden(h1), _to_golden(h2)
    bust = t1 > 21 or t2 > 21
    if g1 or g2:
        winner = "draw" if g1 and g2 else "player_1" if g1 else "player_2"
    elif bust:
        winner = "player_2" if t1 > 21 else "player_1"
    else:
        winner = "player_1" if t1 > t2 else "player_2" if t2 > t1 else "draw"
    golden = winner != "draw" and (g1 or g2)
    bets = [winner]
    if winner != "draw":
        hand, t = (h1, t1) if winner == "player_1" else (h2, t2)
        bets.append(f"win_with_{len(hand)}_cards")
        if 17 <= t <= 21:
            bets.append(f"win_with_{t}_points")
        if golden:
            bets.append("win_with_golden_point")
    bets.append("bust" if bust else "no_bust")
    result = {
        "winner": winner,
        "player_1_cards": h1,
        "player_2_cards": h2,
        "player_1_total": t1,
        "player_2_total": t2,
        "golden_point": golden,
        "bust": bust,
    }
    return _answer(item, result, {"winning_bets": [{"bet": b} for b in bets], "pushed_bets": []})


# --- baccarat with multiplier cards: Golden Wealth (seed 000 L4005-4080), Lightning (L4081-4191); Peek --------

_BAC = {r: (i + 1 if i < 9 else 0) for i, r in enumerate(RANKS)}
_BONUS = {9: 30, 8: 10, 7: 6, 6: 4, 5: 2, 4: 1}


def _banker_draws(banker: int, third: int | None) -> bool:
    if third is None:
        return banker <= 5
    if banker <= 2:
        return True
    return {3: third != 8, 4: 2 <= third <= 7, 5: 4 <= third <= 7, 6: third in (6, 7)}.get(banker, False)


def _baccarat_deal(draw: Callable[[], str]) -> list[str]:
    cards = [draw() for _ in range(4)]
    p, b = (_BAC[cards[0][0]] + _BAC[cards[2][0]]) % 10, (_BAC[cards[1][0]] + _BAC[cards[3][0]]) % 10
    if p < 8 and b < 8:
        third = None
        if p <= 5:
            cards.append(draw())
            third = _BAC[cards[-1][0]]
        if _banker_draws(b, third):
            cards.append(draw())
    return cards


def _multiplier_extras(key: str, multipliers: tuple[int, ...]) -> Callable[[random.Random], dict]:
    def extras(rng: random.Random) -> dict:
        cards = rng.sample(DECK, 5)
        return {key: [{"card": c, "multiplier": rng.choice(multipliers)} for c in cards]}

    return extras


def _baccarat(key: str | None, either_pair: str, multiplied: tuple[str, ...]) -> Plain:
    """Punto banco (the tableau, Player 1:1, Banker 19/20, Tie 8:1, pairs 11:1, perfect pair 25:1 or 200:1,
    either pair 5:1, the bonus by margin); with multiplier cards, a winning bet in `multiplied` pays its odds
    times the multipliers of the cards in its hand."""

    def evaluate(line: str) -> str:
        item = json.loads(line)
        cards = item["cards"]
        player, banker = [cards[0], cards[2]], [cards[1], cards[3]]
        p, b = (_BAC[cards[0][0]] + _BAC[cards[2][0]]) % 10, (_BAC[cards[1][0]] + _BAC[cards[3][0]]) % 10
        rest = cards[4:]
        if p < 8 and b < 8:
            third = None
            if p <= 5:
                player.append(rest.pop(0))
                third = _BAC[player[2][0]]
            if _banker_draws(b, third):
                banker.append(rest.pop(0))
        pt, bt = sum(_BAC[c[0]] for c in player) % 10, sum(_BAC[c[0]] for c in banker) % 10
        wins: list[dict] = []
        pushes: list[dict] = []
        if pt > bt:
            winner = "player"
            wins.append({"bet": "player", "payout": 1})
        elif bt > pt:
            winner = "banker"
            wins.append({"bet": "banker", "payout": "19/20"})
        else:
            winner = "tie"
            wins.append({"bet": "tie", "payout": 8})
            pushes += [{"bet": "player", "returned": 1}, {"bet": "banker", "returned": 1}]
        p_pair, b_pair = player[0][0] == player[1][0], banker[0][0] == banker[1][0]
        if p_pair:
            wins.append({"bet": "player_pair", "payout": 11})
        if b_pair:
            wins.append({"bet": "banker_pair", "payout": 11})
        if player[0] == player[1] or banker[0] == banker[1]:
            both = player[0] == player[1] and banker[0] == banker[1]
            wins.append({"bet": "perfect_pair", "payout": 200 if both else 25})
        if p_pair or b_pair:
            wins.append({"bet": either_pair, "payout": 5})
        for side, mine, theirs, hand in (("player", pt, bt, player), ("banker", bt, pt, banker)):
            natural = len(hand) == 2 and mine >= 8
            if mine > theirs:
                bonus = 1 if natural else _BONUS.get(mine - theirs)
                if bonus is not None:
                    wins.append({"bet": f"{side}_bonus", "payout": bonus})
            elif mine == theirs and natural:
                wins.append({"bet": f"{side}_bonus", "payout": 1})
        outcome: dict = {"winning_bets": wins, "pushed_bets": pushes}
        if key is not None:
            drawn = {e["card"]: e["multiplier"] for e in item["extras"][key]}
            scope = {
                "player": player,
                "banker": banker,
                "tie": player + banker,
                "player_pair": player[:2],
                "banker_pair": banker[:2],
            }
            for w in wins:
                m = 1
                if w["bet"] in multiplied:
                    for card in scope[w["bet"]]:
                        m *= drawn.get(card, 1)
                if m != 1:
                    w["payout"] = _odds(Fraction(w["payout"]) * m)
                w["multiplier"] = m
            outcome[key] = [{"card": c, "multiplier": m} for c, m in drawn.items()]
        result = {
            "winner": winner,
            "player_cards": player,
            "banker_cards": banker,
            "player_total": pt,
            "banker_total": bt,
        }
        return _answer(item, result, outcome)

    return evaluate


GAMES: dict[str, tuple[Generator, Plain]] = {
    "speedy_7": (_rounds(DECK, 1, lambda draw: [draw()], fresh=True), speedy_7),
    "jokerbet": (jokerbet_rounds, jokerbet),
    "draw_hi_lo": (_rounds(DECK, 1, lambda draw: [draw(), draw()], fresh=True), draw_hi_lo),
    "red_dog": (_rounds(DECK, 8, _red_dog_deal), red_dog),
    "top_card_trumps": (_rounds(DECK, 6, _top_card_deal), top_card_trumps),
    "rock_paper_scissors": (rock_paper_scissors_rounds, rock_paper_scissors),
    "andar_bahar": (_rounds(DECK, 1, _andar_bahar_deal, fresh=True, extras=_andar_bahar_extras), andar_bahar),
    "thirty_two_cards": (_rounds(_TT_DECK, 1, _thirty_two_deal, fresh=True), thirty_two_cards),
    "twenty_one_bet": (_rounds(_TO_DECK, 1, _twenty_one_deal, fresh=True), twenty_one_bet),
    "peek_baccarat": (_rounds(DECK, 8, _baccarat_deal), _baccarat(None, "either_pair", ())),
    "golden_wealth_baccarat": (
        _rounds(DECK, 8, _baccarat_deal, extras=_multiplier_extras("gold_cards", (2, 3, 5, 8))),
        _baccarat("gold_cards", "golden_pair", ("player", "banker", "tie")),
    ),
    "lightning_baccarat": (
        _rounds(DECK, 8, _baccarat_deal, extras=_multiplier_extras("lightning_cards", (2, 3, 4, 5, 8))),
        _baccarat(
            "lightning_cards", "either_pair", ("player", "banker", "tie", "player_pair", "banker_pair")
        ),
    ),
}


# --- poker against the dealer: Side Bet City (seed 000 L3419-3493), Caribbean Stud (L714-773), Casino Hold'em
# (L563-617, seed 001 where 000 is silent), Texas Hold'em (L619-679) -----------------------------------------

_HANDS = (
    "high_card",
    "pair",
    "two_pair",
    "three_of_a_kind",
    "straight",
    "flush",
    "full_house",
    "four_of_a_kind",
    "straight_flush",
    "royal_flush",
)
_HANDS3 = ("high_card", "pair", "flush", "straight", "three_of_a_kind", "straight_flush", "mini_royal")


def _rank5(cards: tuple[str, ...] | list[str]) -> tuple[int, ...]:
    """(category, tie-breaks) of five cards: the ranks by (count, rank), the ace low in 5-4-3-2-A."""
    ranks = sorted((ACE_HIGH[c[0]] for c in cards), reverse=True)
    flush = len({c[1] for c in cards}) == 1
    high = None
    if len(set(ranks)) == 5:
        if ranks[0] - ranks[4] == 4:
            high = ranks[0]
        elif ranks == [14, 5, 4, 3, 2]:
            high = 5
    if high is not None:
        if flush:
            return (9,) if high == 14 else (8, high)
        return (4, high)
    if flush:
        return (5, *ranks)
    counts = {r: ranks.count(r) for r in ranks}
    groups = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    shape = [n for _, n in groups]
    order = [r for r, _ in groups]
    if shape[0] == 4:
        return (7, *order)
    if shape == [3, 2]:
        return (6, *order)
    if shape[0] == 3:
        return (3, *order)
    if shape[:2] == [2, 2]:
        return (2, *order)
    if shape[0] == 2:
        return (1, *order)
    return (0, *ranks)


def _best5(cards: list[str]) -> tuple[int, ...]:
    return max(_rank5(five) for five in combinations(cards, 5))


def _rank3(cards: list[str]) -> tuple[int, ...]:
    """Three cards: a straight beats a flush; A-K-Q and A-2-3 straights, A-K-Q suited the mini royal."""
    ranks = sorted((ACE_HIGH[c[0]] for c in cards), reverse=True)
    flush = len({c[1] for c in cards}) == 1
    high = None
    if len(set(ranks)) == 3:
        if ranks[0] - ranks[2] == 2:
            high = ranks[0]
        elif ranks == [14, 3, 2]:
            high = 3
    if high is not None:
        if flush:
            return (6,) if high == 14 else (5, high)
        return (3, high)
    if ranks[0] == ranks[2]:
        return (4, ranks[0])
    if flush:
        return (2, *ranks)
    if ranks[0] == ranks[1]:
        return (1, ranks[0], ranks[2])
    if ranks[1] == ranks[2]:
        return (1, ranks[1], ranks[0])
    return (0, *ranks)


def _winner(p: tuple[int, ...], d: tuple[int, ...]) -> str:
    return "player" if p > d else "dealer" if d > p else "tie"


def _fixed_rounds(size: int) -> Generator:
    """`size` cards from one deck shuffled for every round."""

    def generate(rng: random.Random, rounds: int) -> list[str]:
        return [json.dumps({"id": i, "cards": rng.sample(DECK, size)}) + "\n" for i in range(rounds)]

    return generate


_SBC_THREE = {6: 100, 5: 40, 4: 35, 3: 5, 2: 4, 1: 1}
_SBC_FIVE = {9: 1000, 8: 250, 7: 100, 6: 50, 5: 40, 4: 25, 3: 7, 2: 4}
_SBC_SEVEN = {9: 500, 8: 100, 7: 50, 6: 7, 5: 5, 4: 4, 3: 3}


def side_bet_city(line: str) -> str:
    """Seven cards: the first three a 3 Card Hand, the first five a 5 Card Hand (a pair of jacks or better
    1:1), the best five of seven the 7 Card Hand, each by its table; All Lose 7/10 when none pays."""
    item = json.loads(line)
    cards = item["cards"]
    three, five, seven = _rank3(cards[:3]), _rank5(cards[:5]), _best5(cards)
    five_name = _HANDS[five[0]]
    wins = []
    if five[0] == 1:
        five_name = "pair_jacks_or_better" if five[1] >= 11 else "pair_below_jacks"
    for bet, pays in (
        ("three_card_hand", _SBC_THREE.get(three[0])),
        ("five_card_hand", _SBC_FIVE.get(five[0], 1 if five[0] == 1 and five[1] >= 11 else None)),
        ("seven_card_hand", _SBC_SEVEN.get(seven[0])),
    ):
        if pays is not None:
            wins.append({"bet": bet, "payout": pays})
    if not wins:
        wins.append({"bet": "all_lose", "payout": "7/10"})
    result = {
        "cards": cards,
        "three_card_hand": _HANDS3[three[0]],
        "five_card_hand": five_name,
        "seven_card_hand": _HANDS[seven[0]],
    }
    return _answer(item, result, {"winning_bets": wins, "pushed_bets": []})


_CARIBBEAN_CALL = {9: 100, 8: 20, 7: 10, 6: 3, 5: 2}
_FIVE_PLUS_ONE = {9: 1000, 8: 200, 7: 100, 6: 20, 5: 15, 4: 10, 3: 7}


def caribbean_stud(line: str) -> str:
    """Five cards each; the dealer qualifies with ace-king or better. Called: a qualifying dealer beaten pays
    the Ante 1:1 and the Call by the table; no qualifier pays the Ante and pushes the Call; a tie pushes both.
    The 5+1 Bonus on the player's five and the dealer's up card."""
    item = json.loads(line)
    cards = item["cards"]
    player, dealer = cards[:5], cards[5:10]
    p, d = _rank5(player), _rank5(dealer)
    qualifies = d[0] > 0 or (d[1] == 14 and d[2] == 13)
    winner = _winner(p, d)
    wins: list[dict] = []
    pushes: list[dict] = []
    if not qualifies:
        wins.append({"bet": "ante", "payout": 1})
        pushes.append({"bet": "call", "returned": 1})
    elif winner == "player":
        wins += [{"bet": "ante", "payout": 1}, {"bet": "call", "payout": _CARIBBEAN_CALL.get(p[0], 1)}]
    elif winner == "tie":
        pushes += [{"bet": "ante", "returned": 1}, {"bet": "call", "returned": 1}]
    bonus = _FIVE_PLUS_ONE.get(_best5(player + [dealer[0]])[0])
    if bonus is not None:
        wins.append({"bet": "five_plus_one_bonus", "payout": bonus})
    result = {
        "player_cards": player,
        "dealer_cards": dealer,
        "dealer_up_card": dealer[0],
        "player_hand": _HANDS[p[0]],
        "dealer_hand": _HANDS[d[0]],
        "dealer_qualifies": qualifies,
        "winner": winner,
    }
    return _answer(item, result, {"winning_bets": wins, "pushed_bets": pushes})


_CASINO_ANTE = {9: 100, 8: 20, 7: 10, 6: 3, 5: 2}
_CASINO_BONUS = {9: 100, 8: 50, 7: 40, 6: 30, 5: 20, 4: 7, 3: 7, 2: 7}
_LAND_BONUS = {c: 7 for c in range(2, 10)}
_TEXAS_BLIND = {9: 500, 8: 50, 7: 10, 6: 3, 5: "3/2", 4: 1}
_TEXAS_TRIPS = {9: 50, 8: 40, 7: 30, 6: 8, 5: 7, 4: 4, 3: 3}


def _holdem(item: dict, qualify: Callable[[tuple[int, ...]], bool]) -> tuple[dict, tuple[int, ...]]:
    cards = item["cards"]
    player, dealer, board = cards[:2], cards[2:4], cards[4:9]
    p, d = _best5(player + board), _best5(dealer + board)
    result = {
        "player_cards": player,
        "dealer_cards": dealer,
        "board": board,
        "player_hand": _HANDS[p[0]],
        "dealer_hand": _HANDS[d[0]],
        "dealer_qualifies": qualify(d),
        "winner": _winner(p, d),
    }
    return result, p


def _casino_holdem(bonus_table: dict[int, int]) -> Plain:
    """The dealer qualifies with a pair of fours or better. Called: a qualifying dealer beaten pays the Ante by
    its table and the Call 1:1; no qualifier pays the Ante 1:1 up to a straight (the table from a flush) and
    returns the Call; a tie pushes both. The Bonus on the player's two and the flop: a pair of aces or better."""

    def evaluate(line: str) -> str:
        item = json.loads(line)
        result, p = _holdem(item, lambda d: d[0] > 1 or (d[0] == 1 and d[1] >= 4))
        ante = _CASINO_ANTE.get(p[0], 1)
        wins: list[dict] = []
        pushes: list[dict] = []
        if not result["dealer_qualifies"]:
            wins.append({"bet": "ante", "payout": ante if p[0] >= 5 else 1})
            pushes.append({"bet": "call", "returned": 1})
        elif result["winner"] == "player":
            wins += [{"bet": "ante", "payout": ante}, {"bet": "call", "payout": 1}]
        elif result["winner"] == "tie":
            pushes += [{"bet": "ante", "returned": 1}, {"bet": "call", "returned": 1}]
        first5 = _rank5(result["player_cards"] + result["board"][:3])
        bonus = bonus_table.get(first5[0], 7 if first5[0] == 1 and first5[1] == 14 else None)
        if bonus is not None:
            wins.append({"bet": "bonus", "payout": bonus})
        return _answer(item, result, {"winning_bets": wins, "pushed_bets": pushes})

    return evaluate


def texas_holdem(line: str) -> str:
    """The dealer qualifies with a pair. A win pays Play 1:1, the Ante 1:1 (pushed if the dealer does not
    qualify), the Blind by its table from a straight (else returned); a tie pushes all three; a loss to a
    dealer who does not qualify pushes the Ante. Trips on the player's best five from three of a kind."""
    item = json.loads(line)
    result, p = _holdem(item, lambda d: d[0] >= 1)
    wins: list[dict] = []
    pushes: list[dict] = []
    winner, qualifies = result["winner"], result["dealer_qualifies"]
    if winner == "player":
        if qualifies:
            wins.append({"bet": "ante", "payout": 1})
        else:
            pushes.append({"bet": "ante", "returned": 1})
        blind = _TEXAS_BLIND.get(p[0])
        if blind is None:
            pushes.append({"bet": "blind", "returned": 1})
        else:
            wins.append({"bet": "blind", "payout": blind})
        wins.append({"bet": "play", "payout": 1})
    elif winner == "tie":
        pushes += [{"bet": bet, "returned": 1} for bet in ("ante", "blind", "play")]
    elif not qualifies:
        pushes.append({"bet": "ante", "returned": 1})
    trips = _TEXAS_TRIPS.get(p[0])
    if trips is not None:
        wins.append({"bet": "trips", "payout": trips})
    return _answer(item, result, {"winning_bets": wins, "pushed_bets": pushes})


GAMES.update(
    {
        "side_bet_city": (_fixed_rounds(7), side_bet_city),
        "caribbean_stud": (_fixed_rounds(10), caribbean_stud),
        "casino_holdem": (_fixed_rounds(9), _casino_holdem(_CASINO_BONUS)),
        "casino_holdem_land": (_fixed_rounds(9), _casino_holdem(_LAND_BONUS)),
        "texas_holdem": (_fixed_rounds(9), texas_holdem),
    }
)


# --- 5-card poker (seed 000 L289-347) --------------------------------------------------------------------------

_FIVE_CARD_RAISE = (2, 2, 3, 4, 5, 6, 8, 30, 75, 125)  # by category, high card first


def five_card_poker(line: str) -> str:
    """Five cards each, the dealer's first face up; the dealer qualifies with ace-king or better. Raised: no
    qualifier pays the ante and returns the raise; a win pays the ante 1:1 and the raise by the player's hand;
    equal hands push both. The bonus (no odds: the organiser's) on a flush or better."""
    item = json.loads(line)
    cards = item["cards"]
    player, dealer = cards[:5], cards[5:10]
    p, d = _rank5(player), _rank5(dealer)
    qualifies = d[0] > 0 or (d[1] == 14 and d[2] == 13)
    winner = _winner(p, d)
    wins: list[dict] = []
    pushes: list[dict] = []
    if not qualifies:
        wins.append({"bet": "ante", "payout": 1})
        pushes.append({"bet": "raise", "returned": 1})
    elif winner == "player":
        wins.append({"bet": "ante", "payout": 1})
        wins.append({"bet": "raise", "payout": _FIVE_CARD_RAISE[p[0]], "hand": _HANDS[p[0]]})
    elif winner == "tie":
        pushes += [{"bet": "ante", "returned": 1}, {"bet": "raise", "returned": 1}]
    if p[0] >= 5:  # flush or better
        wins.append({"bet": "bonus", "hand": _HANDS[p[0]]})
    result = {
        "cards": cards,
        "player_cards": player,
        "dealer_cards": dealer,
        "dealer_up_card": dealer[0],
        "player_hand": _HANDS[p[0]],
        "dealer_hand": _HANDS[d[0]],
        "dealer_qualifies": qualifies,
        "winner": winner,
    }
    return _answer(item, result, {"winning_bets": wins, "pushed_bets": pushes})


GAMES["five_card_poker"] = (_fixed_rounds(10), five_card_poker)


# --- 5-card poker with exchange (seed 000 L349-403), 6-card poker (L405-451): one card decision ---------------

_EXCHANGE_RAISE = (1, 1, 2, 3, 4, 5, 7, 20, 50, 100)  # by category, high card first; 6-card poker's too


def _decision_rounds(decision: str) -> Generator:
    """Fresh-deck rounds with the common hand's decision: keep, or (half the time) discard one of the five
    cards dealt for another (`exchange`) or buy a sixth card (`buy`)."""

    def generate(rng: random.Random, rounds: int) -> list[str]:
        out = []
        for i in range(rounds):
            deck = rng.sample(DECK, 11)
            player, up = deck[:5], deck[5]
            if rng.random() < 0.5:
                made: dict = {"seat": "player", "action": "keep"}
                cards = player + [up] + deck[6:10]
            elif decision == "exchange":
                made = {"seat": "player", "action": "discard", "cards": [rng.choice(player)]}
                cards = deck
            else:
                made = {"seat": "player", "action": "buy"}
                cards = deck
            out.append(json.dumps({"id": i, "cards": cards, "decisions": [made]}) + "\n")
        return out

    return generate


def _draw_poker(decision: str) -> Plain:
    """The player's five, the dealer's up card, the decision's card (the replacement takes the discarded
    card's place; a bought card is a sixth, the best five of six play), the dealer's four others. The dealer
    qualifies with ace-king; the raise by the table; the bonus on the five dealt, lost by an exchange."""

    def evaluate(line: str) -> str:
        item = json.loads(line)
        cards = item["cards"]
        made = item["decisions"][0]
        action = made["action"]
        dealt = cards[:5]
        extra = 0 if action == "keep" else 1
        drawn = cards[6 : 6 + extra]
        dealer = [cards[5]] + cards[6 + extra :]
        player = list(dealt)
        discards = made.get("cards", []) if action == "discard" else []
        for old, new in zip(discards, drawn):
            player[player.index(old)] = new
        if action == "buy":
            player += drawn
        if len(player) == 6:
            best = max(combinations(player, 5), key=_rank5)
            p = _rank5(best)
        else:
            p = _rank5(player)
        d = _rank5(dealer)
        qualifies = d[0] > 0 or (d[1] == 14 and d[2] == 13)
        winner = _winner(p, d)
        wins: list[dict] = []
        pushes: list[dict] = []
        if not qualifies:
            wins.append({"bet": "ante", "payout": 1})
            pushes.append({"bet": "raise", "returned": 1})
        elif winner == "player":
            wins.append({"bet": "ante", "payout": 1})
            wins.append({"bet": "raise", "payout": _EXCHANGE_RAISE[p[0]], "hand": _HANDS[p[0]]})
        elif winner == "tie":
            pushes += [{"bet": "ante", "returned": 1}, {"bet": "raise", "returned": 1}]
        bonus = _rank5(dealt)[0]
        if bonus >= 5 and not discards:  # flush or better on the five dealt
            wins.append({"bet": "bonus", "hand": _HANDS[bonus]})
        result: dict = {
            "cards": cards,
            "player_cards": player,
            "dealer_cards": dealer,
            "dealer_up_card": dealer[0],
            "player_hand": _HANDS[p[0]],
            "dealer_hand": _HANDS[d[0]],
            "dealer_qualifies": qualifies,
            "winner": winner,
        }
        if len(player) == 6:
            result["player_best_cards"] = list(best)
        result["dealt_player_cards"] = dealt
        result["dealt_player_hand"] = _HANDS[_rank5(dealt)[0]]
        if decision == "exchange":
            result["discards"], result["draws"] = discards, drawn
        else:
            result["bought_card"] = drawn[0] if drawn else None
        window = f"player/hand_1/{decision}"
        canonical = {"window": window, "seat": "player", "hand": 1, "action": action, "cards": discards}
        result["decisions"] = [{**canonical, "by": "backend"}]
        return _answer(item, result, {"winning_bets": wins, "pushed_bets": pushes})

    return evaluate


GAMES["five_card_poker_exchange"] = (_decision_rounds("exchange"), _draw_poker("exchange"))
GAMES["six_card_poker"] = (_decision_rounds("buy"), _draw_poker("buy"))
