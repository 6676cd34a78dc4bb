"""The `studio` command."""

from __future__ import annotations

import argparse
import json
import logging
import os
import secrets
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

DEVICE_REPLAYERS = {
    "cammegh-ss2": ("devices.roulette.cammegh_ss2", "iter_capture_events", "european_roulette")
}


def _serve(
    config: Any,
    banner: bool = True,
    demo_users: dict[str, tuple[str, str]] | None = None,
    background: list[Any] | None = None,
) -> int:
    """Serve the studio; `background`: functions of the server returning coroutines run beside it (the demo's
    backend), cancelled when the server stops."""
    import uvicorn

    from .api import create_app
    from .service import Studio

    studio = Studio(config)
    app = create_app(studio)

    class Server(uvicorn.Server):
        async def serve(self, sockets: Any = None) -> None:
            import asyncio

            tasks = [asyncio.ensure_future(make(self)) for make in background or []]
            try:
                await super().serve(sockets)
            finally:
                for t in tasks:
                    t.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)

    server = Server(
        uvicorn.Config(
            app,
            host=config.server.host,
            port=config.server.port,
            log_level="warning",
            lifespan="on",
            ws_ping_interval=20,
            ws_per_message_deflate=False,
            timeout_graceful_shutdown=5,
        )
    )
    if banner:
        host = config.server.host
        shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
        base = f"{shown}:{config.server.port}"
        print(
            f"studio: {len(config.tables)} table(s): {', '.join(t.id + ' (' + t.game + ')' for t in config.tables)}"
        )
        print(f"  feed URL:        ws://{base}/v1/feed   (resume with ?after=SEQ)")
        print(f"  rounds:          http://{base}/v1/rounds/{{round_id}}")
        print(f"  public key URL:  http://{base}/v1/public-key")
        print(f"  public key:      {studio.public_key_b64}  (ed25519)")
        print(f"  data folder:     {config.studio.data_dir}")
        print(f"  console:         http://{base}/console/   (dealer, supervisor, technician, admin)")
        for role, (name, pin) in (demo_users or {}).items():
            print(f"  {'demo ' + role + ':':<17}user {name:<12} PIN {pin}")
        if demo_users == {}:
            print("  console users:   this data folder has its own users ('studio user add' adds one)")
        for c in config.consumers:
            if c.decision_tables:
                print(
                    f"  decisions token: {c.token}  ({c.name}; may POST /v1/tables/{{id}}/decisions for "
                    f"{', '.join(c.decision_tables)}; docs/decisions.md)"
                )
            else:
                print(f"  consumer token:  {c.token}  ({c.name}; send as 'Authorization: Bearer <token>')")
        print("  Ctrl-C stops the studio.", flush=True)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        studio.stop()
    return 0


def _demo_token(data_dir: Path, name: str = "demo-consumer-token") -> str:
    path = data_dir / name
    if path.exists():
        return path.read_text().strip()
    token = secrets.token_urlsafe(24)
    data_dir.mkdir(parents=True, exist_ok=True)
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

    from .simulated import all_simulators

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
        if getattr(GAMES[game], "has_decisions", False):
            table["decision_seconds"] = demo_decision_seconds(speed)
            # a dealer takes a moment between two hands (and the first round does not crowd the demo's first
            # seconds of feed with seats and windows)
            table["auto_round_seconds"] = max(2.0, 3.0 / speed)
        tables.append(table)
    return tables


def demo_decision_tables(config: Any) -> list[str]:
    """The demo's tables whose game takes player decisions (the demo backend plays them)."""
    from recognition.games import GAMES

    return [t.id for t in config.tables if getattr(GAMES.get(t.game), "has_decisions", False)]


