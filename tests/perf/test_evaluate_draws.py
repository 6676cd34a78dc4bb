"""The fast paths of `studio evaluate` for games whose rounds carry a fresh draw (Lightning and Mega Roulette,
Lightning Dice, Mega Wheel) or rarely repeat (Lotto Express 5/35, MEGA 6, Lucky 7, Lucky 6 of 60 and of 48,
Super Six, Fruitrace; Andar Bahar, Thirty-Two Cards and the multiplied baccarats, whose rounds
rarely repeat either) answer every line as the general path does: lines in their usual shape, and lines just
off it."""

from __future__ import annotations

import io
import json
import random
import sys

import pytest

from app.evaluate import _evaluate_lines, evaluate_line
from bench.plain_rules import GAMES as PLAIN
from recognition.games import GAMES

LUCKY = '"extras": {"lucky_numbers": [{"number": "3", "payout": 49}, {"number": "17", "payout": 99}]}'
MEGA = '"extras": {"lucky": {"number": "5", "index": 2, "payout": 50, "scope": "segment"}}'
STRIKES = '"extras": {"lightning": [{"total": 8, "multiplier": 15}, {"total": 11, "multiplier": 20}]}'

_35 = [f'"{n}"' for n in range(14, 49)]
#: 35-ball lines just off the plain shape (the fast path reads the list's text itself)
ODD_35 = [
    '{"id": 21, "balls": [ ' + ", ".join(_35) + "]}\n",  # a space after the bracket
    '{"id": 22, "balls": [' + ",  ".join(_35) + "]}\n",  # two spaces
    '{"id": 23, "balls": [' + " ,".join(_35) + "]}\n",  # a space before a comma
    '{"id": 24, "balls": [' + ", ".join(_35) + " ]}\n",
    '{"id": 25, "balls": ["\\u0031\\u0034", ' + ", ".join(_35[1:]) + "]}\n",  # an escape
    '{"id": 26, "balls": ["014", ' + ", ".join(_35[1:]) + "]}\n",
    '{"id": 27, "balls": [' + ", ".join(n[1:-1] for n in _35) + "]}\n",  # numbers
    '{"id": 28, "balls": [' + ", ".join(_35) + ",]}\n",  # not JSON
    '{"id": 29, "balls": [' + ", ".join(_35[:-1]) + ', "48""]}\n',  # not JSON
    '{"id": 30, "balls": [' + ", ".join(_35) + '], "balls": [' + ", ".join(_35) + "]}\n",
    '{"id": 31, "balls": [' + ", ".join(_35) + "]} \n",
    '{"id": 32, "balls": [' + ", ".join(_35) + '], "colors": null}\n',
    '{"id": 33, "balls": [' + ", ".join(_35[:-1]) + ', ""]}\n',
]

