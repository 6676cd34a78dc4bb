"""Device data files (ball sets, register maps): TOML read with errors that name the file and the key."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from pydantic import ValidationError

__all__ = ["error_lines", "read_toml"]


def read_toml(path: str | Path, what: str, error: type[Exception] = ValueError) -> dict[str, Any]:
    """The table of a TOML file; ``error`` names the file and says why it cannot be used.

    ``what`` names the file's content in the message ("the register map")."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise error(f"{path}: cannot read {what}: {exc.strerror}") from None
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise error(f"{path}: not valid TOML: {exc}") from None


def error_lines(exc: ValidationError, source: str) -> str:
    """One line per validation error: ``<source>: <key.path>: <message>``."""
    lines = []
    for e in exc.errors():
        loc = ".".join(str(p) for p in e["loc"])
        lines.append(f"{source}: {loc}: {e['msg']}" if loc else f"{source}: {e['msg']}")
    return "\n".join(lines)
