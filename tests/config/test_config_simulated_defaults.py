"""A simulated table is set up from its game's rules without writing what the game already says: the shoe's
decks and its shuffle, the draw's ball set, a simulated roulette camera's calibration."""

from __future__ import annotations

from typing import Any

from studio.config import parse_config


def sim(kind: str, role: str, **options: Any) -> dict[str, Any]:
    return {"kind": kind, "role": role, "url": "simulator", "simulator": {"options": options}}


def table(game: str, *devices: dict[str, Any], **extra: Any) -> Any:
    cfg = parse_config({"tables": [{"id": "t", "game": game, "devices": list(devices), **extra}]})
    return cfg.tables[0]


def test_a_single_deck_game_deals_one_deck_shuffled_every_round():
    shoe = table("caribbean_stud", sim("serial-shoe", "shoe")).all_devices[0]
    assert shoe.simulator.options == {"decks": 1, "reshuffle_each_round": True}
    shoe = table("baccarat", sim("serial-shoe", "shoe")).all_devices[0]
    assert shoe.simulator.options == {"decks": 8}  # an eight-deck shoe runs to its cut card


def test_a_draw_uses_the_games_ball_set_unless_the_file_names_one():
    t = table(
        "lucky_5",
        sim("modbus-ball-machine", "machine", machine_id="t"),
        sim("serial-ball-reader", "reader", machine_id="t"),
        require_opening_check=False,
    )
    machine, reader = t.all_devices
    assert machine.simulator.options["ball_set"] == "1-36" and reader.options["ball_set"] == "1-36"
    t = table(
        "fruitrace",
        sim("modbus-ball-machine", "machine", machine_id="t", ball_set="1-10"),
        sim("serial-ball-reader", "reader", machine_id="t"),
        require_opening_check=False,
    )
    machine, reader = t.all_devices
    assert machine.simulator.options["ball_set"] == "1-10"  # the file's word stands
    labels = [b["label"] for b in reader.options["ball_set"]["balls"]]
    assert sorted(labels) == sorted(["plum"] * 3 + ["cherry"] * 3 + ["lemon"] * 3 + ["7"])


def test_a_simulated_roulette_camera_is_calibrated_from_its_view():
    camera = sim("roulette-camera", "camera", width=640, height=360, balls=2)
    t = table("double_ball_roulette", sim("cammegh-ss2", "wheel"), camera)
    cal = t.all_devices[1].options["calibration"]
    assert cal["center"] == [320.0, 180.0] and cal["preset"] == "european"
