"""Checking a configuration file: the one code path `studio check-config` and `studio run` share.

:func:`validate` reads the file, validates the models (studio.config), then asks the registries what the models
cannot know: each device's driver checks its URL and options (`Driver.check_options`: a roulette camera's
calibration, a ball machine's Modbus URL, a register map file), and no two devices open one port or URL. It
collects every problem (not just the first), each with the file, the table's id and the key, and opens no device.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pydantic import ValidationError

from devices.registry import all_drivers

from .config import ConfigError, DeviceConfig, StudioConfig


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a configuration file."""

    file: str
    #: where in the file: "server.port", "tables[2].devices[0].url"; "" for the file as a whole
    key: str
    message: str
    #: the id of the table the key is in (None: not in a table, or the table has no valid id)
    table_id: str | None = None

    @property
    def where(self) -> str:
        """'table "roulette-2" (tables[2]), key devices[0].url', 'key server.port', or '' (the whole file)."""
        key, table = self.key, ""
        if key.startswith("tables["):
            index, _, key = key.partition("]")
            key = key.lstrip(".")
            table = f'table "{self.table_id}" ({index}])' if self.table_id is not None else f"{index}]"
        return ", ".join(p for p in (table, f"key {key}" if key else "") if p)

    def __str__(self) -> str:
        return f"{self.file}: {self.where + ': ' if self.where else ''}{self.message}"


