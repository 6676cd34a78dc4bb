"""The PIN slow-down counts per account and address: failures elsewhere never lock a dealer's own station out."""

from __future__ import annotations

from dealer_ui.auth import SignInSlowDown, Throttle


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


def _slow_down() -> tuple[SignInSlowDown, Clock]:
    clock = Clock()
    return SignInSlowDown(Throttle(clock=clock)), clock


def test_failures_from_anywhere_never_lock_the_accounts_usual_station_out() -> None:
    s, clock = _slow_down()
    s.succeeded("alice", "10.0.0.5")  # alice signs in at her station
    for i in range(50):  # someone elsewhere (many addresses) tries alice's PIN
        s.failed("alice", f"10.9.{i}.1")
        clock.now += 0.5
    assert s.wait("alice", "10.0.0.5") == 0  # her station: still free
    assert s.wait("alice", "10.9.77.1") > 0  # a new address for alice: slowed down (the account's failures)
    assert s.wait("bob", "10.9.1.1") == 0  # the guessing addresses failed once each: bob there is not slowed


def test_repeated_failures_slow_down_that_account_at_that_address() -> None:
    s, _ = _slow_down()
    s.succeeded("alice", "10.0.0.5")
    for _ in range(4):  # three free attempts; the fourth failure starts the wait
        s.failed("alice", "10.0.0.5")
    assert s.wait("alice", "10.0.0.5") > 0
    assert s.wait("carol", "10.0.0.5") == 0  # the shared station: another account is not held up
    # a station alice never used waits only on her failures from stations not hers: none so far
    assert s.wait("alice", "10.0.0.6") == 0


def test_an_address_guessing_many_accounts_is_slowed_down() -> None:
    s, _ = _slow_down()
    for i in range(11):  # ten free attempts per address
        s.failed(f"user{i}", "10.6.6.6")
    assert s.wait("someone", "10.6.6.6") > 0
    assert s.wait("someone", "10.0.0.5") == 0


def test_a_sign_in_makes_a_station_usual_and_clears_its_slow_down() -> None:
    s, clock = _slow_down()
    for _ in range(4):
        s.failed("dave", "10.0.0.9")
    assert s.wait("dave", "10.0.0.9") > 0
    clock.now += 3600  # a quiet hour wipes the slate
    s.succeeded("dave", "10.0.0.9")
    for i in range(20):  # now others fail dave's PIN: his station stays free
        s.failed("dave", f"10.8.{i}.1")
    assert s.wait("dave", "10.0.0.9") == 0
