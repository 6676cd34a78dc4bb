"""Memory soak: `studio demo --speed 20` (every family) for two hours, its RSS sampled, tracemalloc's growth sites.

`python bench/memory_soak.py [--minutes 120] [--speed 20] [--games all] [--trace-frames 0|N] [--out DIR]
[--port 8421] [--seed 1] [--interval 30] [--mark-minutes 15]`
`python bench/memory_soak.py --report DIR` prints the figures of a run (finished or still going) from its files.

* **The studio, a child process:** `studio demo` (this file's `--studio-child`, which runs `app.cli.main`) with a
  data folder and a port of its own, every family (the default) or `--games all`. It is stopped with SIGTERM at
  the end.
* **RSS:** every `--interval` seconds the RSS of the studio process and the total with its descendants (the
  journal writer) from /proc, to `DIR/rss.csv` (`seconds,main_kb,total_kb`).
* **Growth sites:** with `--trace-frames N` the child starts tracemalloc with N frames and pickles a snapshot
  at `--mark-minutes` and every `--snap-minutes` after it (`DIR/snap-MMMM.pickle`) and on SIGUSR1 (the
  parent's last one, `snap-end.pickle`);
  the report compares the last snapshot with the one at `--mark-minutes` (by line, and by traceback for the
  top sites). Tracemalloc slows the process and its traces take memory of their own, so the RSS figure comes
  from a run without it (`--trace-frames 0`, the default) and the growth sites from a second, concurrent run.
* **The figures:** RSS at `--mark-minutes` and at the end, the end against the mark (target: within 10 %), the
  largest and the median RSS of the last 10 minutes against those of the 10 minutes around the mark, and the
  sawtooth: the minimum and maximum of each 10-minute window.

Run it outside the suite: it takes the run's length and about 0.6 of a core (1.5x more with tracemalloc).
"""

from __future__ import annotations

import argparse
import os
import pickle
import signal
import statistics
import subprocess
import sys
import threading
import time
import tracemalloc
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO)]

WINDOW = 600  # seconds of one sawtooth window


# -- the studio child ----------------------------------------------------------------------------------------


def _die_with_parent() -> None:
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux's libc: a killed soak leaves its studio running
        pass


def _dump(snap_dir: Path, name: str) -> None:
    snap = tracemalloc.take_snapshot().filter_traces(
        [
            tracemalloc.Filter(False, tracemalloc.__file__),
            tracemalloc.Filter(False, "<frozen importlib._bootstrap>"),
        ]
    )
    tmp = snap_dir / f"{name}.tmp"
    with tmp.open("wb") as f:
        pickle.dump(snap, f, pickle.HIGHEST_PROTOCOL)
    tmp.replace(snap_dir / f"{name}.pickle")


def studio_child(frames: int, snap_dir: Path, mark_minutes: float, period: float, argv: list[str]) -> int:
    _die_with_parent()
    if frames:
        tracemalloc.start(frames)
        wake = threading.Event()
        signal.signal(signal.SIGUSR1, lambda *_: wake.set())
        t0 = time.monotonic()

        def snapshots() -> None:  # at the mark, then every `period` minutes, and when the parent asks
            minutes = mark_minutes
            while True:
                if wake.wait(max(0.0, t0 + minutes * 60 - time.monotonic())):
                    wake.clear()
                    _dump(snap_dir, "snap-end")
                else:
                    _dump(snap_dir, f"snap-{round(minutes):04d}")
                    minutes += period

        threading.Thread(target=snapshots, name="memory-soak-snapshots", daemon=True).start()
    from app.cli import main

    return main(argv)


# -- the parent: RSS samples ---------------------------------------------------------------------------------