def validate(path: Path | str) -> StudioConfig | list[Problem]:
    """The file's configuration, or every problem found in it (relative folders are relative to the file)."""
    path = Path(path)
    source = str(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        return [Problem(source, "", f"cannot read: {exc.strerror}")]
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return [Problem(source, "", "not UTF-8 text")]
    except tomllib.TOMLDecodeError as exc:
        return [Problem(source, "", f"not valid TOML: {exc}")]
    config = validate_data(data, source)
    if isinstance(config, list):
        return config
    studio = config.studio
    if not studio.data_dir.is_absolute():
        studio.data_dir = (path.parent / studio.data_dir).resolve()
    if studio.pictures_dir is not None and not studio.pictures_dir.is_absolute():
        studio.pictures_dir = (path.parent / studio.pictures_dir).resolve()
    if studio.manifest is not None:
        if not studio.manifest.is_absolute():
            studio.manifest = (path.parent / studio.manifest).resolve()
        if not studio.manifest.is_file():
            return [
                Problem(
                    source,
                    "studio.manifest",
                    f"{studio.manifest}: no such file (`studio manifest` writes it)",
                )
            ]
    nats = config.delivery.nats
    if nats is not None:
        for name in ("credentials", "password_file"):
            given = getattr(nats, name)
            if given is not None and not given.is_absolute():
                setattr(nats, name, (path.parent / given).resolve())
        problems = [Problem(source, k, m) for k, m in nats_file_problems(config)]
        if problems:
            return problems
    return config


def nats_file_problems(config: StudioConfig) -> list[tuple[str, str]]:
    """[delivery.nats]'s files must be readable now, not when the publisher first connects."""
    nats = config.delivery.nats
    problems = []
    for name in ("credentials", "password_file"):
        given = getattr(nats, name) if nats is not None else None
        if given is None:
            continue
        try:
            if not given.read_text(encoding="utf-8").strip():
                problems.append((f"delivery.nats.{name}", f"{given} is empty"))
        except (OSError, UnicodeDecodeError) as exc:
            problems.append(
                (
                    f"delivery.nats.{name}",
                    f"cannot read {given}: {exc.strerror if isinstance(exc, OSError) else exc}",
                )
            )
    return problems


def validate_data(data: dict[str, Any], source: str = "<config>") -> StudioConfig | list[Problem]:
    """The configuration a parsed TOML document describes, or every problem found in it."""
    found = data.get("tables")
    tables: list[Any] = found if isinstance(found, list) else []
    ids = {i: t["id"] for i, t in enumerate(tables) if isinstance(t, dict) and isinstance(t.get("id"), str)}

    def problem(key: str, message: str) -> Problem:
        table_id = None
        if key.startswith("tables["):
            index = key[len("tables[") :].split("]", 1)[0]
            table_id = ids.get(int(index)) if index.isdigit() else None
        return Problem(source, key, message, table_id)

    problems: list[Problem] = []
    config: StudioConfig | None = None
    try:
        config = StudioConfig.model_validate(data)
    except ValidationError as exc:
        problems += [problem(_loc(e["loc"]), _message(e)) for e in exc.errors()]
    opened: dict[str, str] = {}  # what a device opens -> the first device's key
    for key, device in _devices(tables):
        problems += [problem(key + k, m) for k, m in _device_problems(device)]
        address = _opens(device)
        if address is None:
            continue
        if address in opened:
            first = opened[address]
            problems.append(
                problem(
                    key + ".url",
                    f"{device.url!r}: {problem(first + '.url', '').where} opens it already; "
                    "two devices cannot share one port or URL",
                )
            )
        else:
            opened[address] = key
    if problems:
        return sorted(problems, key=_table_order)
    assert config is not None
    return config


def parse(data: dict[str, Any], source: str = "<config>") -> StudioConfig:
    """validate_data, raising ConfigError with every problem (one a line)."""
    config = validate_data(data, source)
    if isinstance(config, list):
        raise ConfigError("\n".join(map(str, config)))
    return config


def load(path: Path | str) -> StudioConfig:
    """validate, raising ConfigError with every problem (one a line)."""
    config = validate(path)
    if isinstance(config, list):
        raise ConfigError("\n".join(map(str, config)))
    return config


def _devices(tables: list[Any]) -> Iterator[tuple[str, DeviceConfig]]:
    """Every device of every table that is a valid device on its own, with its key (tables[2].devices[0])."""
    for i, table in enumerate(tables):
        if not isinstance(table, dict):
            continue
        found: list[tuple[str, Any]] = []
        if table.get("device") is not None:
            found.append((f"tables[{i}].device", table["device"]))
        if isinstance(table.get("devices"), list):
            found += [(f"tables[{i}].devices[{j}]", d) for j, d in enumerate(table["devices"])]
        for key, raw in found:
            try:
                yield key, DeviceConfig.model_validate(raw)
            except ValidationError:
                continue  # its own problems are already reported with its table


def _device_problems(device: DeviceConfig) -> list[tuple[str, str]]:
    """(".options" or ".url", what is wrong) for one device, as its driver says."""
    driver = all_drivers()[device.kind]
    try:
        on_options = driver.check_options(None, device.options)
        out = [(".options", m) for m in on_options]
        if not device.is_simulator:
            out += [
                (".url", m) for m in driver.check_options(device.url, device.options) if m not in on_options
            ]
    except Exception as exc:  # noqa: BLE001 - a driver's bug is named, not a traceback instead of the other problems
        return [("", f"the {device.kind} driver could not check this device: {type(exc).__name__}: {exc}")]
    return out


def _opens(device: DeviceConfig) -> str | None:
    """What the device opens, for telling two devices on one port apart (None: a port of its own).

    A serial port is one device's (a pty or tty by its real path, whatever URL wraps it); a Modbus TCP gateway
    serves several unit ids, so there the unit is part of the address; recordings are nobody's."""
    url = device.url.strip()
    # loop://: every opener gets a loopback of its own; a recording (a folder, a video file) is read by any number
    if device.is_simulator or url.lower().startswith(("loop://", "dir:", "file:")):
        return None
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme == "spy":
        url = url[len("spy://") :].split("?", 1)[0]
        scheme = urlsplit(url).scheme.lower()
    elif scheme == "modbus-rtu":
        url = parts.netloc + parts.path
        scheme = ""
    elif scheme == "modbus-tcp":
        unit = dict(p.partition("=")[::2] for p in parts.query.split("&") if p).get("unit", "1")
        return f"modbus-tcp://{(parts.hostname or '').lower()}:{parts.port or 502}?unit={unit}"
    if not scheme or len(scheme) == 1 or url.startswith("/"):  # a path (or a Windows drive letter)
        path = os.path.realpath(url)
        return None if os.path.isdir(path) or os.path.isfile(path) else path  # not a port: a recording
    return url.lower() if scheme in ("socket", "rfc2217", "tcp", "frames+tcp") else url


def _table_order(p: Problem) -> int:
    """The file's own order: the studio's sections first, then table by table (sorted() keeps each one's)."""
    index = p.key[len("tables[") :].split("]", 1)[0] if p.key.startswith("tables[") else ""
    return int(index) + 1 if index.isdigit() else 0


def _loc(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


def _message(error: Any) -> str:
    msg = str(error["msg"]).removeprefix("Value error, ")
    if error.get("type") == "int_type" and isinstance(error.get("input"), str):
        msg += f" (write {error['input']} without quotes)"
    return msg
