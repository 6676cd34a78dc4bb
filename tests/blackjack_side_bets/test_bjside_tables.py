"""Blackjack side bets (recognition/blackjack/side_bets.py): every ordered deal of the player's two cards and
the dealer's up card from an 8-deck shoe against an independent classification, the exact combination counts
and house edges against published figures, Bust It over every dealer hand."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import product

import pytest

from recognition.blackjack import side_bets as sb
from recognition.cards.cards import STANDARD_52, is_red
from recognition.cards.poker import (
    T_FLUSH,
    T_MINI_ROYAL,
    T_STRAIGHT,
    T_STRAIGHT_FLUSH,
    T_THREE_OF_A_KIND,
    rank3,
)

FIRST_THREE = ("perfect_pairs", "twenty_one_plus_three", "suit_em_up", "lucky_lucky")
TEN = set("TJQK")


# --- an independent reading of seed 000 L235-272 ------------------------------------------------------------


def oracle_perfect_pairs(a, b):
    if a[0] != b[0]:
        return None
    if a == b:
        return "perfect_pair"
    return "coloured_pair" if is_red(a) == is_red(b) else "mixed_pair"


def oracle_21_3(a, b, c):
    v = rank3([a, b, c])[0]
    suited = a[1] == b[1] == c[1]
    if v == T_THREE_OF_A_KIND:
        return "suited_trips" if suited else "three_of_a_kind"
    return {
        T_MINI_ROYAL: "straight_flush",
        T_STRAIGHT_FLUSH: "straight_flush",
        T_STRAIGHT: "straight",
        T_FLUSH: "flush",
    }.get(v)


def points(rank):
    return 10 if rank in TEN else 1 if rank == "A" else int(rank)


def oracle_suit_em_up(a, b):
    if a[1] != b[1]:
        return None
    ranks = {a[0], b[0]}
    if ranks == {"A"}:
        return "suited_aces"
    if "A" in ranks and ranks & TEN:
        return "suited_blackjack"
    if a[0] == b[0]:
        return "suited_pair"
    if points(a[0]) + points(b[0]) == 11:
        return "suited_eleven"
    return "suited"


def best_total(cards):
    totals = {0}
    for c in cards:
        totals = {t + v for t in totals for v in ((1, 11) if c[0] == "A" else (points(c[0]),))}
    good = [t for t in totals if t <= 21]
    return max(good) if good else min(totals)


def oracle_lucky_lucky(a, b, c):
    suited = a[1] == b[1] == c[1]
    ranks = Counter(x[0] for x in (a, b, c))
    if ranks == Counter("777"):
        return "suited_777" if suited else "any_777"
    if ranks == Counter("678"):
        return "suited_678" if suited else "any_678"
    t = best_total((a, b, c))
    if t == 21:
        return "suited_21" if suited else "any_21"
    return {20: "any_20", 19: "any_19"}.get(t)


ORACLE = {
    "perfect_pairs": lambda a, b, c: oracle_perfect_pairs(a, b),
    "twenty_one_plus_three": oracle_21_3,
    "suit_em_up": lambda a, b, c: oracle_suit_em_up(a, b),
    "lucky_lucky": oracle_lucky_lucky,
}


def test_every_first_three_cards_of_an_8_deck_shoe():
    """Every ordered (card, card, up card) deal by rank/suit class, weighted by the 8-deck composition: the first
    card a spade (the suit permutations (S C), (S H)(C D), (S D)(C H) keep colours apart and map the spades onto
    every suit, so each class stands for 4 deals), the two others any of the 52 cards. The settlement agrees
    with the oracle on every one, and the weighted counts agree with first_three_counts."""
    weights: dict[str, Counter] = {bet: Counter() for bet in FIRST_THREE}
    spades = [c for c in STANDARD_52 if c[1] == "S"]
    for a, b, c in product(spades, STANDARD_52, STANDARD_52):
        w = 4 * 8 * (8 - (a == b)) * (8 - (c == a) - (c == b))
        got = {x["bet"]: x for x in sb.settle_side_bets([a, b], [c], c, FIRST_THREE)}
        for bet in FIRST_THREE:
            want = ORACLE[bet](a, b, c)
            if want is None:
                assert bet not in got, (a, b, c, got[bet])
            else:
                assert got[bet] == {"bet": bet, "payout": sb.PAY_TABLES[bet][want], "hand": want}, (a, b, c)
            weights[bet][want] += w
    for bet in FIRST_THREE:
        assert dict(weights[bet]) == sb.first_three_counts(bet, 8)
        assert sum(weights[bet].values()) == 416 * 415 * 414


def unordered(counts, cards_used):
    """Ordered 3-card weights -> unordered combinations of the cards a bet uses (2 or 3)."""
    n = {2: None, 3: 6}[cards_used]
    return {k: v // n for k, v in counts.items()} if n else counts


def test_combination_counts_match_the_published_six_deck_tables():
    """Wizard of Odds' six-deck return tables (21+3 version 3, Lucky Lucky pay table 1, Suit'em Up): the
    number of combinations of each line (unordered three cards, or two cards)."""
    c = {k: v // 6 for k, v in sb.first_three_counts("twenty_one_plus_three", 6).items()}
    assert c["suited_trips"] == 1040 and c["straight_flush"] == 10368 and c["three_of_a_kind"] == 25272
    assert c["straight"] == 155520 and c["flush"] == 292896 and sum(c.values()) == 5013320
    c = {k: v // 6 for k, v in sb.first_three_counts("lucky_lucky", 6).items()}
    assert (c["suited_777"], c["suited_678"], c["any_777"], c["any_678"]) == (80, 864, 1944, 12960)
    assert (c["suited_21"], c["any_21"], c["any_20"]) == (26568, 406296, 377568)
    third = 312 - 2  # the up card does not matter for a two-card bet
    c = {k: v // (2 * third) for k, v in sb.first_three_counts("suit_em_up", 6).items()}
    assert (c["suited_aces"], c["suited_blackjack"], c["suited_pair"], c["suited_eleven"], c["suited"]) == (
        60,
        576,
        720,
        576,
        10080,
    )
    assert c[None] == 36504


@pytest.mark.parametrize(
    "bet,decks,published",
    [
        ("perfect_pairs", 8, "4.10"),  # Evolution RTP 95.90% (seed 004 L229)
        ("twenty_one_plus_three", 8, "3.70"),  # Evolution RTP 96.30% (seed 004 L230)
        ("suit_em_up", 6, "3.41"),  # Wizard of Odds, pay table 1, six decks
        ("suit_em_up", 2, "9.41"),  # Wizard of Odds, pay table 1, two decks
        ("lucky_lucky", 6, "2.66"),  # Wizard of Odds, pay table 1, six decks
    ],
)
def test_house_edge_matches_the_published_figure(bet, decks, published):
    edge = sb.house_edge_first_three(bet, decks)
    assert f"{float(edge) * 100:.2f}" == published


def test_eight_deck_house_edges_are_exact_fractions():
    got = {bet: sb.house_edge_first_three(bet, 8) for bet in FIRST_THREE}
    assert all(isinstance(e, Fraction) for e in got.values())
    assert {b: f"{float(e) * 100:.3f}" for b, e in got.items()} == {
        "perfect_pairs": "4.096",
        "twenty_one_plus_three": "3.704",
        "suit_em_up": "2.669",
        "lucky_lucky": "2.619",
    }


# --- Bust It ---------------------------------------------------------------------------------------------------

RANK_OF = {1: "A", 2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9", 10: "T"}


def dealer_hands(hit_soft_17=False):
    """Every dealer hand by card value (S17 or H17), as value sequences."""
    out = []

    def walk(seq):
        hard = sum(seq)
        soft = 1 in seq and hard + 10 <= 21
        total = hard + 10 if soft else hard
        if hard > 21 or (len(seq) >= 2 and (total > 17 or (total == 17 and not (soft and hit_soft_17)))):
            out.append(tuple(seq))
            return
        for v in range(1, 11):
            if seq.count(v) < (32 if v == 10 else 8):
                walk(seq + [v])

    walk([])
    return out


def test_bust_it_over_every_dealer_hand():
    hands = dealer_hands()
    assert len(hands) > 40000
    seen = Counter()
    for seq in hands:
        suits = "SHDC"
        cards = [RANK_OF[v] + suits[i % 4] for i, v in enumerate(seq)]
        got = sb.settle_side_bets(["2S", "3H"], cards, cards[0], ("bust_it",))
        if sum(seq) > 21:
            n = len(seq)
            line = "bust_8_or_more_cards" if n >= 8 else f"bust_{n}_cards"
            assert got == [{"bet": "bust_it", "payout": sb.BUST_IT[line], "hand": line}]
            seen[line] += 1
        else:
            assert got == []
    assert set(seen) == set(sb.BUST_IT)


def test_bust_it_table_and_house_edge():
    assert sb.BUST_IT == {
        "bust_8_or_more_cards": 250,
        "bust_7_cards": 100,
        "bust_6_cards": 50,
        "bust_5_cards": 9,
        "bust_4_cards": 2,
        "bust_3_cards": 1,
    }
    # Evolution's Bust It (the standard table, the bet returned on a player blackjack), eight decks, the dealer
    # standing on soft 17: RTP 94.12% (seed 004 L390)
    edge = sb.bust_it_house_edge(8, hit_soft_17=False, player_blackjack="push")
    assert f"{100 - float(edge) * 100:.2f}" == "94.12"
    assert f"{float(sb.bust_it_house_edge(8)) * 100:.2f}" == "6.18"
    # seed 000's rows as written (3 or 4 cards 2:1) would give the player an 11.1% edge
    assert f"{float(sb.bust_it_house_edge(8, table=sb.BUST_IT_AS_WRITTEN)) * 100:.2f}" == "-11.12"
    dist = sb.dealer_bust_distribution(8)
    assert min(dist) == 3
    assert f"{float(sum(dist.values())) * 100:.2f}" == "28.18"


def test_bust_it_player_blackjack():
    dealer = ["6S", "TH", "9C"]
    assert sb.settle_side_bets(["AS", "KD"], dealer, "6S", ("bust_it",)) == [
        {"bet": "bust_it", "returned": 1, "hand": "player_blackjack"}
    ]
    play = sb.SideBetRules(bust_it_player_blackjack="play")
    assert sb.settle_side_bets(["AS", "KD"], dealer, "6S", ("bust_it",), rules=play) == [
        {"bet": "bust_it", "payout": 1, "hand": "bust_3_cards"}
    ]
    # a blackjack and a dealer who does not bust: still returned (the push does not depend on the dealer)
    assert sb.settle_side_bets(["AS", "KD"], ["6S", "TH"], "6S", ("bust_it",))[0]["returned"] == 1


# --- examples from the seed, settlement order, bets offered, refusals ------------------------------------------


def test_seed_examples():
    def one(player, dealer, bet):
        got = sb.settle_side_bets(player, dealer, dealer[0], (bet,))
        return got[0]["hand"], got[0]["payout"]

    assert one(["8H", "8H"], ["2C"], "perfect_pairs") == ("perfect_pair", 25)  # L238
    assert one(["7H", "7D"], ["2C"], "perfect_pairs") == ("coloured_pair", 12)  # L239
    assert one(["TH", "TC"], ["2C"], "perfect_pairs") == ("mixed_pair", 6)  # L240
    assert sb.settle_side_bets(["TH", "KH"], ["2C"], "2C", ("perfect_pairs",)) == []  # not the same value
    assert one(["6H", "6H"], ["6H"], "twenty_one_plus_three") == ("suited_trips", 100)  # L245
    assert one(["TD", "9D"], ["8D"], "twenty_one_plus_three") == ("straight_flush", 40)  # L246
    assert one(["KC", "KH"], ["KS"], "twenty_one_plus_three") == ("three_of_a_kind", 30)  # L247
    assert one(["TC", "9S"], ["8D"], "twenty_one_plus_three") == ("straight", 10)  # L248
    assert one(["AH", "2H"], ["7H"], "twenty_one_plus_three") == ("flush", 5)  # L249 ("T" = ace)
    assert one(["QS", "KH"], ["AD"], "twenty_one_plus_three") == ("straight", 10)  # ace high
    assert one(["AS", "2H"], ["3D"], "twenty_one_plus_three") == ("straight", 10)  # ace low
    assert sb.settle_side_bets(["KS", "AH"], ["2D"], "2D", ("twenty_one_plus_three",)) == []  # no wrap
    assert one(["AC", "AC"], ["2D"], "suit_em_up") == ("suited_aces", 60)  # L256
    assert one(["AC", "QC"], ["2D"], "suit_em_up") == ("suited_blackjack", 10)  # L257
    assert one(["TS", "TS"], ["2D"], "suit_em_up") == ("suited_pair", 5)  # L258
    assert one(["5D", "6D"], ["2D"], "suit_em_up") == ("suited_eleven", 3)  # L259
    assert one(["8H", "6H"], ["2D"], "suit_em_up") == ("suited", 2)  # L260
    assert one(["7S", "7S"], ["7S"], "lucky_lucky") == ("suited_777", 200)  # L265
    assert one(["6S", "7S"], ["8S"], "lucky_lucky") == ("suited_678", 100)  # L266
    assert one(["7H", "7D"], ["7S"], "lucky_lucky") == ("any_777", 50)  # L267
    assert one(["6H", "7D"], ["8S"], "lucky_lucky") == ("any_678", 30)  # L268
    assert one(["AH", "KH"], ["TH"], "lucky_lucky") == ("suited_21", 15)  # L269
    assert one(["AH", "AD"], ["9S"], "lucky_lucky") == ("any_21", 3)  # ace 11 + 1 + 9
    assert one(["AH", "9D"], ["KS"], "lucky_lucky") == ("any_20", 2)  # the ace counts 1
    assert one(["9H", "5D"], ["5S"], "lucky_lucky") == ("any_19", 2)
    assert sb.settle_side_bets(["9H", "KD"], ["QS"], "QS", ("lucky_lucky",)) == []  # 29


def test_all_bets_in_order_and_offered_bets():
    got = sb.settle_side_bets(["7S", "7S"], ["7S", "6H", "TD"], "7S")
    assert [x["bet"] for x in got] == [
        "perfect_pairs",
        "twenty_one_plus_three",
        "suit_em_up",
        "lucky_lucky",
        "bust_it",
    ]
    assert [x["payout"] for x in got] == [25, 100, 5, 200, 1]
    assert all(isinstance(x["payout"], int) for x in got)
    only = sb.settle_side_bets(["7S", "7S"], ["7S", "6H", "TD"], "7S", ("lucky_lucky", "perfect_pairs"))
    assert [x["bet"] for x in only] == ["perfect_pairs", "lucky_lucky"]
    assert sb.settle_side_bets(["7S", "7S"], ["7S", "6H", "TD"], "7S", ()) == []
    # only the first two player cards count
    assert (
        sb.settle_side_bets(["8H", "8H", "5C"], ["2C"], "2C", ("perfect_pairs",))[0]["hand"] == "perfect_pair"
    )


def test_pay_tables_are_data_without_floats():
    assert set(sb.PAY_TABLES) == set(sb.SIDE_BETS) == set(sb.BET_CARDS)
    for table in sb.PAY_TABLES.values():
        assert all(type(v) is int and v > 0 for v in table.values())
    assert list(sb.PERFECT_PAIRS.values()) == [25, 12, 6]
    assert list(sb.TWENTY_ONE_PLUS_THREE.values()) == [100, 40, 30, 10, 5]
    assert list(sb.SUIT_EM_UP.values()) == [60, 10, 5, 3, 2]
    assert list(sb.LUCKY_LUCKY.values()) == [200, 100, 50, 30, 15, 3, 2, 2]


def test_operator_pay_table():
    rules = sb.SideBetRules(
        pay_tables={"perfect_pairs": {"perfect_pair": 30, "coloured_pair": "21/2", "mixed_pair": 5}}
    )
    got = sb.settle_side_bets(["7H", "7D"], ["2C"], "2C", ("perfect_pairs",), rules=rules)
    assert got == [{"bet": "perfect_pairs", "payout": "21/2", "hand": "coloured_pair"}]
    with pytest.raises(ValueError):
        sb.SideBetRules(pay_tables={"perfect_pairs": {"perfect_pair": 2.5}})
    with pytest.raises(ValueError):
        sb.SideBetRules(pay_tables={"nope": {}})
    with pytest.raises(ValueError):
        sb.SideBetRules(bust_it_player_blackjack="maybe")


@pytest.mark.parametrize(
    "args,message",
    [
        ((["8H"], ["2C"], "2C"), "first two cards"),
        ((["8H", "10H"], ["2C"], "2C"), "write 'TH'"),
        ((["8H", "JK"], ["2C"], "2C"), "not a card of a blackjack shoe"),
        ((["8H", "8D"], ["2C"], "3C"), "dealer's first card is 2C"),
        ((["8H", "8D"], ["2C"], "2C", ("side_bet_city",)), "unknown side bet"),
        ((["8H", "8D"], ["2C"], "2C", "perfect_pairs"), "tuple of side bet ids"),
        ((["8H", "8D"], ["2C"], "2C", ("bust_it",)), "dealer's final hand"),
    ],
)
def test_refusals(args, message):
    with pytest.raises(ValueError, match=message):
        sb.settle_side_bets(*args)
