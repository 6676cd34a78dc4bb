"""Pure reading logic: folding repeats, payload -> event, scanner line classification."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from devices.events import CardDrawn, CardUnreadable
from devices.shoe.fold import PayloadReader, RepeatFolder
from devices.shoe.serial_shoe import classify_line
from devices.shoe.vendor_table import default_vendor_table

AT = datetime(2026, 1, 1, tzinfo=UTC)
T = default_vendor_table()
AS = T.encode("AS", deck=104729, pack=3)
KD = T.encode("KD", deck=104729, pack=0)


def test_a_repeat_inside_the_window_folds_and_one_after_it_does_not():
    f = RepeatFolder(1.0)
    assert f.is_new(AS, 10.0)
    assert not f.is_new(AS, 10.4)
    assert not f.is_new(AS, 11.4)  # 1.0 after the LAST read: still the same card
    assert f.is_new(AS, 12.41)  # more than 1.0 after the last read: a new draw
    assert not f.is_new(AS, 12.9)


def test_the_window_slides_while_a_card_keeps_being_read():
    f = RepeatFolder(0.5)
    assert f.is_new(AS, 0.0)
    # a card left under the camera, read every 1/30 s for 5 s, is one card
    assert not any(f.is_new(AS, i / 30) for i in range(1, 150))
    assert f.is_new(AS, 149 / 30 + 0.51)


def test_any_recent_payload_folds_not_only_the_last_one():
    f = RepeatFolder(1.0)
    assert f.is_new(AS, 0.0) and f.is_new(KD, 0.2)
    assert not f.is_new(AS, 0.3)  # a reflection of the previous card between two reads of the next
    assert not f.is_new(KD, 0.4)
    assert f.seen_recently(AS, 1.3) and not f.seen_recently(AS, 1.31)


def test_a_zero_window_folds_only_simultaneous_reads_and_a_negative_one_is_refused():
    f = RepeatFolder(0.0)
    assert f.is_new(AS, 1.0) and not f.is_new(AS, 1.0) and f.is_new(AS, 1.001)
    with pytest.raises(ValueError):
        RepeatFolder(-1)


def test_many_payloads_do_not_grow_memory_beyond_the_window():
    f = RepeatFolder(1.0)
    for i in range(10_000):
        assert f.is_new(f"P{i}", i * 0.01)
    assert len(f._last) <= 200


def test_payload_reader_events():
    r = PayloadReader("t/shoe", T, 1.0)
    e = r.read(AS, now=0.0, at=AT, raw=AS)
    assert isinstance(e, CardDrawn) and (e.card, e.deck, e.payload, e.special, e.raw) == (
        "AS",
        "104729",
        AS,
        None,
        AS,
    )
    assert e.at == AT and e.device_id == "t/shoe"
    assert r.read(AS, now=0.5, at=AT) is None  # folded
    cut = r.read("CUT", now=0.6, at=AT)
    assert isinstance(cut, CardDrawn) and cut.card is None and cut.special == "cut_card"
    unknown = r.read("PROMO-1", now=0.7, at=AT)
    assert isinstance(unknown, CardDrawn) and unknown.card is None and unknown.special is None
    assert unknown.deck is None
    other = r.read(T.encode("AS", deck=999999, pack=3), now=0.8, at=AT)
    assert other.card == "AS" and other.deck == "999999"  # same card, other shoe: not folded (other payload)
    bad = r.read(AS[:-1] + str((int(AS[-1]) + 1) % 10), now=0.9, at=AT)
    assert isinstance(bad, CardUnreadable) and "check digit" in bad.reason
    foreign = r.read(AS, now=5.0, at=AT, foreign=True)  # read as another symbology: never a card
    assert isinstance(foreign, CardDrawn) and foreign.card is None
    assert r.counts == {"cards": 2, "specials": 1, "unknown": 2, "bad_check": 1, "folded": 1}


@pytest.mark.parametrize(
    "line, expected",
    [
        (AS, ("payload", AS)),
        ("  " + AS + " ", ("payload", AS)),
        ("NOREAD", ("unreadable", "the scanner reported a no-read ('NOREAD')")),
        ("noread", ("unreadable", "the scanner reported a no-read ('noread')")),
        ("ERR", ("unreadable", "the scanner reported a no-read ('ERR')")),
        ("\x00\x13abc", ("unreadable", "garbled line from the scanner (not printable ASCII)")),
        ("10472\ufffd3012", ("unreadable", "garbled line from the scanner (not printable ASCII)")),
        ("PROMO 1", ("payload", "PROMO 1")),
    ],
)
def test_classify_line(line, expected):
    assert classify_line(line) == expected


def test_classify_line_with_aim_prefix():
    assert classify_line("]C0" + AS, aim_prefix=True) == ("payload", AS)
    assert classify_line("]E04006381333931", aim_prefix=True) == ("foreign", "4006381333931")
    assert classify_line("]Q1" + AS, aim_prefix=True, symbology="qr") == ("payload", AS)
    assert classify_line(AS, aim_prefix=True)[0] == "unreadable"
    assert classify_line("]C0", aim_prefix=True)[0] == "unreadable"
    assert classify_line("NR", aim_prefix=True)[0] == "unreadable"
