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

#: what a PendingRecord makes when it is first asked for it
_LAZY = frozenset({"_condition", "_waiters", "_done_callbacks"})


class PendingRecord(Future):
    """`record` (a `studio.journal_writer.Wire` as a plain tuple), when it was appended (`queued`, monotonic: the commit latency
    the metrics observe), and its future: the record's `Committed` once it is durable.

    `release` is called before a wait: the record may still be held by the journal (Journal._enqueue), and a
    caller that blocks on the thread that would queue it must not wait for it.
    """

    # Future's state as Future.__init__ sets it, read from the class until set (a device line's future is made,
    # resolved and mostly never looked at: two attributes set, not eight, and no lists)
    _state = PENDING
    _result: Any = None
    _exception: BaseException | None = None

    def __init__(self, record: Any, release: Callable[[], None]) -> None:
        # not Future.__init__: no Condition and no lists of waiters and callbacks yet (see __getattr__)
        self.record = record
        self.queued = time.monotonic()
        self._release = release

    def __getattr__(self, name: str) -> Any:
        # only for what the instance lacks: the Condition and the lists it guards, the first time Future's code
        # asks for one of them
        if name not in _LAZY:
            raise AttributeError(name)
        with _MAKING:
            state = self.__dict__
            if "_condition" not in state:
                state["_waiters"] = []
                state["_done_callbacks"] = []
                state["_condition"] = threading.Condition()
        return state[name]

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
