"""The house-edge benchmark's basic-strategy charts and its round driver (bench/blackjack_house_edge.py).

Small and fast: the charts cover every hand the deal can ask about against every up card, agree with an
infinite-deck expected-value calculation of the same rules, and a few hundred rounds dealt through the deal
script and settled by the game's own `evaluate` give the same net as an independent settlement.
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.blackjack_house_edge import (
    CHARTS,
    UPS,
    BasicStrategy,
    check_chart,
    infinite_deck_edge,
    published,
    simulate,
)
from recognition.blackjack.engine import value
from recognition.blackjack.games import GAMES

CODES = {"S", "H", "D", "Ds", "P", "Rh", "Rs", "Rp"}


@pytest.mark.parametrize("game_id", sorted(CHARTS))
def test_chart_has_every_row_and_column(game_id):
    chart = CHARTS[game_id]
    assert set(chart["hard"]) == set(range(4, 21))
    assert set(chart["soft"]) == set(range(12, 21))
    assert set(chart["pairs"]) == set("A23456789T")
    for rows in chart.values():
        for row in rows.values():
            assert len(row.split()) == len(UPS) and set(row.split()) <= CODES


@pytest.mark.parametrize("game_id", sorted(CHARTS))
def test_every_hand_against_every_up_card_gets_an_allowed_action(game_id):
    """Every 2- to 4-card hand below 21 (so every hard 4-20, soft 12-20 and pair), against every up card,
    under every set of offered actions the deal can make, is answered with an offered action."""
    player = BasicStrategy(CHARTS[game_id])
    ranks = "A23456789T"
    offers = [
        ("stand", "hit"),
        ("stand", "hit", "double"),
        ("stand", "hit", "double", "surrender"),
        ("stand", "hit", "double", "split"),
        ("stand", "hit", "double", "split", "surrender"),
        ("stand", "hit", "split"),
    ]
    seen = set()
    for n in (2, 3, 4):
        for combo in itertools.combinations_with_replacement(ranks, n):
            cards = [c + "S" for c in combo]
            total, soft = value(cards)
            if total >= 21:
                continue
            seen.add((soft, total))  # a pair that may not be split is played by its total
            if n == 2 and combo[0] == combo[1]:
                seen.add(("pair", combo[0]))
            for up in UPS:
                for offer in offers:
                    if "split" in offer and not (n == 2 and combo[0] == combo[1]):
                        continue
                    if n > 2 and ("double" in offer or "surrender" in offer):
                        continue
                    assert player.decide(cards, up + "H", offer) in offer
    assert {k for k in seen if k[0] is False} == {(False, t) for t in range(4, 21)}
    assert {k for k in seen if k[0] is True} == {(True, t) for t in range(12, 21)}
    assert {k for k in seen if k[0] == "pair"} == {("pair", r) for r in "A23456789T"}


@pytest.mark.parametrize("game_id", sorted(CHARTS))
def test_chart_agrees_with_the_infinite_deck_calculation(game_id):
    # 8 decks and an infinite deck order a few near-ties differently (soft 13 v 5: 0.7% of a bet); a real
    # chart error (e.g. doubling 11 v T without a hole card, surrendering 2,2 v A) costs more than 1%
    assert check_chart(GAMES[game_id], tol=0.01) == []


def test_a_wrong_chart_cell_is_caught():
    chart = {k: dict(v) for k, v in CHARTS["blackjack"].items()}
    chart["hard"] = {**chart["hard"], 11: "D  D  D  D  D  D  D  D  D  D"}  # doubling 11 v T and A under ENHC
    bad = check_chart(GAMES["blackjack"], chart, tol=0.01)
    assert any(line.startswith("hard 11 v T") for line in bad) and any(
        line.startswith("hard 11 v A") for line in bad
    )


def test_infinite_deck_edges_are_near_the_published_figures():
    # the infinite deck without re-splits is a little worse for the player than the published 8-deck figures
    for game_id in CHARTS:
        fig = published(game_id, GAMES[game_id].rules)[-1][0] / 100
        assert 0 <= infinite_deck_edge(GAMES[game_id]) - fig < 0.0025, game_id


@pytest.mark.parametrize("game_id,seats", [("blackjack", 1), ("blackjack", 7), ("live_blackjack", 3)])
def test_rounds_settle_through_evaluate(game_id, seats):
    st = simulate(GAMES[game_id], 300 // seats, seed=7, seats=seats)
    assert st.rounds == 300 // seats and st.bets == st.rounds * seats
    assert st.mismatches == 0, st.first_mismatch
    assert st.dealer_errors == 0, st.first_dealer_error
    assert st.hands >= st.bets and st.doubles > 0
    if game_id == "blackjack":
        assert st.surrenders > 0
    edge, half = st.edge()
    assert half > 0 and abs(edge) < 0.5
