"""Where a wheel encoder is on Modbus, and which registers say what. Pure.

URLs (``modbus-tcp://HOST[:PORT]?unit=1``, ``modbus-rtu:///dev/ttyUSB0?baud=19200``): devices/modbus_url.py,
shared with the ball machines.

Register map (the ``register_map`` option of the driver: omitted for the default,
a dict, or the path of a TOML file holding the same keys)::

    count          = {table = "holding_register", address = 0, type = "uint32", word_order = "big"}
    index_count    = {table = "holding_register", address = 2, type = "uint16"}
    index_position = {table = "holding_register", address = 3, type = "uint32", word_order = "big"}
    status         = {table = "holding_register", address = 5, type = "uint16"}

* ``count`` (required): the encoder's free-running counter (it must never be reset by the
  index pulse); 16- or 32-bit, signed or not: the driver unwraps it (polls must come faster than half
  its range).
* ``index_count`` (optional): how many index pulses the device has seen (16 bits, wraps).
* ``index_position`` (optional): the ``count`` the device latched at the last index pulse.
  With it, the angle within the turn is measured from the index mark and is unknown until the
  first index pulse. Without it, ``count`` modulo ``counts_per_turn`` is taken as the angle (an
  absolute single-turn encoder, or a counter the device presets at power-up).
* ``status`` (optional): 0 when the device is healthy, anything else a fault code.
* ``single_turn = true``: ``count`` is an absolute single-turn encoder's angle (0 .. counts_per_turn - 1)
  rather than a free-running counter. Without ``index_position`` a free-running counter's range
  (2**16 or 2**32) must be a whole number of turns, or the angle would jump when it wraps.

Tables are ``holding_register`` or ``input_register``; addresses are the 0-based protocol
addresses ("40001" in a manual is holding register 0). Types: ``uint16``, ``int16``,
``uint32``, ``int32`` (two registers, ``word_order`` "big": high word first, or "little").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..tomlfile import error_lines, read_toml

__all__ = [
    "DEFAULT_REGISTER_MAP",
    "EncoderRegisterMap",
    "ReadBlock",
    "RegisterPoint",
    "register_map_from_option",
]

# --- register map ------------------------------------------------------------------------------

RegisterTable = Literal["holding_register", "input_register"]
RegisterType = Literal["uint16", "int16", "uint32", "int32"]
_WORDS = {"uint16": 1, "int16": 1, "uint32": 2, "int32": 2}


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class RegisterPoint(_Strict):
    table: RegisterTable = "holding_register"
    address: int = Field(ge=0, le=65535)
    type: RegisterType = "uint16"
    word_order: Literal["big", "little"] = "big"

    @property
    def words(self) -> int:
        return _WORDS[self.type]

    @property
    def bits(self) -> int:
        return 16 * self.words

    def decode(self, regs: list[int]) -> int:
        """The point's value from its registers (as read), as the unsigned raw value of its width."""
        words = [r & 0xFFFF for r in regs[: self.words]]
        if self.word_order == "little":
            words.reverse()
        value = 0
        for w in words:
            value = (value << 16) | w
        return value

    def signed(self, value: int) -> int:
        if self.type.startswith("int") and value >= 1 << (self.bits - 1):
            return value - (1 << self.bits)
        return value

    def encode(self, value: int) -> list[int]:
        """Registers holding ``value`` (for the simulator): the low ``bits`` bits, in word order."""
        value &= (1 << self.bits) - 1
        words = [(value >> (16 * i)) & 0xFFFF for i in reversed(range(self.words))]
        if self.word_order == "little":
            words.reverse()
        return words


@dataclass(frozen=True)
class ReadBlock:
    table: RegisterTable
    address: int
    count: int


class EncoderRegisterMap(_Strict):
    model: str = "generic"
    count: RegisterPoint
    #: the count register holds the angle within the turn, 0 .. counts_per_turn - 1 (an absolute single-turn
    #: encoder): it wraps every turn. Otherwise it is a free-running counter that wraps at its 16 or 32 bits.
    single_turn: bool = False
    index_count: RegisterPoint | None = None
    index_position: RegisterPoint | None = None
    status: RegisterPoint | None = None

    def points(self) -> dict[str, RegisterPoint]:
        return {
            name: p
            for name in ("count", "index_count", "index_position", "status")
            if (p := getattr(self, name)) is not None
        }

    def read_plan(self) -> tuple[ReadBlock, ...]:
        """As few read requests as the points allow (one per table when they are close together)."""
        blocks: list[ReadBlock] = []
        by_table: dict[str, list[RegisterPoint]] = {}
        for p in self.points().values():
            by_table.setdefault(p.table, []).append(p)
        for table, pts in sorted(by_table.items()):
            pts.sort(key=lambda p: p.address)
            start = pts[0].address
            end = start
            for p in pts:
                if p.address + p.words - start > 125:
                    blocks.append(ReadBlock(table, start, end - start))  # type: ignore[arg-type]
                    start = p.address
                end = max(end, p.address + p.words)
            blocks.append(ReadBlock(table, start, end - start))  # type: ignore[arg-type]
        return tuple(blocks)

    def decode(self, values: Mapping[ReadBlock, list[int]]) -> dict[str, int]:
        """Raw (unsigned, as wide as the point) values of every point from what the read plan returned."""
        out: dict[str, int] = {}
        for name, p in self.points().items():
            for block, regs in values.items():
                if (
                    block.table == p.table
                    and block.address <= p.address
                    and p.address + p.words <= block.address + block.count
                ):
                    off = p.address - block.address
                    out[name] = p.decode(regs[off : off + p.words])
                    break
            else:  # pragma: no cover - read_plan covers every point
                raise ValueError(f"no read covers {name}")
        return out


DEFAULT_REGISTER_MAP = EncoderRegisterMap(
    model="generic",
    count=RegisterPoint(address=0, type="uint32"),
    index_count=RegisterPoint(address=2, type="uint16"),
    index_position=RegisterPoint(address=3, type="uint32"),
    status=RegisterPoint(address=5, type="uint16"),
)


def register_map_from_option(option: Any) -> EncoderRegisterMap:
    """None/"generic" -> the default map; a dict; or a path to a TOML file; ValueError saying what is wrong."""
    if option is None or option == "generic":
        return DEFAULT_REGISTER_MAP
    if isinstance(option, EncoderRegisterMap):
        return option
    source = "register_map"
    if isinstance(option, (str, Path)):
        source = str(option)
        option = read_toml(option, "the register map")
    if not isinstance(option, Mapping):
        raise ValueError(f"register_map must be 'generic', a table or a .toml path, not {option!r}")
    try:
        return EncoderRegisterMap.model_validate(dict(option))
    except ValidationError as exc:
        raise ValueError(error_lines(exc, source)) from None
