"""The software manifest: what a check finds when a file changes, goes or comes, when the manifest is tampered
with or signed by another key; and a studio that pauses its tables while its software differs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from journal_records import records
from served import Served
from waiting import until

from app.cli import main as studio_main
from streaming.messages import CheckpointMessage, parse_feed_message
from studio.config_check import validate
from studio.journal import verify_journal
from studio.manifest import build, check, public_b64
from studio.service import Studio


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "code" / "pkg_under_test"
    (root / "static").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "rules.py").write_text("PAYS = 35\n")
    (root / "static" / "page.js").write_text("export const x = 1;\n")
    monkeypatch.syspath_prepend(str(tmp_path / "code"))
    return root


def test_a_fresh_manifest_checks_good_and_each_change_is_named(package: Path, tmp_path: Path) -> None:
    key = Ed25519PrivateKey.generate()
    manifest = tmp_path / "m.json"
    manifest.write_text(json.dumps(build(key, ["pkg_under_test"])))
    pinned = public_b64(key.public_key())
    good = check(manifest, pinned, ["pkg_under_test"])
    assert good.ok and good.signature == "good" and good.files == 3

    (package / "rules.py").write_text("PAYS = 36\n")
    (package / "static" / "page.js").unlink()
    (package / "extra.py").write_text("")
    found = check(manifest, pinned, ["pkg_under_test"])
    assert not found.ok
    assert found.changed == ["pkg_under_test/rules.py"]
    assert found.missing == ["pkg_under_test/static/page.js"]
    assert found.added == ["pkg_under_test/extra.py"]
    assert "1 files changed (pkg_under_test/rules.py)" in found.summary()


def test_a_tampered_or_foreign_manifest_is_refused(package: Path, tmp_path: Path) -> None:
    key, other = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    body = build(key, ["pkg_under_test"])
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps({**body, "files": {**body["files"], "pkg_under_test/rules.py": "0" * 64}}))
    bad = check(tampered, public_b64(key.public_key()), ["pkg_under_test"])
    assert bad.signature == "bad" and not bad.ok
    foreign = tmp_path / "foreign.json"
    foreign.write_text(json.dumps(build(other, ["pkg_under_test"])))
    assert check(foreign, public_b64(key.public_key()), ["pkg_under_test"]).signature == "untrusted key"
    garbage = tmp_path / "garbage.json"
    garbage.write_bytes(b"\x00not json")
    unreadable = check(garbage, None, ["pkg_under_test"])
    assert unreadable.signature == "unreadable" and "cannot be checked" in unreadable.summary()


def test_the_command_writes_a_manifest_the_check_accepts(tmp_path: Path, capsys) -> None:
    key, out = tmp_path / "certifier.pem", tmp_path / "manifest.json"
    assert studio_main(["manifest", "--key", str(key), "--out", str(out)]) == 0
    assert key.stat().st_mode & 0o077 == 0
    files = json.loads(out.read_text())["files"]
    assert "studio/journal.py" in files and "recognition/dice/model/dice_face.onnx" in files
    assert studio_main(["manifest", "--key", str(key), "--check", str(out)]) == 0
    assert "certified software" in capsys.readouterr().out


def _config(tmp_path: Path, manifest: Path, key: str, action: str) -> Path:
    path = tmp_path / f"studio-{action}.toml"
    path.write_text(
        f"""
[studio]
data_dir = "data-{action}"
manifest = "{manifest.name}"
manifest_public_key = "{key}"
manifest_action = "{action}"
checkpoint_seconds = 0.2

[[consumers]]
name = "t"
token = "manifest-test-token-0123"

[[tables]]
id = "w1"
game = "european_roulette"
[tables.device]
kind = "cammegh-ss2"
role = "wheel"
url = "simulator"
serial_number = "SIM-w1"
[tables.device.options]
keep_powered = true
[tables.device.simulator]
speed = 40
"""
    )
    return path


@pytest.mark.parametrize("action", ["refuse", "warn"])
def test_a_studio_whose_software_differs_pauses_its_tables_or_warns(tmp_path: Path, action: str) -> None:

    key = Ed25519PrivateKey.generate()
    body = build(key)
    del body["signature"]
    body["files"]["studio/journal.py"] = "0" * 64  # the certified build had another journal.py
    import base64

    from studio.manifest import _canonical

    body["signature"] = base64.b64encode(key.sign(_canonical(body))).decode()
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps(body))
    config = validate(_config(tmp_path, manifest, public_b64(key.public_key()), action))
    assert not isinstance(config, list), config
    served = Served(Studio(config))
    try:
        table = served.studio.tables["w1"]
        if action == "refuse":
            until(lambda: table.paused_reason is not None, "the table to pause")
            assert "software differs from its certified manifest" in (table.paused_reason or "")
            assert "studio/journal.py" in (table.paused_reason or "")
        else:
            until(lambda: table.round is not None, "a round to open")
            assert "software" not in (table.paused_reason or "")
        served.studio.journal.flush()
        (found,) = records(config.studio.data_dir, "software_check")
        assert found["changed"] == ["studio/journal.py"] and found["action"] == action
        assert found["key_pinned"] is True and found["ok"] is False

        # the feed's checkpoints carry the check to every backend, signed
        def checkpoints() -> list[dict]:
            served.studio.journal.flush()
            feed = [json.loads(t) for _, t in served.studio.journal.read_after(0, 100_000)]
            return [m for m in feed if m["kind"] == "checkpoint"]

        until(checkpoints, "a checkpoint")
        software = checkpoints()[0]["software"]
        assert software["ok"] is False and software["differs"] == 1 and software["signature"] == "good"
        assert isinstance(parse_feed_message(checkpoints()[0]), CheckpointMessage)
    finally:
        served.stop()
    assert verify_journal(config.studio.data_dir).ok


def test_check_config_refuses_a_manifest_that_is_not_there(tmp_path: Path) -> None:
    problems = validate(_config(tmp_path, tmp_path / "absent.json", "x", "refuse"))
    assert isinstance(problems, list) and problems[0].key == "studio.manifest"
