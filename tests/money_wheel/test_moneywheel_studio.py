"""A whole studio in this process against the simulated wheel: both sensor paths end to end, every fault
holding (or voiding) the round and never certifying a wrong result, and the commitments verifying."""

from __future__ import annotations

import asyncio

import pytest
from journal_records import records
from moneywheel_helpers import check_truth, faulted, feed, holds, results, run, until, voids

from streaming.canonical import commitment_hash

SPEED = 40


def test_encoder_path_wheel_of_fortune(tmp_path):
    async def scenario(studio, sim, table):
        await until(lambda: len(results(studio)) >= 3, what="three results")

    studio = run(tmp_path, "wheel_of_fortune", scenario, speed=SPEED)
    sim = studio.simulator("w1")
    check_truth(studio, sim)
    got = results(studio)
    # the test's own shutdown voids a round the auto-round opened after the third result
    played = [v["reason"] for v in voids(studio) if v["reason"]["code"] != "studio_stopped"]
    assert not played and not holds(studio), (played, holds(studio))
    first = got[0]
    assert first["game"] == "wheel_of_fortune" and set(first["result"]) == {"segment", "index", "color"}
    assert first["source"]["device_id"] == "w1/encoder" and first["source"]["serial_number"] == "ENC-1"
    assert first["source"]["direction"] == "clockwise" and float(first["source"]["turns"]) >= 3
    assert first["outcome"]["winning_bets"]


def test_pointer_path_dream_catcher_carries_a_multiplier(tmp_path):
    from moneywheel_helpers import money_wheel_games

    labels = money_wheel_games()["dream_catcher"].default_layout().labels()

    async def scenario(studio, sim, table):
        sim.force_next_segment(labels.index("2x"))
        sim.force_next_segment(labels.index("7x"))
        sim.force_next_segment(labels.index("10"))
        await until(lambda: len(results(studio)) >= 3, what="three results")

    studio = run(tmp_path, "dream_catcher", scenario, sensors="pointer", speed=SPEED)
    sim = studio.simulator("w1")
    check_truth(studio, sim)
    r = results(studio)[:3]
    assert [m["result"]["segment"] for m in r] == ["2x", "7x", "10"]
    assert [m["result"]["multipliers"] for m in r] == [[], [2], [2, 7]]
    assert r[1]["outcome"]["bets_stand"] and r[2]["outcome"]["winning_bets"][0]["payout"] == 140  # 10 x 2 x 7
    assert r[0]["source"]["sensors"] == ["pointer"] and r[0]["source"]["pointer_tag"].startswith("S")


def test_both_sensors_mega_wheel_commitments_verify(tmp_path):
    async def scenario(studio, sim, table):
        await until(lambda: len(results(studio)) >= 2, what="two results")

    studio = run(tmp_path, "mega_wheel", scenario, sensors="both", speed=SPEED)
    check_truth(studio, studio.simulator("w1"))
    msgs = feed(studio)
    commits = {m["round_id"]: m["commitment"]["hash"] for m in msgs if m["kind"] == "commitment"}
    for m in results(studio):
        reveal = m["reveal"]
        assert commitment_hash(m["round_id"], reveal["extras"], reveal["nonce"]) == commits[m["round_id"]]
        assert m["outcome"]["lucky"] == reveal["extras"]["lucky"]
        assert m["source"]["sensors"] == ["encoder", "pointer"]
        # the lucky number was committed before betting closed (verify_journal checks the order too)
        seq = [x["seq"] for x in msgs if x["round_id"] == m["round_id"]]
        assert seq == sorted(seq)


@pytest.mark.parametrize(
    "fault, code",
    [
        ("weak_spin", "weak_spin"),
        ("wrong_direction", "wrong_direction"),
        ("no_counter_start", "no_counter_start"),
    ],
)
def test_invalid_spins_are_void_and_respun(tmp_path, fault, code):
    async def scenario(studio, sim, table):
        sim.inject(fault)
        await until(lambda: voids(studio, code), what=f"a {code} void")
        await until(lambda: results(studio), what="a result after the re-spin")

    studio = run(tmp_path, "wheel_of_fortune", scenario, speed=SPEED)
    sim = studio.simulator("w1")
    certified = check_truth(studio, sim)
    assert faulted(sim) == [0] and 0 not in certified
    void = voids(studio, code)[0]
    assert void["result"] is None and void["reason"]["message"]
    assert void["round_id"] not in {m["round_id"] for m in results(studio)}


@pytest.mark.parametrize(
    "fault, sensors, code",
    [
        ("boundary", "encoder", "on_boundary"),
        ("boundary", "pointer", "on_boundary"),
        ("dropout", "encoder", "sensor_lost"),
        ("unreadable", "both", "tag_unreadable"),
        ("unknown_tag", "both", "unknown_tag"),
    ],
)
def test_faults_hold_and_the_dealers_respin_certifies(tmp_path, fault, sensors, code):
    async def scenario(studio, sim, table):
        sim.inject(fault, **({"at_s": 2.0, "seconds": 0.6} if fault == "dropout" else {}))
        await until(lambda: code in holds(studio), what=f"a {code} hold")
        await until(lambda: results(studio), what="a result after the dealer's re-spin")

    studio = run(tmp_path, "dream_catcher", scenario, sensors=sensors, speed=SPEED)
    sim = studio.simulator("w1")
    certified = check_truth(studio, sim)
    bad = faulted(sim)
    assert bad == [0] and not set(bad) & set(certified)  # the faulted spin never certified
    first = results(studio)[0]
    # the held round is the one the re-spin certified: same round, hold released
    states = [r for r in records(studio, "round_state") if r["round_id"] == first["round_id"]]
    transitions = [r["transition"] for r in states]
    assert "hold" in transitions and "release" in transitions and transitions[-1] == "certify"
    # a round the next spin opened before the test stopped the studio is voided by the stop: no other void
    assert not [v for v in voids(studio) if v["reason"]["code"] != "studio_stopped"]


def test_a_held_round_can_be_voided_by_a_supervisor(tmp_path):
    async def scenario(studio, sim, table):
        sim.act_as_dealer = False  # nobody re-spins
        sim.inject("boundary")
        await until(
            lambda: any(r.get("kind") == "wheel_at_rest" for r in records(studio, "device_event")),
            what="the encoder seeing the wheel still",
        )
        table.open_round_by("dealer-ann")
        table.close_betting_by("dealer-ann")
        sim.spin()
        await until(lambda: "on_boundary" in holds(studio), what="the boundary hold")
        await asyncio.sleep(0.3)
        assert not results(studio)  # nothing certified while the hold stands
        table.void_by(
            "device_malfunction", "The pointer stopped on a pin.", by="dealer-ann", approved_by="sup-bob"
        )

    studio = run(tmp_path, "wheel_of_fortune", scenario, speed=SPEED, auto_round=None, betting=0)
    assert voids(studio, "device_malfunction") and not results(studio)
