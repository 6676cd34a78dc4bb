"""The video reference: a table with a camera stream stamps its device events and feed messages with the
stream's time-of-day timecode, signed with the rest; a table without one signs its messages as before."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime

import pytest
from served import Served, wheel_table
from waiting import until

from streaming.messages import FeedMessage, parse_feed_message
from studio.config import parse_config
from studio.journal import verify_journal
from studio.service import Studio
from studio.video import VideoSettings, timecode


@pytest.mark.parametrize(
    ("at", "settings", "expected"),
    [
        (datetime(2026, 12, 1, 16, 17, 13, 520_000, tzinfo=UTC), {"fps": 25}, "16:17:13:13"),
        (datetime(2026, 12, 1, 16, 17, 13, 999_999, tzinfo=UTC), {"fps": 25}, "16:17:13:24"),
        (
            datetime(2026, 12, 1, 16, 17, 13, 0, tzinfo=UTC),
            {"fps": 30, "utc_offset_minutes": 60},
            "17:17:13:00",
        ),
        (
            datetime(2026, 12, 1, 23, 59, 59, 990_000, tzinfo=UTC),
            {"fps": 25, "clock_offset_ms": 20},
            "00:00:00:00",
        ),
        (
            datetime(2026, 12, 1, 0, 0, 0, 10_000, tzinfo=UTC),
            {"fps": 50, "clock_offset_ms": -20},
            "23:59:59:49",
        ),
    ],
)
def test_time_of_day_timecode(at: datetime, settings: dict, expected: str) -> None:
    assert timecode(at, VideoSettings(stream="cam", **settings)) == expected


def test_a_tables_stream_timecode_is_on_its_events_and_signed_messages(tmp_path) -> None:
    video = {"stream": "rtsp://archive/w1-main", "fps": 25, "clock_offset_ms": 40}
    cfg = parse_config(
        {
            "studio": {"data_dir": str(tmp_path / "data")},
            "consumers": [{"name": "t", "token": "video-test-token-0123"}],
            "tables": [{**wheel_table("w1"), "video": video}, wheel_table("w2")],
        }
    )
    served = Served(Studio(cfg))
    settings = VideoSettings(**video)
    try:
        journal = served.studio.journal

        def results(table: str) -> list[dict]:
            journal.flush()
            feed = [json.loads(t) for _, t in journal.read_after(0, 100_000)]
            return [m for m in feed if m["kind"] == "result" and m["table_id"] == table]

        until(lambda: results("w1") and results("w2"), "a result at each table")
        w1, w2 = results("w1")[0], results("w2")[0]
        at = datetime.fromisoformat(w1["occurred_at"])
        assert w1["video"] == {"stream": "rtsp://archive/w1-main", "timecode": timecode(at, settings)}
        assert "video" not in w2  # no stream: the message as before
        assert isinstance(parse_feed_message(w1), FeedMessage)
        db = sqlite3.connect(f"file:{journal.path}?mode=ro", uri=True)
        rows = db.execute("SELECT table_id, at, body FROM records WHERE kind = 'device_event' LIMIT 200")
        events = [(t, at, json.loads(b)) for t, at, b in rows]
        db.close()
        stamped = [(at, b) for t, at, b in events if t == "w1"]
        assert stamped and all(b["video"]["stream"] == settings.stream for _, b in stamped)
        assert all(
            b["video"]["timecode"] == timecode(datetime.fromisoformat(b["at"]), settings) for _, b in stamped
        )
        assert all("video" not in b for t, _, b in events if t == "w2")
    finally:
        served.stop()
    assert verify_journal(cfg.studio.data_dir).ok