#: lines in and off the fast paths' shape: the answers are the general path's
ODD_LINES = {
    "lightning_roulette": [
        '{"id": 1, "number": "17", ' + LUCKY + "}\n",
        '{"id": 2, "number": "4", ' + LUCKY + "}\n",
        '{"id":3,"number":"17","extras":{"lucky_numbers":[{"number":"3","payout":49}]}}',  # compact
        (
            '{"id": 4, "number": "17", "extras": {"lucky_numbers": [{"number": "17", "payout": 99}, '
            '{"number": "3", "payout": 49}]}}\n'
        ),  # not in layout order
        (
            '{"id": 5, "number": "17", "extras": {"lucky_numbers": [{"number": "17", "payout": 99}, '
            '{"number": "17", "payout": 49}]}}\n'
        ),  # a number twice
        '{"id": 6, "number": "17", "extras": {"lucky_numbers": [{"number": "3", "payout": 500}]}}\n',
        '{"id": 7, "number": "17", "extras": {"lucky_numbers": [{"number": "3", "payout": 28}]}}\n',
        '{"id": 8, "number": "37", ' + LUCKY + "}\n",  # not a pocket
        '{"id": 9, "number": "17", "extras": {"lucky_numbers": [{"number": "37", "payout": 49}]}}\n',
        '{"id": 10, "number": "17", "extras": {"lucky_numbers": []}}\n',
        '{"id": 11, "number": 17, ' + LUCKY + "}\n",  # an int: the general path
        '{"id": 12, "number": "17"}\n',  # no draw
        '{"id": 007, "number": "17", ' + LUCKY + "}\n",  # not JSON
        '{"id": "r-13", "number": "17", ' + LUCKY + "}\n",
        '{"id": 14, "number": "17", ' + LUCKY + ', "x": 1}\n',
    ],
    "lightning_dice": [
        '{"id": 1, "dice": [3, 4, 1], ' + STRIKES + "}\n",
        '{"id": 2, "dice": [6, 4, 1], ' + STRIKES + "}\n",
        '{"id":3,"dice":[1,3,4],"extras":{"lightning":[{"total":8,"multiplier":15}]}}',
        (
            '{"id": 4, "dice": [3, 4, 1], "extras": {"lightning": [{"total": 11, "multiplier": 20}, '
            '{"total": 8, "multiplier": 15}]}}\n'
        ),  # not ascending
        '{"id": 5, "dice": [3, 4, 1], "extras": {"lightning": [{"total": 8, "multiplier": 16}]}}\n',
        (
            '{"id": 6, "dice": [3, 4, 1], "extras": {"lightning": [{"total": 8, "multiplier": 15}, '
            '{"total": 8, "multiplier": 25}]}}\n'
        ),  # a total twice
        '{"id": 7, "dice": [3, 4, 1], "extras": {"lightning": []}}\n',  # none struck
        (
            '{"id": 8, "dice": [3, 4, 1], "extras": {"lightning": [{"total": 3, "multiplier": 250}, '
            '{"total": 4, "multiplier": 100}, {"total": 5, "multiplier": 50}, {"total": 6, "multiplier": 25}, '
            '{"total": 7, "multiplier": 20}]}}\n'
        ),  # five struck
        '{"id": 9, "dice": [3, 4, 7], ' + STRIKES + "}\n",
        '{"id": 10, "dice": [3, 4], ' + STRIKES + "}\n",
        '{"id": 11, "dice": ["3", 4, 1], ' + STRIKES + "}\n",
        '{"id": 12, "dice": [3, 4, 1], "extras": {"lightning": [{"total": 8, "multiplier": 15, "x": 1}]}}\n',
        '{"id": 13, "dice": [3, 4, 1]}\n',
        '{"id": 14, "dice": [3,4, 1], ' + STRIKES + "}\n",
    ],
    "lotto_express_5_35": [
        '{"id": 1, "balls": ["9", "5", "17", "8", "16", "25"]}\n',
        '{"id":2,"balls":["35","1","2","3","4","5"]}',
        '{"id": 3, "balls": ["9", "5", "17", "8", "16", "9"]}\n',  # a ball twice
        '{"id": 4, "balls": ["9", "5", "17", "8", "16", "36"]}\n',  # not a ball
        '{"id": 5, "balls": ["9", "5", "17", "8", "16"]}\n',
        '{"id": 6, "balls": ["09", "5", "17", "8", "16", "25"]}\n',
        '{"id": 7, "balls": [9, 5, 17, 8, 16, 25]}\n',
        '{"id": "r-8", "balls": ["9", "5", "17", "8", "16", "25"]}\n',
    ],
    "mega_wheel": [
        '{"id": 1, "segment": "5", "index": 2, ' + MEGA + "}\n",  # the lucky sector
        '{"id": 2, "segment": "1", "index": 0, ' + MEGA + "}\n",
        '{"id":3,"segment":"5","index":2,"extras":{"lucky":{"number":"5","index":2,"payout":75,"scope":"segment"}}}',
        '{"id": 4, "segment": "1", "index": 2, ' + MEGA + "}\n",  # the lucky sector, another number
        '{"id": 5, "segment": "5", "index": 54, ' + MEGA + "}\n",  # no such sector
        '{"id": 6, "segment": "3", "index": 0, ' + MEGA + "}\n",  # no such number
        (
            '{"id": 7, "segment": "5", "index": 2, "extras": {"lucky": {"number": "5", "index": 2, "payout": 4, '
            '"scope": "segment"}}}\n'
        ),  # below the number's own payout
        (
            '{"id": 8, "segment": "5", "index": 9, "extras": {"lucky": {"number": "5", "index": 2, "payout": 50, '
            '"scope": "number"}}}\n'
        ),
        '{"id": 9, "segment": "5", "index": 2, "extras": {"lucky": {"number": "5", "index": 2, "payout": 50}}}\n',
        '{"id": 10, "segment": "5", "index": null, ' + MEGA + "}\n",
    ],
    "mega_6": [
        '{"id": 1, "balls": ["28", "33", "43", "13", "20", "19"]}\n',
        '{"id":2,"balls":["49","1","2","3","4","5"]}',
        '{"id": 3, "balls": ["28", "33", "43", "13", "20", "28"]}\n',  # a ball twice
        '{"id": 4, "balls": ["28", "33", "43", "13", "20", "50"]}\n',  # not a ball
        '{"id": 5, "balls": ["28", "33", "43", "13", "20"]}\n',
        '{"id": 6, "balls": ["28", "33", "43", "13", "20", "19"], "colors": ["pink"]}\n',
        '{"id": 7, "balls": [28, 33, 43, 13, 20, 19]}\n',
    ],
    "lucky_7": [
        '{"id": 1, "balls": ["36", "7", "12", "19", "8", "22", "33"]}\n',
        '{"id":2,"balls":["42","1","2","3","4","5","6"]}',
        '{"id": 3, "balls": ["36", "7", "12", "19", "8", "22", "36"]}\n',  # a ball twice
        '{"id": 4, "balls": ["36", "7", "12", "19", "8", "22", "43"]}\n',  # not a ball
        '{"id": 5, "balls": ["36", "7", "12", "19", "8", "22"]}\n',  # no draw
        '{"id": 6, "balls": ["36", "7", "12", "19", "8", "22", "33"], "ignored_balls": ["1"]}\n',
        '{"id": 7, "balls": ["2", "4", "6", "8", "10", "12", "14"]}\n',  # no black ball
    ],
    "lucky_6_60": [
        '{"id": 1, "balls": ["red-7", "blue-4", "red-9", "red-0", "blue-3", "blue-5"]}\n',
        '{"id":2,"balls":["red-7","red-7","red-7","red-7","red-7","red-7"]}',  # one label six times
        '{"id": 3, "balls": ["blue-1", "blue-2", "blue-3", "blue-4", "blue-5", "blue-6"]}\n',  # no red ball
        '{"id": 4, "balls": ["red-7", "blue-4", "red-9", "red-0", "blue-3", "green-5"]}\n',
        '{"id": 5, "balls": ["red-7", "blue-4", "red-9", "red-0", "blue-3"]}\n',
        '{"id": 6, "balls": ["red-7", "blue-4", "red-9", "red-0", "blue-3", "blue-5", "red-1"]}\n',
    ],
    "super_six": [
        '{"id": 1, "balls": [' + ", ".join(f'"{n}"' for n in range(1, 36)) + "]}\n",
        '{"id":2,"balls":[' + ",".join(f'"{n}"' for n in range(48, 13, -1)) + "]}",
        '{"id": 3, "balls": [' + ", ".join(f'"{n}"' for n in [*range(1, 35), 1]) + "]}\n",  # a ball twice
        '{"id": 4, "balls": [' + ", ".join(f'"{n}"' for n in [*range(1, 35), 49]) + "]}\n",  # not a ball
        '{"id": 5, "balls": [' + ", ".join(f'"{n}"' for n in range(1, 35)) + "]}\n",  # too few
        '{"id": 6, "balls": [' + ", ".join(f'"{n}"' for n in range(2, 50, 2)) + "]}\n",
        *ODD_35,
    ],
    "lucky_6_48": [
        '{"id": 1, "balls": [' + ", ".join(f'"{n}"' for n in range(1, 36)) + "]}\n",
        '{"id":2,"balls":[' + ",".join(f'"{n}"' for n in range(48, 13, -1)) + "]}",
        '{"id": 3, "balls": [' + ", ".join(f'"{n}"' for n in [*range(1, 35), 1]) + "]}\n",  # a ball twice
        '{"id": 4, "balls": [' + ", ".join(f'"{n}"' for n in [*range(1, 35), 49]) + "]}\n",  # not a ball
        '{"id": 5, "balls": [' + ", ".join(f'"{n}"' for n in range(1, 35)) + "]}\n",  # too few
        *ODD_35,
    ],
    "fruitrace": [
        (
            '{"id": 1, "balls": ["plum", "plum", "plum", "cherry", "lemon", "cherry", "cherry", "lemon", "lemon", '
            '"7"]}\n'
        ),
        '{"id":2,"balls":["7","plum","plum","cherry","lemon","cherry","cherry","lemon","lemon","plum"]}',
        (
            '{"id": 3, "balls": ["plum", "plum", "plum", "plum", "lemon", "cherry", "cherry", "lemon", "lemon", '
            '"7"]}\n'
        ),  # four plums
        '{"id": 4, "balls": ["plum", "plum", "plum", "cherry", "lemon", "cherry", "cherry", "lemon", "lemon"]}\n',
        (
            '{"id": 5, "balls": ["plum", "plum", "plum", "cherry", "lemon", "cherry", "cherry", "lemon", "lemon", '
            '"7"], "colors": null}\n'
        ),
    ],
}


