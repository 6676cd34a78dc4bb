"""A Deal or No Deal Live table in a whole studio: the simulated assistant opens the 16 briefcases and the
real scanner driver reads their cards on a pty; each show is certified on the signed feed in the order the
cards were opened; a no-read holds the show until the card is scanned again."""

from __future__ import annotations

from typing import Any

from one_table import enter_result_with_a_supervisor, feed_results, run_one_table, wait_until

from studio.service import Studio

TABLE: dict[str, Any] = {
    "id": "dond-1",
    "game": "deal_or_no_deal",
    "betting_seconds": 0.2,
    "auto_round_seconds": 0.2,
    "devices": [
        {
            "kind": "serial-briefcase-scanner",
            "role": "scanner",
            "url": "simulator",
            "serial_number": "CASES-1",
            "options": {"fold_s": 0.0},
            "simulator": {"speed": 20, "seed": 4, "options": {"open_delay": 0.5, "offer_delay": 1.0}},
        }
    ],
}


def test_a_show_is_certified_in_the_order_the_briefcases_were_opened(tmp_path) -> None:
    async def scenario(studio: Studio) -> None:
        sim = studio.simulator("dond-1", "scanner")
        await wait_until(lambda: len(feed_results(studio)) >= 1, "a certified show")
        sim.inject("unreadable")
        await wait_until(lambda: "NOREAD" in sim.lines, "the no-read")
        await wait_until(lambda: len(feed_results(studio)) >= 2, "the show after the rescan")

    studio = run_one_table(tmp_path, TABLE, scenario)
    sim = studio.simulator("dond-1", "scanner")
    scanned = [int(line[4:]) for line in sim.lines if line.startswith("CASE")]
    results = feed_results(studio)
    assert len(results) >= 2
    for i, message in enumerate(results[:2]):
        assert message["result"]["opened"] == scanned[16 * i : 16 * (i + 1)]
        assert message["outcome"]["player_briefcase"] == scanned[16 * i + 15]


def test_without_a_scanner_the_dealer_enters_the_numbers_with_a_supervisor(tmp_path) -> None:
    device: dict[str, Any] = dict(TABLE["devices"][0])
    device["simulator"] = {"speed": 20, "seed": 4, "options": {"act_as_dealer": False}}
    table = {**TABLE, "devices": [device]}
    opened = [16, 1, 15, 2, 14, 3, 13, 4, 12, 5, 11, 6, 10, 7, 9, 8]

    async def scenario(studio: Studio) -> None:
        await enter_result_with_a_supervisor(studio, "dond-1", {"opened": opened})
        await wait_until(lambda: feed_results(studio), "the entered show on the feed")

    studio = run_one_table(tmp_path, table, scenario)
    (message, *_) = feed_results(studio)
    assert message["result"] == {"opened": opened}
    assert message["outcome"]["player_briefcase"] == 8 and message["outcome"]["other_briefcase"] == 9
