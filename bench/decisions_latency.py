"""Benchmark: a player decision posted by the backend -> the dealer console showing where the next card goes.

"Time from a decision posted by the backend to the dealer console showing where the next card goes, with
20 blackjack tables in one process." (issue 8, Speed)

Two processes:

* a **studio child** (this file with ``--studio-child``): the real ``Studio`` and ``create_app`` under uvicorn
  with the server settings of ``studio demo``, and N blackjack tables set up exactly as the demo's
  ``blackjack-1`` (``app.demo.demo_family_tables``: the ``blackjack`` rules, a simulated serial shoe on a pty
  read by the real ``serial-shoe`` driver, the simulator dealing one card each time the judge's status names
  where the next card goes), with the demo backend off. Only the decision window is longer
  (``--decision-seconds``, 15) so that the benchmark's players never run out of time;
* **this process**, the betting backend and the dealer consoles:

  - the backend: one ``httpx.AsyncClient`` per table, all concurrent. Each "sits" 1-3 random seats while betting
    is open (it learns the open round from ``GET /v1/tables/{id}/decisions``, polled every 0.5 s between rounds),
    then follows the signed feed (one ``/v1/feed`` WebSocket with the decisions token) and answers each
    ``decision_window`` of its table after a player's thinking time (``--think``, uniform 0.3-2.0 s) with a
    basic-strategy-ish choice (studio/demo_backend.py ``choose``). It stamps ``time.time_ns()`` just before
    the POST and when the ``200`` answer is read (the API's own answer time: it is sent once the signed
    ``decision`` feed message is durable in the journal, fsync included);
  - the consoles: a dealer (created in the data folder as ``studio user add`` does, signed in through
    ``POST /console/api/login``) holding the console's live WebSocket (``/console/ws?tables=<id>``) of each
    table, as the dealer page does (``--one-socket``: one WebSocket for every table). Every message is stamped
    after ``json.loads``. The dealer page draws "Next card: ..." from the ``table`` message's
    ``view.judge``; the figure is the time to the first ``table`` message of that table, after the POST, whose
    ``judge`` no longer awaits the answered window (it names the next card's position, or the next window),
    following one that did (so a view sent before the decision took effect is never counted). The same is
    measured on the lighter ``event`` message (``what: "judge"``, the raw judge status) that precedes it.

CLOCK_REALTIME is one clock for both processes. What the console latency includes: httpx request ->
loopback -> uvicorn -> decisions API (parse, validate, auth) -> Table.decide on the event loop (the judge
re-plays the deal with the decision, AskDecision/DecisionTaken, the feed message checked and queued for the
journal) -> the judge's status changes -> the console hub marks the table -> the console socket's task builds
the table view (snapshot, choices, devices) -> websocket send -> loopback -> this process (json.loads). The
console does not wait for the journal; the 200 does.

Usage::

    python bench/decisions_latency.py                     # 20 tables, 90 s
    python bench/decisions_latency.py --tables 20 --duration 120 --think 0.3,2.0 --speed 4
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from latency import free_port, percentile, stop_child, wait_healthy
from machine import MachineLoad, process_cpu

DEALER, DEALER_PIN = "bench-dealer", "736194"


# =============================================================================
# The studio child
# =============================================================================


def bench_config(args: argparse.Namespace) -> Any:
    """`tables` copies of the demo's blackjack table (app.demo.demo_family_tables), demo backend off."""
    from app.demo import demo_family_tables
    from studio.config import parse_config

    template = next((t for t in demo_family_tables(args.speed, args.seed) if t["game"] == "blackjack"), None)
    if template is None:
        raise SystemExit(
            "bench/decisions_latency.py: the demo has no blackjack table (is the game installed?)"
        )
    tables = []
    for i in range(1, args.tables + 1):
        t = copy.deepcopy(template)
        t["id"] = f"bj-{i}"
        t["decision_seconds"] = args.decision_seconds
        for d in t["devices"]:
            d["serial_number"] = f"SIM-SHOE-BJ-{i:03d}"
            if args.seed is not None:
                d["simulator"]["seed"] = args.seed + i
        tables.append(t)
    return parse_config(
        {
            "studio": {"name": "bench", "data_dir": str(args.data)},
            "server": {"host": "127.0.0.1", "port": args.port},
            "consumers": [{"name": "bench-backend", "token": args.token, "decision_tables": ["*"]}],
            "tables": tables,
        },
        "bench",
    )


