"""What the NATS publisher knows of its progress: the status health and metrics read, and the file that keeps
the broker-acknowledged seq across restarts (streaming/nats_publisher.py, docs/nats.md)."""

from __future__ import annotations

import json
import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["AckFile", "PublisherStatus"]


@dataclass
class PublisherStatus:
    """What /v1/health and /metrics show (written by the publisher's thread, read anywhere)."""

    connected: bool = False
    #: the last seq the broker acknowledged (recorded in the ack file)
    acked_seq: int = 0
    #: the last seq committed to the journal, as far as the publisher knows
    head_seq: int = 0
    #: the last seq handed to the connection (acknowledged or not)
    sent_seq: int = 0
    published: int = 0
    #: sent again and dropped by the broker as a repeat (after a crash or a lost ack)
    duplicates: int = 0
    failures: int = 0
    last_error: str | None = None
    since: float = field(default_factory=time.time)
    #: seconds from a message's notify() to its ack, the last few hundred (for the benchmark)
    ack_latencies: list[float] = field(default_factory=list)

    @property
    def backlog(self) -> int:
        return max(0, self.head_seq - self.acked_seq)


class AckFile:
    """The broker-acknowledged seq, replaced atomically (write, fsync, rename): after a crash the publisher
    resumes from it; a value older than the broker's only means a repeat the broker drops."""

    def __init__(self, path: Path, stream: str) -> None:
        self.path, self.stream = path, stream

    def load(self) -> int:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return 0
        if data.get("stream") != self.stream:  # the studio id changed: this stream starts from nothing
            return 0
        return int(data["acked_seq"])

    def save(self, seq: int) -> None:
        fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump({"stream": self.stream, "acked_seq": seq}, f)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
