"""Real nats-server processes for the tests and the benchmark: one node or a three-node JetStream cluster on
loopback, in a temporary folder, each on ports the server picked itself (`port: -1`, read back from its ports
file), so no two tests race for a port. A node killed and started again takes the same ports and store."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import nats
from waiting import until

NATS_SERVER = shutil.which("nats-server") or "/usr/sbin/nats-server"


#: run the server under util-linux's setpriv so that it is SIGKILLed when the process that started it dies: a
#: killed test run leaves no broker behind (a preexec_fn would be unsafe beside the tests' threads)
SETPRIV = shutil.which("setpriv")
_WITH_US = [SETPRIV, "--pdeathsig", "KILL"] if SETPRIV else []


def available() -> bool:
    return os.access(NATS_SERVER, os.X_OK)


class Node:
    """One nats-server with JetStream; `kill()` SIGKILLs it, `start()` brings it back on its ports and store."""

    def __init__(self, folder: Path, name: str, cluster: str | None = None, extra: str = "") -> None:
        self.folder, self.name, self.cluster, self.extra = folder, name, cluster, extra
        self.folder.mkdir(parents=True, exist_ok=True)
        self.client_port: int | None = None
        self.cluster_port: int | None = None
        self.routes: list[int] = []
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.client_port}"

    def _config(self) -> str:
        lines = [
            f"server_name: {self.name}",
            "host: 127.0.0.1",
            f"port: {self.client_port or -1}",
            f'ports_file_dir: "{self.folder}"',
            f'jetstream {{ store_dir: "{self.folder / "js"}", max_memory_store: 64MB, max_file_store: 2GB }}',
        ]
        if self.cluster:
            routes = ", ".join(f"nats-route://127.0.0.1:{p}" for p in self.routes)
            lines.append(
                f"cluster {{ name: {self.cluster}, host: 127.0.0.1, port: {self.cluster_port or -1}, "
                f"routes: [{routes}] }}"
            )
        return "\n".join(lines) + "\n" + self.extra

    def start(self) -> None:
        conf = self.folder / "server.conf"
        conf.write_text(self._config())
        for old in self.folder.glob("*.ports"):
            old.unlink()
        log = open(self.folder / "server.log", "ab")  # noqa: SIM115 - the process keeps it
        self.proc = subprocess.Popen([*_WITH_US, NATS_SERVER, "-c", str(conf)], stdout=log, stderr=log)
        log.close()

        def ports() -> dict[str, Any] | None:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise AssertionError(
                    f"nats-server {self.name} exited: {(self.folder / 'server.log').read_text()}"
                )
            for f in self.folder.glob("*.ports"):
                try:
                    return json.loads(f.read_text())
                except ValueError:
                    return None
            return None

        found = until(ports, f"nats-server {self.name}'s ports file")
        self.client_port = int(found["nats"][0].rsplit(":", 1)[1])
        if self.cluster:
            self.cluster_port = int(found["cluster"][0].rsplit(":", 1)[1])

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(30)
        self.proc = None

    def pause(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGCONT)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(30)
        self.proc = None


def _js_ready(urls: list[str], replicas: int, options: dict[str, Any]) -> bool:
    """JetStream answers (and, in a cluster, can place a stream of `replicas`)."""

    async def check() -> bool:
        try:
            nc = await nats.connect(servers=urls, connect_timeout=1, allow_reconnect=False, **options)
        except Exception:  # noqa: BLE001 - not up yet
            return False
        try:
            js = nc.jetstream(timeout=2)
            await js.account_info()
            if replicas > 1:
                name = f"READY_{os.getpid()}_{time.monotonic_ns()}"
                await js.add_stream(
                    name=name, subjects=[f"ready.{name}"], num_replicas=replicas, storage="memory"
                )
                await js.delete_stream(name)
            return True
        except Exception:  # noqa: BLE001 - no leader yet
            return False
        finally:
            await nc.close()

    return asyncio.run(check())


class Broker:
    """One node (`nodes=1`) or a cluster of three; `urls` for the clients."""

    def __init__(
        self, folder: Path, nodes: int = 1, extra: str = "", ready_options: dict[str, Any] | None = None
    ) -> None:
        self.ready_options = ready_options or {}
        cluster = "studios" if nodes > 1 else None
        self.nodes = [Node(folder / f"n{i + 1}", f"n{i + 1}", cluster, extra) for i in range(nodes)]
        # the first node needs a route before any other node exists: a port held (bound, never listening) for
        # the broker's life, so it is refused at once and no one else can take it
        self._placeholder = socket.socket()
        self._placeholder.bind(("127.0.0.1", 0))
        try:
            for i, node in enumerate(self.nodes):
                node.routes = [n.cluster_port for n in self.nodes[:i] if n.cluster_port]
                node.routes = node.routes or [self._placeholder.getsockname()[1]]
                node.start()
            for node in self.nodes:  # every node knows every other one when started again
                node.routes = [n.cluster_port for n in self.nodes if n is not node and n.cluster_port]
            self.wait_ready()
        except BaseException:
            self.stop()
            raise

    @property
    def urls(self) -> list[str]:
        return [n.url for n in self.nodes]

    def wait_ready(self) -> None:
        replicas = 3 if len(self.nodes) > 1 else 1
        live = [n.url for n in self.nodes if n.proc is not None]
        until(
            lambda: _js_ready(live, replicas if len(live) == len(self.nodes) else 1, self.ready_options),
            "JetStream to be ready",
        )

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()
        self._placeholder.close()