def studio_child(args: argparse.Namespace) -> int:
    from latency import _die_with_parent

    _die_with_parent()
    import uvicorn

    from app.api import create_app
    from studio.service import Studio

    studio = Studio(bench_config(args))
    app = create_app(studio)
    server = uvicorn.Server(
        uvicorn.Config(
            app,
            host="127.0.0.1",
            port=args.port,
            log_level="warning",
            lifespan="on",
            ws_ping_interval=20,
            ws_per_message_deflate=False,
            timeout_graceful_shutdown=5,
        )
    )
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    return 0


# =============================================================================
# This process: the backend and the consoles
# =============================================================================


class Bench:
    def __init__(
        self,
        base: str,
        token: str,
        tables: list[str],
        think: tuple[float, float],
        seed: int,
        duration: float,
        one_socket: bool,
    ) -> None:
        self.base = base
        self.token = token
        self.tables = tables
        self.think = think
        self.rng = random.Random(seed)
        self.duration = duration
        self.one_socket = one_socket
        self.queues: dict[str, asyncio.Queue] = {t: asyncio.Queue() for t in tables}
        #: (table, round_id, window, t_post, t_answer, status, code)
        self.posts: list[tuple[str, str, str, int, int, int, str]] = []
        self.sits: list[tuple[int, int, int, str]] = []  # (t_post, t_answer, status, refusal code)
        #: console messages: (table, t_recv, kind "view"/"event", round_id or None, awaiting windows, next position)
        self.console: list[tuple[str, int, str, str | None, tuple[str, ...], str | None]] = []
        self.feed_kinds: dict[str, int] = {}
        self.stop_at = 0.0
        self.console_bytes = 0

    # --- the consoles -------------------------------------------------------------------------------
    async def console_socket(self, cookie: str, tables: list[str]) -> None:
        import websockets

        url = self.base.replace("http", "ws") + "/console/ws?tables=" + ",".join(tables)
        async with websockets.connect(url, additional_headers={"Cookie": cookie}, max_size=2**24) as ws:
            while time.monotonic() < self.stop_at:
                try:
                    text = await asyncio.wait_for(ws.recv(), 1.0)
                except TimeoutError:
                    continue
                msg = json.loads(text)
                t = time.time_ns()
                self.console_bytes += len(text)
                kind = msg.get("type")
                if kind == "table":
                    view = msg.get("view") or {}
                    judge = view.get("judge") or {}
                    rnd = view.get("round") or {}
                    awaiting = tuple(w.get("window") for w in judge.get("awaiting") or [])
                    nxt = (judge.get("next") or {}).get("position")
                    self.console.append((msg["table_id"], t, "view", rnd.get("round_id"), awaiting, nxt))
                elif kind == "event" and msg.get("what") == "judge":
                    judge = (msg.get("data") or {}).get("judge") or {}
                    awaiting = tuple(w.get("window") for w in judge.get("awaiting") or [])
                    nxt = (judge.get("next") or {}).get("position")
                    self.console.append((msg["table_id"], t, "event", None, awaiting, nxt))

    # --- the backend --------------------------------------------------------------------------------
    async def feed(self) -> None:
        import websockets

        url = self.base.replace("http", "ws") + "/v1/feed?after=0"
        async with websockets.connect(
            url, additional_headers={"Authorization": f"Bearer {self.token}"}, max_size=2**22
        ) as ws:
            while time.monotonic() < self.stop_at:
                try:
                    text = await asyncio.wait_for(ws.recv(), 1.0)
                except TimeoutError:
                    continue
                m = json.loads(text)
                self.feed_kinds[m["kind"]] = self.feed_kinds.get(m["kind"], 0) + 1
                q = self.queues.get(m.get("table_id"))
                if q is not None:
                    q.put_nowait(m)

    async def player(self, table_id: str) -> None:
        import httpx

        from studio.demo_backend import choose

        rng = random.Random(self.rng.random())
        q = self.queues[table_id]
        done_rounds: set[str] = set()
        async with httpx.AsyncClient(
            base_url=self.base, headers={"Authorization": f"Bearer {self.token}"}, timeout=30
        ) as http:
            while time.monotonic() < self.stop_at:
                # between rounds: find the round whose betting is open
                view = (await http.get(f"/v1/tables/{table_id}/decisions")).json()
                rid = view.get("round_id")
                if not rid or view.get("state") != "betting_open" or rid in done_rounds:
                    await asyncio.sleep(0.5)
                    continue
                done_rounds.add(rid)
                for seat in sorted(rng.sample([f"seat_{n}" for n in range(1, 8)], rng.randint(1, 3))):
                    t0 = time.time_ns()
                    r = await http.post(
                        f"/v1/tables/{table_id}/decisions",
                        json={"round_id": rid, "seat": seat, "hand": 1, "action": "sit"},
                    )
                    t1 = time.time_ns()
                    self.sits.append(
                        (t0, t1, r.status_code, "" if r.status_code == 200 else str(r.json().get("code")))
                    )
                # the round: answer each window the feed announces, until its result or void
                while time.monotonic() < self.stop_at:
                    try:
                        m = await asyncio.wait_for(q.get(), 1.0)
                    except TimeoutError:
                        continue
                    if m.get("round_id") != rid:
                        continue
                    if m["kind"] in ("result", "void"):
                        break
                    if m["kind"] != "decision_window":
                        continue
                    await asyncio.sleep(rng.uniform(*self.think))
                    action = choose(m.get("allowed") or [], m.get("detail") or {}, rng)
                    body = {
                        "round_id": rid,
                        "seat": m["seat"],
                        "hand": m["hand"],
                        "action": action,
                        "window": m["window"],
                    }
                    t0 = time.time_ns()
                    r = await http.post(f"/v1/tables/{table_id}/decisions", json=body)
                    t1 = time.time_ns()
                    code = "" if r.status_code == 200 else str(r.json().get("code"))
                    self.posts.append((table_id, rid, m["window"], t0, t1, r.status_code, code))

    async def run(self, cookie: str) -> None:
        self.stop_at = time.monotonic() + self.duration
        self.start_ns = time.time_ns()
        self.end_ns = self.start_ns + int(self.duration * 1e9)
        sockets = [self.tables] if self.one_socket else [[t] for t in self.tables]
        tasks = [asyncio.ensure_future(self.console_socket(cookie, s)) for s in sockets]
        tasks.append(asyncio.ensure_future(self.feed()))
        await asyncio.sleep(0.5)  # the consoles and the feed are connected before the first decision
        tasks += [asyncio.ensure_future(self.player(t)) for t in self.tables]
        results = await asyncio.gather(*tasks, return_exceptions=True)
        for r in results:
            if isinstance(r, BaseException):
                print(f"  warning: a client task failed: {r!r}")


