"""Register maps: where a ball machine's PLC keeps its status and how it takes commands.

Every machine model wires its PLC differently, so a technician describes it in a
TOML file (format in docs/balls.md; the shipped ``generic_register_map.toml``
beside this module is the map of the generic model the simulator implements):

* status points, each ``{table, address}`` (``bit`` for a flag packed in a
  register): ``state``, ``blower``, ``gate``, ``ball_in_chute`` (optional),
  ``balls_released`` (a 16-bit counter), ``balls_in_machine`` (optional) and
  ``fault_code``;
* ``state_names`` / ``fault_names``: what the state and fault codes mean;
* ``commands``: command name -> the writes that carry it out, in order
  (``start_blower``, ``stop_blower``, ``release_ball``, ``reset_fault``, ...).

Tables are the four Modbus ones: ``coil``, ``discrete_input``,
``holding_register``, ``input_register``; addresses are the 0-based protocol
addresses (what the request carries: "40001" in a PLC manual is holding register 0).

:meth:`RegisterMap.read_plan` groups the points into as few read requests as
possible and :meth:`RegisterMap.decode` turns what they returned into a
:class:`Snapshot`. Both are pure.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from ..tomlfile import error_lines, read_toml

__all__ = [
    "COUNTER_MODULUS",
    "DEFAULT_MAP_FILE",
    "Point",
    "ReadBlock",
    "RegisterMap",
    "RegisterMapError",
    "Snapshot",
    "TableName",
    "Write",
    "default_register_map",
    "load_register_map",
    "parse_register_map",
    "register_map_from_option",
]

TableName = Literal["coil", "discrete_input", "holding_register", "input_register"]
BIT_TABLES = ("coil", "discrete_input")
REGISTER_TABLES = ("holding_register", "input_register")
COUNTER_MODULUS = 1 << 16
DEFAULT_MAP_FILE = "generic_register_map.toml"

#: how many items one read request may cover (Modbus limits: 125 registers, 2000 bits)
_MAX_SPAN = {"coil": 2000, "discrete_input": 2000, "holding_register": 125, "input_register": 125}
#: points this close together are read in one request (reading a few unused addresses is cheaper
#: than a second round trip)
_MERGE_GAP = 16

_SHORT = {"coil": "co", "discrete_input": "di", "holding_register": "hr", "input_register": "ir"}


class RegisterMapError(ValueError):
    pass


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Point(_Strict):
    table: TableName
    address: int = Field(ge=0, le=65535)
    #: a flag packed in a register: which bit (0 = least significant); only for register tables
    bit: int | None = Field(None, ge=0, le=15)

    @model_validator(mode="after")
    def _bit_only_in_registers(self) -> Point:
        if self.bit is not None and self.table in BIT_TABLES:
            raise ValueError(f"bit is only for registers: a {self.table} is a single bit already")
        return self


class Write(_Strict):
    table: Literal["coil", "holding_register"]
    address: int = Field(ge=0, le=65535)
    value: int = Field(ge=0, le=65535)

    @model_validator(mode="after")
    def _coil_value(self) -> Write:
        if self.table == "coil" and self.value not in (0, 1):
            raise ValueError("a coil is written 0 or 1")
        return self


@dataclass(frozen=True)
class ReadBlock:
    table: str
    address: int
    count: int


@dataclass(frozen=True)
class Snapshot:
    """One poll's worth of machine status, decoded."""

    state_code: int
    blower: bool
    gate: bool
    ball_in_chute: bool | None
    balls_released: int
    balls_in_machine: int | None
    fault_code: int
    raw: str


