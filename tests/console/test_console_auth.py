"""People: the users file keeps only slow hashes, sessions expire, failures slow down, demo users, the CLI."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys

import pytest

from dealer_ui.auth import (
    PERMISSIONS,
    AuthError,
    SessionStore,
    Throttle,
    UserStore,
    check_secret,
    ensure_demo_users,
    hash_secret,
)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_users_file_keeps_only_scrypt_hashes_and_is_private(tmp_path):
    store = UserStore(tmp_path)
    store.add("dana", "dealer", "246810")
    store.add("tom", "technician", "long-enough-pass")
    raw = (tmp_path / "users.json").read_text()
    assert "246810" not in raw and "long-enough-pass" not in raw
    records = json.loads(raw)["users"]
    assert all(r["secret_hash"].startswith("scrypt$32768$8$1$") for r in records)
    # two users with the same PIN get different hashes (salted)
    store.add("dave", "dealer", "246810")
    hashes = {
        r["username"]: r["secret_hash"] for r in json.loads((tmp_path / "users.json").read_text())["users"]
    }
    assert hashes["dana"] != hashes["dave"]
    assert stat.S_IMODE(os.stat(tmp_path / "users.json").st_mode) == 0o600
    assert store.verify("dana", "246810").role == "dealer"
    assert store.verify("dana", "246811") is None
    assert store.verify("nobody", "246810") is None
    assert store.verify("dana", "") is None


def test_secrets_and_names_are_checked(tmp_path):
    store = UserStore(tmp_path)
    with pytest.raises(AuthError, match="at least 4"):
        store.add("dana", "dealer", "123")
    with pytest.raises(AuthError, match="at least 8"):
        store.add("tom", "technician", "1234567")  # device rights need more than a short PIN
    with pytest.raises(AuthError, match="repeated"):
        store.add("dana", "dealer", "0000")
    with pytest.raises(AuthError, match="user name"):
        store.add("Dana Smith", "dealer", "246810")
    with pytest.raises(AuthError, match="unknown role"):
        store.add("dana", "pitboss", "246810")
    store.add("dana", "dealer", "246810")
    with pytest.raises(AuthError, match="already"):
        store.add("dana", "supervisor", "975312")


def test_disabled_users_cannot_sign_in_and_new_secrets_replace_old(tmp_path):
    store = UserStore(tmp_path)
    store.add("dana", "dealer", "246810")
    store.set_disabled("dana", True)
    assert store.verify("dana", "246810") is None
    store.set_disabled("dana", False)
    store.set_secret("dana", "135790")
    assert store.verify("dana", "246810") is None
    assert store.verify("dana", "135790") is not None


def test_a_second_store_sees_users_added_by_another_process(tmp_path):
    running = UserStore(tmp_path)
    assert running.verify("dana", "246810") is None
    UserStore(tmp_path).add("dana", "dealer", "246810")  # e.g. `studio user add` while the studio runs
    assert running.verify("dana", "246810") is not None


def test_hash_check_refuses_garbage():
    assert check_secret("x", "not-a-hash") is False
    assert check_secret("x", "bcrypt$1$2$3$4$5") is False
    assert check_secret("pin", hash_secret("pin", n=2**10)) is True


def test_roles_permissions():
    assert "approve" in PERMISSIONS["supervisor"] and "approve" not in PERMISSIONS["dealer"]
    assert "devices" not in PERMISSIONS["dealer"] and "devices" in PERMISSIONS["technician"]
    assert "deal" not in PERMISSIONS["technician"]
    assert "approve" not in PERMISSIONS["admin"]  # an administrator is not a gaming supervisor
    assert "users" in PERMISSIONS["admin"] and not any(
        "users" in PERMISSIONS[r] for r in ("dealer", "supervisor", "technician")
    )


def test_sessions_expire_when_idle_and_after_their_lifetime():
    clock = Clock()
    sessions = SessionStore(idle_seconds=60, lifetime_seconds=300, clock=clock)
    store_user = UserStore.__new__(UserStore)  # not needed: a session only keeps the User value
    del store_user
    from dealer_ui.auth import User

    s = sessions.create(User("dana", "dealer"), "1.2.3.4")
    assert s.token != s.csrf and len(s.token) >= 40
    clock.now += 59
    assert sessions.get(s.token) is s  # activity keeps it alive...
    clock.now += 59
    assert sessions.get(s.token) is s
    clock.now += 61
    assert sessions.get(s.token) is None  # ...but not an idle minute
    s = sessions.create(User("dana", "dealer"), "1.2.3.4")
    for _ in range(6):
        clock.now += 50
        sessions.get(s.token)
    assert sessions.get(s.token) is None  # never beyond the lifetime
    assert sessions.get("forged-token") is None and sessions.get(None) is None


def test_ending_a_users_sessions():
    from dealer_ui.auth import User

    sessions = SessionStore()
    a = sessions.create(User("dana", "dealer"), "ip")
    b = sessions.create(User("dana", "dealer"), "ip2")
    c = sessions.create(User("sam", "supervisor"), "ip")
    assert sessions.end_user("dana") == 2
    assert sessions.get(a.token) is None and sessions.get(b.token) is None and sessions.get(c.token) is c


def test_failures_slow_down_per_user_and_per_address():
    clock = Clock()
    t = Throttle(free_attempts=3, free_ip_attempts=5, base_delay=1, max_delay=60, clock=clock)
    keys = ("user:dana", "ip:10.0.0.1")
    for _ in range(3):
        assert t.wait(*keys) == 0
        t.failed(*keys)
    t.failed(*keys)  # the 4th failure: 1 s
    assert t.wait(*keys) == pytest.approx(1)
    assert t.wait("user:dana") == pytest.approx(1)
    assert t.wait("user:sam", "ip:10.0.0.2") == 0  # others are not affected
    clock.now += 1.01
    t.failed(*keys)  # 5th: 2 s
    assert t.wait("user:dana") == pytest.approx(2)
    clock.now += 2.01
    t.failed(*keys)  # 6th: 4 s for the user, and the address is now past its 5 free attempts too
    assert t.wait("user:dana") == pytest.approx(4)
    assert t.wait("ip:10.0.0.1") == pytest.approx(1)
    for _ in range(20):
        t.failed("user:dana")
    assert t.wait("user:dana") == pytest.approx(60)  # capped
    t.succeeded("user:dana")
    assert t.wait("user:dana") == 0
    clock.now += 901
    assert t.wait("ip:10.0.0.1") == 0  # a quiet quarter of an hour forgets


def test_demo_users_are_made_once_and_reported_again(tmp_path):
    made = ensure_demo_users(tmp_path)
    assert set(made) == {"dealer", "supervisor", "technician", "admin"}
    store = UserStore(tmp_path)
    for role, (name, pin) in made.items():
        user = store.verify(name, pin)
        assert user is not None and user.role == role
    assert ensure_demo_users(tmp_path) == made  # the same folder: the same people, PINs printed again
    assert stat.S_IMODE(os.stat(tmp_path / "demo-users.json").st_mode) == 0o600
    other = tmp_path / "other"
    UserStore(other).add("dana", "dealer", "246810")
    assert ensure_demo_users(other) == {}  # a folder with its own users gets no demo users
    assert [u.username for u in UserStore(other).users()] == ["dana"]


def test_cli_user_add_reads_the_pin_from_stdin(tmp_path):
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "app.cli",
            "user",
            "add",
            "--data",
            str(tmp_path),
            "--role",
            "supervisor",
            "Sam",
        ],
        input="975312\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    assert "sam" in run.stdout
    assert UserStore(tmp_path).verify("sam", "975312").role == "supervisor"
    bad = subprocess.run(
        [
            sys.executable,
            "-m",
            "app.cli",
            "user",
            "add",
            "--data",
            str(tmp_path),
            "--role",
            "technician",
            "--pin",
            "123",
            "tom",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2 and "at least 8" in bad.stderr
    dup = subprocess.run(
        [
            sys.executable,
            "-m",
            "app.cli",
            "user",
            "add",
            "--data",
            str(tmp_path),
            "--role",
            "dealer",
            "--pin",
            "246810",
            "sam",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert dup.returncode == 2 and "already" in dup.stderr


def test_many_addresses_that_fail_once_do_not_grow_the_throttle_without_bound():
    clock = Clock()
    t = Throttle(free_ip_attempts=1, base_delay=10, forget_after=100, max_keys=50, clock=clock)
    for _ in range(2):
        t.failed("ip:10.9.9.9")  # slowed down: kept while its wait runs
    for i in range(200):
        t.failed(f"ip:10.1.{i // 250}.{i % 250}")
        clock.now += 0.01
    assert len(t._keys) <= 50
    assert t.wait("ip:10.9.9.9") > 0
