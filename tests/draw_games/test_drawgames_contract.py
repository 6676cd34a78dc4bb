"""Every draw game against the game contract, the DrawJudge contract, the CLI and the seed's line numbers."""

from __future__ import annotations

import json
import random
import sys
import types

import pytest
from drawgames_helpers import assert_no_floats

from app.audit import evaluate_line
from app.cli import main
from recognition.draw_games import DEVICE_KINDS, GAMES
from recognition.game import BaseGame

EXPECTED_IDS = {
    "keno_express",
    "lucky_5",
    "lucky_7",
    "lucky_6_60",
    "lucky_6_48",
    "mega_ball",
    "mega_6",
    "super_six",
    "lotto_express_5_35",
    "bingo_37",
    "bingo_38",
    "one_bet",
    "cash_or_crash",
    "fruitrace",
}


def a_draw(game, rng: random.Random) -> tuple[list[str], dict | None]:
    """A valid draw (and its extras) for any game, from the rng."""
    extras = game.draw_extras(rng)
    if game.game_id == "cash_or_crash":
        bag = ["green"] * 19 + ["red"] * 8 + ["golden"]
        rng.shuffle(bag)
        balls: list[str] = []
        for b in bag:
            balls.append(b)
            if game.draw_complete(balls):
                return balls, extras
        raise AssertionError("a bag always ends a round")
    if game.game_id == "fruitrace":
        balls = ["plum"] * 3 + ["cherry"] * 3 + ["lemon"] * 3 + ["7"]
        rng.shuffle(balls)
        return balls, extras
    if game.game_id == "lucky_6_60":
        return [rng.choice(game.ball_labels) for _ in range(6)], extras
    labels = list(game.ball_labels)
    rng.shuffle(labels)
    count = 20 + len(extras["mega_multipliers"]) if game.game_id == "mega_ball" else game.draw_count
    return labels[:count], extras


# --- registration and attributes ------------------------------------------------------------------


def test_all_fourteen_games_are_registered_by_discovery():
    from recognition.games import (
        GAMES as REGISTRY,
    )  # walks every recognition module: imported here, not at collection

    assert set(GAMES) == EXPECTED_IDS
    for game_id, game in GAMES.items():
        assert REGISTRY[game_id] is game
        assert game.game_id == game_id
        assert isinstance(game, BaseGame)


@pytest.mark.parametrize("game_id", sorted(EXPECTED_IDS))
def test_the_judge_contract_attributes(game_id):
    game = GAMES[game_id]
    assert game.pacing == "dealer"
    assert (
        game.device_kinds
        == DEVICE_KINDS
        == ("modbus-ball-machine", "serial-ball-reader", "camera-ball-reader")
    )
    assert game.ball_labels and all(isinstance(b, str) for b in game.ball_labels)
    assert len(set(game.ball_labels)) == len(game.ball_labels)
    assert isinstance(game.draw_count, int) and game.draw_count >= 1
    if game.colors is not None:
        assert set(game.colors) == set(game.ball_labels)
        assert all(isinstance(c, str) for c in game.colors.values())
    for label in game.ball_labels:
        assert game.max_count(label) >= 1
    lo, hi = game.seed_lines
    assert 1600 <= lo < hi <= 5198


@pytest.mark.parametrize("game_id", sorted(EXPECTED_IDS))
def test_draw_complete_and_partial_draws(game_id):
    game = GAMES[game_id]
    rng = random.Random(game_id)
    for _ in range(20):
        balls, extras = a_draw(game, rng)
        for n in range(len(balls)):
            assert not game.draw_complete(balls[:n], extras), (balls[:n], extras)
            assert game.validate_partial(balls[:n], extras) == balls[:n]
        assert game.draw_complete(balls, extras)
        assert game.validate_partial(balls, extras) == balls


def test_ball_counts_the_judge_needs():
    assert GAMES["cash_or_crash"].max_count("green") == 19
    assert GAMES["cash_or_crash"].max_count("red") == 8
    assert GAMES["cash_or_crash"].max_count("golden") == 1
    assert GAMES["fruitrace"].max_count("plum") == 3 and GAMES["fruitrace"].max_count("7") == 1
    assert GAMES["lucky_5"].max_count("17") == 1
    assert GAMES["lucky_6_60"].max_count("red-7") == 6
    assert GAMES["mega_ball"].draw_count == 22 and GAMES["cash_or_crash"].draw_count == 21
    assert GAMES["lucky_6_48"].draw_count == 35 and GAMES["one_bet"].draw_count == 1