def general(game_id: str, lines: list[str]) -> str:
    game = GAMES[game_id]
    out = [
        json.dumps(evaluate_line(game, line, n), separators=(",", ":")) + "\n"
        for n, line in enumerate(lines, 1)
        if line.strip()
    ]
    return "".join(out)


def fast(game_id: str, lines: list[str], monkeypatch: pytest.MonkeyPatch) -> str:
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    _evaluate_lines(GAMES[game_id], lines)
    return out.getvalue()


@pytest.mark.parametrize("game_id", list(ODD_LINES))
def test_lines_off_the_fast_path_are_answered_by_the_general_path(
    game_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert GAMES[game_id].fast_evaluate
    lines = ODD_LINES[game_id] * 2  # the second time from the kept parts
    assert fast(game_id, lines, monkeypatch) == general(game_id, lines)


#: card games whose fast paths read the cards' text themselves (their odd lines: test_evaluate_plain.py)
CARD_GAMES = ["andar_bahar", "thirty_two_cards", "golden_wealth_baccarat", "lightning_baccarat"]


@pytest.mark.parametrize("game_id", list(ODD_LINES) + CARD_GAMES)
def test_dealt_rounds_are_answered_as_the_general_path_does(
    game_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    generate, _ = PLAIN[game_id]
    lines = generate(random.Random(5), 2000)
    lines += [line.replace(", ", ",").rstrip("\n") + "\n" for line in lines[:200]]  # compact, kept parts
    assert fast(game_id, lines, monkeypatch) == general(game_id, lines)
