"""Records on their way to the journal's writer: a record's future (`PendingRecord`), the batches they are
handed over in (`Handed`), and the ledger that matches the writer's replies to them (`Ledger`).

A `concurrent.futures.Future` makes a `threading.Condition` when it is made and takes it when it is resolved: a
few microseconds a record, on the studio's threads, for futures that mostly nobody waits on (the device lines).
A `PendingRecord` is a Future whose Condition is made only when something needs it (a wait, a callback,
`concurrent.futures.wait`, `asyncio.wrap_future`); resolving one nobody has looked at takes a global lock
instead, the one that guards making a Condition, so that a waiter arriving meanwhile either sees the result or
is woken.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, InvalidStateError
from concurrent.futures._base import CANCELLED, CANCELLED_AND_NOTIFIED, FINISHED, PENDING
from typing import Any

from .journal_writer import Committed, committed

#: guards making a PendingRecord's Condition, and resolving one that has none
_MAKING = threading.Lock()

_DONE = (CANCELLED, CANCELLED_AND_NOTIFIED, FINISHED)

#: what a PendingRecord makes when it is first asked for it
_LAZY = frozenset({"_condition", "_waiters", "_done_callbacks"})


class PendingRecord(Future):
    """The future of a record (its `Committed` once it is durable), or of a batch's device lines (None once all
    of them are).

    `release` is called before a wait: the record may still be held by the journal (Journal._enqueue), and a
    caller that blocks on the thread that would queue it must not wait for it.
    """

    # Future's state as Future.__init__ sets it, read from the class until set (a device line's future is made,
    # resolved and mostly never looked at: two attributes set, not eight, and no lists)
    _state = PENDING
    _result: Any = None
    _exception: BaseException | None = None

    def __init__(self, release: Callable[[], None]) -> None:
        # not Future.__init__: no Condition and no lists of waiters and callbacks yet (see __getattr__)
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


class Handed:
    """Records handed to the writer together (one pipe message): `wires` (`studio.journal_writer.Wire`s as plain
    tuples, in order), `futures` ((index in `wires`, future) of each record that has a future of its own, in
    order), `lines` (the one future of the rest, the device lines: None once every record of the batch is
    durable), `queued` (when the oldest was appended, monotonic: the commit latency the metrics observe)."""

    __slots__ = ("futures", "lines", "next", "queued", "wires")

    def __init__(
        self,
        wires: list[tuple],
        futures: list[tuple[int, PendingRecord]],
        lines: PendingRecord | None,
        queued: float,
    ) -> None:
        self.wires = wires
        self.futures = futures
        self.lines = lines
        self.queued = queued
        self.next = 0  # futures[:next] are resolved

    def pending(self) -> list[PendingRecord]:
        """The futures not yet resolved."""
        out = [f for _, f in self.futures[self.next :]]
        return out + [self.lines] if self.lines is not None else out


class Ledger:
    """The batches handed to the writer and not yet durable, in order. The writer replies once a transaction,
    an entry a record, in the order it was handed the records; a transaction may hold several batches, or part
    of one (`durable`).

    `add` from the appending threads (one at a time, in order), `durable` and `lost` from the one thread that
    takes the writer's replies (a deque's append and popleft are atomic)."""

    def __init__(self) -> None:
        self._batches: deque[Handed] = deque()
        self._offset = 0  # the records of the first batch already durable

    def add(self, batch: Handed) -> None:
        self._batches.append(batch)

    def durable(
        self, done: list[Any]
    ) -> tuple[list[Committed | None], float, list[PendingRecord], list[Any]]:
        """The next `len(done)` records are durable (`done`: what the writer made of each, as
        `studio.journal_writer.committed` reads it): (their `Committed`, None for a barrier; when the oldest was
        appended; the futures now resolved and their results, for `resolve`)."""
        batches = self._batches
        first = batches[0]
        if self._offset == 0 and len(first.wires) == len(done):  # a batch, a transaction: most of the time
            batches.popleft()
            made = committed(first.wires, done)
            futures = [f for _, f in first.futures]
            results: list[Any] = [made[i] for i, _ in first.futures]
            if first.lines is not None:
                futures.append(first.lines)
                results.append(None)
            return made, first.queued, futures, results
        queued = first.queued
        made, futures, results = [], [], []
        pos, n, start = 0, len(done), self._offset
        while pos < n:
            b = batches[0]
            end = min(len(b.wires), start + n - pos)
            part = committed(b.wires[start:end], done[pos : pos + end - start])
            while b.next < len(b.futures) and b.futures[b.next][0] < end:
                index, f = b.futures[b.next]
                futures.append(f)
                results.append(part[index - start])
                b.next += 1
            made += part
            pos += end - start
            start = end
            if end == len(b.wires):
                batches.popleft()
                start = 0
                if b.lines is not None:
                    futures.append(b.lines)
                    results.append(None)
        self._offset = start
        return made, queued, futures, results

    def lost(self) -> list[PendingRecord]:
        """The futures of every record not yet durable (the writer failed: none will be); the ledger empties."""
        lost = [f for b in self._batches for f in b.pending()]
        self._batches.clear()
        self._offset = 0
        return lost
