"""The round lifecycle: every state against every action."""

from datetime import UTC, datetime

import pytest

from studio.rounds import IllegalTransition, Round, RoundError, RoundState

AT = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
RESULT, OUTCOME, SOURCE = {"number": "17"}, {"winning_bets": []}, {"type": "device"}


def new_round() -> Round:
    return Round(round_id="r1", table_id="t1", game="european_roulette", round_number=1, opened_at=AT)


def in_state(state: RoundState) -> Round:
    r = new_round()
    path = {
        RoundState.BETTING_OPEN: [],
        RoundState.BETTING_CLOSED: ["close"],
        RoundState.IN_PLAY: ["close", "play"],
        RoundState.RESULT_PENDING: ["close", "play", "pending"],
        RoundState.CERTIFIED: ["close", "play", "pending", "certify"],
        RoundState.VOIDED: ["void"],
    }[state]
    for step in path:
        r = ACTIONS[step](r)
    assert r.state is state
    return r


ACTIONS = {
    "close": lambda r: r.close_betting(),
    "play": lambda r: r.start_play(),
    "pending": lambda r: r.result_pending(RESULT, OUTCOME, SOURCE),
    "certify": lambda r: r.certify(),
    "void": lambda r: r.void("miss_spin", "The ball did not spin correctly."),
    "correct": lambda r: r.correct({"number": "18"}, OUTCOME, {"type": "manual", "people": ["a", "b"]}),
}

ALLOWED = {
    (RoundState.BETTING_OPEN, "close"): RoundState.BETTING_CLOSED,
    (RoundState.BETTING_CLOSED, "play"): RoundState.IN_PLAY,
    (RoundState.IN_PLAY, "pending"): RoundState.RESULT_PENDING,
    (RoundState.RESULT_PENDING, "certify"): RoundState.CERTIFIED,
    (RoundState.BETTING_OPEN, "void"): RoundState.VOIDED,
    (RoundState.BETTING_CLOSED, "void"): RoundState.VOIDED,
    (RoundState.IN_PLAY, "void"): RoundState.VOIDED,
    (RoundState.RESULT_PENDING, "void"): RoundState.VOIDED,
    (RoundState.CERTIFIED, "correct"): RoundState.CERTIFIED,
}


@pytest.mark.parametrize("state", list(RoundState))
@pytest.mark.parametrize("action", list(ACTIONS))
def test_every_state_against_every_action(state, action):
    r = in_state(state)
    if (state, action) in ALLOWED:
        after = ACTIONS[action](r)
        assert after.state is ALLOWED[(state, action)]
        assert r.state is state  # rounds are values: the old one is unchanged
    else:
        with pytest.raises(IllegalTransition) as err:
            ACTIONS[action](r)
        # the error names the round and the state it is in
        assert "r1" in str(err.value) and state.value in str(err.value)


def test_certified_result_changes_only_by_versioned_correction():
    r = in_state(RoundState.CERTIFIED)
    assert r.version == 1 and r.result == RESULT
    c = r.correct({"number": "18"}, OUTCOME, {"type": "manual"})
    assert c.version == 2 and c.result == {"number": "18"}
    assert c.correct({"number": "19"}, OUTCOME, {"type": "manual"}).version == 3
    with pytest.raises(IllegalTransition):
        c.correct({"number": "18"}, OUTCOME, {"type": "manual"})  # same result again is not a correction
    with pytest.raises(IllegalTransition, match="correction"):
        r.void("x", "y")


def test_hold_blocks_certification_until_released():
    r = in_state(RoundState.RESULT_PENDING).hold("unverified_result", "Check the wheel")
    assert r.held
    with pytest.raises(IllegalTransition, match="Check the wheel"):
        r.certify()
    assert r.hold("unverified_result", "again").holds == r.holds  # the same hold twice is one hold
    assert r.release("unverified_result").certify().state is RoundState.CERTIFIED
    # a held round can still be voided
    assert r.void("dealer_void", "Dealer voided").state is RoundState.VOIDED


def test_void_needs_a_reason_code():
    with pytest.raises(RoundError):
        new_round().void("", "no code")
    v = new_round().void("wheel_powered_down", "The wheel powered down.")
    assert (v.void_code, v.void_message) == ("wheel_powered_down", "The wheel powered down.")
    with pytest.raises(IllegalTransition):
        v.hold("x", "y")


def test_projection_round_trips():
    r = in_state(RoundState.RESULT_PENDING).hold("a", "b")
    assert Round.model_validate(r.projection()) == r
