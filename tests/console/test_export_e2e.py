"""`studio export` and the equipment log on a running studio: every round, signed message, settled bet and
equipment entry the journal holds comes out once, checked against the journal and the feed; the technicians'
device page shows the equipment log (Chromium, both sizes) and downloads it as CSV."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from console_helpers import (
    PINS,
    Person,
    add_users,
    assert_no_studio_threads,
    check_screen,
    signed_in_page,
    start_real,
    wheel_table,
)
from journal_records import rows
from playwright.sync_api import expect
from waiting import WAIT_S

from app.cli import main as studio_main
from streaming.canonical import load_public_key_b64, verify_message

SIZES = [(1280, 800), (1920, 1080)]


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    data = tmp_path_factory.mktemp("export") / "data"
    add_users(data)
    run = start_real(data, [wheel_table("w1", mode=None, speed=40), wheel_table("w2", mode=None, speed=40)])
    run.data = data
    yield run
    run.server.stop()
    assert_no_studio_threads()


def records(env, *kinds: str) -> list[tuple[int, str, str | None, dict]]:
    return rows(env.studio, *kinds)


def export(env, capsys, *args: str) -> list[dict]:
    assert studio_main(["export", "--data", str(env.data), *args]) == 0
    return list(csv.DictReader(io.StringIO(capsys.readouterr().out)))


@pytest.fixture(scope="module")
def settled(env):
    """A few rounds at both tables and a technician's command."""
    tom = Person(env.url, *PINS["technician"])
    r = tom.post("/console/api/devices/w1/wheel/command", {"command": "*T h 90", "confirm": True})
    assert r.status_code == 200, r.text
    env.wait(lambda: sum(1 for *_, b in records(env, "result") if b["table_id"] == "w2") >= 3, what="rounds")
    tom.close()
    return env


def opened(env) -> set[str]:
    return {b["round_id"] for _, _, _, b in records(env, "round_state") if b["transition"] == "open_round"}


def settling(env) -> dict[int, dict]:
    return {b["seq"]: b for _, _, _, b in records(env, "result", "void", "correction")}


def test_every_round_and_signed_message_is_exported_once(settled, capsys) -> None:
    # the tables play on while we export: what the journal held before is exported, nothing it did not hold after
    env = settled
    before_rounds, before = opened(env), settling(env)
    rounds = export(env, capsys, "rounds")
    results = export(env, capsys, "results")
    outcomes = export(env, capsys, "outcomes")
    after_rounds, messages = opened(env), settling(env)

    ids = [r["round_id"] for r in rounds]
    assert len(ids) == len(set(ids)) and before_rounds <= set(ids) <= after_rounds
    by_round = {m["round_id"]: m for m in messages.values()}
    for r in rounds:
        m = by_round.get(r["round_id"])
        if m is None or int(r["feed_seq"] or 0) != m["seq"]:
            assert r["state"] == "open" or m is not None  # settled after the export read it
            continue
        assert r["state"] == {"result": "certified", "void": "voided"}[m["kind"]]
        if m["kind"] == "result":
            assert json.loads(r["result"]) == m["result"] and r["device_id"] == m["source"]["device_id"]

    seqs = [int(r["feed_seq"]) for r in results]
    assert seqs == sorted(set(seqs)) and set(before) <= set(seqs) <= set(messages)
    key = load_public_key_b64(env.studio.public_key_b64)
    for row in results:
        m = messages[int(row["feed_seq"])]
        assert row["hash"] == m["hash"] and row["signature"] == m["signature"]
        verify_message(m, key)  # the exported signature is the feed's, and it holds (raises if not)

    exported = {int(r["feed_seq"]) for r in results}
    bets = sum(
        len(m["outcome"].get("winning_bets", [])) + len(m["outcome"].get("pushed_bets", []))
        for seq, m in messages.items()
        if m["kind"] != "void" and seq in exported
    )
    in_outcomes = [o for o in outcomes if int(o["feed_seq"]) in exported]
    assert len(in_outcomes) == bets and {o["settled"] for o in outcomes} <= {"won", "returned"}


def test_filters_by_table_and_time(settled, capsys) -> None:
    env = settled
    w2 = export(env, capsys, "rounds", "--table", "w2")
    assert w2 and {r["table_id"] for r in w2} == {"w2"}
    assert export(env, capsys, "rounds", "--from", "2999-01-01") == []
    everything = {r["round_id"] for r in export(env, capsys, "rounds")}
    later = {r["round_id"] for r in export(env, capsys, "rounds", "--to", "2999-01-01")}
    assert everything <= later  # the tables play on: the later export may hold more
    assert studio_main(["export", "--data", str(env.data), "rounds", "--from", "tomorrow"]) == 2
    assert studio_main(["export", "--data", str(env.data / "nowhere"), "rounds"]) == 2


def test_parquet_holds_the_same_rows(settled, capsys, tmp_path: Path) -> None:
    env = settled
    out = tmp_path / "results.parquet"
    assert (
        studio_main(["export", "--data", str(env.data), "results", "--format", "parquet", "--out", str(out)])
        == 0
    )
    table = pq.read_table(out).to_pylist()
    in_csv = export(env, capsys, "results")  # later: the same rows, and what was certified since
    assert table and len(table) <= len(in_csv)
    assert [(r["feed_seq"], r["hash"]) for r in table] == [
        (int(r["feed_seq"]), r["hash"]) for r in in_csv[: len(table)]
    ]


def test_the_equipment_log_names_who_did_what(settled, capsys, people) -> None:
    env = settled
    log = export(env, capsys, "equipment", "--table", "w1")
    assert any(e["what"] == "setting" and e["by"] == "tom" and "*T h 90" in e["detail"] for e in log)
    assert any(e["what"] == "connection" and e["device_id"] == "w1/wheel" for e in log)
    tom = people(env.url, "technician")
    data = tom.get("/console/api/devices/w1/wheel/equipment-log").json()
    assert data["entries"][0]["seq"] >= data["entries"][-1]["seq"]  # newest first
    assert any(e["by"] == "tom" for e in data["entries"])
    downloaded = tom.get("/console/api/devices/w1/wheel/equipment-log?format=csv")
    assert downloaded.headers["content-type"].startswith("text/csv")
    assert "attachment" in downloaded.headers["content-disposition"]
    assert len(list(csv.DictReader(io.StringIO(downloaded.text)))) == data["total"]
    assert people(env.url, "dealer").get("/console/api/devices/w1/wheel/equipment-log").status_code == 403
    assert tom.get("/console/api/devices/w1/wheel/equipment-log?format=xml").status_code == 400


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_device_page_shows_the_equipment_log(settled, browser, size) -> None:
    env = settled
    ctx, page, _errors = signed_in_page(
        browser, env.url, size, "technician", "/console/tech/w1/wheel", WAIT_S * 1000, ready=None
    )
    try:
        log = page.locator("#equipment-log")
        expect(log).to_contain_text("sent *T h 90")
        expect(log).to_contain_text("tom")
        expect(page.locator("#equipment a", has_text="Download CSV")).to_be_visible()
        check_screen(page, "technician-equipment-log", size)
    finally:
        ctx.close()