class RegisterMap(_Strict):
    model: str = Field(min_length=1, description="the machine model this map describes")
    description: str = ""

    state: Point
    blower: Point
    gate: Point
    ball_in_chute: Point | None = None
    balls_released: Point
    balls_in_machine: Point | None = None
    fault_code: Point

    state_names: dict[int, str] = Field(default_factory=dict)
    fault_names: dict[int, str] = Field(default_factory=dict)
    commands: dict[str, tuple[Write, ...]] = Field(default_factory=dict)

    @field_validator("state_names", "fault_names", mode="before")
    @classmethod
    def _int_keys(cls, v: Any) -> Any:
        if isinstance(v, Mapping):  # TOML table keys are strings
            out = {}
            for k, name in v.items():
                try:
                    out[int(k)] = name
                except (TypeError, ValueError):
                    raise ValueError(f"{k!r} is not an integer code") from None
            return out
        return v

    @model_validator(mode="after")
    def _check(self) -> RegisterMap:
        for name in ("state", "balls_released", "balls_in_machine", "fault_code"):
            p = getattr(self, name)
            if p is not None and (p.table not in REGISTER_TABLES or p.bit is not None):
                raise ValueError(f"{name} is a number: it must be a whole holding_register or input_register")
        for name, writes in self.commands.items():
            if not writes:
                raise ValueError(f"command {name!r} has no writes")
        return self

    # -- reading -------------------------------------------------------------------

    def points(self) -> dict[str, Point]:
        names = (
            "state",
            "blower",
            "gate",
            "ball_in_chute",
            "balls_released",
            "balls_in_machine",
            "fault_code",
        )
        return {n: p for n in names if (p := getattr(self, n)) is not None}

    def read_plan(self) -> tuple[ReadBlock, ...]:
        """The read requests that cover every status point (one per table when they are close)."""
        by_table: dict[str, list[int]] = {}
        for p in self.points().values():
            by_table.setdefault(p.table, []).append(p.address)
        blocks: list[ReadBlock] = []
        for table in ("coil", "discrete_input", "holding_register", "input_register"):
            addresses = sorted(set(by_table.get(table, [])))
            if not addresses:
                continue
            start = prev = addresses[0]
            for a in addresses[1:]:
                if a - prev > _MERGE_GAP or a - start >= _MAX_SPAN[table]:
                    blocks.append(ReadBlock(table, start, prev - start + 1))
                    start = a
                prev = a
            blocks.append(ReadBlock(table, start, prev - start + 1))
        return tuple(blocks)

    def decode(self, values: Mapping[ReadBlock, list[int] | list[bool]]) -> Snapshot:
        """What the read plan returned -> a Snapshot. KeyError if a block is missing."""

        def raw_value(p: Point) -> int:
            for block, vals in values.items():
                if block.table == p.table and block.address <= p.address < block.address + block.count:
                    v = vals[p.address - block.address]
                    return int(bool(v)) if p.table in BIT_TABLES else int(v)
            raise KeyError(f"no value read for {p.table} {p.address}")

        def flag(p: Point) -> bool:
            v = raw_value(p)
            return bool((v >> p.bit) & 1) if p.bit is not None else bool(v)

        raw = " ".join(
            f"{_SHORT[b.table]}[{b.address}]=" + ",".join(str(int(x)) for x in vals[: b.count])
            for b, vals in values.items()
        )
        return Snapshot(
            state_code=raw_value(self.state),
            blower=flag(self.blower),
            gate=flag(self.gate),
            ball_in_chute=flag(self.ball_in_chute) if self.ball_in_chute else None,
            balls_released=raw_value(self.balls_released) % COUNTER_MODULUS,
            balls_in_machine=raw_value(self.balls_in_machine) if self.balls_in_machine else None,
            fault_code=raw_value(self.fault_code),
            raw=raw,
        )

    def state_name(self, code: int) -> str:
        return self.state_names.get(code, f"unknown-{code}")

    def fault_name(self, code: int) -> str | None:
        if code == 0:
            return None
        return self.fault_names.get(code, f"undefined fault code {code}")

    def command(self, name: str) -> tuple[Write, ...]:
        try:
            return self.commands[name]
        except KeyError:
            known = ", ".join(sorted(self.commands)) or "none"
            raise ValueError(
                f"the {self.model} register map has no command {name!r} (known: {known})"
            ) from None


def parse_register_map(data: Mapping[str, Any], source: str = "<register map>") -> RegisterMap:
    try:
        return RegisterMap.model_validate(dict(data))
    except ValidationError as exc:
        raise RegisterMapError(error_lines(exc, source)) from None


def load_register_map(path: str | Path) -> RegisterMap:
    return parse_register_map(read_toml(path, "the register map", RegisterMapError), str(path))


@cache
def default_register_map() -> RegisterMap:
    """The shipped map of the generic model (``generic_register_map.toml``)."""
    text = resources.files(__package__).joinpath(DEFAULT_MAP_FILE).read_text("utf-8")
    return parse_register_map(tomllib.loads(text), DEFAULT_MAP_FILE)


def register_map_from_option(option: Any = None) -> RegisterMap:
    """The ``register_map`` option: None (the generic map), a .toml path, a table, or a RegisterMap."""
    if option is None or option == "generic":
        return default_register_map()
    if isinstance(option, RegisterMap):
        return option
    if isinstance(option, Mapping):
        return parse_register_map(option, "register_map option")
    if isinstance(option, (str, Path)):
        return load_register_map(option)
    raise RegisterMapError(f"register_map must be 'generic', a .toml path or a table, not {option!r}")
