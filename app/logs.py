"""How the studio's logs are written: `text` for people, `json` (one object a line) for a log collector."""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import Any

from studio.log_context import ID_KEYS, IdsFilter

FORMATS = ("text", "json")
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"

#: what every LogRecord has: anything else on a record came from a call's `extra=`
_STANDARD = set(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {"message", "asctime", "taskName"}


class JsonFormatter(logging.Formatter):
    """time (RFC 3339, UTC), level, logger, message, the ids known (table_id, round_id, device_id), the
    call's other `extra=` fields, and the exception's traceback if any."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key in ID_KEYS:
            value = getattr(record, key, None)
            if value is not None:
                out[key] = value
        for key, value in record.__dict__.items():
            if key not in _STANDARD and key not in out:
                out[key] = value
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str, ensure_ascii=False)


def configure_logging(fmt: str = "text", level: int = logging.WARNING, stream: Any = None) -> logging.Handler:
    """One handler on the root logger (uvicorn's loggers propagate to it: serve() gives uvicorn no config)."""
    if fmt not in FORMATS:
        raise ValueError(f"log format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else logging.Formatter(TEXT_FORMAT))
    handler.addFilter(IdsFilter())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    # pymodbus logs every failed reconnect with a hex dump; the drivers report the link state themselves
    logging.getLogger("pymodbus").setLevel(logging.CRITICAL)
    # the demo's betting backend polls the studio over httpx, which logs every request at INFO
    for name in ("httpx", "httpcore"):
        logging.getLogger(name).setLevel(max(level, logging.WARNING))
    return handler
