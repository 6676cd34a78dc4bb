"""Accelerated integrity soak: N roulette tables x M rounds at speed S, with faults, then an audit.

`python bench/soak.py [--tables 50] [--rounds 2000] [--speed 50] [--kill-every 120] [--unplug-every 20]
[--garbage-every 2] [--seed 1] [--data DIR] [--json FILE]`

* **Wheels, this process:** one Cammegh SS2 simulator per table on a pty of its own, reached by the studio
  through a symlink (`DATA/ports/roulette-N`), as a real wheel is a device outside the studio. An *unplug*
  stops a simulator (its pty closes: the driver reads EIO), waits, and puts the same wheel (its model, so its
  game counter goes on) on a fresh pty behind the same symlink. *Garbage* is the simulator's own fault
  (`inject("garbage")`: a line of random non-ASCII bytes and a torn status line before the next report).
* **Studio, a child process** (`--studio-child`): the real `Studio` and app under uvicorn (`app.serve.serve`),
  the tables' wheels on those symlinks, `wheel_time_scale` = speed. It is SIGKILLed at random moments
  (uniform around `--kill-every` seconds) and started again on the same data folder and port; the last stop
  is a SIGTERM (the studio voids its open rounds and hands them to the connected consumers first). A consumer
  whose connection had just dropped misses that hand-over: the studio is then started once more (wheels
  stopped) for it to catch up, as a backend would at the next start ("catch-up starts").
* **Consumer, this process:** the client library (`clients/python`, `studio_client.FeedClient`) with a
  `FileSeqStore`; a new client is made from the stored position after every kill, so each resumption comes
  from what the store kept. It counts every seq it is handed.
* **Audit:** `studio verify --expect SEQ:HASH` on the journal, with the last message the consumer's store
  holds; the consumer's counts against the journal's feed seqs 1..last
  (each seen once, none twice, none missing).

The run ends when every table has `--rounds` finished rounds (results + voids) on the feed, or after
`--max-minutes`. The figures: rounds certified, voids by reason, kills, unplugs, garbage lines, the verify
result, seqs seen once / twice / missing, rounds per second. Exit status 0 only when the audit passes.
`tests/fuzz/test_soak_smoke.py` runs a tiny version (`--tables 2 --rounds 4 --kill-at 2`).

The run loop samples once a second (`Soak.tick`): a later memory soak can add its RSS samples there.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "clients" / "python")]

TOKEN = "soak-consumer-token-0123456789"


# -- the studio child ----------------------------------------------------------------------------------------


def _die_with_parent() -> None:
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux's libc: a killed soak leaves its studio running
        pass


def studio_child(config_path: str) -> int:
    _die_with_parent()
    from app.logs import configure_logging
    from app.serve import serve
    from studio.config import parse_config

    configure_logging("text", logging.WARNING)

    config = parse_config(json.loads(Path(config_path).read_text()), config_path)
    return serve(config, banner=False)


def soak_config(data: Path, port: int, links: dict[str, str], speed: float) -> dict[str, Any]:
    tables = [
        {
            "id": table_id,
            "game": "european_roulette",
            "settings": {"wheel_time_scale": speed},  # what a simulated wheel's table is given
            "device": {
                "kind": "cammegh-ss2",
                "role": "wheel",
                "url": link,
                "serial_number": f"SOAK-{table_id}",
                "options": {"keep_powered": True},
            },
        }
        for table_id, link in links.items()
    ]
    return {
        "studio": {"name": "soak", "data_dir": str(data / "studio")},
        "server": {"host": "127.0.0.1", "port": port},
        "consumers": [{"name": "soak", "token": TOKEN}],
        "tables": tables,
    }


# -- the wheels ----------------------------------------------------------------------------------------------


class Wheel:
    """One table's SS2 simulator behind a stable symlink; unplugged and plugged in again on a new pty."""

    def __init__(self, link: Path, speed: float, seed: int) -> None:
        from simulators.cammegh_ss2 import SS2Simulator

        self.link, self.speed = link, speed
        self.sim = SS2Simulator.on_pty(speed=speed, seed=seed)
        self._point(self.sim.slave_path)
        self.sim.start()
        self.lock = threading.Lock()

    def _point(self, path: str | None) -> None:
        tmp = self.link.with_suffix(".new")
        tmp.unlink(missing_ok=True)
        os.symlink(str(path), tmp)
        os.replace(tmp, self.link)

    def unplug(self, seconds: float) -> None:
        """Close the pty (the driver sees the port vanish), wait, then the same wheel on a new pty."""
        from simulators.cammegh_ss2 import SS2Simulator
        from simulators.ptys import open_pty_pair

        with self.lock:
            model = self.sim.model
            self._stop()
            time.sleep(seconds)
            master, path = open_pty_pair()
            self.sim = SS2Simulator(master, speed=self.speed, model=model, owns_port=True)
            self.sim.slave_path = path
            self._point(path)
            self.sim.start()

    def garbage(self) -> None:
        with self.lock:
            self.sim.inject("garbage")

    def _stop(self) -> None:
        # the link names no pty while the wheel is unplugged: the one it had may go to another wheel meanwhile,
        # and two tables whose ports resolve to one path are a configuration the studio refuses to start with
        self._point(f"{self.link}.unplugged")
        self.sim.stop()

    def stop(self) -> None:
        with self.lock:
            self._stop()