def test_a_ball_after_the_draw_completed_is_refused_for_the_judge():
    with pytest.raises(ValueError, match="came after the draw was complete"):
        GAMES["mega_6"].validate_partial(["1", "2", "3", "4", "5", "6", "7"])
    with pytest.raises(ValueError, match="came after the draw was complete"):
        GAMES["cash_or_crash"].validate_partial(["red", "green"])
    with pytest.raises(ValueError, match="came after the draw was complete"):
        GAMES["mega_ball"].validate_partial([str(n) for n in range(1, 23)], {"mega_multipliers": [5]})
    # Lucky 7 keeps counting balls in the tube: the extra ones are ignored, not refused (L2319)
    assert len(GAMES["lucky_7"].validate_partial([str(n) for n in range(1, 10)])) == 9


# --- the lazy judge import -----------------------------------------------------------------------------


class RecordingJudge:
    def __init__(self, game, **settings):
        self.game, self.settings = game, settings

    def feed(self, event):
        return []


def test_new_judge_imports_the_shared_draw_judge_lazily(monkeypatch):
    fake = types.ModuleType("recognition.balls.judge")
    fake.DrawJudge = RecordingJudge
    monkeypatch.setitem(sys.modules, "recognition.balls.judge", fake)
    judge = GAMES["lucky_5"].new_judge(hold_on_unknown=True)
    assert isinstance(judge, RecordingJudge)
    assert judge.game is GAMES["lucky_5"] and judge.settings == {"hold_on_unknown": True}
    # the table hands the same settings to draw_extras and new_judge: Mega Ball keeps its own
    judge = GAMES["mega_ball"].new_judge(mega_ball_count=2, mega_multipliers=[5, 10], reader_timeout=3)
    assert judge.settings == {"reader_timeout": 3}


@pytest.mark.parametrize("game_id", sorted(EXPECTED_IDS))
def test_every_game_builds_the_real_draw_judge(game_id):
    from recognition.balls import judge as judge_module

    game = GAMES[game_id]
    settings = {"mega_ball_count": 2} if game_id == "mega_ball" else {}
    judge = game.new_judge(**settings)
    assert isinstance(judge, judge_module.DrawJudge)


def test_new_judge_without_the_judge_module_fails_only_when_called(monkeypatch):
    monkeypatch.setitem(sys.modules, "recognition.balls.judge", None)  # as if the module did not exist
    with pytest.raises(ImportError):
        GAMES["one_bet"].new_judge()


# --- results and outcomes ------------------------------------------------------------------------------


@pytest.mark.parametrize("game_id", sorted(EXPECTED_IDS))
def test_outcomes_are_json_without_floats_and_validation_is_idempotent(game_id):
    game = GAMES[game_id]
    rng = random.Random(f"{game_id}-outcomes")
    for _ in range(30):
        balls, extras = a_draw(game, rng)
        result = game.validate_result({"balls": balls})
        assert result == {"balls": balls}
        assert game.validate_result(json.loads(json.dumps(result))) == result
        outcome = game.outcome(result, extras)
        assert outcome["balls"] == balls
        assert_no_floats(outcome, f"{game_id} outcome")
        assert game.outcome(result, extras) == outcome  # pure


@pytest.mark.parametrize("game_id", sorted(EXPECTED_IDS))
def test_results_that_are_not_draws_are_refused(game_id):
    game = GAMES[game_id]
    for bad, words in (
        ("balls", "dict like"),
        ({}, "needs 'balls'"),
        ({"balls": "1,2,3"}, "list of ball labels"),
        ({"balls": [1.5]}, "not float"),
        ({"balls": [True]}, "not bool"),
        ({"balls": ["no such ball"]}, "not a ball of"),
        ({"balls": []}, "incomplete"),
    ):
        with pytest.raises(ValueError, match=words):
            game.validate_result(bad)


