"""The studio: configuration, journal, tables, drivers and the feed hub, wired together."""

from __future__ import annotations

import asyncio
import concurrent.futures
import gc
import hmac
import logging
from typing import Any

from devices.registry import driver_class
from streaming.feed import FeedHub
from streaming.messages import checkpoint_message
from streaming.nats_permissions import publisher_inbox
from streaming.nats_publisher import NatsPublisher
from streaming.nats_stream import StreamSettings

from .bias_watch import BiasCollector, BiasModel, BiasWatch
from .clock import ClockCollector, ClockWatch
from .config import Consumer, DeviceConfig, StudioConfig, build_game
from .journal import Committed, Journal, JournalClosed
from .keys import load_or_create_key
from .log_context import device_thread, table_context
from .metrics import StudioMetrics
from .software_check import SoftwareWatch
from .statistics import JournalStatistics
from .table import DeviceSlot, Table

log = logging.getLogger(__name__)

#: read the serial (tty/pty) devices' ports on the event loop (SerialLineDriver.read_on_loop) rather than on the
#: shared serial-reader thread
READ_SERIAL_ON_LOOP = True


class Studio:
    def __init__(self, config: StudioConfig) -> None:
        self.config = config
        self.data_dir = config.studio.data_dir
        self.data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        #: technicians' test pictures (dice accuracy runs) are read from under this folder only
        self.pictures_dir = config.studio.pictures_dir or self.data_dir / "pictures"
        self._key = load_or_create_key(self.data_dir)
        self.loop: asyncio.AbstractEventLoop | None = None
        self.journal = Journal(
            self.data_dir,
            self._key,
            on_commit=self._on_commit,
            writer=config.studio.journal_writer,
            on_failure=self._on_journal_failure,
        )
        self.hub = FeedHub(self.journal)
        #: the journal's outbox drained into NATS JetStream ([delivery.nats]; docs/nats.md), or None
        self.nats = nats_publisher(config, self.journal)
        self.metrics = StudioMetrics()
        #: statistics of the rounds and the bias watch, folded from the journal (docs/statistics.md)
        settings = config.studio
        bias = BiasModel(
            {t.id: t.settings for t in config.tables},
            level=settings.bias_alert_level,
            first_look=settings.bias_first_look,
        )
        self.statistics = JournalStatistics(self.journal.path, bias=bias)
        self.bias_watch = BiasWatch(self.statistics, self.journal, settings.bias_check_seconds)
        self.metrics.registry.register(BiasCollector(self.statistics))
        self.journal.on_latency = self.metrics.observe_commit
        self.tables: dict[str, Table] = {}
        self.software = SoftwareWatch(config.studio, self.journal, self.tables)
        self.clock = ClockWatch(config.studio.time_server, self.journal, config.studio.clock_check_seconds)
        self.metrics.registry.register(ClockCollector(self.clock))
        self.simulators: dict[str, Any] = {}
        self._tokens = [c.token.encode() for c in config.consumers]
        self._started = False
        self._stopped = False
        self._wound_down = False
        self._checkpointed = False  # the shutdown's checkpoint is written
        self._checkpoint_task: asyncio.Task[None] | None = None

    @property
    def public_key_b64(self) -> str:
        return self.journal.public_key_b64

    def authorize(self, token: str) -> bool:
        return self.consumer(token) is not None

    def consumer(self, token: str) -> Consumer | None:
        """The configured consumer (backend) a bearer token belongs to, or None."""
        given = token.encode()
        found = None
        # compare against every token so the time taken does not tell which one nearly matched
        for consumer, t in zip(self.config.consumers, self._tokens):
            if hmac.compare_digest(given, t):
                found = consumer
        return found

    # --- life cycle -------------------------------------------------------------

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        """Build the tables (voiding rounds a crash left open) and start every device."""
        if self._started:
            return
        self._started = True
        self.loop = loop
        # before any table opens: a studio whose software differs from its manifest opens none
        self.software.check_now()
        for tcfg in self.config.tables:
            slots = [
                DeviceSlot(f"{tcfg.id}/{d.role}", d.kind, d.role, d.serial_number) for d in tcfg.all_devices
            ]
            table = Table(
                tcfg.id,
                build_game(tcfg.game, tcfg.game_options),
                self.journal,
                devices=slots,
                judge_settings=tcfg.settings,
                betting_seconds=tcfg.betting_seconds,
                auto_round_seconds=tcfg.auto_round_seconds,
                require_opening_check=tcfg.require_opening_check,
                decision_seconds=tcfg.decision_seconds,
                video=tcfg.video,
            )
            self.tables[tcfg.id] = table
            self.software.apply(table)
            for dcfg, slot in zip(tcfg.all_devices, slots):
                try:
                    self._start_device(table, slot, dcfg)
                except Exception as exc:  # noqa: BLE001 - one table's device never takes the studio down
                    # (the configuration was checked: this is what only opening finds, e.g. a simulator's port)
                    log.error("studio: table %s: device %s could not start: %s", tcfg.id, slot.device_id, exc)
                    table.slots.device_state(
                        slot.device_id, f"could not start: {exc}; fix it and restart the studio"
                    )
            table.start()
        self.metrics.watch(self.tables, self.hub, self.nats)
        if self.nats is not None:
            self.nats.start()
        self._checkpoint_task = loop.create_task(
            self._checkpoints(self.config.studio.checkpoint_seconds), name="studio-checkpoints"
        )
        self.bias_watch.start(loop)
        self.software.start(loop)
        self.clock.start(loop)
        # Everything built so far (games, tables, drivers, modules) lives as long as the studio: keep it out of the
        # cyclic collector's full passes, whose pauses otherwise land on results (bench/latency.py: the worst of
        # ~520 results 15-18 ms with it, 21-75 ms without, in three A/B pairs).
        gc.collect()
        gc.freeze()

    def _start_device(self, table: Table, slot: DeviceSlot, dcfg: DeviceConfig) -> None:
        url = dcfg.url
        if dcfg.is_simulator:
            from .simulated import start_simulator

            sim, url = start_simulator(dcfg, table)
            self.simulators[slot.device_id] = sim
        loop = self.loop
        assert loop is not None
        # what the table does for the event runs in its context: its log lines name the table and the round
        context = table_context(table.table_id, table.lifecycle.open_round_id)

        def on_event(event: Any, table: Table = table) -> None:
            if asyncio._get_running_loop() is loop:  # a port read on the loop (read_on_loop)
                loop.call_soon(table.device_event, event, context=context)
            else:
                loop.call_soon_threadsafe(table.device_event, event, context=context)

        driver = driver_class(dcfg.kind)(slot.device_id, url, on_event, **dcfg.options)
        slot.driver = driver
        name = driver.thread_name
        if name:
            device_thread(name, table.table_id, slot.device_id)
        if READ_SERIAL_ON_LOOP:
            driver.read_on_loop(
                loop
            )  # serial tty/pty ports are read on the event loop: no thread hop to the table
        driver.start()

    def simulator(self, table_id: str, role: str | None = None) -> Any:
        """The simulator behind a table's device (tests and the demo's technicians use it)."""
        for device_id, sim in self.simulators.items():
            tid, _, r = device_id.partition("/")
            if tid == table_id and (role is None or r == role):
                return sim
        raise KeyError(f"no simulator for table {table_id}" + (f" role {role}" if role else ""))

    async def wind_down(self, timeout: float = 10.0) -> None:
        """The first step of a shutdown, on the loop, while the feed's consumers are still connected: void the
        open rounds, make that durable and let the feed hand it to every connected consumer (each for at most
        `timeout` seconds in all), so that a backend learns of the voids now rather than at the next start."""
        if self._wound_down or not self._started:
            return
        self._wound_down = True
        self._void_open_rounds()
        if self.journal.failure is not None:
            return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        try:
            await asyncio.to_thread(self._final_checkpoint, timeout)
            last = await asyncio.to_thread(self.journal.last_seq)
        except Exception as exc:  # noqa: BLE001 - the journal failing now: stop() still stops the rest
            log.warning("studio: the journal could not be flushed at shutdown: %s", exc)
            return

        def behind() -> bool:
            return self.hub.last_seq < last or any(c.cursor < last for c in self.hub.consumers())

        while behind() and loop.time() < deadline:
            await asyncio.sleep(0.02)
        if behind():
            log.warning(
                "studio: some feed consumers did not take the feed up to seq %d before shutdown", last
            )

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        gc.unfreeze()  # what start() froze may be collected again (tests start many studios in one process)
        self._on_loop(self._void_open_rounds)
        self._on_loop(self._cancel_checkpoints)
        if self._started and self.journal.failure is None:
            try:
                self._final_checkpoint()
            except Exception as exc:  # noqa: BLE001 - the journal failing now: the rest still stops
                log.warning("studio: no checkpoint at shutdown: %s", exc)
        for table in self.tables.values():
            table.stop()
            for slot in table.devices.values():
                if slot.driver is not None:
                    slot.driver.stop()
        for sim in self.simulators.values():
            sim.stop()
        self._drain_loop()
        if self.nats is not None:
            self.nats.stop()  # after the last checkpoint: it goes out too, unless NATS is away
        self.journal.close()

    def _cancel_checkpoints(self) -> None:
        if self._checkpoint_task is not None:
            self._checkpoint_task.cancel()
        self.bias_watch.stop()
        self.software.stop()
        self.clock.stop()

    async def _checkpoints(self, every: float) -> None:
        """A checkpoint of the journal's head on the feed every `every` seconds (docs/feed.md)."""
        while True:
            await asyncio.sleep(every)
            try:
                head = await asyncio.to_thread(self.journal.head)
                if head is not None:
                    self.journal.append_feed(checkpoint_message(*head, software=self.software.status()))
            except JournalClosed:
                return  # stopping, or the journal failed (the tables hold and say why)
            except Exception:
                log.exception("studio: could not write a checkpoint")

    def _final_checkpoint(self, timeout: float = 10.0) -> None:
        """At shutdown, after the voids: everything durable, then a checkpoint naming the journal's head (off
        the loop: it waits for the writer)."""
        if self._checkpointed:
            return
        self._checkpointed = True
        self.journal.flush(timeout)
        head = self.journal.head()
        if head is not None:
            self.journal.append_feed(checkpoint_message(*head, software=self.software.status()))
        self.journal.flush(timeout)

    def _void_open_rounds(self) -> None:
        """A round cannot finish once the studio stops listening: void it now rather than leave bets hanging."""
        for table in self.tables.values():
            table.closing = True  # and open no new one while the devices are being stopped
            if self.journal.failure is not None:
                continue  # nothing can be journaled: the next start voids what is open (studio_restart)
            if table.round is not None and not table.round.is_final:
                try:
                    table.void_by(
                        "studio_stopped",
                        "The studio was shut down during this round; stakes are returned.",
                        by="studio",
                        approved_by="shutdown",
                    )
                except Exception:
                    log.exception("studio: could not void the open round of %s", table.table_id)

    def _on_loop(self, fn: Any) -> None:
        """Run fn on the event loop (from another thread) and wait for it; run it here if no loop runs."""
        loop = self.loop
        if loop is None or loop.is_closed() or not loop.is_running():
            fn()
            return
        try:
            if asyncio.get_running_loop() is loop:
                fn()
                return
        except RuntimeError:
            pass

        async def call() -> None:
            fn()

        try:
            asyncio.run_coroutine_threadsafe(call(), loop).result(timeout=5)
        except Exception:
            # any callable's name for the log (a partial has none): no ability probe
            log.exception("studio: %s did not run on the event loop", getattr(fn, "__name__", fn))

    def _drain_loop(self) -> None:
        """Let the loop handle what the drivers said last (their 'stopped' events) before the journal closes."""
        loop = self.loop
        if loop is None or loop.is_closed() or not loop.is_running():
            return
        try:
            if asyncio.get_running_loop() is loop:
                return  # called on the loop itself: nothing can run until we return
        except RuntimeError:
            pass
        try:
            asyncio.run_coroutine_threadsafe(asyncio.sleep(0), loop).result(timeout=5)
        except (TimeoutError, RuntimeError, concurrent.futures.CancelledError):  # slow, closing or cancelled
            log.warning("studio: the event loop did not drain before the journal closed")

    # --- feed -----------------------------------------------------------------------

    def _on_commit(self, batch: list[Committed]) -> None:
        """Called by the journal's writer thread once a batch is durable."""
        feed = [(c.feed_seq, c.body) for c in batch if c.feed_seq is not None]
        if feed and self.nats is not None:
            self.nats.notify(feed[-1][0])  # from this thread: NATS need not wait for the tables' loop
        loop = self.loop
        if feed and loop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(self._publish, feed)
            except RuntimeError:  # the loop closed between the check and the call
                pass

    def _on_journal_failure(self, exc: BaseException) -> None:
        """Called by the journal (any thread) when it stops: every table holds and shows why."""
        log.critical("studio: the journal stopped: %s; no result can be certified until a restart", exc)
        loop = self.loop
        if loop is None or loop.is_closed():
            return

        def hold() -> None:
            for table in self.tables.values():
                table.journal_failed()

        try:
            loop.call_soon_threadsafe(hold)
        except RuntimeError:  # the loop closed meanwhile
            pass

    def _publish(self, feed: list[tuple[int, str]]) -> None:
        for seq, body in feed:
            self.hub.publish(seq, body)

    # --- queries ----------------------------------------------------------------------

    def round_history(self, round_id: str) -> dict[str, Any] | None:
        r = self.journal.get_round(round_id)
        if r is None:
            return None
        history = self.journal.round_records(round_id)
        if r["state"] not in ("certified", "voided"):
            # a committed draw stays secret until the round ends
            history = [h for h in history if h["kind"] != "draw_secret"]
        return {"round": r, "history": history}

    def table_snapshots(self) -> list[dict[str, Any]]:
        return [t.snapshot() for t in self.tables.values()]


def nats_publisher(config: StudioConfig, journal: Journal) -> NatsPublisher | None:
    """The publisher of [delivery.nats], reading the journal (its outbox), or None without the section."""
    nats = config.delivery.nats
    if nats is None:
        return None
    studio_id = config.nats_studio_id
    # replies on an inbox of its own: its NATS permissions (studio nats-config) allow it no other
    options: dict[str, Any] = {"inbox_prefix": publisher_inbox(studio_id)}
    if nats.credentials is not None:
        options["user_credentials"] = str(nats.credentials)
    if nats.user is not None and nats.password_file is not None:
        options["user"], options["password"] = nats.user, nats.password_file.read_text().strip()
    s = nats.stream
    return NatsPublisher(
        journal,
        studio_id,
        config.studio.data_dir / f"nats-acked-{studio_id}.json",
        servers=nats.servers,
        settings=StreamSettings(
            s.replicas, s.retention, s.max_age_days, s.storage, s.duplicate_window_seconds
        ),
        connect_options=options,
        window=nats.window,
        ack_timeout=nats.ack_timeout_seconds,
    )
