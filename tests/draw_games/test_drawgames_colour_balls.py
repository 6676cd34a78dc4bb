"""Cash or Crash (coloured balls) and Fruitrace (symbol balls) against hand-checked draws."""

from __future__ import annotations

from collections import Counter

import pytest
from drawgames_helpers import winners

from recognition.draw_games import GAMES, Fruitrace

CASH = GAMES["cash_or_crash"]
ODDS = {"1": "1.1", "2": "1.3", "3": "1.6", "4": 2, "20": 1000}

# green, green, golden (shield), red (shield used), green, red: levels 1, 2, 3, 3, 4, crash at 4
CRASH_DRAW = {"balls": ["green", "green", "golden", "red", "green", "red"]}


def test_cash_or_crash_hand_checked_draw():
    outcome = CASH.outcome(CRASH_DRAW)
    assert outcome["levels"] == [1, 2, 3, 3, 4, 4]
    assert (outcome["final_level"], outcome["end"], outcome["shield_used_at"]) == (4, "crash", 4)
    assert outcome["colors"] == ["green", "green", "golden", "red", "green", "red"]
    assert "winning_bets" not in outcome  # every bet settles on the player's own decisions


@pytest.mark.parametrize(
    ("decisions", "expected"),
    [
        ({}, 0),  # rode to the crash
        ({"take_all_after": 5}, 200),  # level 4, odds 2
        ({"take_all_after": 1}, 110),  # level 1, odds 1.1
        ({"take_half_after": 2}, 65),  # 50 at 1.3, the other 50 crashed
        ({"take_half_after": 2, "take_all_after": 5}, 165),  # 50 at 1.3 + 50 at 2
    ],
)
def test_cash_or_crash_decisions(decisions, expected):
    out = CASH.settle({"market": "blimp", "stake": 100, "odds": ODDS, **decisions}, CRASH_DRAW)
    assert out["return"] == expected and out["won"] is (expected > 0) and out["end"] == "crash"


def test_cash_or_crash_decisions_follow_green_balls_only():
    bet = {"market": "blimp", "stake": 100, "odds": ODDS}
    for decisions, words in (
        ({"take_all_after": 3}, "ball 3 is golden"),
        ({"take_all_after": 4}, "ball 4 is red"),
        ({"take_all_after": 7}, "position \\(1..6\\)"),
        ({"take_half_after": 5, "take_all_after": 2}, "must come after"),
        ({"take_all_after": True}, "position"),
    ):
        with pytest.raises(ValueError, match=words):
            CASH.settle({**bet, **decisions}, CRASH_DRAW)
    with pytest.raises(ValueError, match="no entry for level 3"):  # levels 1, 2, 3, 3 (shield used), crash
        CASH.settle(
            {**bet, "odds": {"1": 2}, "take_all_after": 3},
            {"balls": ["green", "golden", "green", "red", "red"]},
        )


def test_cash_or_crash_reaching_the_top():
    top = {"balls": ["golden", "red"] + ["green"] * 19}  # the shield takes the red; 19 greens reach level 20
    outcome = CASH.outcome(top)
    assert (outcome["final_level"], outcome["end"], outcome["shield_used_at"]) == (20, "top", 2)
    assert len(top["balls"]) == CASH.draw_count == 21
    out = CASH.settle({"market": "blimp", "stake": 100, "odds": ODDS}, top)
    assert out["return"] == 100000 and out["cashed"] == [{"after_ball": 21, "level": 20, "part": "top"}]
    plain = {"balls": ["green"] * 19 + ["golden"]}
    assert CASH.outcome(plain)["end"] == "top" and CASH.draw_complete(plain["balls"])
    assert not CASH.draw_complete(plain["balls"][:19])


def test_cash_or_crash_validation():
    assert CASH.outcome({"balls": ["red"]})["end"] == "crash"
    assert CASH.outcome({"balls": ["golden", "red", "red"]})["levels"] == [1, 1, 1]
    with pytest.raises(ValueError, match="ball 2 \\('green'\\) came after the draw was complete"):
        CASH.validate_result({"balls": ["red", "green"]})
    with pytest.raises(ValueError, match="incomplete: after 2 ball\\(s\\) the blimp is at level 2"):
        CASH.validate_result({"balls": ["green", "green"]})
    with pytest.raises(ValueError, match="the set has one ball 'golden'"):
        CASH.validate_result({"balls": ["golden", "golden", "red"]})
    with pytest.raises(ValueError, match="9 balls 'red', but the set has only 8"):
        CASH.validate_result({"balls": ["golden"] + ["red"] * 9})
    with pytest.raises(ValueError, match="write 'green'"):
        CASH.validate_result({"balls": ["Green", "red"]})
    with pytest.raises(ValueError, match="'gold' is not a ball of Cash or Crash"):
        CASH.validate_result({"balls": ["gold", "red"]})