def demo_config(args: argparse.Namespace) -> Any:
    from .config import parse_config

    data_dir = Path(args.data).resolve()
    token = args.consumer_token or _demo_token(data_dir)
    tables = []
    for i in range(1, args.tables + 1):
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
    if args.families:
        tables += demo_family_tables(args.speed, args.seed)
    consumers = [{"name": "demo-consumer", "token": token}]
    from recognition.games import GAMES

    deciding = [t["id"] for t in tables if getattr(GAMES.get(t["game"]), "has_decisions", False)]
    if (
        deciding
    ):  # the demo backend's token: it may post decisions for the decision tables (a feed token cannot)
        decisions_token = getattr(args, "decisions_token", None) or _demo_token(
            data_dir, "demo-decisions-token"
        )
        consumers.append({"name": DEMO_BACKEND, "token": decisions_token, "decision_tables": deciding})
    return parse_config(
        {
            "studio": {"name": "demo", "data_dir": str(data_dir)},
            "server": {"host": args.host, "port": args.port},
            "consumers": consumers,
            "tables": tables,
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
        from .demo_backend import DemoBackend

        backend = DemoBackend(
            base, consumer.token, tables, speed=speed, seed=None if seed is None else seed + 500
        )
        return backend.run(ready=lambda: server.started)

    return make


def cmd_demo(args: argparse.Namespace) -> int:
    if args.tables < 1:
        print("studio demo: --tables must be at least 1", file=sys.stderr)
        return 2
    from .config import ConfigError

    try:
        config = demo_config(args)
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return 2
    from dealer_ui import ensure_demo_users

    backend = demo_backend_task(config, args.speed, args.seed) if args.demo_backend else None
    return _serve(
        config,
        demo_users=ensure_demo_users(config.studio.data_dir),
        background=[backend] if backend is not None else None,
    )


def cmd_user_add(args: argparse.Namespace) -> int:
    """Add a console user; the PIN or password comes from --pin or the first line of standard input."""
    from dealer_ui.auth import AuthError, UserStore

    secret = args.pin
    if secret is None:
        if sys.stdin.isatty():
            import getpass

            secret = getpass.getpass(f"PIN or password for {args.name}: ")
        else:
            secret = sys.stdin.readline().rstrip("\r\n")
    try:
        user = UserStore(Path(args.data)).add(args.name.strip().lower(), args.role, secret)
    except AuthError as exc:
        print(f"studio user add: {exc}", file=sys.stderr)
        return 2
    print(f"user {user.username} added as {user.role}")
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    from .config import ConfigError, load_config

    try:
        config = load_config(Path(args.config))
    except ConfigError as exc:
        print(f"studio: configuration refused:\n{exc}", file=sys.stderr)
        return 2
    if args.port is not None:
        config.server.port = args.port
    return _serve(config)


def cmd_check_config(args: argparse.Namespace) -> int:
    from .config import ConfigError, load_config

    try:
        config = load_config(Path(args.config))
    except ConfigError as exc:
        print(f"studio: configuration refused:\n{exc}", file=sys.stderr)
        return 2
    print(f"{args.config}: ok ({len(config.tables)} tables, {len(config.consumers)} consumers)")
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    from .journal import verify_journal

    report = verify_journal(Path(args.data))
    if report.ok:
        print(
            f"journal ok: {report.records} records, {report.feed_messages} signed feed messages, "
            "chain and signatures verified"
        )
        return 0
    print(f"journal BAD: {report.error}", file=sys.stderr)
    return 1


def cmd_replay(args: argparse.Namespace) -> int:
    import importlib

    from recognition.game import ResultReady
    from recognition.games import game_rules

    try:
        module, func, default_game = DEVICE_REPLAYERS[args.device]
    except KeyError:
        print(
            f"studio replay: no replay for device {args.device!r}; known: {', '.join(DEVICE_REPLAYERS)}",
            file=sys.stderr,
        )
        return 2
    try:
        data = Path(args.file).read_bytes()
    except OSError as exc:
        print(f"studio replay: {args.file}: {exc.strerror}", file=sys.stderr)
        return 2
    iter_events = getattr(importlib.import_module(module), func)
    game = game_rules(args.game or default_game)
    untimed = dict(getattr(game, "untimed_settings", {}))
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
                    "source": d.source,
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
    try:
        source = open(args.input, encoding="utf-8", errors="replace") if args.input else sys.stdin
    except OSError as exc:
        print(f"studio evaluate: {args.input}: {exc.strerror}", file=sys.stderr)
        return 2
    out = sys.stdout
    # a game may offer a fast path that writes the exact same line (baccarat: 200,000+ rounds/s); None = not handled
    fast = getattr(game, "evaluate_json", None)
    with source:
        for lineno, line in enumerate(source, 1):
            if not line.strip():
                continue
            text = fast(line) if fast is not None else None
            out.write(
                text
                if text is not None
                else json.dumps(evaluate_line(game, line, lineno), separators=(",", ":")) + "\n"
            )
    out.flush()
    return 0


def evaluate_line(game: Any, line: str, lineno: int) -> dict[str, Any]:
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


def cmd_recognize(args: argparse.Namespace) -> int:
    if args.family != "dice":
        print(f"studio recognize: no recognizer for {args.family!r} (known: dice)", file=sys.stderr)
        return 2
    from app.dice_cli import recognize_main

    return recognize_main(args.rest)


def cmd_schema(args: argparse.Namespace) -> int:
    from streaming.messages import write_schemas

    for path in write_schemas(Path(args.out)) or []:
        print(path)
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="studio", description="Live-dealer casino studio control system")
    p.add_argument("-v", "--verbose", action="store_true", help="log debug messages")
    sub = p.add_subparsers(dest="command", required=True)

    d = sub.add_parser("demo", help="run a complete simulated studio (SQLite, no external service)")
    d.add_argument("--host", default="127.0.0.1")
    d.add_argument("--port", type=int, default=8700)
    d.add_argument("--data", default="studio-data", help="data folder (journal, signing key)")
    d.add_argument(
        "--consumer-token",
        help="bearer token for feed consumers (default: generated and kept in the data folder)",
    )
    d.add_argument("--tables", type=int, default=2, help="number of simulated roulette tables")
    d.add_argument(
        "--no-families",
        dest="families",
        action="store_false",
        help="roulette tables only (by default one table of each other game family is added too)",
    )
    d.add_argument(
        "--speed", type=float, default=1.0, help="simulator clock factor (1.0 = the wheel's real pace)"
    )
    d.add_argument("--seed", type=int, help="seed the simulators for a reproducible demo")
    d.add_argument(
        "--decisions-token",
        help="bearer token of the demo's betting backend, which may post player decisions for the "
        "blackjack table (default: generated and kept in the data folder)",
    )
    d.add_argument(
        "--no-demo-backend",
        dest="demo_backend",
        action="store_false",
        help="do not play the blackjack table's seats and decisions (post them yourself with the "
        "decisions token: docs/decisions.md)",
    )
    d.set_defaults(func=cmd_demo)

    r = sub.add_parser("run", help="run the studio described by a TOML configuration file")
    r.add_argument("--config", required=True)
    r.add_argument("--port", type=int)
    r.set_defaults(func=cmd_run)

    c = sub.add_parser("check-config", help="validate a configuration file and exit")
    c.add_argument("config")
    c.set_defaults(func=cmd_check_config)

    v = sub.add_parser("verify", help="check the journal's hash chain and every signature")
    v.add_argument("--data", required=True)
    v.set_defaults(func=cmd_verify)

    rp = sub.add_parser("replay", help="run a raw device capture through the driver and the game rules")
    rp.add_argument("--device", required=True)
    rp.add_argument("--game")
    rp.add_argument("file")
    rp.set_defaults(func=cmd_replay)

    e = sub.add_parser("evaluate", help="re-check recorded rounds: JSON Lines in, one JSON line out per line")
    e.add_argument("--game", help="the game id (see --list)")
    e.add_argument("--in", dest="input", help="input file (default: standard input)")
    e.add_argument("--list", action="store_true", help="print the game ids and exit")
    e.set_defaults(func=cmd_evaluate)

    u = sub.add_parser("user", help="manage console users (dealers, supervisors, technicians, admins)")
    usub = u.add_subparsers(dest="user_command", required=True)
    ua = usub.add_parser("add", help="add a console user (PIN or password from stdin unless --pin is given)")
    ua.add_argument("--data", required=True, help="the studio's data folder")
    ua.add_argument("--role", required=True, choices=("dealer", "supervisor", "technician", "admin"))
    ua.add_argument("--pin", help="the PIN or password (visible in the process list: prefer stdin)")
    ua.add_argument("name")
    ua.set_defaults(func=cmd_user_add)

    rc = sub.add_parser(
        "recognize",
        help="run a recognizer over images: `studio recognize dice IMAGE... "
        "[--count N] [--calibration FILE] [--accuracy FOLDER...]`",
    )
    rc.add_argument("family", help="dice")
    rc.add_argument("rest", nargs=argparse.REMAINDER, help="the recognizer's own arguments")
    rc.set_defaults(func=cmd_recognize)

    s = sub.add_parser("schema", help="write the feed message JSON Schemas")
    s.add_argument("--out", default="docs/schemas")
    s.set_defaults(func=cmd_schema)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    # pymodbus logs every failed reconnect with a hex dump; the drivers report the link state themselves
    logging.getLogger("pymodbus").setLevel(logging.CRITICAL)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
