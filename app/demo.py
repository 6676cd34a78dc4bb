"""`studio demo`: a complete simulated studio (the roulette tables, one table per other family, the demo backend).

`studio demo --games all` (or `--games sic_bo,baccarat`) runs one table of each game named instead, every one on
its device simulators as studio/game_catalog.py sets it up, the decision games played by the demo backend.
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
from pathlib import Path
from typing import Any

from .serve import serve


def _demo_token(data_dir: Path, name: str = "demo-consumer-token") -> str:
    path = data_dir / name
    if path.exists():
        return path.read_text().strip()
    token = secrets.token_urlsafe(24)
    data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(token + "\n")
    return token


#: one demo table per dealer-paced family: (table id, game, devices, simulator options); a family whose game,
#: driver or simulator is not installed is left out
DEMO_FAMILY_TABLES: list[tuple[str, str, list[dict[str, Any]]]] = [
    ("baccarat-1", "baccarat", [{"kind": "serial-shoe", "role": "shoe"}]),
    ("dragon-tiger-1", "dragon_tiger", [{"kind": "camera-shoe", "role": "shoe"}]),
    ("sic-bo-1", "sic_bo", [{"kind": "dice-camera", "role": "camera"}]),
    # the machine and the reader simulators of one table share their balls through machine_id
    (
        "lucky-6-1",
        "lucky_6_48",
        [
            {
                "kind": "modbus-ball-machine",
                "role": "machine",
                "sim": {"machine_id": "lucky-6-1", "act_as_dealer": True},
            },
            {"kind": "serial-ball-reader", "role": "reader", "sim": {"machine_id": "lucky-6-1"}},
        ],
    ),
    ("dream-catcher-1", "dream_catcher", [{"kind": "wheel-encoder", "role": "encoder"}]),
    # a game with player decisions: the shoe deals one card each time the judge names where the next card goes;
    # the demo backend (studio/demo_backend.py) sits players and answers their decision windows through the API
    ("blackjack-1", "blackjack", [{"kind": "serial-shoe", "role": "shoe", "sim": {"follow_judge": True}}]),
]

#: the demo's betting backend posts decisions with this consumer's token (kept in the data folder)
DEMO_BACKEND = "demo-backend"


def demo_decision_seconds(speed: float) -> float:
    """A demo decision window: 10 s at the real pace, never under 2 s (the demo backend must be able to answer)."""
    return max(2.0, 10.0 / speed)


def demo_family_tables(speed: float, seed: int | None) -> list[dict[str, Any]]:
    from devices.registry import all_drivers
    from recognition.games import GAMES
    from studio.simulated import all_simulators

    drivers, sims = all_drivers(), all_simulators()
    tables = []
    for n, (table_id, game, devices) in enumerate(DEMO_FAMILY_TABLES, 1):
        if game not in GAMES or any(d["kind"] not in drivers or d["kind"] not in sims for d in devices):
            continue
        devs = []
        for d in devices:
            sim: dict[str, Any] = {"speed": speed, "options": d.get("sim", {})}
            if seed is not None:
                sim["seed"] = seed + 100 + n
            devs.append(
                {
                    "kind": d["kind"],
                    "role": d["role"],
                    "url": "simulator",
                    "serial_number": f"SIM-{d['kind'].upper()}-{n:03d}",
                    "simulator": sim,
                }
            )
        # a simulated ball set needs no check; the waiver is journaled (a real table runs the ball-set check)
        table = {
            "id": table_id,
            "game": game,
            "devices": devs,
            "require_opening_check": False,
            "betting_seconds": max(1.0, 10.0 / speed),
            "auto_round_seconds": max(0.2, 3.0 / speed),
        }
        if GAMES[game].has_decisions:
            table["decision_seconds"] = demo_decision_seconds(speed)
            # a dealer takes a moment between two hands (and the first round does not crowd the demo's first
            # seconds of feed with seats and windows)
            table["auto_round_seconds"] = max(2.0, 3.0 / speed)
        tables.append(table)
    return tables


def demo_decision_tables(config: Any) -> list[str]:
    """The demo's tables whose game takes player decisions (the demo backend plays them)."""
    from recognition.games import GAMES

    return [t.id for t in config.tables if t.game in GAMES and GAMES[t.game].has_decisions]


def chosen_games(text: str) -> list[str]:
    """The game ids of `--games`: "all" (every game the simulators can run) or a comma-separated list;
    ValueError naming an unknown game or one without simulators."""
    from studio.game_catalog import catalog

    entries = {e.game_id: e for e in catalog()}
    if text.strip() == "all":
        return [g for g, e in entries.items() if e.simulated]
    games = [g.strip() for g in text.split(",") if g.strip()]
    if not games:
        raise ValueError("--games needs 'all' or game ids separated by commas (studio games lists them)")
    unknown = [g for g in games if g not in entries]
    if unknown:
        raise ValueError(
            f"--games: unknown game(s) {', '.join(unknown)}; known: {', '.join(sorted(entries))}"
        )
    unsimulated = [g for g in games if not entries[g].simulated]
    if unsimulated:
        raise ValueError(f"--games: no simulators for {', '.join(unsimulated)}")
    return list(dict.fromkeys(games))


