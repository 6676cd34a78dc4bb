"""The studio's Prometheus metrics (`GET /metrics`, names prefixed `studio_`; docs/operations.md).

Each studio has a registry of its own (tests run many studios in one process). What happens on the event loop
is counted by a table listener (one counter increment per round step; nothing is timed there); the journal's
commit latency is observed on the thread that takes the writer's replies; what is a state rather than an event
(devices, tables, feed consumers) is read when Prometheus scrapes, so it costs nothing in between.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

if TYPE_CHECKING:  # pragma: no cover
    from prometheus_client.core import Metric

    from streaming.feed import FeedHub
    from streaming.nats_publisher import NatsPublisher

    from .table import Table

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

#: a commit is a group commit with one fsync: milliseconds normally, seconds when the disk struggles
COMMIT_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
#: a decision is answered once its feed message is durable: one commit plus the request
DECISION_BUCKETS = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)


class _StateCollector(Collector):
    """Devices, tables and feed consumers, read at scrape time (on the event loop: the scrape route is async)."""

    def __init__(
        self, tables: dict[str, Table], hub: FeedHub | None, nats: NatsPublisher | None = None
    ) -> None:
        self.tables = tables
        self.hub = hub
        self.nats = nats

    def collect(self) -> Iterator[Metric]:
        connected = GaugeMetricFamily(
            "studio_device_connected", "1 while the device's link is up", labels=["table", "device"]
        )
        disconnects = CounterMetricFamily(
            "studio_device_disconnects", "times a device was lost", labels=["table", "device"]
        )
        reconnects = CounterMetricFamily(
            "studio_device_reconnects",
            "times a device connected again after being lost",
            labels=["table", "device"],
        )
        paused = GaugeMetricFamily(
            "studio_table_paused",
            "1 while the table is paused (a device lost, the journal stopped)",
            labels=["table"],
        )
        for table in list(self.tables.values()):
            paused.add_metric([table.table_id], 1.0 if table.paused_reason else 0.0)
            for slot in table.devices.values():
                labels = [table.table_id, slot.device_id]
                connected.add_metric(labels, 1.0 if slot.link.connected else 0.0)
                disconnects.add_metric(labels, slot.link.disconnects)
                reconnects.add_metric(labels, slot.link.reconnects)
        yield from (connected, disconnects, reconnects, paused)
        if self.hub is None:
            return
        consumers = self.hub.consumers()
        yield GaugeMetricFamily("studio_feed_consumers", "feed consumers connected", value=len(consumers))
        lag = GaugeMetricFamily(
            "studio_feed_consumer_lag",
            "messages a consumer is behind the feed's head",
            labels=["consumer", "peer"],
        )
        for c in consumers:
            lag.add_metric([str(c.id), c.peer], c.lag)
        yield lag
        yield GaugeMetricFamily(
            "studio_feed_head_seq", "the last seq published on the feed", value=self.hub.last_seq
        )
        if self.nats is not None:
            yield from _nats_metrics(self.nats)


def _nats_metrics(nats: NatsPublisher) -> Iterator[Metric]:
    st = nats.status
    yield GaugeMetricFamily(
        "studio_nats_connected", "1 while the NATS publisher is connected", value=st.connected
    )
    yield GaugeMetricFamily(
        "studio_nats_backlog", "feed messages committed, not yet acknowledged by NATS", value=st.backlog
    )
    yield GaugeMetricFamily(
        "studio_nats_acked_seq", "the last feed seq NATS acknowledged", value=st.acked_seq
    )
    yield GaugeMetricFamily("studio_nats_sent_seq", "the last feed seq sent to NATS", value=st.sent_seq)
    yield CounterMetricFamily("studio_nats_published", "feed messages NATS acknowledged", value=st.published)
    yield CounterMetricFamily(
        "studio_nats_duplicates", "messages sent again and dropped by NATS as repeats", value=st.duplicates
    )
    yield CounterMetricFamily(
        "studio_nats_failures", "times the publisher lost NATS or was refused", value=st.failures
    )


class StudioMetrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.results = Counter("studio_results_certified", "results certified", ["table", "game"], registry=r)
        self.voids = Counter("studio_voids", "rounds voided, by reason code", ["table", "reason"], registry=r)
        self.holds = Counter(
            "studio_holds", "holds put on a round or a table, by reason code", ["table", "reason"], registry=r
        )
        self.corrections = Counter("studio_corrections", "certified results corrected", ["table"], registry=r)
        self.journal_commit = Histogram(
            "studio_journal_commit_seconds",
            "from a batch's oldest record being appended to the batch being durable",
            buckets=COMMIT_BUCKETS,
            registry=r,
        )
        self.decisions = Histogram(
            "studio_decision_seconds",
            "decisions API: from the request to the answer (accepted answers wait for the commit)",
            ["status"],
            buckets=DECISION_BUCKETS,
            registry=r,
        )
        self._tables: dict[str, Table] = {}
        self._state: _StateCollector | None = None

    def watch(self, tables: dict[str, Table], hub: FeedHub | None, nats: NatsPublisher | None = None) -> None:
        """Count the tables' round steps and holds, and read the tables, the feed and NATS at scrape time."""
        self._tables = tables
        if self._state is None:
            self._state = _StateCollector(tables, hub, nats)
            self.registry.register(self._state)
        for table in tables.values():
            table.listeners.append(self._listener(table))

    def _listener(self, table: Table) -> Any:
        table_id, game = table.table_id, table.game.game_id
        results = self.results.labels(table_id, game)

        def on_event(what: str, data: dict[str, Any]) -> None:
            if what == "round":
                step = data.get("transition")
                if step == "certify":
                    results.inc()
                elif step == "void":
                    self.voids.labels(table_id, data.get("void_code") or "unknown").inc()
                elif step == "correct":
                    self.corrections.labels(table_id).inc()
            elif what == "hold":
                self.holds.labels(table_id, data.get("code") or "unknown").inc()

        return on_event

    def observe_commit(self, seconds: float) -> None:
        self.journal_commit.observe(seconds)

    def exposition(self) -> bytes:
        return generate_latest(self.registry)
