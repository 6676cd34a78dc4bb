"""A record on its way to the journal's writer, and its future (`PendingRecord`).

A `concurrent.futures.Future` makes a `threading.Condition` when it is made and takes it when it is resolved: a
few microseconds a record, on the studio's threads, for futures that mostly nobody waits on (the device lines).
A `PendingRecord` is a Future whose Condition is made only when something needs it (a wait, a callback,
`concurrent.futures.wait`, `asyncio.wrap_future`); resolving one nobody has looked at takes a global lock
instead, the one that guards making a Condition, so that a waiter arriving meanwhile either sees the result or
is woken.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, InvalidStateError
from concurrent.futures._base import CANCELLED, CANCELLED_AND_NOTIFIED, FINISHED, PENDING
from typing import Any

#: guards making a PendingRecord's Condition, and resolving one that has none
_MAKING = threading.Lock()

_DONE = (CANCELLED, CANCELLED_AND_NOTIFIED, FINISHED)


class PendingRecord(Future):
    """`record` (a `studio.journal_writer.Record`), when it was appended (`queued`, monotonic: the commit latency
    the metrics observe), and its future: the record's `Committed` once it is durable.

    `release` is called before a wait: the record may still be held by the journal (Journal._enqueue), and a
    caller that blocks on the thread that would queue it must not wait for it.
    """

    def __init__(self, record: Any, release: Callable[[], None]) -> None:
        # not Future.__init__: no Condition yet (see __getattr__); the rest of its state, as it sets it
        self.record = record
        self.queued = time.monotonic()
        self._release = release
        self._state = PENDING
        self._result: Any = None
        self._exception: BaseException | None = None
        self._waiters: list[Any] = []
        self._done_callbacks: list[Callable[[Future], object]] = []

    def __getattr__(self, name: str) -> Any:
        # only for what the instance lacks: the Condition, the first time Future's code asks for it
        if name != "_condition":
            raise AttributeError(name)
        with _MAKING:
            condition = self.__dict__.get("_condition")
            if condition is None:
                condition = self.__dict__["_condition"] = threading.Condition()
        return condition

    def set_result(self, result: Any) -> None:
        if "_condition" not in self.__dict__:
            with _MAKING:
                if "_condition" not in self.__dict__:
                    # nobody waits, no callback, no wait(): nobody to wake (cancel() would have made the
                    # Condition, so the state is PENDING or, set twice, FINISHED)
                    if self._state != PENDING:
                        raise InvalidStateError(f"the future of a journal record is {self._state}")
                    self._result = result
                    self._state = FINISHED
                    return
        super().set_result(result)

    def done(self) -> bool:
        return self._state in _DONE  # one read; a done future stays done

    def result(self, timeout: float | None = None) -> Any:
        if self._state == FINISHED and self._exception is None:
            return self._result
        self._release()
        return super().result(timeout)

    def exception(self, timeout: float | None = None) -> BaseException | None:
        self._release()
        return super().exception(timeout)


def resolve(pending: list[PendingRecord], results: list[Any]) -> None:
    """Each of `pending` resolved to its result, in order: what `set_result` does, the lock taken once for the
    batch rather than once a record. A future cancelled meanwhile (an awaiting task that was cancelled cancels
    it through `asyncio.wrap_future`) is left as it is: its record is durable all the same, and nobody waits."""
    woken = []
    with _MAKING:
        for p, result in zip(pending, results):
            if "_condition" in p.__dict__:
                woken.append((p, result))
            elif p._state == PENDING:
                p._result = result
                p._state = FINISHED
    for p, result in woken:
        with p._condition:
            if p._state in _DONE:
                continue
        try:
            Future.set_result(p, result)
        except InvalidStateError:  # cancelled between the look and the set
            pass
