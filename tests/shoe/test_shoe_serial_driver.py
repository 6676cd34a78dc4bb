"""SerialShoeDriver over a real pty (raw mode): torn lines, garbage, repeats, unknown payloads, reconnects."""

from __future__ import annotations

import time

import pytest
from waiting import WAIT_S, until

from devices.registry import driver_class
from devices.shoe.serial_shoe import SerialShoeDriver
from devices.shoe.vendor_table import default_vendor_table

T = default_vendor_table()
FAST = {"reconnect_min": 0.02, "reconnect_max": 0.2}


def payload(card: str, deck: int = 104729, pack: int = 0) -> str:
    return T.encode(card, deck=deck, pack=pack)


@pytest.fixture
def drivers():
    made: list[SerialShoeDriver] = []
    yield made
    for d in made:
        d.stop()


def start(url, events, drivers, **options) -> SerialShoeDriver:
    d = SerialShoeDriver("table-1/shoe", url, events, **{**FAST, **options})
    drivers.append(d)
    d.start()
    events.wait_kind("device_connected")
    return d


def test_registry_builds_the_serial_shoe():
    assert driver_class("serial-shoe") is SerialShoeDriver
    assert SerialShoeDriver.kind == "serial-shoe"


def test_options_are_checked_when_the_driver_is_built(events):
    with pytest.raises(ValueError, match="unknown option.*fold_windw"):
        SerialShoeDriver("t", "loop://", events, fold_windw=1.0)
    with pytest.raises(ValueError, match="symbology"):
        SerialShoeDriver("t", "loop://", events, symbology="ean13")
    d = SerialShoeDriver("t", "loop://", events, baudrate=115200, fold_window=0.2, aim_prefix=True)
    assert d.baudrate == 115200 and d.reader.folder.window == 0.2


def test_lines_become_cards_in_order(scanner, events, drivers):
    d = start(scanner.path, events, drivers)
    cards = ["AS", "TD", "9H", "KC", "2S"]
    scanner.write(b"".join(payload(c, pack=i).encode() + b"\r\n" for i, c in enumerate(cards)))
    got = [events.wait_kind("card_drawn") for _ in cards]
    assert [e.card for e in got] == cards
    assert all(e.deck == "104729" and e.special is None and e.device_id == "table-1/shoe" for e in got)
    assert [e.raw for e in got] == [e.payload for e in got]
    assert all(e.at.tzinfo is not None for e in got)
    assert got == sorted(got, key=lambda e: e.at)
    h = d.health()
    assert h["kind"] == "serial-shoe" and h["device"]["reads"]["cards"] == 5
    assert h["device"]["vendor"] == "studio-default"


def test_torn_lines_are_joined_whatever_the_chunking(scanner, events, drivers):
    start(scanner.path, events, drivers)
    data = (payload("QH") + "\r" + payload("3C", pack=1) + "\n" + payload("7D", pack=2) + "\r\n").encode()
    for i in range(0, len(data), 3):  # 3-byte writes, \r and \n split across writes
        scanner.write(data[i : i + 3])
        time.sleep(0.005)
    assert [events.wait_kind("card_drawn").card for _ in range(3)] == ["QH", "3C", "7D"]
    assert events.cards(events.drain(0.3)) == []  # the split CR LF made no extra line


def test_a_line_torn_off_by_silence_is_reported_not_dropped(scanner, events, drivers):
    start(scanner.path, events, drivers, partial_line_timeout=0.2)
    scanner.write(payload("AS")[:6].encode())  # the cable glitched mid-line
    e = events.wait_kind("card_unreadable")
    assert "torn line" in e.reason and e.raw == payload("AS")[:6]
    scanner.write(payload("KS").encode() + b"\r\n")
    assert events.wait_kind("card_drawn").card == "KS"  # the next line is clean again


def test_garbage_and_no_reads_are_unreadable_never_cards(scanner, events, drivers):
    d = start(scanner.path, events, drivers)
    scanner.write(b"\xff\xfe\x01\x02garbage\r\n")
    scanner.write(b"NOREAD\r\n")
    scanner.write(b"x" * 300 + b"\r\n")  # over-long: discarded by the framer, and reported
    scanner.write(
        (payload("AS")[:-1] + str((int(payload("AS")[-1]) + 5) % 10)).encode() + b"\r\n"
    )  # bad check
    scanner.write(payload("JD").encode() + b"\r\n")
    seen = [events.wait_for(lambda e: e.kind in ("card_drawn", "card_unreadable")) for _ in range(5)]
    kinds = [(e.kind, getattr(e, "card", None)) for e in seen]
    assert kinds == [("card_unreadable", None)] * 4 + [("card_drawn", "JD")]
    reasons = [e.reason for e in seen[:4]]
    assert "garbled" in reasons[0] and "no-read" in reasons[1] and "over-long" in reasons[2]
    assert "check digit" in reasons[3]
    assert d.health()["device"]["unreadable"] == 4


