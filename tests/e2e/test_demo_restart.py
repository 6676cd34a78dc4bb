"""The real `studio demo` process killed with SIGKILL mid-round and started again on the same journal."""

import time

import httpx

from .helpers import DemoProcess, check_chain, studio_cli

TOKEN = "e2e-consumer-token-0123456789"


def test_sigkill_mid_round_then_restart(tmp_path):
    data = tmp_path / "data"
    first = DemoProcess(data, TOKEN, tables=3)
    try:
        key = first.public_key()
        seen = first.collect(after=0, count=5)
        tables = httpx.get(first.url("/v1/tables"), headers=first.headers).json()
        open_rounds = [
            t["round"]["round_id"]
            for t in tables
            if t["round"] and t["round"]["state"] not in ("certified", "voided")
        ]
        time.sleep(0.05)
    finally:
        first.kill()  # SIGKILL: no clean-up of any kind
    assert open_rounds, "expected a round in progress at the kill"

    v = studio_cli("verify", "--data", str(data))
    assert v.returncode == 0, v.stderr

    second = DemoProcess(data, TOKEN, tables=3)
    try:
        assert second.public_key().public_bytes_raw() == key.public_bytes_raw()
        last = seen[-1]

        def restarted(msgs: list[dict]) -> bool:
            """A studio_restart void (the feed before it was written before the kill), then a result."""
            voids = [
                i
                for i, m in enumerate(msgs)
                if m["kind"] == "void" and m["reason"]["code"] == "studio_restart"
            ]
            return bool(voids) and any(m["kind"] == "result" for m in msgs[voids[0] :])

        rest = second.collect(after=last["seq"], count=8, until=restarted)
        check_chain(rest, key, last["hash"], last["seq"] + 1)
        everything = seen + rest
        # rounds a crash left open are voided, never guessed
        restart_voids = [m for m in rest if m["kind"] == "void" and m["reason"]["code"] == "studio_restart"]
        assert restart_voids
        # every round is settled at most once
        finals = [m["round_id"] for m in everything if m["kind"] in ("result", "void")]
        assert len(finals) == len(set(finals))
        # ... and results keep coming after the restart, round numbers going on
        later = [m for m in rest if m["kind"] == "result"]
        assert later
        # a consumer starting from 0 sees the same stream, byte for byte the same messages
        full = second.collect(after=0, count=len(everything))
        assert full == everything
    finally:
        second.stop()
    v = studio_cli("verify", "--data", str(data))
    assert v.returncode == 0, v.stderr
    assert "journal ok" in v.stdout