def match(posts: list[tuple], console: list[tuple], kind: str, end_ns: int) -> tuple[list[float], int]:
    """Per accepted decision: ms from the POST to the first console message of `kind` for that table that no
    longer awaits the window, after one that did; decisions posted after `end_ns` (the consoles were closing)
    are left out. Returns (latencies, decisions not matched)."""
    by_table: dict[str, list[tuple]] = {}
    for c in console:
        if c[2] == kind:
            by_table.setdefault(c[0], []).append(c)
    out: list[float] = []
    missed = 0
    for table, rid, window, t_post, _t_ans, status, _code in posts:
        if status != 200 or t_post > end_ns:
            continue
        seen_waiting = False
        found = None
        for _t, t_recv, _k, c_rid, awaiting, nxt in by_table.get(table, []):
            if (kind == "view" and c_rid != rid) or t_recv < t_post - 30e9:  # (events carry no round id)
                continue
            if window in awaiting:
                seen_waiting = True
                continue
            # (a view may skip straight past the next card to a later state, even the round's end: it is still
            # the first screen after the decision)
            if seen_waiting and t_recv >= t_post:
                found = t_recv
                break
        if found is None:
            missed += 1
        else:
            out.append((found - t_post) / 1e6)
    return sorted(out), missed


def figures(label: str, values: list[float]) -> str:
    if not values:
        return f"    {label}: no samples"
    return (
        f"    {label:<44} count {len(values):5d}   p50 {percentile(values, 50):7.2f}   "
        f"p95 {percentile(values, 95):7.2f}   p99 {percentile(values, 99):7.2f}   max {values[-1]:7.2f}"
    )