def test_numbered_balls_accept_ints_and_name_the_canonical_label():
    assert GAMES["one_bet"].validate_result({"balls": [0]}) == {"balls": ["0"]}
    with pytest.raises(ValueError, match="write '7'"):
        GAMES["bingo_37"].validate_result({"balls": ["07"]})
    with pytest.raises(ValueError, match="write 'plum'"):
        GAMES["fruitrace"].validate_result(
            {"balls": ["Plum"] + ["plum"] * 2 + ["cherry"] * 3 + ["lemon"] * 3 + ["7"]}
        )


def test_reported_colours_must_agree():
    game = GAMES["mega_6"]
    assert (
        game.validate_result({"balls": [1, 2, 3, 4, 5, 6], "colors": ["white", "pink"] * 3})["balls"][0]
        == "1"
    )
    with pytest.raises(ValueError, match="ball 2 \\('2'\\) is pink, not 'white'"):
        game.validate_result({"balls": [1, 2, 3, 4, 5, 6], "colors": ["white"] * 6})
    with pytest.raises(ValueError, match="have no colours"):
        GAMES["keno_express"].validate_result({"balls": [5], "colors": ["red"]})


# --- settlement plumbing ---------------------------------------------------------------------------------


def test_settle_refuses_floats_unknown_bets_and_bad_selections():
    game = GAMES["lucky_5"]
    draw = {"balls": [36, 1, 14, 27, 8]}
    with pytest.raises(ValueError, match="floats are not exact"):
        game.settle({"market": "sum_even", "stake": 10, "odds": 1.95}, draw)
    with pytest.raises(ValueError, match="floats are not exact"):
        game.settle({"market": "sum_even", "stake": 2.5, "odds": "1.95"}, draw)
    for odds in ("٣", "1e3", "-2", "1/0", "", "2,5"):  # exact ASCII numbers only
        with pytest.raises(ValueError, match="not an exact non-negative number"):
            game.settle({"market": "sum_even", "stake": 10, "odds": odds}, draw)
    with pytest.raises(ValueError, match="below 1"):
        game.settle({"market": "sum_even", "stake": 10, "odds": "0.5"}, draw)
    with pytest.raises(ValueError, match="not a bet of Lucky 5"):
        game.settle({"market": "jackpot", "stake": 10, "odds": 2}, draw)
    with pytest.raises(ValueError, match="selects 3 value"):
        game.settle({"market": "three_drawn", "selection": [1, 2], "stake": 10, "odds": 2}, draw)
    with pytest.raises(ValueError, match="repeats a value"):
        game.settle({"market": "two_drawn", "selection": [1, 1], "stake": 10, "odds": 2}, draw)
    with pytest.raises(ValueError, match="takes no selection"):
        game.settle({"market": "sum_even", "selection": [1], "stake": 10, "odds": 2}, draw)
    with pytest.raises(ValueError, match="not a ball of"):
        game.settle({"market": "drawn", "selection": [37], "stake": 10, "odds": 2}, draw)


def test_settle_is_exact():
    game = GAMES["lucky_5"]
    draw = {"balls": [36, 1, 14, 27, 8]}  # sum 86: even
    assert game.settle({"market": "sum_even", "stake": 10, "odds": "1.95"}, draw)["return"] == "39/2"
    assert game.settle({"market": "sum_even", "stake": "2.50", "odds": "39/20"}, draw)["return"] == "39/8"
    assert game.settle({"market": "sum_even", "stake": 100, "odds": 2}, draw) == {
        "market": "sum_even",
        "won": True,
        "void": False,
        "return": 200,
    }
    assert game.settle({"market": "sum_odd", "stake": 100, "odds": 2}, draw) == {
        "market": "sum_odd",
        "won": False,
        "void": False,
        "return": 0,
    }


# --- studio evaluate ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("game_id", sorted(EXPECTED_IDS))
def test_studio_evaluate_lines(game_id):
    game = GAMES[game_id]
    balls, extras = a_draw(game, random.Random(f"{game_id}-cli"))
    item = {"id": "r-1", "balls": balls, **({"extras": extras} if extras else {})}
    out = evaluate_line(game, json.dumps(item), 1)
    assert out["id"] == "r-1" and out["valid"] is True, out
    assert out["result"] == {"balls": balls}
    assert out["outcome"] == game.outcome({"balls": balls}, extras)
    bad = evaluate_line(game, json.dumps({"id": "r-2", "balls": balls + balls}), 2)
    assert bad["id"] == "r-2" and bad["valid"] is False and bad["error"]
    if game_id == "lucky_7":  # more balls in the tube than 7 are ignored, but never a repeated ball
        assert "repeats" in bad["error"]


