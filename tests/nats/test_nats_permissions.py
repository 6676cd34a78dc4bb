"""`studio nats-config`: each studio may publish only its own subjects, each backend may read, through its own
durable consumer, only the studios that list it; checked against a real nats-server running the block."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import brokers
import nats
import pytest
from nats_helpers import Backend, NatsStudio, nats_config, toml

from app.cli import main
from studio.config import load_config

TOKENS = {"bk-a": "token-of-backend-a-0001", "bk-both": "token-of-backend-both-01"}


def studio_file(tmp_path: Path, name: str, backends: list[str]) -> Path:
    config = nats_config(tmp_path / name, ["nats://127.0.0.1:1"], name=name, tables=1)
    config["consumers"] = [{"name": b, "token": TOKENS[b]} for b in backends]
    config["delivery"]["nats"] |= {"user": f"studio-{name}", "password_file": f"{name}.password"}
    path = tmp_path / f"{name}.toml"
    path.write_text(toml(config))
    return path


def attempt(urls: list[str], user: str, password: str, action: Any) -> Any:
    async def run() -> Any:
        nc = await nats.connect(
            servers=urls,
            user=user,
            password=password,
            connect_timeout=5,
            inbox_prefix=f"_INBOX_STUDIO_{user[7:]}" if user.startswith("studio-") else f"_INBOX_{user}",
            allow_reconnect=False,
        )
        try:
            return await action(nc.jetstream(timeout=1))
        finally:
            await nc.close()

    return asyncio.run(run())


def test_generated_permissions(tmp_path: Path) -> None:
    a_file = studio_file(tmp_path, "hall-a", ["bk-a", "bk-both"])
    b_file = studio_file(tmp_path, "hall-b", ["bk-both"])
    accounts = tmp_path / "accounts.conf"
    assert (
        main(["nats-config", "--config", str(a_file), "--config", str(b_file), "--out", str(accounts)]) == 0
    )
    assert accounts.stat().st_mode & 0o077 == 0
    folder = tmp_path / "nats"
    (folder / "n1").mkdir(parents=True)
    shutil.copy(accounts, folder / "n1" / "accounts.conf")
    a_pass = (tmp_path / "hall-a.password").read_text().strip()
    broker = brokers.Broker(
        folder,
        extra="include accounts.conf\n",
        ready_options={"user": "studio-hall-a", "password": a_pass, "inbox_prefix": "_INBOX_STUDIO_hall-a"},
    )
    studios = []
    try:
        for f in (a_file, b_file):
            config = load_config(f)
            assert config.delivery.nats is not None
            config.delivery.nats.servers = broker.urls
            studios.append(NatsStudio(f.parent, broker.urls, config=config))
        a, b = studios
        last_a, last_b = a.settle(), b.settle()
        keys = {"hall-a": a.studio.public_key_b64, "hall-b": b.studio.public_key_b64}
        both = Backend(
            broker.urls,
            keys,
            durable="bk-both",
            connect_options={"user": "bk-both", "password": TOKENS["bk-both"]},
        )
        only_a = Backend(
            broker.urls,
            {"hall-a": keys["hall-a"]},
            durable="bk-a",
            connect_options={"user": "bk-a", "password": TOKENS["bk-a"]},
        )
        try:
            both.wait_for("hall-a", last_a)
            both.wait_for("hall-b", last_b)
            only_a.wait_for("hall-a", last_a)
        finally:
            both.stop()
            only_a.stop()

        # bk-a may not read hall-b, not even through a consumer of its own name
        with pytest.raises(Exception):  # noqa: B017 - the server answers nothing to a refused request
            attempt(
                broker.urls,
                "bk-a",
                TOKENS["bk-a"],
                lambda js: js.pull_subscribe("studio.hall-b.>", durable="bk-a", stream="STUDIO_hall-b"),
            )
        # nor use another backend's consumer
        with pytest.raises(Exception):  # noqa: B017
            attempt(
                broker.urls, "bk-a", TOKENS["bk-a"], lambda js: js.consumer_info("STUDIO_hall-a", "bk-both")
            )
        # a backend may read a message of a studio's stream by seq (a gap its consumer left), only a studio's
        # that lists it
        got = attempt(broker.urls, "bk-a", TOKENS["bk-a"], lambda js: js.get_msg("STUDIO_hall-a", 1))
        assert json.loads(got.data)["seq"] == 1
        with pytest.raises(Exception):  # noqa: B017
            attempt(broker.urls, "bk-a", TOKENS["bk-a"], lambda js: js.get_msg("STUDIO_hall-b", 1))
        # a studio may not publish on another studio's subjects
        with pytest.raises(Exception):  # noqa: B017
            attempt(
                broker.urls, "studio-hall-a", a_pass, lambda js: js.publish("studio.hall-b.t1.result", b"{}")
            )
        # but its own, yes (the check is the permissions', not the message's)
        ack = attempt(broker.urls, "studio-hall-a", a_pass, lambda js: js.stream_info("STUDIO_hall-a"))
        assert ack.state.last_seq == a.publisher_status.acked_seq
    finally:
        for s in studios:
            s.stop()
        broker.stop()
