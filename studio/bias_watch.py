"""The bias watch: every wheel's pockets and sectors, money wheel's segments, die's faces, ball set's balls and
shoe's ranks and suits, counted from the certified results and tested against fair equipment (studio/bias.py).

A series is one quantity of one device at one table (`("roulette-1", "roulette-1/wheel", "pocket")`); what a
result adds to it is the game's `equipment_reading`, what fair equipment gives is its `equipment_odds`
(recognition/equipment.py). The series is tested at its looks (each time its count doubles), each look at its
share of the configured level, so fair equipment raises a false alarm with at most that probability over the
series' whole life. A look below its level is an **alarm**: journaled once (`bias_alert`, with the test and
the evidence), shown on the technicians' page and on /metrics, and kept until the studio's journal says
otherwise. Everything is folded from the journal, so an auditor who rebuilds it gets the same alarms.

`BiasModel` is part of the statistics read model (pure); `BiasWatch` runs on the studio's event loop: every
`bias_check_seconds` it catches the read model up and journals the alarms not yet journaled.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

from recognition.games import GAMES

from .bias import Fit, Looks, goodness_of_fit

if TYPE_CHECKING:  # pragma: no cover
    from prometheus_client.core import Metric

    from .journal import Journal
    from .statistics import JournalStatistics

log = logging.getLogger(__name__)

#: table id, device id, quantity
SeriesKey = tuple[str, str, str]


@dataclass(frozen=True)
class Alarm:
    key: SeriesKey
    look: int
    level: float
    fit: Fit

    def as_dict(self) -> dict[str, Any]:
        table, device, quantity = self.key
        return {
            "table_id": table,
            "device_id": device,
            "quantity": quantity,
            "look": self.look,
            "level": self.level,
            **self.fit.as_dict(),
        }


@dataclass
class Series:
    odds: Mapping[str, float]
    looks: Looks
    counts: Counter[str] = field(default_factory=Counter)
    n: int = 0
    last: Fit | None = None
    last_look: int | None = None
    alarm: Alarm | None = None
    journaled: bool = False


class BiasModel:
    """The series and their alarms, folded from certified results and the journal's own `bias_alert`s."""

    def __init__(
        self,
        settings: Mapping[str, Mapping[str, Any]] | None = None,
        *,
        level: float = 0.001,
        first_look: int | None = None,
    ) -> None:
        self.settings = settings or {}
        self.level = level
        self.first_look = first_look
        self.series: dict[SeriesKey, Series] = {}

    def _series(self, key: SeriesKey, game: Any) -> Series | None:
        s = self.series.get(key)
        if s is None:
            odds = game.equipment_odds(key[2], self.settings.get(key[0], {}))
            if not odds:
                return None
            looks = Looks(len(odds), self.level, self.first_look)
            s = self.series[key] = Series(odds, looks)
        return s

    def add(self, table_id: str, message: Mapping[str, Any]) -> None:
        """Count a certified result's equipment reading; test every series whose look is due."""
        game = GAMES.get(str(message.get("game")))
        result, source = message.get("result"), message.get("source")
        if game is None or not isinstance(result, dict):
            return
        source = source if isinstance(source, dict) else {}
        device = str(source.get("device_id") or table_id)
        touched: dict[SeriesKey, int] = {}
        for quantity, category in game.equipment_reading(result, source):
            key = (table_id, device, quantity)
            s = self._series(key, game)
            if s is None or category not in s.odds:
                continue
            touched.setdefault(key, s.n)
            s.counts[category] += 1
            s.n += 1
        for key, before in touched.items():
            s = self.series[key]
            for look in s.looks.due(before, s.n):
                self._look(key, s, look)

    def _look(self, key: SeriesKey, s: Series, look: int) -> None:
        fit = goodness_of_fit(s.counts, s.odds, name="/".join(key))
        s.last, s.last_look = fit, look
        level = s.looks.level_at(look)
        if fit.p_value < level and s.alarm is None:
            s.alarm = Alarm(key, look, level, fit)

    def journaled(self, table_id: str, body: Mapping[str, Any]) -> None:
        s = self.series.get((table_id, str(body.get("device_id")), str(body.get("quantity"))))
        if s is not None and s.alarm is not None and body.get("look") == s.alarm.look:
            s.journaled = True

    def pending(self) -> list[Alarm]:
        """Alarms raised and not yet in the journal."""
        return [s.alarm for s in self.series.values() if s.alarm is not None and not s.journaled]

    def report(self, table: str | None = None) -> list[dict[str, Any]]:
        out = []
        for (t, device, quantity), s in sorted(self.series.items()):
            if table is not None and t != table:
                continue
            nxt = s.looks.at(0 if s.last_look is None else s.last_look + 1)
            out.append(
                {
                    "table_id": t,
                    "device_id": device,
                    "quantity": quantity,
                    "n": s.n,
                    "categories": len(s.odds),
                    "counts": dict(sorted(s.counts.items())),
                    "expected": {c: round(p * s.n, 3) for c, p in sorted(s.odds.items())},
                    "last_test": None
                    if s.last is None
                    else {
                        "look": s.last_look,
                        "level": s.looks.level_at(s.last_look or 0),
                        **s.last.as_dict(),
                    },
                    "next_test_at": nxt,
                    "alarm": s.alarm.as_dict() if s.alarm else None,
                }
            )
        return out


class BiasWatch:
    """On the studio's loop: every `every` seconds, catch the statistics up and journal new alarms."""

    def __init__(self, statistics: JournalStatistics, journal: Journal, every: float) -> None:
        self.statistics = statistics
        self.journal = journal
        self.every = every
        self.alerts = 0
        self._task: asyncio.Task[None] | None = None

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        self._task = loop.create_task(self._run(), name="studio-bias-watch")

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.every)
            try:
                await self.check()
            except Exception:
                log.exception("bias watch: could not check the equipment's statistics")

    async def check(self) -> list[Alarm]:
        """Catch up and journal the alarms not yet journaled; the alarms journaled now."""
        await asyncio.to_thread(self.statistics.catch_up)
        alarms = self.statistics.pending_alarms()
        for alarm in alarms:
            body = alarm.as_dict()
            self.journal.append("bias_alert", body, table_id=alarm.key[0])
            self.statistics.mark_journaled(alarm.key[0], body)
            self.alerts += 1
            log.warning(
                "bias watch: %s %s: %s p = %.3g below %.3g after %d (%s)",
                alarm.key[0],
                alarm.key[1],
                alarm.key[2],
                alarm.fit.p_value,
                alarm.level,
                alarm.fit.n,
                ", ".join(f"{c} {o} seen, {e:.1f} expected" for c, o, e in alarm.fit.evidence),
            )
        return alarms


class BiasCollector(Collector):
    """/metrics: each series' latest p-value and whether it is in alarm (read from the model as it is)."""

    def __init__(self, statistics: JournalStatistics) -> None:
        self.statistics = statistics

    def collect(self) -> Iterator[Metric]:
        labels = ["table", "device", "quantity"]
        p = GaugeMetricFamily("studio_bias_p_value", "the latest test's p-value of the series", labels=labels)
        alarm = GaugeMetricFamily("studio_bias_alarm", "1 while the series is in alarm", labels=labels)
        count = CounterMetricFamily("studio_bias_observations", "what the series counted", labels=labels)
        for key, s in self.statistics.series_snapshot():
            names = list(key)
            if s.last is not None:
                p.add_metric(names, s.last.p_value)
            alarm.add_metric(names, 1.0 if s.alarm else 0.0)
            count.add_metric(names, float(s.n))
        yield from (p, alarm, count)
