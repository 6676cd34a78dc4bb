"""The auditors' commands: `studio replay` (a raw device capture through driver and rules) and `studio evaluate`."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from recognition.game import GameRules

#: the game a capture of a device family replays through when no --game is given (by family, not by
#: vendor: every wheel driver emits the same events)
DEFAULT_GAMES = {"roulette-wheel": "european_roulette"}


def cmd_replay(args: argparse.Namespace) -> int:
    from devices.registry import all_drivers, all_replayers
    from recognition.game import ResultReady
    from recognition.games import game_rules

    readers = all_replayers()
    if args.device not in readers:
        print(
            f"studio replay: no replay for device {args.device!r}; known: {', '.join(readers)}",
            file=sys.stderr,
        )
        return 2
    iter_events = readers[args.device]
    driver = all_drivers().get(args.device)
    game_id = args.game or DEFAULT_GAMES.get(driver.family if driver is not None else "")
    if game_id is None:
        print(f"studio replay: --game GAME is required for device {args.device!r}", file=sys.stderr)
        return 2
    try:
        data = Path(args.file).read_bytes()
    except OSError as exc:
        print(f"studio replay: {args.file}: {exc.strerror}", file=sys.stderr)
        return 2
    game = game_rules(game_id)
    untimed = dict(game.untimed_settings)
    judge = game.new_judge(**untimed)
    out = sys.stdout
    if untimed:
        # a capture file has no arrival times, so checks that need them (the ball's revolutions) cannot run
        out.write(
            json.dumps(
                {
                    "source": "replay",
                    "kind": "note",
                    "code": "untimed_capture",
                    "message": "the capture has no timings: these checks are off",
                    "settings": untimed,
                }
            )
            + "\n"
        )
    for event in iter_events([data], device_id=args.device):
        out.write(json.dumps({"source": "device", **event.model_dump(mode="json")}) + "\n")
        for d in judge.feed(event):
            if isinstance(d, ResultReady):
                result = game.validate_result(d.result)
                line: dict[str, Any] = {
                    "kind": "result",
                    "game_counter": d.result.get("game_counter"),
                    "number": result["number"],
                    "result": result,
                    "outcome": game.outcome(result),
                    "source": {"kind": args.device, **d.source},
                }
            else:
                line = {"source": "judge", **d.model_dump(mode="json")}
            out.write(json.dumps(line) + "\n")
    return 0


def cmd_evaluate(args: argparse.Namespace) -> int:
    """Auditors re-check recorded rounds: JSON Lines in, one JSON line out per input line, never stopping."""
    from recognition.games import GAMES

    if args.list:
        for game_id in GAMES:
            print(game_id)
        return 0
    if not args.game:
        print("studio evaluate: --game GAME is required (studio evaluate --list shows them)", file=sys.stderr)
        return 2
    if args.game not in GAMES:
        print(f"studio evaluate: unknown game {args.game!r}; known: {', '.join(GAMES)}", file=sys.stderr)
        return 2
    game = GAMES[args.game]
    if not args.input:
        _evaluate_lines(game, sys.stdin)
        return 0
    try:
        with open(args.input, encoding="utf-8", errors="replace") as source:
            _evaluate_lines(game, source)
    except OSError as exc:
        print(f"studio evaluate: {args.input}: {exc.strerror}", file=sys.stderr)
        return 2
    return 0


def _evaluate_lines(game: GameRules, source: Iterable[str]) -> None:
    out = sys.stdout
    for lineno, line in enumerate(source, 1):
        if not line.strip():
            continue
        # a game's fast path writes the exact same line (baccarat: 200,000+ rounds/s); None: not handled
        text = game.evaluate_json(line)
        out.write(
            text
            if text is not None
            else json.dumps(evaluate_line(game, line, lineno), separators=(",", ":")) + "\n"
        )
    out.flush()


def evaluate_line(game: GameRules, line: str, lineno: int) -> dict[str, Any]:
    try:
        item = json.loads(line)
    except ValueError as exc:
        return {"id": None, "line": lineno, "valid": False, "error": f"line {lineno} is not JSON: {exc}"}
    if not isinstance(item, dict):
        return {"id": None, "line": lineno, "valid": False, "error": f"line {lineno} is not a JSON object"}
    rid = item.get("id")
    try:
        evaluated = game.evaluate({k: v for k, v in item.items() if k != "id"})
    except (ValueError, TypeError, KeyError) as exc:
        return {"id": rid, "valid": False, "error": str(exc)}
    return {"id": rid, "valid": True, **evaluated}
