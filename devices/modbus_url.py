"""Modbus URLs: where a Modbus device (a ball machine's PLC, a wheel encoder) is and how to talk to it.

    modbus-tcp://HOST[:PORT][?unit=1&timeout=0.5]
    modbus-rtu://PORT[?baud=19200&parity=N&bytesize=8&stopbits=1&unit=1&timeout=0.5]

* ``HOST`` is a name or an IPv4 address (IPv6 in brackets); ``PORT`` defaults to 502.
* For RTU the serial port follows the ``//``: ``modbus-rtu:///dev/ttyUSB0`` (three
  slashes for an absolute path), ``modbus-rtu://COM3`` on Windows.
* ``unit`` is the Modbus device id (the "slave address", 1-247; 0 is broadcast and
  refused), default 1. ``timeout`` is the seconds to wait for an answer, default 0.5.
* ``baud`` (default 19200), ``parity`` (``N``, ``E``, ``O``; default ``N``), ``bytesize``
  (7 or 8) and ``stopbits`` (1 or 2) are the RTU line settings.

:func:`parse_modbus_url` is pure and says exactly what is wrong with a bad URL; :meth:`ModbusUrl.client`
makes the pymodbus client for it (not connected).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import parse_qs, urlsplit

__all__ = ["DEFAULT_TCP_PORT", "DEFAULT_TIMEOUT", "ModbusUrl", "parse_modbus_url"]

DEFAULT_TCP_PORT = 502
DEFAULT_TIMEOUT = 0.5

_TCP_KEYS = {"unit", "timeout"}
_RTU_KEYS = {"unit", "timeout", "baud", "parity", "bytesize", "stopbits"}


@dataclass(frozen=True)
class ModbusUrl:
    transport: Literal["tcp", "rtu"]
    unit: int = 1
    timeout: float = DEFAULT_TIMEOUT
    host: str | None = None
    port: int | None = None
    device: str | None = None  # the serial port (RTU)
    baudrate: int = 19200
    parity: str = "N"
    bytesize: int = 8
    stopbits: int = 1

    def client(self, name: str) -> Any:
        """A pymodbus client for this target, not yet connected; no retries or reconnects of its own (the
        drivers reconnect with their own backoff and report the link)."""
        from pymodbus.client import ModbusSerialClient, ModbusTcpClient
        from pymodbus.framer import FramerType

        if self.transport == "tcp":
            assert self.host is not None and self.port is not None, "parse_modbus_url sets both"
            return ModbusTcpClient(
                self.host, port=self.port, timeout=self.timeout, retries=0, reconnect_delay=0, name=name
            )
        assert self.device is not None, "parse_modbus_url sets it"
        return ModbusSerialClient(
            self.device,
            framer=FramerType.RTU,
            baudrate=self.baudrate,
            parity=self.parity,
            bytesize=self.bytesize,
            stopbits=self.stopbits,
            timeout=self.timeout,
            retries=0,
            reconnect_delay=0,
            name=name,
        )

    def describe(self) -> str:
        if self.transport == "tcp":
            return f"Modbus TCP {self.host}:{self.port} unit {self.unit}"
        return (
            f"Modbus RTU {self.device} {self.baudrate} {self.bytesize}{self.parity}{self.stopbits} "
            f"unit {self.unit}"
        )


def parse_modbus_url(url: str, what: str = "a Modbus device") -> ModbusUrl:
    """Parse a ``modbus-tcp://`` or ``modbus-rtu://`` URL of `what` (for the error); ValueError saying what is wrong."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme == "socket":
        # not an alias of modbus-tcp: socket:// carries raw bytes, which for a Modbus device behind a serial
        # server would be RTU frames over TCP, not Modbus TCP; the author must say which
        raise ValueError(
            f"{url!r}: {what} URL starts with modbus-tcp:// or modbus-rtu://; socket:// is a raw byte stream "
            f"for serial devices: a PLC on the network is modbus-tcp://{parts.netloc or 'host:port'}"
        )
    if scheme not in ("modbus-tcp", "modbus-rtu"):
        raise ValueError(f"{url!r}: {what} URL starts with modbus-tcp:// or modbus-rtu://")
    if parts.fragment:
        raise ValueError(f"{url!r}: a Modbus URL has no #fragment")
    query = parse_qs(parts.query, keep_blank_values=True, strict_parsing=False)
    allowed = _TCP_KEYS if scheme == "modbus-tcp" else _RTU_KEYS
    unknown = sorted(set(query) - allowed)
    if unknown:
        raise ValueError(
            f"{url!r}: unknown setting(s) {', '.join(unknown)} (known: {', '.join(sorted(allowed))})"
        )
    for key, values in query.items():
        if len(values) != 1:
            raise ValueError(f"{url!r}: {key} is given {len(values)} times")
    q = {k: v[0] for k, v in query.items()}

    unit = _int(url, q, "unit", 1)
    if not 1 <= unit <= 247:
        raise ValueError(f"{url!r}: unit must be a Modbus device id 1-247, not {unit}")
    try:
        timeout = float(q.get("timeout", DEFAULT_TIMEOUT))
    except ValueError:
        raise ValueError(f"{url!r}: timeout must be a number of seconds") from None
    if not 0 < timeout <= 60:
        raise ValueError(f"{url!r}: timeout must be more than 0 and at most 60 seconds")

    if scheme == "modbus-tcp":
        if parts.path not in ("", "/"):
            raise ValueError(f"{url!r}: a Modbus TCP URL has no path (modbus-tcp://host:port?unit=1)")
        host = parts.hostname
        if not host:
            raise ValueError(f"{url!r}: no host (modbus-tcp://host:port)")
        try:
            port = parts.port
        except ValueError:
            raise ValueError(f"{url!r}: the port must be a number 1-65535") from None
        port = DEFAULT_TCP_PORT if port is None else port
        if not 1 <= port <= 65535:
            raise ValueError(f"{url!r}: the port must be 1-65535")
        return ModbusUrl("tcp", unit=unit, timeout=timeout, host=host, port=port)

    device = parts.netloc + parts.path
    if not device:
        raise ValueError(f"{url!r}: no serial port (modbus-rtu:///dev/ttyUSB0)")
    baud = _int(url, q, "baud", 19200)
    if baud < 50 or baud > 4_000_000:
        raise ValueError(f"{url!r}: baud {baud} is not a serial line speed")
    parity = q.get("parity", "N").upper()
    if parity not in ("N", "E", "O"):
        raise ValueError(f"{url!r}: parity must be N, E or O")
    bytesize = _int(url, q, "bytesize", 8)
    if bytesize not in (7, 8):
        raise ValueError(f"{url!r}: bytesize must be 7 or 8")
    stopbits = _int(url, q, "stopbits", 1)
    if stopbits not in (1, 2):
        raise ValueError(f"{url!r}: stopbits must be 1 or 2")
    return ModbusUrl(
        "rtu",
        unit=unit,
        timeout=timeout,
        device=device,
        baudrate=baud,
        parity=parity,
        bytesize=bytesize,
        stopbits=stopbits,
    )


def _int(url: str, q: dict[str, str], key: str, default: int) -> int:
    text = q.get(key)
    if text is None:
        return default
    if not text.isdigit():
        raise ValueError(f"{url!r}: {key} must be a whole number, not {text!r}")
    return int(text)