# --- Fruitrace ------------------------------------------------------------------------------------------------------
# Default panel, next to the balls in draw order: plum plum plum cherry cherry cherry lemon lemon lemon 7

FRUIT = GAMES["fruitrace"]
FRUIT_ODDS = {
    "seven_only": 2,
    "matches_4": 3,
    "matches_5": 8,
    "matches_6": 30,
    "matches_7": 150,
    "matches_8": 800,
    "matches_10": 50000,
}


@pytest.mark.parametrize(
    ("balls", "matches", "seven", "category"),
    [
        ("plum plum plum cherry cherry cherry lemon lemon lemon 7", 10, True, "matches_10"),
        ("plum plum cherry plum cherry cherry lemon lemon lemon 7", 8, True, "matches_8"),
        (
            "plum cherry lemon plum cherry lemon plum cherry lemon 7",
            4,
            True,
            "matches_4",
        ),  # the 7 and 3 fruits (L2911)
        ("cherry cherry cherry lemon lemon lemon plum plum plum 7", 1, True, "seven_only"),
        (
            "plum cherry lemon cherry lemon lemon plum plum cherry 7",
            3,
            True,
            None,
        ),  # the 7 and 2 fruits: no win
        ("plum plum plum cherry 7 lemon lemon lemon cherry cherry", 6, False, "matches_6"),
        ("7 cherry cherry plum plum plum lemon lemon lemon cherry", 3, False, None),
    ],
)
def test_fruitrace_hand_checked_draws(balls, matches, seven, category):
    draw = {"balls": balls.split()}
    outcome = FRUIT.outcome(draw)
    assert (outcome["matches"], outcome["seven_matched"], outcome["category"]) == (matches, seven, category)
    assert winners(outcome) == ({category} if category else set())
    out = FRUIT.settle({"market": "fruitrace", "stake": 10, "odds": FRUIT_ODDS}, draw)
    assert out["return"] == (10 * FRUIT_ODDS[category] if category else 0)


def orders(left: Counter, n: int):
    """Every distinct order of a multiset of balls."""
    if n == 0:
        yield ()
        return
    for ball in sorted(b for b, k in left.items() if k):
        left[ball] -= 1
        for rest in orders(left, n - 1):
            yield (ball,) + rest
        left[ball] += 1


def test_fruitrace_every_arrangement():
    """All 16 800 orders of the ten balls: 9 matches never happens, 10 once, and the categories add up."""
    reference: Counter[str | None] = Counter()
    panel = ["plum", "plum", "plum", "cherry", "cherry", "cherry", "lemon", "lemon", "lemon", "7"]
    seen = list(orders(Counter(panel), 10))
    assert len(set(seen)) == len(seen)
    for balls in seen:
        same = [b == p for b, p in zip(balls, panel)]
        n = sum(same)
        reference[f"matches_{n}" if n >= 4 else "seven_only" if n == 1 and same[9] else None] += 1
    assert len(seen) == 16800
    got = Counter(FRUIT.outcome({"balls": list(b)})["category"] for b in seen)
    assert got == reference
    assert got["matches_10"] == 1 and got["matches_9"] == 0


def test_fruitrace_panel_is_configurable_and_checked():
    seven_on_top = Fruitrace(
        panel=["7", "plum", "plum", "plum", "cherry", "cherry", "cherry", "lemon", "lemon", "lemon"]
    )
    outcome = seven_on_top.outcome(
        {"balls": ["7", "plum", "plum", "plum", "cherry", "cherry", "cherry", "lemon", "lemon", "lemon"]}
    )
    assert outcome["category"] == "matches_10"
    with pytest.raises(ValueError, match="three plums"):
        Fruitrace(panel=["7", "7", "plum", "plum", "cherry", "cherry", "cherry", "lemon", "lemon", "lemon"])


def test_fruitrace_validation():
    with pytest.raises(ValueError, match="ball 10: 4 balls 'plum', but the set has only 3"):
        FRUIT.validate_result(
            {
                "balls": [
                    "plum",
                    "plum",
                    "plum",
                    "cherry",
                    "cherry",
                    "cherry",
                    "lemon",
                    "lemon",
                    "lemon",
                    "plum",
                ]
            }
        )
    with pytest.raises(ValueError, match="draws 10 balls, got 9: the draw is incomplete"):
        FRUIT.validate_result(
            {"balls": ["plum", "plum", "plum", "cherry", "cherry", "cherry", "lemon", "lemon", "lemon"]}
        )
    with pytest.raises(ValueError, match="'banana' is not a ball of Fruitrace"):
        FRUIT.validate_result({"balls": ["banana"]})
    assert (
        FRUIT.validate_result({"balls": ["7"] + ["plum"] * 3 + ["cherry"] * 3 + ["lemon"] * 3})["balls"][0]
        == "7"
    )
    assert (
        FRUIT.validate_result({"balls": [7] + ["plum"] * 3 + ["cherry"] * 3 + ["lemon"] * 3})["balls"][0]
        == "7"
    )
