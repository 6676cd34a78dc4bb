"""Sessions kept in the data folder: they outlive a restart, keep only token hashes in a 0600 file, expire as
before, and end when the user is disabled or gets a new PIN (also from another process)."""

from __future__ import annotations

import os
import stat

from dealer_ui.auth import SESSIONS_FILE, SessionStore, User, UserStore


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def test_sessions_outlive_a_restart_and_the_file_holds_no_token(tmp_path):
    clock = Clock()
    path = tmp_path / SESSIONS_FILE
    store = SessionStore(idle_seconds=60, lifetime_seconds=300, clock=clock, path=path)
    a = store.create(User("dana", "dealer"), "1.2.3.4", "stamp-a")
    b = store.create(User("sam", "supervisor"), "1.2.3.5", "stamp-b")
    store.close()
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    raw = path.read_bytes()
    assert a.token.encode() not in raw and b.token.encode() not in raw  # only hashes
    clock.now += 30
    again = SessionStore(idle_seconds=60, lifetime_seconds=300, clock=clock, path=path)
    s = again.get(a.token)
    assert s is not None and s.user == User("dana", "dealer") and s.csrf == a.csrf and s.token == a.token
    assert again.get("forged") is None
    assert again.end_user("sam") == 1
    again.close()
    clock.now += 40  # dana was active 40 s ago (touched after the restart); sam was signed out everywhere
    third = SessionStore(idle_seconds=60, lifetime_seconds=300, clock=clock, path=path)
    assert third.get(b.token) is None and third.get(a.token) is not None
    third.close()
    clock.now += 61  # idle for a minute: gone, across restarts too
    fourth = SessionStore(idle_seconds=60, lifetime_seconds=300, clock=clock, path=path)
    assert fourth.get(a.token) is None and len(fourth) == 0
    fourth.close()


def test_the_lifetime_counts_across_restarts(tmp_path):
    clock = Clock()
    path = tmp_path / SESSIONS_FILE
    store = SessionStore(idle_seconds=60, lifetime_seconds=100, clock=clock, path=path)
    s = store.create(User("dana", "dealer"), "ip")
    for _ in range(3):
        clock.now += 30
        assert store.get(s.token) is not None
        store.close()
        store = SessionStore(idle_seconds=60, lifetime_seconds=100, clock=clock, path=path)
    clock.now += 11  # 101 s after sign-in, active all along
    assert store.get(s.token) is None
    store.close()


def test_a_new_pin_or_disabling_ends_sessions_even_from_another_process(tmp_path):
    users = UserStore(tmp_path)
    users.add("dana", "dealer", "246810")
    users.add("sam", "supervisor", "975312")

    def valid(session):
        stamp = users.stamp(session.user.username)
        return stamp is not None and stamp == session.stamp

    store = SessionStore(path=tmp_path / SESSIONS_FILE, user_check=valid)
    dana = store.create(User("dana", "dealer"), "ip", users.stamp("dana"))
    sam = store.create(User("sam", "supervisor"), "ip", users.stamp("sam"))
    assert store.get(dana.token) is dana
    UserStore(tmp_path).set_secret("dana", "112233")  # another process (studio user ...) gives a new PIN
    assert store.get(dana.token) is None
    UserStore(tmp_path).set_disabled("sam", True)
    assert store.get(sam.token) is None
    store.close()
    reopened = SessionStore(path=tmp_path / SESSIONS_FILE, user_check=valid)
    assert len(reopened) == 0
    reopened.close()
