"""Slowing repeated failures down: the console's sign-ins and the consumers' bearer tokens both use it."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class _Failures:
    count: int = 0
    last: float = 0.0
    blocked_until: float = 0.0


@dataclass
class Throttle:
    """Failures per key ("user:NAME", "ip:ADDR"); each failure past the free ones doubles the wait."""

    free_attempts: int = 3
    #: a shared studio terminal sees several people's typos
    free_ip_attempts: int = 10
    base_delay: float = 1.0
    max_delay: float = 300.0
    forget_after: float = 900.0  # a quiet quarter of an hour wipes the slate
    clock: Callable[[], float] = time.monotonic
    _keys: dict[str, _Failures] = field(default_factory=dict)

    def wait(self, *keys: str) -> float:
        """Seconds before these keys may try again (0: now)."""
        now = self.clock()
        waits = [0.0]
        for k in keys:
            f = self._keys.get(k)
            if f is None:
                continue
            if now - f.last > self.forget_after:
                del self._keys[k]
                continue
            waits.append(f.blocked_until - now)
        return max(waits)

    #: past this many keys, the forgotten ones are dropped (many addresses that each failed once)
    max_keys: int = 10_000

    def failed(self, *keys: str) -> None:
        now = self.clock()
        if len(self._keys) >= self.max_keys:
            self._forget(now)
        for k in keys:
            f = self._keys.get(k)
            if f is None or now - f.last > self.forget_after:
                f = self._keys[k] = _Failures()
            f.count += 1
            f.last = now
            allowed = self.free_ip_attempts if k.startswith("ip:") else self.free_attempts
            over = f.count - allowed
            if over > 0:
                f.blocked_until = now + min(self.base_delay * 2 ** (over - 1), self.max_delay)

    def succeeded(self, *keys: str) -> None:
        for k in keys:
            self._keys.pop(k, None)

    def _forget(self, now: float) -> None:
        stale = [k for k, f in self._keys.items() if now - f.last > self.forget_after]
        for k in stale:
            del self._keys[k]
        if len(self._keys) >= self.max_keys:  # all recent: keep the ones that are slowed down
            for k in [k for k, f in self._keys.items() if f.blocked_until <= now]:
                del self._keys[k]
