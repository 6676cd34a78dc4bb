"""A Fan Tan table in a whole studio: the bead counter's simulator on a pty, read by the real driver, plays the
dealer; rounds are certified on the signed feed with the count the simulator reported; a no-read holds the
round until the simulated dealer counts again."""

from __future__ import annotations

from typing import Any

from one_table import enter_result_with_a_supervisor, feed_results, run_one_table, wait_until

from studio.service import Studio

TABLE: dict[str, Any] = {
    "id": "fan-tan-1",
    "game": "fan_tan",
    "betting_seconds": 0.2,
    "auto_round_seconds": 0.2,
    "devices": [
        {
            "kind": "serial-bead-counter",
            "role": "counter",
            "url": "simulator",
            "serial_number": "BEADS-1",
            "simulator": {"speed": 10, "seed": 3, "options": {"count_delay": 1.0}},
        }
    ],
}


def test_a_fan_tan_table_certifies_the_counted_beads(tmp_path) -> None:
    async def scenario(studio: Studio) -> None:
        sim = studio.simulator("fan-tan-1", "counter")
        await wait_until(lambda: len(feed_results(studio)) >= 2, "two certified rounds")
        sim.inject("unreadable")
        n = len(feed_results(studio))
        await wait_until(lambda: "NOREAD" in sim.lines, "the no-read")
        await wait_until(lambda: len(feed_results(studio)) > n, "the round after the recount")

    studio = run_one_table(tmp_path, TABLE, scenario)
    sim = studio.simulator("fan-tan-1", "counter")
    counted = [int(line.split()[1]) for line in sim.lines if line.startswith("COUNT")]
    results = feed_results(studio)
    assert len(results) >= 3
    for message in results:
        result = message["result"]
        assert result["beads"] in counted and result["result"] == (result["beads"] - 1) % 4 + 1


def test_without_a_count_the_dealer_enters_the_last_line_with_a_supervisor(tmp_path) -> None:
    device: dict[str, Any] = dict(TABLE["devices"][0])
    device["simulator"] = {"speed": 10, "seed": 3, "options": {"act_as_dealer": False}}
    table = {**TABLE, "devices": [device]}

    async def scenario(studio: Studio) -> None:
        await enter_result_with_a_supervisor(studio, "fan-tan-1", {"result": 3})
        await wait_until(lambda: feed_results(studio), "the entered result on the feed")

    studio = run_one_table(tmp_path, table, scenario)
    (message, *_) = feed_results(studio)
    assert message["result"] == {"result": 3}
    assert {"bet": "fan_3", "payout": "57/20"} in message["outcome"]["winning_bets"]
