"""Where the client keeps its Position between runs: a small protocol and a file that is written atomically."""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
from pathlib import Path
from typing import Protocol

from .verify import Position


class SeqStore(Protocol):
    """Loads and saves the feed position. `save` must be durable before it returns: the client resumes from
    what `load` gives, so a position saved but lost would replay messages (never skip them)."""

    def load(self) -> Position: ...

    def save(self, position: Position) -> None: ...


class MemorySeqStore:
    """A store for tests and monitors that need no history across restarts."""

    def __init__(self, position: Position | None = None) -> None:
        self.position = position or Position()

    def load(self) -> Position:
        return self.position

    def save(self, position: Position) -> None:
        self.position = position


class FileSeqStore:
    """A JSON file replaced atomically (write a temporary file, fsync, rename, fsync the folder)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def load(self) -> Position:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return Position()
        return Position(**data)

    def save(self, position: Position) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(dataclasses.asdict(position), f)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        dir_fd = os.open(self.path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