def test_repeats_fold_inside_the_window_and_not_outside(scanner, events, drivers):
    # a window far wider than the 0.25 s between the reads below, so that a loaded machine keeps them inside it
    d = start(scanner.path, events, drivers, fold_window=3.0)
    line = payload("8S").encode() + b"\r\n"
    scanner.write(line)
    scanner.write(line)  # a double read, at once
    time.sleep(0.25)
    scanner.write(line)  # 0.25 s later: still the same card
    first = events.wait_kind("card_drawn")
    assert first.card == "8S"
    until(lambda: d.health()["device"]["reads"]["folded"] == 2, "both repeats read")
    last_read = time.monotonic()
    assert events.cards(events.drain(0.3)) == []
    time.sleep(max(0.0, last_read + 3.2 - time.monotonic()))  # now more than the window after the last read
    scanner.write(line)
    again = events.wait_kind("card_drawn")
    assert again.payload == first.payload and again.at > first.at


def test_unknown_payloads_cut_card_and_other_shoe(scanner, events, drivers):
    start(scanner.path, events, drivers)
    other = payload("AS", deck=222222)
    for p in ("PROMO-0042", T.encode_code("77", deck=104729, pack=1), "CUT", other, payload("AS")):
        scanner.write(p.encode() + b"\n")
    got = [events.wait_kind("card_drawn") for _ in range(5)]
    assert [(e.card, e.deck, e.special) for e in got] == [
        (None, None, None),
        (None, "104729", None),
        (None, None, "cut_card"),
        ("AS", "222222", None),
        ("AS", "104729", None),
    ]
    assert got[0].payload == "PROMO-0042"


def test_aim_prefixed_scanner(scanner, events, drivers):
    start(scanner.path, events, drivers, aim_prefix=True)
    scanner.write(f"]C0{payload('5H')}\r\n]E04006381333931\r\n{payload('6H')}\r\n".encode())
    a = events.wait_kind("card_drawn")
    b = events.wait_kind("card_drawn")
    c = events.wait_kind("card_unreadable")
    assert (a.card, a.payload, a.raw) == ("5H", payload("5H"), "]C0" + payload("5H"))
    assert (b.card, b.payload) == (None, "4006381333931")  # an EAN-13: another symbology, never a card
    assert "AIM" in c.reason


def test_unplugged_scanner_disconnects_and_a_reconnect_reads_again(scanner, events, drivers, tmp_path):
    import socket
    import threading

    # a scanner behind a terminal server: socket:// lets the test drop and restore the link
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(2)
    port = server.getsockname()[1]
    conns: list[socket.socket] = []
    accepting = threading.Event()

    def accept() -> None:
        while not accepting.is_set():
            server.settimeout(0.1)
            try:
                c, _ = server.accept()
                conns.append(c)
            except OSError:
                continue

    t = threading.Thread(target=accept, name="test-accept")
    t.start()
    try:
        start(f"socket://127.0.0.1:{port}", events, drivers)
        deadline = time.monotonic() + WAIT_S
        while not conns and time.monotonic() < deadline:
            time.sleep(0.01)
        conns[0].sendall(payload("4C").encode() + b"\r\n" + payload("AH")[:5].encode())
        assert events.wait_kind("card_drawn").card == "4C"
        conns[0].close()  # the link drops in the middle of a line
        events.wait_kind("device_disconnected")
        torn = events.wait_kind("card_unreadable")  # the half line is reported, not forgotten
        assert torn.raw == payload("AH")[:5]
        events.wait_kind("device_connected")
        deadline = time.monotonic() + WAIT_S
        while len(conns) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        conns[1].sendall(payload("AH").encode() + b"\r\n")
        assert events.wait_kind("card_drawn").card == "AH"
    finally:
        accepting.set()
        t.join()
        for c in conns:
            c.close()
        server.close()


def test_a_custom_vendor_table_file(scanner, events, drivers, tmp_path):
    table = tmp_path / "acme.toml"
    codes = "\n".join(f'"{c}" = "{c}"' for c in T.cards if c != "JK")
    table.write_text(
        f'vendor = "acme"\ntemplate = "A{{deck:3}}{{code:2}}"\ncharset = "alnum"\n'
        f'[specials]\n"ACUT" = "cut_card"\n[codes]\n{codes}\n'
    )
    start(scanner.path, events, drivers, vendor_table=str(table))
    scanner.write(b"A0079S\r\nACUT\r\n1047293012\r\n")
    got = [events.wait_kind("card_drawn") for _ in range(3)]
    assert [(e.card, e.deck, e.special) for e in got] == [
        ("9S", "007", None),
        (None, None, "cut_card"),
        (None, None, None),
    ]
