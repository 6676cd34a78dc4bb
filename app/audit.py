"""The auditors' commands: `studio replay` (a raw device capture through driver and rules) and `studio evaluate`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .evaluate import cmd_evaluate, evaluate_line

__all__ = ["cmd_evaluate", "cmd_replay", "evaluate_line"]

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
