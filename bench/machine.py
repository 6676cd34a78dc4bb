"""What else the machine was doing while a benchmark ran (shared by the benchmarks in bench/).

A benchmark on a small shared machine is only as good as the quiet around it: this
measures the CPU that processes other than the benchmark's own used during the run
(from /proc/stat and /proc/<pid>/stat), so that a reader can tell a slow figure from
a busy neighbour.
"""

from __future__ import annotations

import os
import time
from pathlib import Path


def installed_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """`env` (default: this process's) for a child timed as an installed studio runs: its bytecode cached.

    pip compiles a package's modules when it installs it; with PYTHONDONTWRITEBYTECODE set (as on some
    hosts) every start of a checkout's command would compile its sources again, ~50 ms of a card game's start.
    """
    out = dict(os.environ if env is None else env)
    out.pop("PYTHONDONTWRITEBYTECODE", None)
    return out


def _machine_busy() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine since boot, all cores."""
    fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    tick = os.sysconf("SC_CLK_TCK")
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    total = sum(fields[:8])  # user nice system idle iowait irq softirq steal
    return (total - idle) / tick, total / tick


def process_cpu(pid: int) -> float:
    """CPU seconds (user + system) a process has used; 0.0 if it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


class MachineLoad:
    """Start at construction, `stop()` at the end; `summary()` says who used the CPU."""

    def __init__(self, *pids: int) -> None:
        self.pids = list(pids) or [os.getpid()]
        self._t0 = time.monotonic()
        self._busy0, _ = _machine_busy()
        self._own0 = {pid: process_cpu(pid) for pid in self.pids}
        self._load0 = os.getloadavg()[0]
        self.seconds = self.busy = self.own = 0.0

    def add(self, pid: int) -> None:
        """Count a process started after the measurement began as the benchmark's own."""
        self.pids.append(pid)
        self._own0[pid] = 0.0

    def stop(self) -> MachineLoad:
        self.seconds = time.monotonic() - self._t0
        busy1, _ = _machine_busy()
        self.busy = busy1 - self._busy0
        self.own = sum(process_cpu(pid) - self._own0[pid] for pid in self.pids)
        self._load1 = os.getloadavg()[0]
        return self

    @property
    def others_percent(self) -> float:
        """CPU used by everything else, in % of one core (kernel threads included)."""
        return max(0.0, 100 * (self.busy - self.own) / self.seconds) if self.seconds else 0.0

    def summary(self) -> str:
        cores = os.cpu_count() or 1
        text = (
            f"machine: {cores} cores busy {100 * self.busy / self.seconds:.0f}% of one core on average, "
            f"of which other processes {self.others_percent:.0f}%; load average {self._load0:.2f} -> "
            f"{self._load1:.2f}"
        )
        if self.others_percent > 15:
            text += "  (WARNING: the machine was not quiet; figures are pessimistic)"
        return text
