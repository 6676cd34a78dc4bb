"""A table's devices: who they are (a result's source names the device), their commands and which are lost.

Commands go out on one worker per device, made on first use, so a serial write never runs on the event loop
and a device gets its commands in the order they were given. A lost device pauses the table (no round opens)
until it is back; the table's status says why.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from devices.base import Driver
from devices.events import DeviceConnected, DeviceDisconnected, DeviceEvent
from devices.registry import all_drivers
from recognition.game import PlayerDecision, RoundSignal

from .journal import Journal

log = logging.getLogger(__name__)


def device_of(cause: object) -> str | None:
    """The device whose event caused a decision (None: a round signal, a player decision, a person)."""
    return cause.device_id if isinstance(cause, DeviceEvent) else None


def kind_of(cause: object) -> str | None:
    """What caused a decision, by its discriminator; None for a person's action."""
    return cause.kind if isinstance(cause, (DeviceEvent, RoundSignal, PlayerDecision)) else None


@dataclass
class DeviceLink:
    """What the table has heard from a device (on the event loop): the link's state and since when, the last
    message and the last error. `last_error` stays after the device is back, with its time: `connected` and
    `since` say whether it is current (docs/operations.md)."""

    connected: bool = False
    #: when `connected` last changed (the studio's start until the first event)
    since: datetime = field(default_factory=lambda: datetime.now(UTC))
    #: the last event other than the link's own (connected, disconnected): what the device said
    last_message_at: datetime | None = None
    last_error: str | None = None
    last_error_at: datetime | None = None
    #: times it connected again after having been lost
    reconnects: int = 0
    disconnects: int = 0
    _since_mono: float = field(default_factory=time.monotonic, repr=False)

    def heard(self, event: DeviceEvent, device_id: str) -> None:
        now = datetime.now(UTC)
        if isinstance(event, DeviceConnected):
            if not self.connected:
                if self.disconnects:
                    self.reconnects += 1
                    down = time.monotonic() - self._since_mono
                    log.info(
                        "device %s connected again after %.1f s",
                        device_id,
                        down,
                        extra={"device_id": device_id, "down_seconds": round(down, 3)},
                    )
                self.connected, self.since, self._since_mono = True, now, time.monotonic()
        elif isinstance(event, DeviceDisconnected):
            stopped = event.reason == "stopped"  # the studio stopped the driver: not a fault
            if not stopped:
                self.last_error, self.last_error_at = event.reason, now
            if self.connected:
                self.disconnects += 0 if stopped else 1
                self.connected, self.since, self._since_mono = False, now, time.monotonic()
        else:  # what the device said (the link's own events are the driver's)
            self.last_message_at = now

    def view(self) -> dict[str, Any]:
        def at(t: datetime | None) -> str | None:
            return t.isoformat() if t else None

        return {
            "connected": self.connected,
            "since": at(self.since),
            "last_message_at": at(self.last_message_at),
            "last_error": self.last_error,
            "last_error_at": at(self.last_error_at),
            "reconnects": self.reconnects,
            "disconnects": self.disconnects,
        }


@dataclass
class DeviceSlot:
    device_id: str
    kind: str
    role: str
    serial_number: str
    driver: Driver | None = None
    #: one worker per device, made on first use, so its commands reach it in the order they were given
    sender: ThreadPoolExecutor | None = None
    link: DeviceLink = field(default_factory=DeviceLink)

    @property
    def family(self) -> str:
        """What the device is whatever its vendor, as its driver declares it (``Driver.family``, e.g.
        "roulette-wheel"); "" for a driver of no family or a kind no driver registers."""
        drivers = all_drivers()
        return drivers[self.kind].family if self.kind in drivers else ""


