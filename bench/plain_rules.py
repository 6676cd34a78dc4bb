"""Plain implementations of games' rules for `studio evaluate`, and rounds to feed them (issue 25, target 4).

What a competent engineer writes in an afternoon from the rules (the seed's text and the game's module for
the choices the seeds leave open): one `json.loads` a line, the rules as plain Python (a table built once at
import where the game has one, a layout or a paytable), one `json.dumps` a line. Each gives, for a valid
round, the very line `studio evaluate` writes (`bench/evaluate.py` and `tests/perf/test_evaluate_plain.py`
check it). They read nothing of `recognition`: they are the yardstick the CLI is measured against.

`GAMES` maps a game id to its (round generator, plain line function). Covered: every game (73), every
family: cards (Dragon Tiger, Kricket War, Football Studio, War of Bets, baccarat, No Commission baccarat,
Three Card Poker, Teen Patti), roulette (European, American, La Partage), dice (Sic Bo, Super and Mega Sic Bo,
the same game under other names, Bac Bo), money wheel (Dream Catcher), balls (Lucky 5, Keno Express, Bingo 37,
Bingo 38); from `bench/plain_cards.py` 20 more card games (every shoe game but the blackjacks and poker with
joker); and from `bench/plain_others.py` roulette (Double Ball, Lightning, Mega), dice (Craps, Dice Duel,
Lightning Dice), Fan Tan, money wheels (Wheel of Fortune, Wheelbet, Spin & Win, Mega Wheel, Music Wheel) and
balls (1 Bet, Lotto Express 5/35, MEGA 6, Lucky 7, Super Six, Fruitrace); from `bench/plain_blackjack.py`
the seven blackjacks, and from `bench/plain_shows.py` poker with a joker, Cash or Crash, Mega Ball, Deal or No
Deal, Crazy Time and Monopoly Live.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from itertools import combinations

Generator = Callable[[random.Random, int], list[str]]
Plain = Callable[[str], str]

SUITS = "SHDC"
RANKS = "A23456789TJQK"
DECK = [r + s for r in RANKS for s in SUITS]
_ACE_HIGH = {r: 14 if r == "A" else i + 1 for i, r in enumerate(RANKS)}


def _line(answer: dict) -> str:
    return json.dumps(answer, separators=(",", ":")) + "\n"


def _shoe_rounds(rng: random.Random, rounds: int, deal: Callable[[list[str]], list[str]]) -> list[str]:
    """Rounds dealt from 8-deck shoes, shuffled anew at the cut card (20 cards left)."""
    shoe: list[str] = []
    out = []
    for i in range(rounds):
        if len(shoe) < 20:
            shoe = DECK * 8
            rng.shuffle(shoe)
        out.append(json.dumps({"id": i, "cards": deal(shoe)}) + "\n")
    return out


# --- Dragon Tiger (seed 000 L1795-1824) -------------------------------------------------------------------

_DT_RANK = {r: i + 1 for i, r in enumerate(RANKS)}  # ace low
_DT_PUSHED = [{"bet": "dragon", "returned": "1/2"}, {"bet": "tiger", "returned": "1/2"}]


def dragon_tiger_rounds(rng: random.Random, rounds: int) -> list[str]:
    return _shoe_rounds(rng, rounds, lambda shoe: [shoe.pop(), shoe.pop()])


def dragon_tiger(line: str) -> str:
    """The higher rank wins 1:1 (ace low); equal ranks are a tie paying 11:1, suited tie 50:1 on equal cards,
    half of each Dragon/Tiger bet returned."""
    item = json.loads(line)
    dragon, tiger = item["cards"]
    d, t = _DT_RANK[dragon[0]], _DT_RANK[tiger[0]]
    suited = dragon == tiger
    if d == t:
        winner = "tie"
        winning = [{"bet": "tie", "payout": 11}] + ([{"bet": "suited_tie", "payout": 50}] if suited else [])
        pushed = _DT_PUSHED
    else:
        winner = "dragon" if d > t else "tiger"
        winning, pushed = [{"bet": winner, "payout": 1}], []
    result = {"winner": winner, "dragon_card": dragon, "tiger_card": tiger, "suited_tie": suited}
    return _line(
        {
            "id": item["id"],
            "valid": True,
            "result": result,
            "outcome": {"winning_bets": winning, "pushed_bets": pushed},
        }
    )


# --- Football Studio (seed 000 L1770-1794), War of Bets (seed 000 L2617-2680) --------------------------------


def football_studio(line: str) -> str:
    """Home and Away one card each, ace high, suits irrelevant: the higher wins 1:1; a draw pays 11:1 and
    returns half of each Home/Away bet."""
    item = json.loads(line)
    home, away = item["cards"]
    h, a = _ACE_HIGH[home[0]], _ACE_HIGH[away[0]]
    if h == a:
        winner = "draw"
        winning = [{"bet": "draw", "payout": 11}]
        pushed = [{"bet": "home", "returned": "1/2"}, {"bet": "away", "returned": "1/2"}]
    else:
        winner = "home" if h > a else "away"
        winning, pushed = [{"bet": winner, "payout": 1}], []
    result = {"winner": winner, "home_card": home, "away_card": away}
    outcome = {"winning_bets": winning, "pushed_bets": pushed}
    return _line({"id": item["id"], "valid": True, "result": result, "outcome": outcome})


_SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}


def war_of_bets(line: str) -> str:
    """The Player's card against the Dealer's, ace high, equal cards a War; the bets on each card's colour,
    suit, score against 8 and picture or not (the odds are the platform's: the outcome names the bets)."""
    item = json.loads(line)
    player, dealer = item["cards"]
    p, d = _ACE_HIGH[player[0]], _ACE_HIGH[dealer[0]]
    winner = "player" if p > d else "dealer" if d > p else "war"
    winning = [{"bet": "war" if winner == "war" else f"{winner}_wins"}]
    for side, card in (("dealer", dealer), ("player", player)):
        score = _ACE_HIGH[card[0]]
        winning += [
            {"bet": f"{side}_{'red' if card[1] in 'HD' else 'black'}"},
            {"bet": f"{side}_{_SUIT_NAMES[card[1]]}"},
            {"bet": f"{side}_score_{'8' if score == 8 else 'under_8' if score < 8 else 'over_8'}"},
            {"bet": f"{side}_{'picture' if card[0] in 'JQK' else 'ace_or_number'}"},
        ]
    result = {"winner": winner, "player_card": player, "dealer_card": dealer}
    outcome = {"winning_bets": winning, "pushed_bets": []}
    return _line({"id": item["id"], "valid": True, "result": result, "outcome": outcome})


# --- baccarat, punto banco (seed 000 L1497-1587, 003 L107-145) ---------------------------------------------

_BAC_VALUE = {r: (i + 1 if i < 9 else 0) for i, r in enumerate(RANKS)}


def _banker_draws(banker: int, third: int | None) -> bool:
    """The standard tableau: the Banker's two-card total and the Player's third card (None: stood)."""
    if third is None:
        return banker <= 5
    if banker <= 2:
        return True
    if banker == 3:
        return third != 8
    if banker == 4:
        return 2 <= third <= 7
    if banker == 5:
        return 4 <= third <= 7
    if banker == 6:
        return third in (6, 7)
    return False


def _bac_total(hand: list[str]) -> int:
    return sum(_BAC_VALUE[c[0]] for c in hand) % 10


def baccarat_rounds(rng: random.Random, rounds: int) -> list[str]:
    def deal(shoe: list[str]) -> list[str]:
        player, banker = [shoe.pop()], [shoe.pop()]
        player.append(shoe.pop())
        banker.append(shoe.pop())
        cards = [player[0], banker[0], player[1], banker[1]]
        p, b = _bac_total(player), _bac_total(banker)
        if p < 8 and b < 8:
            third = None
            if p <= 5:
                cards.append(shoe.pop())
                third = _BAC_VALUE[cards[-1][0]]
            if _banker_draws(b, third):
                cards.append(shoe.pop())
        return cards

    return _shoe_rounds(rng, rounds, deal)


_BONUS_MARGIN = {9: 30, 8: 10, 7: 6, 6: 4, 5: 2, 4: 1}


def baccarat(line: str) -> str:
    """Deal order P B P B, then the Player's and the Banker's third cards by the tableau; Player 1:1, Banker
    19/20, Tie 8:1 (Player and Banker pushed), pairs 11:1, perfect pair 25:1 (both 200:1), either pair 5:1,
    the bonus bets by margin (a natural win 1:1, a natural tie 1:1)."""
    return _baccarat(line, no_commission=False)


def no_commission_baccarat(line: str) -> str:
    """Baccarat with a Banker win paying 1:1, and 1:2 on a total of 6."""
    return _baccarat(line, no_commission=True)


def _baccarat(line: str, no_commission: bool) -> str:
    item = json.loads(line)
    cards = item["cards"]
    player, banker = [cards[0], cards[2]], [cards[1], cards[3]]
    p, b = _bac_total(player), _bac_total(banker)
    rest = cards[4:]
    if p < 8 and b < 8:
        third = None
        if p <= 5:
            player.append(rest.pop(0))
            third = _BAC_VALUE[player[2][0]]
        if _banker_draws(b, third):
            banker.append(rest.pop(0))
    pt, bt = _bac_total(player), _bac_total(banker)
    winning: list[dict] = []
    pushed: list[dict] = []
    if pt > bt:
        winner = "player"
        winning.append({"bet": "player", "payout": 1})
    elif bt > pt:
        winner = "banker"
        pays: int | str = ("1/2" if bt == 6 else 1) if no_commission else "19/20"
        winning.append({"bet": "banker", "payout": pays})
    else:
        winner = "tie"
        winning.append({"bet": "tie", "payout": 8})
        pushed += [{"bet": "player", "returned": 1}, {"bet": "banker", "returned": 1}]
    p_pair, b_pair = player[0][0] == player[1][0], banker[0][0] == banker[1][0]
    if p_pair:
        winning.append({"bet": "player_pair", "payout": 11})
    if b_pair:
        winning.append({"bet": "banker_pair", "payout": 11})
    p_perfect, b_perfect = player[0] == player[1], banker[0] == banker[1]
    if p_perfect or b_perfect:
        winning.append({"bet": "perfect_pair", "payout": 200 if p_perfect and b_perfect else 25})
    if p_pair or b_pair:
        winning.append({"bet": "either_pair", "payout": 5})
    for side, mine, theirs, hand in (("player", pt, bt, player), ("banker", bt, pt, banker)):
        natural = len(hand) == 2 and mine >= 8
        if mine > theirs:
            bonus = 1 if natural else _BONUS_MARGIN.get(mine - theirs)
            if bonus is not None:
                winning.append({"bet": f"{side}_bonus", "payout": bonus})
        elif mine == theirs and natural:
            winning.append({"bet": f"{side}_bonus", "payout": 1})
    result = {
        "winner": winner,
        "player_cards": player,
        "banker_cards": banker,
        "player_total": pt,
        "banker_total": bt,
    }
    return _line(
        {
            "id": item["id"],
            "valid": True,
            "result": result,
            "outcome": {"winning_bets": winning, "pushed_bets": pushed},
        }
    )


# --- Three Card Poker (seed 000 L517-561) -------------------------------------------------------------------

_THREE_NAMES = ("high_card", "pair", "flush", "straight", "three_of_a_kind", "straight_flush", "mini_royal")
_ANTE_BONUS = {6: 5, 5: 5, 4: 4, 3: 1}  # by three-card category (the index in _THREE_NAMES)
_PAIR_PLUS = {6: 100, 5: 40, 4: 30, 3: 5, 2: 4, 1: 1}
_SIX_CARD = {9: 1000, 8: 200, 7: 100, 6: 20, 5: 15, 4: 10, 3: 7}  # by five-card category, royal flush 9


def _hand3(cards: list[str]) -> tuple[int, ...]:
    """(category, tie-breaks): a straight beats a flush; A-K-Q and A-2-3 are straights, A-K-Q suited the mini
    royal."""
    ranks = sorted((_ACE_HIGH[c[0]] for c in cards), reverse=True)
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


def _category5(cards: tuple[str, ...]) -> int:
    """A five-card hand's category: 0 high card .. 8 straight flush, 9 royal flush."""
    ranks = sorted((_ACE_HIGH[c[0]] for c in cards), reverse=True)
    flush = len({c[1] for c in cards}) == 1
    straight = len(set(ranks)) == 5 and (ranks[0] - ranks[4] == 4 or ranks == [14, 5, 4, 3, 2])
    if straight and flush:
        return 9 if ranks[0] == 14 and ranks[1] == 13 else 8
    counts = sorted((ranks.count(r) for r in set(ranks)), reverse=True)
    if counts[0] == 4:
        return 7
    if counts == [3, 2]:
        return 6
    if flush:
        return 5
    if straight:
        return 4
    if counts[0] == 3:
        return 3
    if counts[:2] == [2, 2]:
        return 2
    return 1 if counts[0] == 2 else 0


def three_card_poker_rounds(rng: random.Random, rounds: int) -> list[str]:
    return [json.dumps({"id": i, "cards": rng.sample(DECK, 6)}) + "\n" for i in range(rounds)]


def three_card_poker(line: str) -> str:
    """Three cards to the player, three to the dealer, who qualifies with a queen high or better. Ante and Play
    1:1 against a qualifying dealer; a dealer who does not qualify pays the Ante and pushes the Play; a tie
    pushes both. Ante Bonus, Pair Plus and the 6 Card Bonus (the best five of all six cards) by their tables."""
    item = json.loads(line)
    cards = item["cards"]
    player, dealer = cards[:3], cards[3:6]
    p, d = _hand3(player), _hand3(dealer)
    qualifies = d[0] > 0 or d[1] >= 12
    winner = "player" if p > d else "dealer" if d > p else "tie"
    wins: list[dict] = []
    pushes: list[dict] = []
    if not qualifies:
        wins.append({"bet": "ante", "payout": 1})
        pushes.append({"bet": "play", "returned": 1})
    elif winner == "player":
        wins += [{"bet": "ante", "payout": 1}, {"bet": "play", "payout": 1}]
    elif winner == "tie":
        pushes += [{"bet": "ante", "returned": 1}, {"bet": "play", "returned": 1}]
    six = max(_category5(five) for five in combinations(cards, 5))
    for bet, pays in (
        ("ante_bonus", _ANTE_BONUS.get(p[0])),
        ("pair_plus", _PAIR_PLUS.get(p[0])),
        ("six_card_bonus", _SIX_CARD.get(six)),
    ):
        if pays is not None:
            wins.append({"bet": bet, "payout": pays})
    result = {
        "player_cards": player,
        "dealer_cards": dealer,
        "player_hand": _THREE_NAMES[p[0]],
        "dealer_hand": _THREE_NAMES[d[0]],
        "dealer_qualifies": qualifies,
        "winner": winner,
    }
    return _line(
        {
            "id": item["id"],
            "valid": True,
            "result": result,
            "outcome": {"winning_bets": wins, "pushed_bets": pushes},
        }
    )


# --- roulette (seed 000 L85-187) --------------------------------------------------------------------------

_RED = {1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36}
_ROULETTE_PAYOUT = {
    "straight": 35,
    "split": 17,
    "street": 11,
    "corner": 8,
    "five_bet": 6,
    "six_line": 5,
    "dozen": 2,
    "column": 2,
    "even_money": 1,
}


def _layout(zeros: list[str], zero_bets: list[tuple[str, list[str]]]) -> list[tuple[str, str, list[str]]]:
    """Every bet spot (id, type, numbers) in the order the outcome lists them: by type, then by the numbers'
    places on the layout (the zeros first, then 1..36); the even-money bets low, high, red, black, odd, even."""
    place = {p: i for i, p in enumerate(zeros + [str(n) for n in range(1, 37)])}
    by_type: dict[str, list[list[str]]] = {t: [] for t in _ROULETTE_PAYOUT}
    for z in zeros:
        by_type["straight"].append([z])
    for n in range(1, 37):
        by_type["straight"].append([str(n)])
        if n % 3:
            by_type["split"].append([str(n), str(n + 1)])
        if n <= 33:
            by_type["split"].append([str(n), str(n + 3)])
        if n % 3 and n <= 32:
            by_type["corner"].append([str(x) for x in (n, n + 1, n + 3, n + 4)])
        if n % 3 == 1:
            by_type["street"].append([str(x) for x in (n, n + 1, n + 2)])
            if n <= 31:
                by_type["six_line"].append([str(x) for x in range(n, n + 6)])
    for t, numbers in zero_bets:
        by_type[t].append(numbers)
    spots = []
    for t, groups in by_type.items():
        for numbers in sorted(groups, key=lambda ns: [place[x] for x in ns]):
            spots.append((f"{t}:" + "-".join(numbers), t, numbers))
    for i in range(3):
        spots.append((f"dozen:{i + 1}", "dozen", [str(n) for n in range(12 * i + 1, 12 * i + 13)]))
    for i in range(3):
        spots.append((f"column:{i + 1}", "column", [str(n) for n in range(i + 1, 37, 3)]))
    for name, wins in (
        ("low", lambda n: n <= 18),
        ("high", lambda n: n >= 19),
        ("red", lambda n: n in _RED),
        ("black", lambda n: n not in _RED),
        ("odd", lambda n: n % 2 == 1),
        ("even", lambda n: n % 2 == 0),
    ):
        spots.append((name, "even_money", [str(n) for n in range(1, 37) if wins(n)]))
    return spots


_EUROPEAN: list[tuple[str, str, list[str]]] = _layout(  # typed: bench/plain_others.py imports it
    ["0"],
    [
        ("split", ["0", "1"]),
        ("split", ["0", "2"]),
        ("split", ["0", "3"]),
        ("street", ["0", "1", "2"]),
        ("street", ["0", "2", "3"]),
        ("corner", ["0", "1", "2", "3"]),
    ],
)
_AMERICAN = _layout(
    ["0", "00"],
    [
        ("split", ["0", "00"]),
        ("split", ["0", "1"]),
        ("split", ["0", "2"]),
        ("split", ["00", "2"]),
        ("split", ["00", "3"]),
        ("street", ["0", "1", "2"]),
        ("street", ["0", "00", "2"]),
        ("street", ["00", "2", "3"]),
        ("five_bet", ["0", "00", "1", "2", "3"]),
    ],
)


def _roulette(
    spots: list[tuple[str, str, list[str]]], zeros: tuple[str, ...], la_partage: bool = False
) -> Plain:
    """la_partage: on a zero, half of each even-money stake comes back."""
    even_money = [(spot, t, numbers) for spot, t, numbers in spots if t == "even_money"]

    def evaluate(line: str) -> str:
        item = json.loads(line)
        number = item["number"]
        color = "green" if number in zeros else "red" if int(number) in _RED else "black"
        winning = [
            {"bet": spot, "type": t, "numbers": numbers, "payout": _ROULETTE_PAYOUT[t]}
            for spot, t, numbers in spots
            if number in numbers
        ]
        result = {"number": number, "color": color}
        outcome: dict = {"number": number, "color": color, "winning_bets": winning}
        if la_partage:
            outcome["half_back_bets"] = (
                [
                    {"bet": spot, "type": t, "numbers": numbers, "returned": "1/2"}
                    for spot, t, numbers in even_money
                ]
                if number in zeros
                else []
            )
        return _line({"id": item["id"], "valid": True, "result": result, "outcome": outcome})

    return evaluate


def _roulette_rounds(pockets: list[str]) -> Generator:
    def rounds(rng: random.Random, n: int) -> list[str]:
        return [json.dumps({"id": i, "number": rng.choice(pockets)}) + "\n" for i in range(n)]

    return rounds


european_roulette = _roulette(_EUROPEAN, ("0",))
american_roulette = _roulette(_AMERICAN, ("0", "00"))
la_partage_roulette = _roulette(_EUROPEAN, ("0",), la_partage=True)


# --- Sic Bo (the standard Atlantic City pay table) ---------------------------------------------------------

_SB_TOTAL = {
    4: 60,
    5: 30,
    6: 17,
    7: 12,
    8: 8,
    9: 6,
    10: 6,
    11: 6,
    12: 6,
    13: 8,
    14: 12,
    15: 17,
    16: 30,
    17: 60,
}


def sic_bo_rounds(rng: random.Random, rounds: int) -> list[str]:
    return [
        json.dumps({"id": i, "dice": [rng.randint(1, 6) for _ in range(3)]}) + "\n" for i in range(rounds)
    ]


def sic_bo(line: str) -> str:
    """Small 4-10 / big 11-17 and odd/even 1:1 (all lose on a triple), totals 4-17, single 1/2/3:1 as one,
    two or three dice show it, double 10:1, triple 180:1, any triple 30:1, a two-number combination 5:1."""
    item = json.loads(line)
    dice = sorted(item["dice"])
    total = sum(dice)
    triple = dice[0] == dice[2]
    wins = []
    if not triple:
        wins.append(
            {"bet": "small", "type": "small", "payout": 1}
            if total <= 10
            else {"bet": "big", "type": "big", "payout": 1}
        )
        wins.append(
            {"bet": "odd", "type": "odd", "payout": 1}
            if total % 2
            else {"bet": "even", "type": "even", "payout": 1}
        )
    if total in _SB_TOTAL:
        wins.append({"bet": f"total:{total}", "type": "total", "payout": _SB_TOTAL[total]})
    for n in range(1, 7):
        if dice.count(n):
            wins.append({"bet": f"single:{n}", "type": "single", "payout": dice.count(n)})
    for n in range(1, 7):
        if dice.count(n) >= 2:
            wins.append({"bet": f"double:{n}", "type": "double", "payout": 10})
    if triple:
        wins.append({"bet": f"triple:{dice[0]}", "type": "triple", "payout": 180})
        wins.append({"bet": "any_triple", "type": "any_triple", "payout": 30})
    for a, b in combinations(range(1, 7), 2):
        if a in dice and b in dice:
            wins.append({"bet": f"combination:{a}-{b}", "type": "combination", "payout": 5})
    return _line(
        {
            "id": item["id"],
            "valid": True,
            "result": {"dice": dice},
            "outcome": {"dice": dice, "total": total, "triple": triple, "winning_bets": wins},
        }
    )


# --- Bac Bo (the standard game: seed 000 L5 names it only) -------------------------------------------------

_BB_TIE = {2: 88, 3: 25, 4: 10, 5: 6, 6: 4, 7: 4, 8: 4, 9: 6, 10: 10, 11: 25, 12: 88}


def bac_bo_rounds(rng: random.Random, rounds: int) -> list[str]:
    return [
        json.dumps(
            {
                "id": i,
                "player": [rng.randint(1, 6), rng.randint(1, 6)],
                "banker": [rng.randint(1, 6), rng.randint(1, 6)],
            }
        )
        + "\n"
        for i in range(rounds)
    ]


def bac_bo(line: str) -> str:
    """Two dice a side, the higher total wins 1:1; a tie pays by its total and returns 9/10 of the Player and
    Banker stakes."""
    item = json.loads(line)
    player, banker = sorted(item["player"]), sorted(item["banker"])
    p, b = sum(player), sum(banker)
    outcome: dict = {"player": player, "banker": banker, "player_total": p, "banker_total": b}
    if p == b:
        outcome["winner"] = "tie"
        outcome["winning_bets"] = [{"bet": "tie", "type": "tie", "payout": _BB_TIE[p]}]
        outcome["returned_bets"] = [
            {"bet": "player", "type": "player", "returned": "9/10"},
            {"bet": "banker", "type": "banker", "returned": "9/10"},
        ]
    else:
        side = "player" if p > b else "banker"
        outcome["winner"] = side
        outcome["winning_bets"] = [{"bet": side, "type": side, "payout": 1}]
        outcome["returned_bets"] = []
    result = {"player": player, "banker": banker}
    return _line({"id": item["id"], "valid": True, "result": result, "outcome": outcome})


# --- Dream Catcher (seed 000 L1748-1769) -------------------------------------------------------------------

#: the default wheel of recognition/money_wheel (the seed gives the counts, not the order)
_DC_WHEEL = [
    "1",
    "2",
    "5",
    "1",
    "2",
    "1",
    "10",
    "1",
    "2",
    "20",
    "1",
    "5",
    "2",
    "1",
    "1",
    "2",
    "40",
    "1",
    "5",
    "2",
    "1",
    "10",
    "1",
    "2",
    "1",
    "2x",
    "1",
    "2",
    "5",
    "1",
    "2",
    "1",
    "7x",
    "10",
    "1",
    "2",
    "5",
    "1",
    "2",
    "1",
    "20",
    "1",
    "2",
    "1",
    "5",
    "2",
    "1",
    "10",
    "1",
    "2",
    "1",
    "5",
    "2",
    "1",
]
_DC_MULTIPLIER = {"2x": 2, "7x": 7}


def dream_catcher_rounds(rng: random.Random, rounds: int) -> list[str]:
    """Spins of the wheel, the multipliers of 2x and 7x carried to the next spin."""
    out: list[str] = []
    carried: list[int] = []
    for i in range(rounds):
        index = rng.randrange(len(_DC_WHEEL))
        out.append(
            json.dumps({"id": i, "segment": _DC_WHEEL[index], "index": index, "multipliers": carried}) + "\n"
        )
        label = _DC_WHEEL[index]
        carried = carried + [_DC_MULTIPLIER[label]] if label in _DC_MULTIPLIER else []
    return out


def dream_catcher(line: str) -> str:
    """A number pays its number to 1 times the multipliers carried; 2x and 7x: the bets stand, spin again."""
    item = json.loads(line)
    segment, index, carried = item["segment"], item.get("index"), item.get("multipliers", [])
    m = 1
    for x in carried:
        m *= x
    if segment in _DC_MULTIPLIER:
        following = carried + [_DC_MULTIPLIER[segment]]
        f = 1
        for x in following:
            f *= x
        settled = {
            "winning_bets": [],
            "respin": True,
            "bets_stand": True,
            "multiplier": f,
            "next_multipliers": following,
        }
    else:
        settled = {
            "winning_bets": [{"bet": segment, "type": "number", "payout": int(segment) * m}],
            "respin": False,
            "bets_stand": False,
            "multiplier": m,
            "next_multipliers": [],
        }
    result = {"segment": segment, "index": index, "multipliers": carried}
    return _line({"id": item["id"], "valid": True, "result": result, "outcome": {**result, **settled}})


# --- Lucky 5: 5 of 36 (seed 000 L2121-2316) ----------------------------------------------------------------

_L5_COLORS = ("white", "blue", "green", "red")  # ball n: the ((n - 1) mod 4)-th, as recognition's default
_L5_BLOCK = (
    ("at_least_1", lambda n: n >= 1),
    ("none", lambda n: n == 0),
    ("over_1.5", lambda n: n >= 2),
    ("under_1.5", lambda n: n <= 1),
    ("over_2.5", lambda n: n >= 3),
    ("under_2.5", lambda n: n <= 2),
    ("over_3.5", lambda n: n >= 4),
    ("5", lambda n: n == 5),
    ("exactly_1", lambda n: n == 1),
    ("not_exactly_1", lambda n: n != 1),
    ("exactly_2", lambda n: n == 2),
    ("not_exactly_2", lambda n: n != 2),
    ("exactly_3", lambda n: n == 3),
    ("not_exactly_3", lambda n: n != 3),
    ("exactly_4", lambda n: n == 4),
)


def lucky_5_rounds(rng: random.Random, rounds: int) -> list[str]:
    return [
        json.dumps({"id": i, "balls": [str(b) for b in rng.sample(range(1, 37), 5)]}) + "\n"
        for i in range(rounds)
    ]


def lucky_5(line: str) -> str:
    """The fixed bets of seed items 5-94 (item k on line 2127 + 2k): odd/even, the sum against 92.5, each
    colour's count, the same colour 3/4/5 times, two colours against the other two, one colour against another."""
    item = json.loads(line)
    balls = item["balls"]
    numbers = [int(b) for b in balls]
    colors = [_L5_COLORS[(n - 1) % 4] for n in numbers]
    count = {c: colors.count(c) for c in _L5_COLORS}
    total = sum(numbers)
    odd = sum(n % 2 for n in numbers)
    even = 5 - odd
    bets: list[tuple[int, str, bool]] = [
        (5, "more_odd", odd > even),
        (6, "more_even", even > odd),
        (7, "sum_odd", total % 2 == 1),
        (8, "sum_even", total % 2 == 0),
        (9, "sum_under_92.5", total < 92.5),
        (10, "sum_over_92.5", total > 92.5),
    ]
    for base, c in ((11, "white"), (26, "green"), (41, "red"), (56, "blue")):
        bets += [(base + i, f"{c}_{name}", test(count[c])) for i, (name, test) in enumerate(_L5_BLOCK)]
    most = max(count.values())
    bets += [
        (71, "same_color_3", most >= 3),
        (72, "same_color_4", most >= 4),
        (73, "same_color_5", most >= 5),
    ]
    for k, (a, b, x, y) in enumerate(
        (
            ("white", "green", "red", "blue"),
            ("white", "red", "green", "blue"),
            ("white", "blue", "green", "red"),
        )
    ):
        bets.append((74 + k, f"{a}_{b}_over_{x}_{y}", count[a] + count[b] > count[x] + count[y]))
    k = 77
    for a, b in combinations(("white", "green", "red", "blue"), 2):
        bets += [
            (k, f"more_{a}_than_{b}", count[a] > count[b]),
            (k + 1, f"more_{b}_than_{a}", count[b] > count[a]),
            (k + 2, f"equal_{a}_{b}", count[a] == count[b]),
        ]
        k += 3
    outcome = {
        "balls": balls,
        "colors": colors,
        "sum": total,
        "odd": odd,
        "even": even,
        "color_counts": count,
        "winning_bets": [{"bet": bet, "line": 2127 + 2 * k} for k, bet, won in bets if won],
    }
    return _line({"id": item["id"], "valid": True, "result": {"balls": balls}, "outcome": outcome})


# --- Keno Express: one ball of 1-100 (seed 000 L2099-2120) -------------------------------------------------


def keno_express_rounds(rng: random.Random, rounds: int) -> list[str]:
    return [json.dumps({"id": i, "balls": [str(rng.randint(1, 100))]}) + "\n" for i in range(rounds)]


def keno_express(line: str) -> str:
    """Every bet of Keno Express is on the player's own number or range: the outcome is the draw."""
    item = json.loads(line)
    balls = item["balls"]
    outcome = {"balls": balls, "number": int(balls[0])}
    return _line({"id": item["id"], "valid": True, "result": {"balls": balls}, "outcome": outcome})


# --- Bingo 37 / Bingo 38: one ball of 1-37 / 1-38 (seed 000 L4585-4639) --------------------------------------


def _bingo_rounds(size: int) -> Generator:
    def rounds(rng: random.Random, n: int) -> list[str]:
        return [json.dumps({"id": i, "balls": [str(rng.randint(1, size))]}) + "\n" for i in range(n)]

    return rounds


def _bingo(first_line: int) -> Plain:
    """Rows I-III (1, 4, .. 34; 2, 5, .. 35; 3, 6, .. 36), dozens, 1-18 and 19-36: 37 and 38 win none."""

    def evaluate(line: str) -> str:
        item = json.loads(line)
        balls = item["balls"]
        n = int(balls[0])
        wins = []
        if n <= 36:
            wins.append({"bet": f"row_{(n - 1) % 3 + 1}", "line": first_line + 10})
            wins.append({"bet": f"dozen_{(n - 1) // 12 + 1}", "line": first_line + 12})
            wins.append(
                {"bet": "range_1_18", "line": first_line + 14}
                if n <= 18
                else {"bet": "range_19_36", "line": first_line + 16}
            )
        outcome = {"balls": balls, "number": n, "winning_bets": wins}
        return _line({"id": item["id"], "valid": True, "result": {"balls": balls}, "outcome": outcome})

    return evaluate


GAMES: dict[str, tuple[Generator, Plain]] = {
    "dragon_tiger": (dragon_tiger_rounds, dragon_tiger),
    "kricket_war": (dragon_tiger_rounds, dragon_tiger),  # one rule set for both (seed 000 L1795)
    "football_studio": (dragon_tiger_rounds, football_studio),
    "war_of_bets": (dragon_tiger_rounds, war_of_bets),
    "baccarat": (baccarat_rounds, baccarat),
    "no_commission_baccarat": (baccarat_rounds, no_commission_baccarat),
    "three_card_poker": (three_card_poker_rounds, three_card_poker),
    "teen_patti": (three_card_poker_rounds, three_card_poker),  # played under the Three Card Poker rules
    "european_roulette": (_roulette_rounds(["0"] + [str(n) for n in range(1, 37)]), european_roulette),
    "american_roulette": (_roulette_rounds(["0", "00"] + [str(n) for n in range(1, 37)]), american_roulette),
    "la_partage_roulette": (_roulette_rounds(["0"] + [str(n) for n in range(1, 37)]), la_partage_roulette),
    "sic_bo": (sic_bo_rounds, sic_bo),
    "super_sic_bo": (
        sic_bo_rounds,
        sic_bo,
    ),  # the same game under other names (recognition/dice_games/sic_bo.py)
    "mega_sic_bo": (sic_bo_rounds, sic_bo),
    "bac_bo": (bac_bo_rounds, bac_bo),
    "dream_catcher": (dream_catcher_rounds, dream_catcher),
    "lucky_5": (lucky_5_rounds, lucky_5),
    "keno_express": (keno_express_rounds, keno_express),
    "bingo_37": (_bingo_rounds(37), _bingo(4593)),
    "bingo_38": (_bingo_rounds(38), _bingo(4621)),
}

from bench.plain_cards import GAMES as _CARDS

GAMES.update(_CARDS)  # every other card game

# the games not dealt from a shoe (roulette variants, dice, wheels, balls): bench/plain_others.py
from bench.plain_others import GAMES as _OTHERS

GAMES.update(_OTHERS)

# the game shows (Deal or No Deal, Mega Ball, Cash or Crash, Crazy Time, Monopoly Live) and poker with joker
from bench.plain_shows import GAMES as _SHOWS

GAMES.update(_SHOWS)

# the seven blackjack games
from bench.plain_blackjack import GAMES as _BLACKJACK

GAMES.update(_BLACKJACK)
