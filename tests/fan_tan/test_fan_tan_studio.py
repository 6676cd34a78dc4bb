"""A Fan Tan table in a whole studio: the bead counter's simulator on a pty, read by the real driver, plays the
dealer; rounds are certified on the signed feed with the count the simulator reported; a no-read holds the
round until the simulated dealer counts again."""

from __future__ import annotations

from one_table import feed_results, run_one_table, wait_until

from studio.service import Studio

TABLE = {
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