def test_studio_evaluate_command(tmp_path, capsys):
    rounds = tmp_path / "rounds.jsonl"
    rounds.write_text(
        "\n".join(
            [
                json.dumps({"id": "a", "balls": ["25", "30", "7", "44", "49", "12"]}),
                json.dumps({"id": "b", "balls": ["25", "30", "7", "44", "49", "49"]}),
                "not json",
            ]
        )
        + "\n"
    )
    assert main(["evaluate", "--game", "mega_6", "--in", str(rounds)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(line["id"], line["valid"]) for line in lines] == [("a", True), ("b", False), (None, False)]
    assert lines[0]["outcome"]["sum"] == 167
    assert "repeats ball 5" in lines[1]["error"]


# --- the catalogue against the seed ----------------------------------------------------------------------------

SEED_TEXT = {  # bet -> words on the seed line the catalogue names
    ("keno_express", "lower"): "“lower”",
    ("keno_express", "higher"): "“higher”",
    ("keno_express", "in_range"): "will be from that range",
    ("keno_express", "out_of_range"): "will not be from that range",
    ("lucky_5", "sum_over_92.5"): "over 92. 5",
    ("lucky_5", "more_even"): "More balls with even numbers",
    ("lucky_5", "white_5"): "5 white balls will be",
    ("lucky_5", "green_5"): "5 green balls will be drawn",
    ("lucky_5", "red_exactly_2"): "Exactly two red balls will be drawn",
    ("lucky_5", "blue_not_exactly_3"): "Exactly three blue balls will not be drawn",
    ("lucky_5", "same_color_4"): "At least four balls of the same color",
    ("lucky_5", "white_green_over_red_blue"): "More white and green balls than red and blue",
    ("lucky_5", "white_red_over_green_blue"): "More white and red balls than green and blue",
    ("lucky_5", "white_blue_over_green_red"): "More white and blue balls than green and red",
    ("lucky_5", "more_blue_than_green"): "More blue balls than green",
    ("lucky_5", "equal_red_blue"): "equal amount of red and blue",
    ("lucky_7", "four_drawn"): "Four balls with the chosen numbers",
    ("lucky_7", "none_of_7"): "None of seven balls",
    ("lucky_7", "at_least_5_of_7"): "At least 5 out of 7",
    ("lucky_7", "black_sum_over_73.5"): "sum of black drawn balls’ numbers will be over 73.5",
    ("lucky_7", "sum_under_200.5"): "under 200.5",
    ("lucky_7", "yellow_none"): "No yellow ball",
    ("lucky_7", "black_under_1.5"): "black drawn balls will be under 1.5",
    ("lucky_7", "yellow_exactly_5"): "Exactly 5 yellow balls",
    ("lucky_7", "black_exactly_1"): "Exactly 1 black ball",
    ("lucky_7", "first_even_last_odd"): "first drawn ball will be even, and the number of the last one – odd",
    ("lucky_7", "first_two_different_colors"): "different colours",
    ("lucky_6_60", "digit_in_zone_B"): "dropped in B zone",
    ("lucky_6_60", "zone_C_number"): "C zone will make the selected number",
    ("lucky_6_60", "digit_count_odd"): "will be odd number",
    ("lucky_6_60", "blue_sum_over_12.5"): "blue dropped out balls will be over 12,5",
    ("lucky_6_60", "zone_B_sum_under_9.5"): "B zone dropped out balls will be under 9,5",
    ("lucky_6_60", "odd_count_over_2.5"): "odd dropped out balls will be over 2,5",
    ("lucky_6_60", "zone_B_sum_odd"): "B zone dropped out balls will be odd",
    ("lucky_6_60", "sum_over_38.5"): "over 38,5",
    ("lucky_6_48", "six_numbers"): "with the 6th ball",
    ("lucky_6_48", "six_at_6"): "with the 6th ball",
    ("lucky_6_48", "six_at_21"): "with the 21th ball",
    ("lucky_6_48", "six_at_35"): "with the 35th ball",
    ("lucky_6_48", "first5_sum_under_122.5"): "first 5 balls numbers is lower than 122.5",
    ("lucky_6_48", "last_under_24.5"): "last ball’s number will be lower than 24.5",
    ("lucky_6_48", "more_odd"): "more odd balls",
    ("lucky_6_48", "last_color"): "color of the last ball",
    ("mega_6", "numbers_1_of_3"): "1 out of 3",
    ("mega_6", "first_over_35"): "Over 15, 25, 35",
    ("mega_6", "first_two_under_25"): "first and second numbers will be Over/Under 25",
    (
        "mega_6",
        "first_pink_second_white",
    ): "first drawn ball will be pink, and the second drawn ball will be white",
    ("mega_6", "sum_over_185"): "Over 155, 170, 185",
    ("mega_6", "pink_sum_under_65"): "pink balls will be Under 65",
    ("super_six", "simple"): "Simple bet",
    ("super_six", "most_color"): "The color of the balls",
    ("super_six", "first5_sum_over_122.5"): "Over/Under 122․5",
    ("super_six", "hot_6"): "Hot 6",
    ("super_six", "first_or_last"): "first or last ball",
    ("super_six", "two_not_drawn"): "will not be drawn",
    ("lotto_express_5_35", "ticket"): "single ticket with five numbers",
    ("lotto_express_5_35", "combo"): "Combo ticket",
    ("bingo_37", "number"): "(from 1 to 37)",
    ("bingo_37", "one_of_6"): "selected 6 numbers",
    ("bingo_37", "row_2"): "1st row, 2nd row, 3rd row",
    ("bingo_37", "dozen_3"): "third dozen is 25-36",
    ("bingo_37", "range_19_36"): "from 19 to 36",
    ("bingo_38", "number"): "(from 1 to 38)",
    ("bingo_38", "range_1_18"): "from 1 to 18",
    ("one_bet", "straight"): "(from 0 to 36)",
    ("one_bet", "column_2"): "column 2 will be drawn (2, 5, 8",
    ("one_bet", "interval_34_36"): "interval 34 to 36",
    ("one_bet", "interval_31_36"): "interval 31 to 36",
    ("one_bet", "interval_19_36"): "interval 19 to 36",
    ("one_bet", "under_27.5"): "under 27.5",
    ("one_bet", "odd"): "odd number",
    ("cash_or_crash", "blimp"): "current level",
    ("fruitrace", "fruitrace"): "4 or more matches",
    ("fruitrace", "seven_only"): "one “7” without any other matches",
    ("fruitrace", "matches_8"): "8 balls",
    ("fruitrace", "matches_10"): "10 balls",
}


def test_every_bet_names_a_seed_line_inside_its_game(seed_lines):
    for game in GAMES.values():
        lo, hi = game.seed_lines
        assert "THE PROCEDURE OF CONDUCTING THE GAME" in seed_lines[lo].replace("\u202f", " "), game.game_id
        for m in game.markets:
            assert lo < m.line <= hi and seed_lines[m.line].strip(), (game.game_id, m.id, m.line)


@pytest.mark.parametrize(("game_id", "bet"), sorted(SEED_TEXT))
def test_bet_lines_point_at_their_seed_text(seed_lines, game_id, bet):
    line = GAMES[game_id].market(bet).line
    assert SEED_TEXT[(game_id, bet)] in seed_lines[line], f"L{line}: {seed_lines[line]}"


def test_bets_of_numbered_seed_lists_are_one_per_item(seed_lines):
    """Where the seed numbers its bets one per line, the catalogue has one bet per line, in order."""
    for game_id, first, last, extra in (
        ("lucky_5", 2129, 2315, 0),
        ("lucky_7", 2321, 2465, 0),
        ("lucky_6_60", 2541, 2615, 0),
        ("one_bet", 3331, 3411, 0),
    ):
        markets = GAMES[game_id].markets
        assert [m.line for m in markets] == list(range(first, last + 1, 2)), game_id
    lines = [m.line for m in GAMES["lucky_6_48"].markets if m.id != "six_numbers"]
    assert lines == list(range(2971, 3058, 2))


def test_the_document_lists_every_bet_with_its_seed_line():
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "draw-games.md").read_text(encoding="utf-8")
    for game in GAMES.values():
        assert f"`{game.game_id}`" in doc
        for m in game.markets:
            assert f"| `{m.id}` | L{m.line} |" in doc, (game.game_id, m.id)
