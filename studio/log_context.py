"""The table, round and device a log line is about, for structured logs (docs/operations.md).

Three sources, so that no log call needs to pass them: what runs on the event loop for a table (its device
events, and the timers and tasks they start) runs in that table's `contextvars` context; what a driver logs on
its own thread is known by the thread's name; and a driver's line read on the loop starts, as every driver's
line does, with the driver's thread name or device id as its first argument ("%s: ..."). `IdsFilter`, on the log handler, puts `table_id`, `round_id`
(the table's open round, looked up when the line is logged) and `device_id` on each record that does not carry
them already (a call's own `extra=` wins).
"""

from __future__ import annotations

import contextvars
import logging
import weakref
from collections.abc import Callable

#: the ids of what the current code runs for (a table's callbacks on the event loop)
LOG_IDS: contextvars.ContextVar[dict[str, str] | None] = contextvars.ContextVar(
    "studio_log_ids", default=None
)

#: a driver's thread name, and its device id -> its ids
_threads: dict[str, dict[str, str]] = {}
#: table id -> its open round id (None between rounds); weakly, so a stopped studio's tables are not kept
_rounds: dict[str, Callable[[], Callable[[], str | None] | None]] = {}

ID_KEYS = ("table_id", "round_id", "device_id")


def table_context(table_id: str, open_round: Callable[[], str | None]) -> contextvars.Context:
    """The context a table's callbacks run in (`loop.call_soon(..., context=...)`)."""
    try:
        _rounds[table_id] = weakref.WeakMethod(open_round)  # type: ignore[arg-type]
    except TypeError:  # a plain function: nothing to keep alive
        _rounds[table_id] = lambda: open_round
    ctx = contextvars.copy_context()
    ctx.run(LOG_IDS.set, {"table_id": table_id})
    return ctx


def device_thread(thread_name: str, table_id: str, device_id: str) -> None:
    """What a driver's own thread logs is about this table and device."""
    _threads[thread_name] = _threads[device_id] = {"table_id": table_id, "device_id": device_id}


def _named(record: logging.LogRecord) -> dict[str, str] | None:
    args = record.args
    first = args[0] if isinstance(args, tuple) and args else None
    return _threads.get(first) if isinstance(first, str) else None


class IdsFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        ids = LOG_IDS.get() or _threads.get(record.threadName or "") or _named(record)
        if ids:
            for key, value in ids.items():
                if getattr(record, key, None) is None:
                    setattr(record, key, value)
        table_id = getattr(record, "table_id", None)
        if table_id is not None and getattr(record, "round_id", None) is None:
            ref = _rounds.get(table_id)
            open_round = ref() if ref is not None else None
            round_id = open_round() if open_round is not None else None
            if round_id is not None:
                record.round_id = round_id
        return True
