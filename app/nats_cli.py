"""`studio nats-config`: the nats-server accounts block for the studios' configurations given (docs/nats.md)."""

from __future__ import annotations

import argparse
import atexit
import json
import os
import secrets
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from typing import Any


def _password_file(path: Path) -> None:
    """A studio's NATS password file, made (a random secret, mode 0600) if [delivery.nats] names a missing one."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return  # the configuration check says what is wrong
    given = data.get("delivery", {}).get("nats", {}).get("password_file")
    if not isinstance(given, str):
        return
    secret = Path(given) if Path(given).is_absolute() else path.parent / given
    if not secret.exists():
        fd = os.open(secret, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(secrets.token_urlsafe(32) + "\n")
        print(f"studio nats-config: wrote a new NATS password to {secret}", file=sys.stderr)


def cmd_nats_config(args: argparse.Namespace) -> int:
    from streaming.nats_permissions import Backend, accounts_config
    from studio.config import ConfigError, load_config

    studios: dict[str, tuple[str, str]] = {}
    backends: dict[str, Backend] = {}
    for given in args.config:
        path = Path(given)
        _password_file(path)
        try:
            config = load_config(path)
        except ConfigError as exc:
            print(f"studio nats-config: configuration refused:\n{exc}", file=sys.stderr)
            return 2
        nats = config.delivery.nats
        if nats is None or nats.user is None or nats.password_file is None:
            print(
                f"studio nats-config: {path}: [delivery.nats] needs user and password_file", file=sys.stderr
            )
            return 2
        sid = config.nats_studio_id
        if sid in studios:
            print(f"studio nats-config: two configurations have the studio id {sid!r}", file=sys.stderr)
            return 2
        studios[sid] = (nats.user, nats.password_file.read_text(encoding="utf-8").strip())
        for c in config.consumers:
            b = backends.setdefault(c.name, Backend(c.name, c.token))
            if b.password != c.token:
                print(
                    f"studio nats-config: backend {c.name!r} has another token in {path} than in an earlier "
                    "configuration: its token is its NATS password, give it one",
                    file=sys.stderr,
                )
                return 2
            b.studios.append(sid)
    text = accounts_config(studios, list(backends.values()))
    if args.out == "-":
        sys.stdout.write(text)
        return 0
    fd = os.open(args.out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # it holds passwords
    with os.fdopen(fd, "w") as f:
        f.write(text)
    print(f"studio nats-config: wrote {args.out} ({len(studios)} studio(s), {len(backends)} backend(s))")
    return 0


def add_nats_config(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    n = sub.add_parser(
        "nats-config",
        help="write the nats-server accounts block (users, permissions) for these studios and their backends",
    )
    n.add_argument("--config", action="append", required=True, help="a studio's configuration (repeat)")
    n.add_argument("--out", default="-", help="file to write (mode 0600; default: standard output)")
    n.set_defaults(func=cmd_nats_config)


def start_local_nats(data_dir: Path) -> tuple[subprocess.Popen[bytes], str] | None:
    """`studio demo --nats`: a nats-server with JetStream, its store in the data folder, on 127.0.0.1:4222 (or a
    port of its choosing when that one is taken); None when nats-server is not installed."""
    binary = shutil.which("nats-server") or (
        "/usr/sbin/nats-server" if os.access("/usr/sbin/nats-server", os.X_OK) else None
    )
    if binary is None:
        return None
    folder = data_dir / "nats"
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    for port in (4222, -1):
        for old in folder.glob("*.ports"):
            old.unlink()
        conf = folder / "server.conf"
        conf.write_text(
            f'host: 127.0.0.1\nport: {port}\nports_file_dir: "{folder}"\n'
            f'jetstream {{ store_dir: "{folder / "store"}" }}\n'
        )
        log = open(folder / "server.log", "ab")  # noqa: SIM115 - the server keeps it
        # a session of its own: Ctrl-C stops the studio first, which publishes its last messages, then atexit this
        proc = subprocess.Popen([binary, "-c", str(conf)], stdout=log, stderr=log, start_new_session=True)
        log.close()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and proc.poll() is None:
            found = list(folder.glob("*.ports"))
            if found:
                try:
                    url = json.loads(found[0].read_text())["nats"][0]
                except (ValueError, KeyError, IndexError):
                    url = None
                if url:
                    return proc, url
            time.sleep(0.05)
        proc.kill()
        proc.wait()
    return None


def local_nats(args: argparse.Namespace) -> Any:
    """Start the demo's nats-server (--nats) and say where it is; None (and why) when there is none."""
    started = start_local_nats(Path(args.data).resolve())
    if started is None:
        print(
            "studio demo: --nats: no nats-server here (apt install nats-server); the demo runs without NATS"
        )
        return None
    proc, args.nats_url = started
    atexit.register(_stop, proc)
    print(f"  NATS:            {args.nats_url}  (stream STUDIO_demo, subjects studio.demo.>; docs/nats.md)")
    return proc


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    proc.wait(30)
