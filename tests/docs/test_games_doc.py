"""docs/games.md lists every registered game id exactly once in its table of games with an id, and no id the
registry does not know; every game added for the seed's list is described."""

from __future__ import annotations

import re
from pathlib import Path

from recognition.games import GAMES

DOC = Path(__file__).resolve().parents[2] / "docs" / "games.md"


def table_ids() -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## Games with an id", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\| `([a-z0-9_]+)` \|", section, re.MULTILINE)


def test_the_table_lists_every_registered_game_and_nothing_else() -> None:
    ids = table_ids()
    assert len(ids) == len(set(ids)), [i for i in ids if ids.count(i) > 1]
    assert set(ids) - set(GAMES) == set(), "listed but not registered"
    assert set(GAMES) - set(ids) == set(), "registered but not listed"


def test_each_row_names_the_games_own_device_kinds() -> None:
    text = DOC.read_text(encoding="utf-8")
    for game_id, rules in GAMES.items():
        (row,) = [line for line in text.splitlines() if line.startswith(f"| `{game_id}` |")]
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert re.findall(r"`([a-z0-9-]+)`", cells[3]) == list(rules.device_kinds), game_id


def test_the_configuration_example_is_a_valid_studio_file(tmp_path: Path) -> None:
    import tomllib

    from studio.config import parse_config

    (block,) = re.findall(r"```toml\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)
    data = tomllib.loads(re.sub(r'url = "/dev/tty\w+"', 'url = "simulator"', block))
    config = parse_config({"studio": {"data_dir": str(tmp_path)}, **data})
    assert {t.game for t in config.tables} == {"fan_tan", "deal_or_no_deal"}