# -- the consumer --------------------------------------------------------------------------------------------


class Consumer:
    """studio_client.FeedClient on a loop of its own; a new client from the stored position on `restart`."""

    def __init__(self, base: str, store_path: Path) -> None:
        self.base, self.store_path = base, store_path
        self.seen: Counter[int] = Counter()
        self.finished: Counter[str] = Counter()  # table -> rounds finished (result or void)
        self.results = 0
        self.voids: Counter[str] = Counter()
        self.kinds: Counter[str] = Counter()
        self.error: BaseException | None = None
        self.clients = 0
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="soak-consumer", daemon=True)
        self._thread.start()
        self._client: Any = None
        self._task: Any = None

    def _on_message(self, message: Any) -> None:
        self.seen[message.seq] += 1
        self.kinds[message.kind] += 1
        if message.kind == "result":
            self.results += 1
            self.finished[message.table_id] += 1
        elif message.kind == "void":
            self.voids[message.reason.code] += 1
            self.finished[message.table_id] += 1

    async def _start(self) -> None:
        from studio_client import FeedClient, FileSeqStore

        self._client = FeedClient(
            self.base,
            TOKEN,
            store=FileSeqStore(self.store_path),
            backoff=0.2,
            backoff_max=1.0,
            open_timeout=10,
        )
        self.clients += 1
        self._task = asyncio.ensure_future(self._client.run(self._on_message))
        self._task.add_done_callback(self._done)

    def _done(self, task: Any) -> None:
        if not task.cancelled() and task.exception() is not None and self.error is None:
            self.error = task.exception()

    async def _stop(self) -> None:
        if self._client is not None:
            self._client.stop()
            try:
                await asyncio.wait_for(asyncio.shield(self._task), 10)
            except BaseException:  # noqa: BLE001 - an error of run() is kept by _done
                self._task.cancel()

    def start(self) -> None:
        asyncio.run_coroutine_threadsafe(self._start(), self.loop).result(30)

    def restart(self) -> None:
        asyncio.run_coroutine_threadsafe(self._stop(), self.loop).result(30)
        self.start()

    @property
    def last_seq(self) -> int:
        return max(self.seen, default=0)

    def close(self) -> None:
        asyncio.run_coroutine_threadsafe(self._stop(), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)


# -- the studio process --------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class StudioProcess:
    def __init__(self, config_path: Path, port: int, log_path: Path) -> None:
        self.config_path, self.port, self.log_path = config_path, port, log_path
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def start(self, timeout: float = 120.0) -> None:
        import httpx

        with open(self.log_path, "a") as log:
            log.write(f"--- start {self.starts + 1} at {time.strftime('%H:%M:%S')}\n")
            log.flush()
            self.proc = subprocess.Popen(
                [sys.executable, str(Path(__file__).resolve()), "--studio-child", str(self.config_path)],
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=REPO,
            )
        self.starts += 1
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the studio exited at start (see {self.log_path})")
            try:  # any answer: the server is up (503 while its tables' devices are down, as after a catch-up start)
                httpx.get(f"http://127.0.0.1:{self.port}/v1/health", timeout=2)
                return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"the studio did not answer within {timeout:.0f} s (see {self.log_path})")

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(30)

    def terminate(self) -> int:
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                return self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.kill()
                return -9
        return self.proc.returncode


def journal_feed_seqs(journal: Path) -> list[int]:
    """The feed seqs the journal holds (read-only; WAL lets this run beside the writer)."""
    with sqlite3.connect(f"file:{journal}?mode=ro", uri=True) as db:
        return [row[0] for row in db.execute("SELECT feed_seq FROM records WHERE feed_seq IS NOT NULL")]


# -- the run -------------------------------------------------------------------------------------------------


