"""The `studio` command: its parser and the small commands (the demo, serving and the audits have modules of
their own)."""

from __future__ import annotations

import argparse
import logging
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .audit import cmd_evaluate, cmd_replay
from .demo import cmd_demo, cmd_games
from .export_cli import add_export_parser
from .logs import FORMATS, configure_logging
from .manifest_cli import add_manifest_parser
from .nats_cli import add_nats_config
from .serve import serve
from .stats_cli import add_stats_parser


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


def _checked_config(path: str) -> Any:
    """The file's configuration, checked exactly as both `run` and `check-config` check it (before anything
    opens); None after printing every problem."""
    from studio.config_check import validate

    config = validate(Path(path))
    if isinstance(config, list):
        print("studio: configuration refused:", *config, sep="\n", file=sys.stderr)
        return None
    return config


def cmd_run(args: argparse.Namespace) -> int:
    config = _checked_config(args.config)
    if config is None:
        return 2
    if args.port is not None:
        if not 1 <= args.port <= 65535:
            print(f"studio: configuration refused:\n--port {args.port}: a port is 1-65535", file=sys.stderr)
            return 2
        config.server.port = args.port
    return serve(config)


def cmd_check_config(args: argparse.Namespace) -> int:
    config = _checked_config(args.config)
    if config is None:
        return 2
    print(f"{args.config}: ok ({len(config.tables)} tables, {len(config.consumers)} consumers)")
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    from studio.journal import verify_journal

    expect = None
    if args.expect is not None:
        seq, _, digest = args.expect.partition(":")
        if not (seq.isdigit() and int(seq) >= 1 and re.fullmatch(r"[0-9a-f]{64}", digest)):
            print(
                f"studio verify: --expect {args.expect!r}: give SEQ:HASH (a feed seq, a 64-hex hash)",
                file=sys.stderr,
            )
            return 2
        expect = (int(seq), digest)
    report = verify_journal(Path(args.data), expect=expect)
    if report.ok:
        print(
            f"journal ok: {report.records} records, {report.feed_messages} signed feed messages, "
            "chain and signatures verified"
            + (f", feed message {expect[0]} is the one expected" if expect else "")
        )
        return 0
    print(f"journal BAD: {report.error}", file=sys.stderr)
    return 1


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


def cmd_contract(args: argparse.Namespace) -> int:
    from .contract import write_contract

    for path in write_contract(Path(args.out)):
        print(path)
    return 0


def add_log_format(p: argparse.ArgumentParser) -> None:
    """A serving command logs INFO and up (a device back, a feed consumer in or out) as text or JSON lines."""
    p.add_argument(
        "--log-format",
        choices=FORMATS,
        default="text",
        help="text (for people) or json (one object per line: time, level, logger, message, table_id, "
        "round_id, device_id; docs/operations.md)",
    )
    p.set_defaults(log_level=logging.INFO)


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
        "--games",
        help="one table of each of these games instead (comma-separated ids, or 'all': every game, each on its "
        "simulated devices; 'studio games' lists them)",
    )
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
    d.add_argument(
        "--nats",
        action="store_true",
        help="start a local nats-server and publish the feed to it (docs/nats.md)",
    )
    add_log_format(d)
    # nats_url: set by --nats once a local nats-server answers (app/nats_cli.py)
    d.set_defaults(func=cmd_demo, nats_url=None)

    g = sub.add_parser(
        "games", help="list every game: its family, the devices of its table, simulated or not"
    )
    g.add_argument("--json", action="store_true", help="one JSON object per game (what docs/games.md uses)")
    g.set_defaults(func=cmd_games)

    r = sub.add_parser("run", help="run the studio described by a TOML configuration file")
    r.add_argument("--config", required=True)
    r.add_argument("--port", type=int)
    add_log_format(r)
    r.set_defaults(func=cmd_run)

    c = sub.add_parser("check-config", help="validate a configuration file and exit")
    c.add_argument("config")
    c.set_defaults(func=cmd_check_config)

    v = sub.add_parser("verify", help="check the journal's hash chain and every signature")
    v.add_argument("--data", required=True)
    v.add_argument(
        "--expect",
        metavar="SEQ:HASH",
        help="the seq and hash of a feed message a backend holds (its newest checkpoint): the journal must "
        "hold it (a journal whose last records were deleted does not; docs/design.md)",
    )
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

    add_stats_parser(sub)
    add_manifest_parser(sub)
    add_export_parser(sub)
    ct = sub.add_parser(
        "contract",
        help="write the published contract generated from the models: JSON Schemas, AsyncAPI (feed), OpenAPI",
    )
    ct.add_argument("--out", default="docs", help="the folder (docs/ of the repository)")
    ct.set_defaults(func=cmd_contract)
    add_nats_config(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    level = logging.DEBUG if args.verbose else getattr(args, "log_level", logging.WARNING)
    configure_logging(getattr(args, "log_format", "text"), level)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
