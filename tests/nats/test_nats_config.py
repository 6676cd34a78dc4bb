"""[delivery.nats] is checked like the rest of the configuration: every problem, with its key, before start."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import served
from nats_helpers import toml

from studio.config_check import validate, validate_data


def config(nats: dict[str, Any] | None, name: str = "hall-a") -> dict[str, Any]:
    data: dict[str, Any] = {"studio": {"name": name}, "tables": [served.wheel_table("t1")]}
    if nats is not None:
        data["delivery"] = {"nats": nats}
    return data


def problems(data: dict[str, Any]) -> list[str]:
    found = validate_data(data)
    assert isinstance(found, list), "the configuration was accepted"
    return [f"{p.key}: {p.message}" for p in found]


def test_defaults_and_no_section() -> None:
    c = validate_data(config({}))
    assert not isinstance(c, list)
    assert c.delivery.nats is not None
    assert c.delivery.nats.servers == ["nats://127.0.0.1:4222"]
    assert c.delivery.nats.stream.replicas == 1 and c.delivery.nats.stream.retention == "limits"
    assert c.nats_studio_id == "hall-a"
    none = validate_data(config(None))
    assert not isinstance(none, list) and none.delivery.nats is None


def test_wrong_settings_are_refused_with_their_keys() -> None:
    found = problems(
        config({"servers": ["http://x:4222"], "stream": {"replicas": 7, "retention": "workqueue"}})
    )
    assert any(p.startswith("delivery.nats.servers") and "not a NATS server URL" in p for p in found)
    assert any(p.startswith("delivery.nats.stream.replicas") for p in found)
    assert any(p.startswith("delivery.nats.stream.retention") for p in found)
    assert any("user and password_file go together" in p for p in problems(config({"user": "studio"})))
    both = config({"credentials": "a.creds", "user": "u", "password_file": "p"})
    assert any("not both" in p for p in problems(both))
    assert any("must be 1-64 characters" in p for p in problems(config({}, name="Main Hall")))
    assert not isinstance(validate_data(config({"studio_id": "main-hall"}, name="Main Hall")), list)


def test_files_are_read_relative_to_the_configuration(tmp_path: Path) -> None:
    path = tmp_path / "studio.toml"
    path.write_text(toml(config({"user": "studio-hall-a", "password_file": "secret"})))
    found = validate(path)
    assert isinstance(found, list)
    assert [p.key for p in found] == ["delivery.nats.password_file"]
    assert str(tmp_path / "secret") in found[0].message
    (tmp_path / "secret").write_text("s3cret\n")
    c = validate(path)
    assert not isinstance(c, list) and c.delivery.nats is not None
    assert c.delivery.nats.password_file == tmp_path / "secret"