class Soak:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.rng = random.Random(args.seed)
        self.data = Path(args.data).resolve()
        (self.data / "ports").mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.kills = self.unplugs = self.garbage_lines = 0
        self.catch_up_starts = 0
        self.wheels = {
            f"roulette-{i}": Wheel(self.data / "ports" / f"roulette-{i}", args.speed, args.seed * 1000 + i)
            for i in range(1, args.tables + 1)
        }
        config = soak_config(
            self.data, self.port, {t: str(w.link) for t, w in self.wheels.items()}, args.speed
        )
        config_path = self.data / "config.json"
        config_path.write_text(json.dumps(config, indent=1))
        self.studio = StudioProcess(config_path, self.port, self.data / "studio.log")
        self.consumer = Consumer(f"http://127.0.0.1:{self.port}", self.data / "consumer-position.json")
        self._unplugging: set[str] = set()

    def _next(self, every: float) -> float:
        return time.monotonic() + self.rng.uniform(0.5, 1.5) * every if every > 0 else float("inf")

    def _unplug(self, table_id: str) -> None:
        try:
            self.wheels[table_id].unplug(self.rng.uniform(0.3, 2.0))
        finally:
            self._unplugging.discard(table_id)

    def done(self) -> bool:
        finished = self.consumer.finished
        return all(finished[t] >= self.args.rounds for t in self.wheels)

    def tick(self, now: float) -> None:
        """Once a second: the progress line (and the place for a memory soak's RSS samples)."""
        c = self.consumer
        print(
            f"[{now - self.t0:7.1f} s] rounds {sum(c.finished.values()):6d} (certified {c.results}), "
            f"seq {c.last_seq}, kills {self.kills}, unplugs {self.unplugs}, garbage {self.garbage_lines}",
            flush=True,
        )

    def run(self) -> dict[str, Any]:
        args = self.args
        self.studio.start()
        self.consumer.start()
        self.t0 = start = time.monotonic()
        deadline = start + args.max_minutes * 60
        next_kill = self._next(args.kill_every)
        next_unplug = self._next(args.unplug_every)
        next_garbage = self._next(args.garbage_every)
        next_tick = start + args.report_every
        killed_at_rounds = False
        while not self.done() and time.monotonic() < deadline:
            if self.consumer.error is not None:
                break
            now = time.monotonic()
            rounds = sum(self.consumer.finished.values())
            if args.kill_at is not None and not killed_at_rounds and rounds >= args.kill_at:
                killed_at_rounds = True
                next_kill = now
            if now >= next_kill:
                self.studio.kill()
                self.kills += 1
                self.studio.start()
                self.consumer.restart()  # a new client, from the position its store kept
                next_kill = self._next(args.kill_every) if args.kill_at is None else float("inf")
            if now >= next_unplug:
                table_id = self.rng.choice(sorted(set(self.wheels) - self._unplugging))
                self._unplugging.add(table_id)
                threading.Thread(target=self._unplug, args=(table_id,), daemon=True).start()
                self.unplugs += 1
                next_unplug = self._next(args.unplug_every)
            if now >= next_garbage:
                self.wheels[self.rng.choice(sorted(self.wheels))].garbage()
                self.garbage_lines += 2  # a line of random bytes and a torn status line
                next_garbage = self._next(args.garbage_every)
            if now >= next_tick:
                self.tick(now)
                next_tick = now + args.report_every
            time.sleep(0.05)
        elapsed = time.monotonic() - start
        return self.finish(elapsed)

    def _consumer_reaches(self, seq: int, seconds: float) -> bool:
        deadline = time.monotonic() + seconds
        while self.consumer.last_seq < seq and time.monotonic() < deadline and self.consumer.error is None:
            time.sleep(0.1)
        return self.consumer.last_seq >= seq

    def finish(self, elapsed: float) -> dict[str, Any]:
        journal = self.data / "studio" / "journal.sqlite3"
        # the wheels go quiet first; then a SIGTERM with the consumer connected: the studio voids the open rounds
        # and hands every message to the consumer before it closes the feed
        for wheel in self.wheels.values():
            wheel.stop()
        rc = self.studio.terminate()
        self.catch_up_starts = 0
        while True:
            expected = journal_feed_seqs(journal)
            last = max(expected, default=0)
            if (
                self._consumer_reaches(last, 15)
                or self.catch_up_starts >= 3
                or self.consumer.error is not None
            ):
                break
            # the consumer was not connected when the studio stopped (its connection had just dropped): as a
            # backend would, it takes the rest from the studio's next start, which writes (and delivers) only a
            # checkpoint or two, the wheels being stopped
            self.catch_up_starts += 1
            self.studio.start()
            self._consumer_reaches(last, 120)
            rc = self.studio.terminate()
        self.consumer.close()
        # the journal must hold the very message the consumer's store says it processed last (a cut journal fails)
        stored = json.loads(self.consumer.store_path.read_text())
        expect = ["--expect", f"{stored['last_seq']}:{stored['last_hash']}"] if stored["last_seq"] else []
        verify = subprocess.run(
            [sys.executable, "-m", "app.cli", "verify", "--data", str(self.data / "studio"), *expect],
            capture_output=True,
            text=True,
            cwd=REPO,
            check=False,
        )
        seen = self.consumer.seen
        counts = Counter(seen.values())
        missing = sorted(set(range(1, last + 1)) - set(seen))
        c = self.consumer
        return {
            "tables": self.args.tables,
            "rounds_per_table": self.args.rounds,
            "speed": self.args.speed,
            "seconds": round(elapsed, 1),
            "rounds_finished": sum(c.finished.values()),
            "rounds_certified": c.results,
            "voids_by_reason": dict(c.voids.most_common()),
            "feed_kinds": dict(c.kinds.most_common()),
            "rounds_per_second": round(sum(c.finished.values()) / elapsed, 2) if elapsed else 0.0,
            "kills": self.kills,
            "studio_starts": self.studio.starts,
            "consumer_clients": c.clients,
            "unplugs": self.unplugs,
            "garbage_lines": self.garbage_lines,
            "final_sigterm_rc": rc,
            "catch_up_starts": self.catch_up_starts,
            "verify_rc": verify.returncode,
            "verify": (verify.stdout + verify.stderr).strip().splitlines()[-3:],
            "feed_last_seq": last,
            "journal_feed_seqs_unique": len(set(expected)) == len(expected),
            "seqs_once": counts.get(1, 0),
            "seqs_twice_or_more": sum(n for k, n in counts.items() if k > 1),
            "seqs_missing": len(missing),
            "missing_sample": missing[:10],
            "seqs_beyond_journal": len(set(seen) - set(expected)),
            "consumer_error": repr(c.error) if c.error is not None else None,
        }


