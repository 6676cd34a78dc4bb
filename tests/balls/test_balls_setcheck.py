"""The ball-set check before a table opens: every ball read once, nothing missing, unknown or duplicated."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from devices.balls.ballset import ball_set_from_option, parse_ball_set
from devices.balls.events import BallRead, BallUnreadable
from recognition.balls import BallSetCheck, ball_set_check
from recognition.games import GAMES

AT = datetime(2026, 11, 29, 20, 0, tzinfo=UTC)
SET = ball_set_from_option("1-36")


def reads_of(tags, ball_set=SET):
    out = []
    for tag in tags:
        ball = ball_set.lookup(tag)
        out.append(
            BallRead(
                device_id="t/reader",
                at=AT,
                tag=tag,
                ball=ball.label if ball else None,
                color=ball.color if ball else None,
            )
        )
    return out


def all_tags(ball_set=SET):
    return [b.tag for b in ball_set.balls]


def test_a_complete_set_passes():
    game = GAMES["lucky_5"]
    report = ball_set_check(reads_of(reversed(all_tags())), game.ball_labels)
    assert report.ok and report.read == report.expected == 36
    assert report.message == "Ball set complete: all 36 balls read once."
    json.dumps(report.as_dict(), allow_nan=False)


def test_missing_unknown_and_duplicated_balls_fail_with_plain_words():
    tags = all_tags()[:-2] + ["BALL001", "E2FFDEAD"]
    check = BallSetCheck.for_game(GAMES["lucky_5"], SET)
    for e in reads_of(tags) + [BallUnreadable(device_id="t/reader", at=AT, reason="no-read")]:
        assert check.feed(e)
    assert not check.feed(object())
    report = check.report()
    assert not report.ok
    assert report.missing == ["35", "36"] and report.missing_tags == ["BALL035", "BALL036"]
    assert report.unknown_tags == ["E2FFDEAD"] and report.duplicated == ["BALL001"]
    assert report.unreadable == 1 and report.read == 34
    assert "cannot open" in report.message and "Missing: 35, 36." in report.message
    assert "E2FFDEAD" in report.message and "Read more than once: BALL001." in report.message


def test_a_ball_of_another_game_is_refused():
    report = ball_set_check(
        reads_of(all_tags(ball_set_from_option("1-37")), ball_set_from_option("1-37")),
        GAMES["lucky_5"].ball_labels,
    )
    assert not report.ok and report.not_in_game == ["37"] and not report.missing


def test_colour_only_balls_count_per_label():
    game = GAMES["cash_or_crash"]
    balls = (
        [{"tag": f"G{i:02d}", "label": "green"} for i in range(19)]
        + [{"tag": f"R{i:02d}", "label": "red"} for i in range(8)]
        + [{"tag": "AU", "label": "golden"}]
    )
    table = parse_ball_set({"balls": balls})
    check = BallSetCheck.for_game(game, table)
    assert check.expected == 28
    for e in reads_of([b["tag"] for b in balls][:-1], table):
        check.feed(e)
    assert not check.complete
    report = check.report()
    assert report.missing == ["golden"] and report.missing_tags == ["AU"]
    check.feed(reads_of(["AU"], table)[0])
    assert check.complete and check.report().ok
    # a 20th green ball (another tag carrying "green") is one too many
    extra = parse_ball_set({"balls": balls + [{"tag": "G99", "label": "green"}]})
    report = ball_set_check(
        reads_of([b["tag"] for b in balls] + ["G99"], extra),
        game.ball_labels,
        counts={"green": 19, "red": 8, "golden": 1},
    )
    assert not report.ok and report.duplicated == ["label green (20 balls, the set has 19)"]


def test_wrong_colour_is_refused():
    game = GAMES["mega_6"]
    colors = {label: "pink" for label in game.ball_labels}  # every ball pink: the odd ones should be white
    table = parse_ball_set({"numbered": {"first": 1, "last": 49}, "colors": colors})
    report = ball_set_check(reads_of(all_tags(table), table), game.ball_labels, colors=game.colors)
    assert (
        not report.ok
        and len(report.wrong_color) == 25
        and "1 (pink, the game says white)" in report.wrong_color
    )