def run(args: argparse.Namespace) -> int:
    tmp = Path(tempfile.mkdtemp(prefix="studio-bench-decisions-", dir=args.dir))
    proc: subprocess.Popen | None = None
    try:
        data = tmp / "data"
        data.mkdir()
        from dealer_ui.auth import UserStore

        UserStore(data).add(DEALER, "dealer", DEALER_PIN)  # what `studio user add --role dealer` does
        port = args.port or free_port()
        token = "bench-decisions-" + os.urandom(12).hex()
        log = tmp / "studio.log"
        cmd = [
            sys.executable,
            str(Path(__file__).resolve()),
            "--studio-child",
            "--data",
            str(data),
            "--port",
            str(port),
            "--token",
            token,
            "--tables",
            str(args.tables),
            "--speed",
            str(args.speed),
            "--seed",
            str(args.seed),
            "--decision-seconds",
            str(args.decision_seconds),
        ]
        think = tuple(float(x) for x in args.think.split(","))
        print(
            f"decisions latency benchmark: {args.tables} blackjack tables (simulated serial shoes) in one studio "
            f"process, shoe speed {args.speed:g}x, players think {think[0]:g}-{think[1]:g} s, {args.duration:.0f} s; "
            f"{'one console socket' if args.one_socket else 'one console socket per table'}; "
            f"{os.cpu_count()} CPUs, python {sys.version.split()[0]}",
            flush=True,
        )
        with open(log, "w") as logf:
            proc = subprocess.Popen(cmd, stdout=logf, stderr=subprocess.STDOUT, cwd=str(ROOT))
        base = f"http://127.0.0.1:{port}"
        wait_healthy(proc, base, log)

        import httpx

        r = httpx.post(
            base + "/console/api/login", json={"username": DEALER, "secret": DEALER_PIN}, timeout=10
        )
        if r.status_code != 200:
            raise RuntimeError(f"the dealer could not sign in: {r.status_code} {r.text}")
        cookie = "; ".join(f"{k}={v}" for k, v in r.cookies.items())

        bench = Bench(
            base,
            token,
            [f"bj-{i}" for i in range(1, args.tables + 1)],
            think,
            args.seed,  # type: ignore[arg-type]
            args.duration,
            args.one_socket,
        )
        machine = MachineLoad(os.getpid(), proc.pid)
        cpu0, wall0 = process_cpu(proc.pid), time.monotonic()
        asyncio.run(bench.run(cookie))
        cpu1, wall1 = process_cpu(proc.pid), time.monotonic()
        machine.stop()
        stop_child(proc)

        end_ns = bench.end_ns - 2_000_000_000
        views, missed_views = match(bench.posts, bench.console, "view", end_ns)
        events, missed_events = match(bench.posts, bench.console, "event", end_ns)
        if args.debug:
            for p in bench.posts:
                print("   post", p[0], p[1][:8], p[2], (p[3] - bench.start_ns) / 1e9, p[5], p[6])
                for c in bench.console:
                    if c[0] == p[0] and abs(c[1] - p[3]) < 3e9:
                        print("      ", c[2], (c[1] - bench.start_ns) / 1e9, (c[3] or "")[:8], c[4], c[5])
        answers = sorted((t1 - t0) / 1e6 for _, _, _, t0, t1, status, _ in bench.posts if status == 200)
        sit_answers = sorted((t1 - t0) / 1e6 for t0, t1, status, _ in bench.sits if status == 200)
        sit_refused: dict[str, int] = {}
        for *_, status, code in bench.sits:
            if status != 200:
                sit_refused[code] = sit_refused.get(code, 0) + 1
        refused: dict[str, int] = {}
        for p in bench.posts:
            if p[5] != 200:
                refused[p[6]] = refused.get(p[6], 0) + 1
        accepted = sum(1 for p in bench.posts if p[5] == 200)
        print(
            f"  decisions posted: {len(bench.posts)}, accepted {accepted}"
            + (f", refused {refused}" if refused else "")
            + f"; sits {len(bench.sits)}"
            + (f" (refused {sit_refused})" if sit_refused else "")
            + "; "
            f"feed messages {sum(bench.feed_kinds.values())} ({', '.join(f'{k} {v}' for k, v in sorted(bench.feed_kinds.items()))})"
        )
        print(
            f"  console messages stamped: {len(bench.console)} ({bench.console_bytes / 1e6:.1f} MB); "
            f"decisions not matched to a console view: {missed_views}, to a judge event: {missed_events}"
        )
        print(f"  studio process CPU {100 * (cpu1 - cpu0) / (wall1 - wall0):.0f}% of one core")
        print(f"  {machine.summary()}")
        print("  latency (ms):")
        print(figures("decision POST -> console table view (next card)", views))
        print(figures("decision POST -> console judge event", events))
        print(figures("decision POST -> 200 (API answer, durable)", answers))
        print(figures("sit POST -> 200", sit_answers))
        if args.json:
            Path(args.json).write_text(
                json.dumps(
                    {
                        "tables": args.tables,
                        "speed": args.speed,
                        "think": think,
                        "duration": args.duration,
                        "console_view_ms": views,
                        "console_event_ms": events,
                        "answer_ms": answers,
                    },
                    indent=1,
                )
            )
        if not views:
            print(f"  no decisions matched; the studio's log:\n{log.read_text()[-3000:]}")
            return 1
        return 0
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait(10)
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--tables", type=int, default=20, help="blackjack tables (default 20)")
    p.add_argument("--duration", type=float, default=90.0, help="seconds of play (default 90)")
    p.add_argument(
        "--speed",
        type=float,
        default=4.0,
        help="the simulated shoes' clock factor (1: a card a second; default 4) and the demo's table "
        "timers scaled alike (betting, pause between rounds)",
    )
    p.add_argument(
        "--think", default="0.3,2.0", help="a player's thinking time, uniform MIN,MAX seconds (0.3,2.0)"
    )
    p.add_argument("--decision-seconds", type=float, default=15.0, help="decision window (default 15 s)")
    p.add_argument("--one-socket", action="store_true", help="one console WebSocket for every table")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--dir", default=None, help="make the temporary data folder here (default: system temp)")
    p.add_argument("--json", default=None, help="also write every latency to this file")
    p.add_argument("--debug", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--studio-child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--data", help=argparse.SUPPRESS)
    p.add_argument("--token", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.studio_child:
        return studio_child(args)
    if args.tables < 1 or args.speed <= 0 or args.duration <= 0:
        p.error("--tables, --speed and --duration must be positive")
    try:
        return run(args)
    except RuntimeError as exc:
        print(f"bench/decisions_latency.py: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
