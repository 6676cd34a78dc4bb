"""`studio demo --nats`: a local nats-server with JetStream, its store in the data folder, and the demo's
configuration publishing to it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import nats

from app.cli import build_parser
from app.demo import demo_config
from app.nats_cli import start_local_nats


def test_demo_starts_a_local_nats_server(tmp_path: Path) -> None:
    started = start_local_nats(tmp_path)
    assert started is not None
    proc, url = started
    try:
        assert url.startswith("nats://127.0.0.1:")
        assert (tmp_path / "nats" / "server.conf").exists()

        async def account() -> int:
            nc = await nats.connect(servers=[url], connect_timeout=5)
            try:
                return (await nc.jetstream(timeout=10).account_info()).streams
            finally:
                await nc.close()

        assert asyncio.run(account()) == 0  # JetStream answers, nothing on it yet
        # the demo's own parser: every option the command has, at its default unless given here
        args = build_parser().parse_args(
            ["demo", "--data", str(tmp_path), "--tables", "1", "--no-families", "--host", "127.0.0.1"]
            + ["--consumer-token", "demo-token-0123456789", "--decisions-token", "demo-decide-0123456789"]
        )
        args.nats_url = url
        config = demo_config(args)
        assert config.delivery.nats is not None
        assert config.delivery.nats.servers == [url]
        assert config.nats_studio_id == "demo"
    finally:
        proc.terminate()
        proc.wait(30)