class DeviceSlots:
    def __init__(
        self,
        table_id: str,
        journal: Journal,
        slots: list[DeviceSlot],
        *,
        emit: Callable[[str, dict[str, Any]], None],
        open_round_id: Callable[[], str | None],
    ) -> None:
        self.table_id = table_id
        self.journal = journal
        self.devices: dict[str, DeviceSlot] = {d.device_id: d for d in slots}
        #: device id -> why it is lost ("disconnected: ...; reconnecting")
        self.lost: dict[str, str] = {}
        self._emit = emit
        self._open_round_id = open_round_id

    def slot(self, device_id: str | None) -> DeviceSlot | None:
        """The device with this id; a table's only device when the id is unknown (a judge naming none)."""
        slot = self.devices.get(device_id or "")
        if slot is None and len(self.devices) == 1:
            slot = next(iter(self.devices.values()))
        return slot

    def by_role(self, role: str) -> DeviceSlot | None:
        return next((s for s in self.devices.values() if s.role == role), None)

    def source(self, source: dict[str, Any]) -> dict[str, Any]:
        """A result's source: the judge's, with the device's kind and serial number."""
        out = {"type": "device", **source}
        slot = self.slot(source.get("device_id"))
        if slot is not None:
            out.setdefault("device_id", slot.device_id)
            out["kind"] = slot.kind
            out["serial_number"] = slot.serial_number
        return out

    def drivers_by_role(self) -> dict[str, Driver | None]:
        return {s.role: s.driver for s in self.devices.values()}

    def serials_by_role(self) -> dict[str, str]:
        return {s.role: s.serial_number for s in self.devices.values()}

    def health(self) -> list[dict[str, Any]]:
        return [
            dict(
                role=s.role,
                **(s.driver.health() if s.driver else {"device_id": s.device_id}),
                link=s.link.view(),
            )
            for s in self.devices.values()
        ]

    def heard(self, event: DeviceEvent) -> None:
        """Every event a device sent (on the loop, before anything else looks at it)."""
        slot = self.devices.get(event.device_id)
        if slot is not None:
            slot.link.heard(event, slot.device_id)

    # --- commands --------------------------------------------------------------------------

    def send(self, command: str, device_id: str | None, by: str = "system") -> None:
        slot = self.slot(device_id)
        self.journal.append(
            "device_command",
            {"command": command, "by": by, "device_id": slot.device_id if slot else None},
            table_id=self.table_id,
            round_id=self._open_round_id(),
        )
        driver = slot.driver if slot else None
        if slot is None or driver is None:
            return

        def send() -> None:
            try:
                driver.send(command)
            except Exception as exc:  # noqa: BLE001 - logged; the device's next commands still go out
                log.warning("table %s: could not send %r: %s", self.table_id, command, exc)

        try:
            asyncio.get_running_loop()
        except RuntimeError:  # no loop (replay, tests): send inline
            send()
            return
        if slot.sender is None:
            slot.sender = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"send-{slot.device_id}")
        slot.sender.submit(send)

    def stop(self) -> None:
        """Let every device's queued commands go out, then end its worker."""
        for slot in self.devices.values():
            if slot.sender is not None:
                slot.sender.shutdown(wait=True, cancel_futures=False)
                slot.sender = None

    # --- lost devices pause the table ------------------------------------------------------------

    @property
    def paused_reason(self) -> str | None:
        reasons = [f"{dev}: {why}" for dev, why in sorted(self.lost.items())]
        if self.journal.failure is not None:
            reasons.insert(
                0,
                f"the journal stopped ({self.journal.failure}): nothing can be recorded or certified "
                "until the studio is restarted; call a technician",
            )
        return "; ".join(reasons) or None

    def device_state(self, device_id: str, lost: str | None) -> None:
        """A device came back (`lost` None) or was lost: journal and show the table's status if it changed."""
        before = self.paused_reason
        if lost is None:
            self.lost.pop(device_id, None)
        else:
            self.lost[device_id] = lost
        after = self.paused_reason
        if after != before:
            status = {"state": "paused" if after else "running", "reason": after}
            self.journal.append("table_status", status, table_id=self.table_id)
            self._emit("status", status)