def audit_ok(r: dict[str, Any]) -> bool:
    return (
        r["verify_rc"] == 0
        and r["seqs_missing"] == 0
        and r["seqs_twice_or_more"] == 0
        and r["seqs_beyond_journal"] == 0
        and r["journal_feed_seqs_unique"]
        and r["consumer_error"] is None
        and r["seqs_once"] == r["feed_last_seq"]
    )


def print_report(r: dict[str, Any]) -> None:
    print(
        f"soak: {r['tables']} tables x {r['rounds_per_table']} rounds at speed {r['speed']:g}, {r['seconds']} s"
    )
    print(f"  rounds finished   {r['rounds_finished']} ({r['rounds_per_second']} rounds/s)")
    print(f"  rounds certified  {r['rounds_certified']}")
    print(f"  voids by reason   {r['voids_by_reason']}")
    print(
        f"  faults            {r['kills']} SIGKILLs ({r['studio_starts']} studio starts, "
        f"{r['consumer_clients']} consumer clients), {r['unplugs']} unplugs, {r['garbage_lines']} garbage lines"
    )
    if r["catch_up_starts"]:
        print(f"  catch-up starts   {r['catch_up_starts']} (the consumer was not connected at the last stop)")
    print(f"  studio verify     rc {r['verify_rc']}: {' / '.join(r['verify'])}")
    print(
        f"  feed seqs 1..{r['feed_last_seq']}: once {r['seqs_once']}, twice or more {r['seqs_twice_or_more']}, "
        f"missing {r['seqs_missing']} {r['missing_sample'] or ''}, not in the journal {r['seqs_beyond_journal']}"
    )
    if r["consumer_error"]:
        print(f"  consumer error    {r['consumer_error']}")
    print(f"  audit             {'PASS' if audit_ok(r) else 'FAIL'}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=2000, help="finished rounds per table before the run ends")
    ap.add_argument("--speed", type=float, default=50, help="the wheels' speed-up (as `studio demo --speed`)")
    ap.add_argument("--kill-every", type=float, default=120, help="mean seconds between SIGKILLs (0: none)")
    ap.add_argument("--kill-at", type=int, help="one SIGKILL once this many rounds finished (and no others)")
    ap.add_argument("--unplug-every", type=float, default=20, help="mean seconds between unplugs (0: none)")
    ap.add_argument("--garbage-every", type=float, default=2, help="mean seconds between garbage (0: none)")
    ap.add_argument("--max-minutes", type=float, default=600, help="stop then even if rounds are left")
    ap.add_argument("--report-every", type=float, default=10, help="seconds between progress lines")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--data", help="data folder (default: a new temporary folder)")
    ap.add_argument("--json", help="write the figures to this file")
    ap.add_argument("--studio-child", metavar="CONFIG", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.studio_child:
        return studio_child(args.studio_child)
    if args.data is None:
        import tempfile

        args.data = tempfile.mkdtemp(prefix="soak-")
    if args.tables < 1 or args.rounds < 1:
        ap.error("--tables and --rounds must be at least 1")
    soak = Soak(args)
    try:
        report = soak.run()
    except BaseException:
        if soak.studio.proc is not None and soak.studio.proc.poll() is None:
            soak.studio.kill()
        for wheel in soak.wheels.values():
            wheel.stop()
        raise
    print_report(report)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n")
    return 0 if audit_ok(report) else 1


if __name__ == "__main__":
    sys.exit(main())
