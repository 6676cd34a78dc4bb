"""The shoe games of the seed's list in a whole studio: the shoe simulator deals through the real serial shoe
driver, following the judge (these deals vary in length), and rounds are certified on the signed feed with what
`evaluate` gives for their cards. 32 Cards is dealt from a 32-card pack: its own vendor table, six to king."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
from one_table import feed_results, run_one_table, wait_until

import devices.shoe
from recognition.games import GAMES
from studio.service import Studio


def short_pack_table() -> dict[str, Any]:
    """The shipped vendor table with only the cards of a 32-card pack (six to king)."""
    path = Path(devices.shoe.__file__).parent / "default_vendor_table.toml"
    table = tomllib.loads(path.read_text(encoding="utf-8"))
    table["codes"] = {code: card for code, card in table["codes"].items() if card[0] in "6789TJQK"}
    table["require_full_deck"] = False
    return table


def shoe_table(game_id: str) -> dict[str, Any]:
    options: dict[str, Any] = {"follow_judge": True, "deal_interval": 0.2}
    device_options: dict[str, Any] = {}
    if game_id == "thirty_two_cards":
        options["vendor_table"] = device_options["vendor_table"] = short_pack_table()
    return {
        "id": "cards-1",
        "game": game_id,
        "betting_seconds": 0.2,
        "auto_round_seconds": 0.2,
        "devices": [
            {
                "kind": "serial-shoe",
                "role": "shoe",
                "url": "simulator",
                "serial_number": "SHOE-1",
                "options": device_options,
                "simulator": {"speed": 10, "seed": 7, "options": options},
            }
        ],
    }


@pytest.mark.parametrize(
    "game_id", ["red_dog", "top_card_trumps", "thirty_two_cards", "draw_hi_lo", "peek_baccarat"]
)
def test_the_game_certifies_rounds_on_the_simulated_shoe(tmp_path, game_id: str) -> None:
    async def scenario(studio: Studio) -> None:
        await wait_until(lambda: len(feed_results(studio)) >= 3, f"three certified {game_id} rounds")

    studio = run_one_table(tmp_path, shoe_table(game_id), scenario)
    for message in feed_results(studio):
        result = message["result"]
        cards = GAMES[game_id].cards_from_result(result)  # type: ignore[attr-defined]
        assert GAMES[game_id].evaluate({"cards": cards})["result"] == result