def _rss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def _descendants(pid: int) -> list[int]:
    parents: dict[int, list[int]] = {}
    for p in Path("/proc").iterdir():
        if not p.name.isdigit():
            continue
        try:
            ppid = int((p / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        parents.setdefault(ppid, []).append(int(p.name))
    out, todo = [], [pid]
    while todo:
        kids = parents.get(todo.pop(), [])
        out += kids
        todo += kids
    return out


def run(args: argparse.Namespace) -> int:
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    demo = ["demo", "--speed", str(args.speed), "--data", str(out / "data"), "--port", str(args.port)]
    demo += ["--seed", str(args.seed)] + (["--games", args.games] if args.games else [])
    cmd = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--studio-child",
        "--trace-frames",
        str(args.trace_frames),
    ]
    cmd += ["--out", str(out), "--mark-minutes", str(args.mark_minutes)]
    cmd += ["--snap-minutes", str(args.snap_minutes or args.mark_minutes), "--", *demo]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    (out / "command.txt").write_text(" ".join(cmd) + "\n")
    with (out / "studio.log").open("ab") as log:
        child = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
    (out / "pid").write_text(f"{child.pid}\n")
    signal.signal(
        signal.SIGTERM, lambda *_: sys.exit(143)
    )  # stopped early: the studio stops too, figures so far
    t0 = time.monotonic()
    end = t0 + args.minutes * 60
    try:
        with (out / "rss.csv").open("a") as csv:
            csv.write("seconds,main_kb,total_kb\n")
            while child.poll() is None:
                now = time.monotonic()
                main_kb = _rss_kb(child.pid)
                total = main_kb + sum(_rss_kb(p) for p in _descendants(child.pid))
                csv.write(f"{now - t0:.0f},{main_kb},{total}\n")
                csv.flush()
                if now >= end:
                    break
                time.sleep(min(args.interval, max(0.0, end - time.monotonic())))
        if child.poll() is None and args.trace_frames:
            child.send_signal(signal.SIGUSR1)
            wait_for(out / "snap-end.pickle", 600)
    finally:
        if child.poll() is None:
            child.terminate()
            try:
                child.wait(120)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        text = report(out, args.mark_minutes, args.top)  # a SIGTERM's too: the figures so far
        print(text, flush=True)
        (out / "report.txt").write_text(text + "\n")
    return 0


def wait_for(path: Path, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not path.exists():
        if time.monotonic() > deadline:
            return False
        time.sleep(1)
    return True


# -- the figures ---------------------------------------------------------------------------------------------


def read_samples(path: Path) -> list[tuple[float, int, int]]:
    """`seconds,main_kb,total_kb` rows (commas or spaces between them; a header line is skipped)."""
    rows = []
    for line in path.read_text().splitlines():
        parts = line.replace(",", " ").split()
        try:
            row = (float(parts[0]), int(parts[1]), int(parts[2]))
        except (IndexError, ValueError):
            continue
        if row[2]:  # 0: the child had not started (or had already gone)
            rows.append(row)
    return rows


def _mb(kb: float) -> str:
    return f"{kb / 1024:.0f} MB"


def rss_figures(rows: list[tuple[float, int, int]], mark_minutes: float = 15) -> list[str]:
    if not rows:
        return ["no RSS samples"]
    mark = mark_minutes * 60
    at_mark = min(rows, key=lambda r: abs(r[0] - mark))
    last = rows[-1]
    lines = [f"samples: {len(rows)}, {last[0] / 60:.1f} min"]
    if last[0] < mark:
        return lines + [
            f"RSS so far: {_mb(last[2])} total, {_mb(last[1])} studio (the mark is at {mark_minutes:g} min)"
        ]
    ratio = last[2] / at_mark[2] - 1
    lines.append(
        f"RSS at {at_mark[0] / 60:.1f} min: {_mb(at_mark[2])} total ({_mb(at_mark[1])} studio); "
        f"at {last[0] / 60:.1f} min: {_mb(last[2])} total ({_mb(last[1])} studio)"
    )
    verdict = "within" if abs(ratio) <= 0.10 else "OUTSIDE"
    lines.append(f"end / mark: {ratio:+.1%} ({verdict} the 10 % target)")
    around = [r[2] for r in rows if abs(r[0] - mark) <= WINDOW / 2]
    recent = [r[2] for r in rows if r[0] >= last[0] - WINDOW]
    if around and recent:
        peak = max(recent) / max(around) - 1
        lines.append(
            f"peak of the last 10 min {_mb(max(recent))} against the peak of the 10 min around the mark "
            f"{_mb(max(around))}: {peak:+.1%}"
        )
        # the sawtooth's spikes last a sample or two: the medians compare the level underneath
        mid = statistics.median(recent) / statistics.median(around) - 1
        lines.append(
            f"median of the last 10 min {_mb(statistics.median(recent))} against the median around the mark "
            f"{_mb(statistics.median(around))}: {mid:+.1%}"
        )
    lines.append("sawtooth (total RSS per 10-minute window: min - max):")
    for start in range(0, int(last[0]) + 1, WINDOW):
        w = [r[2] for r in rows if start <= r[0] < start + WINDOW]
        if w:
            lines.append(
                f"  {start // 60:4d}-{start // 60 + 10:<4d} min  {_mb(min(w)):>7} - {_mb(max(w)):>7}"
            )
    return lines


def growth_sites(out: Path, mark_minutes: float, top: int) -> list[str]:
    first = out / f"snap-{round(mark_minutes):04d}.pickle"
    snaps = sorted(out.glob("snap-*.pickle"), key=lambda p: p.stat().st_mtime)
    if not first.exists() or snaps[-1] == first:
        return ["growth sites: no two snapshots yet"] if snaps or first.exists() else []
    later = snaps[-1]
    with first.open("rb") as f:
        base = pickle.load(f)
    with later.open("rb") as f:
        snap = pickle.load(f)
    total = sum(s.size for s in snap.statistics("filename"))
    lines = [f"tracemalloc: {first.name} -> {later.name}, traced now {_mb(total / 1024)}", "growth by line:"]
    diffs = snap.compare_to(base, "lineno")
    for d in diffs[:top]:
        frame = d.traceback[0]
        lines.append(
            f"  {d.size_diff / 1024 / 1024:+8.2f} MB ({d.size / 1024 / 1024:7.2f} MB, {d.count_diff:+8d} blocks)  "
            f"{_short(frame.filename)}:{frame.lineno}"
        )
    lines.append("top growth by traceback (innermost frame last):")
    for d in snap.compare_to(base, "traceback")[: min(top, 6)]:
        lines.append(f"  {d.size_diff / 1024 / 1024:+8.2f} MB, {d.count_diff:+d} blocks")
        for frame in list(d.traceback)[-6:]:
            lines.append(f"      {_short(frame.filename)}:{frame.lineno}")
    return lines


def _short(filename: str) -> str:
    for root in (str(REPO) + os.sep, "site-packages" + os.sep, "lib" + os.sep + "python"):
        if root in filename:
            return filename.split(root, 1)[1]
    return filename


def report(out: Path, mark_minutes: float = 15, top: int = 15) -> str:
    lines = [f"memory soak {out}"]
    rss = out / "rss.csv"
    if not rss.exists() and (out / "rss.txt").exists():
        rss = out / "rss.txt"
    lines += rss_figures(read_samples(rss) if rss.exists() else [], mark_minutes)
    lines += growth_sites(out, mark_minutes, top)
    return "\n".join(lines)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--minutes", type=float, default=120)
    p.add_argument("--speed", type=float, default=20)
    p.add_argument("--games", help="'all' or game ids (studio demo --games); default: every family")
    p.add_argument("--trace-frames", type=int, default=0, help="tracemalloc frames (0: no tracemalloc)")
    p.add_argument("--out", default="/tmp/memory-soak")
    p.add_argument("--port", type=int, default=8421)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--interval", type=float, default=30, help="seconds between RSS samples")
    p.add_argument("--mark-minutes", type=float, default=15, help="the reference point (and snapshot period)")
    p.add_argument("--snap-minutes", type=float, help="tracemalloc snapshots this often after the mark")
    p.add_argument("--top", type=int, default=15, help="growth sites to print")
    p.add_argument("--report", metavar="DIR", help="print the figures of a run's folder and exit")
    p.add_argument("--studio-child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("demo_args", nargs="*", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.studio_child:
        return studio_child(
            args.trace_frames,
            Path(args.out),
            args.mark_minutes,
            args.snap_minutes or args.mark_minutes,
            args.demo_args,
        )
    if args.report:
        print(report(Path(args.report), args.mark_minutes, args.top))
        return 0
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