def demo_game_tables(games: list[str], speed: float, seed: int | None) -> list[dict[str, Any]]:
    """One simulated table per game, with the table id "<game id with dashes>-1"."""
    from studio.game_catalog import simulated_table

    return [
        simulated_table(g, f"{g.replace('_', '-')}-1", speed=speed, seed=seed, number=n)
        for n, g in enumerate(games, 1)
    ]


def demo_config(args: argparse.Namespace) -> Any:
    from studio.config import parse_config

    data_dir = Path(args.data).resolve()
    token = args.consumer_token or _demo_token(data_dir)
    tables: list[dict[str, Any]] = []
    games = args.games
    if games:
        tables = demo_game_tables(chosen_games(games), args.speed, args.seed)
    for i in range(1, (0 if games else args.tables) + 1):
        sim: dict[str, Any] = {"speed": args.speed}
        if args.seed is not None:
            sim["seed"] = args.seed + i
        tables.append(
            {
                "id": f"roulette-{i}",
                "game": "european_roulette",
                "device": {
                    "kind": "cammegh-ss2",
                    "role": "wheel",
                    "url": "simulator",
                    "serial_number": f"SIM-SS2-{i:03d}",
                    "options": {"keep_powered": True},
                    "simulator": sim,
                },
            }
        )
    if args.families and not games:
        tables += demo_family_tables(args.speed, args.seed)
    consumers = [{"name": "demo-consumer", "token": token}]
    from recognition.games import GAMES

    deciding = [t["id"] for t in tables if GAMES[t["game"]].has_decisions]
    if deciding:
        # the demo backend's token: it may post decisions for the decision tables (a feed token cannot)
        decisions_token = args.decisions_token or _demo_token(data_dir, "demo-decisions-token")
        consumers.append({"name": DEMO_BACKEND, "token": decisions_token, "decision_tables": deciding})
    nats_url = args.nats_url  # studio demo --nats: the local nats-server (app/nats_cli.py)
    return parse_config(
        {
            "studio": {"name": "demo", "data_dir": str(data_dir)},
            "server": {"host": args.host, "port": args.port},
            "consumers": consumers,
            "tables": tables,
            **({"delivery": {"nats": {"servers": [nats_url]}}} if nats_url else {}),
        },
        "studio demo",
    )


def demo_backend_task(config: Any, speed: float, seed: int | None) -> Any:
    """The demo backend as a `_serve` background function (None when the demo has no decision tables)."""
    tables = demo_decision_tables(config)
    consumer = next((c for c in config.consumers if c.name == DEMO_BACKEND), None)
    if not tables or consumer is None:
        return None
    host = config.server.host
    base = f"http://{'127.0.0.1' if host in ('0.0.0.0', '', '::') else host}:{config.server.port}"

    def make(server: Any) -> Any:
        from studio.demo_backend import DemoBackend

        backend = DemoBackend(
            base, consumer.token, tables, speed=speed, seed=None if seed is None else seed + 500
        )
        return backend.run(ready=lambda: server.started)

    return make


def cmd_games(args: argparse.Namespace) -> int:
    """`studio games`: every game with its equipment and device kinds (text, or one JSON object a line)."""
    import json

    from studio.game_catalog import catalog

    for e in catalog():
        if args.json:
            print(json.dumps(e.as_dict()))
        else:
            runs = "simulated" if e.simulated else "no simulators"
            print(f"{e.game_id:<26} {e.family:<12} {', '.join(e.table_kinds):<42} {runs}")
    return 0


def print_tables(config: Any) -> None:
    """Where each table of the demo is: its game, its devices and its console page."""
    host = config.server.host
    base = f"http://{'127.0.0.1' if host in ('0.0.0.0', '', '::') else host}:{config.server.port}"
    print(f"studio demo: {len(config.tables)} game table(s)")
    for t in config.tables:
        kinds = ", ".join(f"{d.role}: {d.kind}" for d in t.all_devices)
        print(f"  {t.id:<28} {t.game:<26} {base}/console/table/{t.id}  ({kinds})")
    print(flush=True)


def cmd_demo(args: argparse.Namespace) -> int:
    if args.tables < 1:
        print("studio demo: --tables must be at least 1", file=sys.stderr)
        return 2
    from studio.config import ConfigError

    if args.nats:
        from .nats_cli import local_nats

        local_nats(args)  # sets args.nats_url when a nats-server started
    try:
        config = demo_config(args)
    except (ConfigError, ValueError) as exc:
        print(f"studio demo: {exc}" if not isinstance(exc, ConfigError) else exc, file=sys.stderr)
        return 2
    if args.games:
        print_tables(config)
    from dealer_ui import ensure_demo_users

    backend = demo_backend_task(config, args.speed, args.seed) if args.demo_backend else None
    return serve(
        config,
        demo_users=ensure_demo_users(config.studio.data_dir),
        background=[backend] if backend is not None else None,
    )
