"""docs/operations.md's examples are what the studio sends: the health example validates against the model and
its status follows the rules; the metric names it lists are the ones a studio serves."""

from __future__ import annotations

import json
import re
from pathlib import Path

from streaming.feed import FeedHub
from studio.health import Health, overall
from studio.metrics import StudioMetrics

DOC = Path(__file__).resolve().parents[2] / "docs" / "operations.md"


def blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", DOC.read_text(), flags=re.DOTALL)


def test_the_health_example_is_a_health_answer():
    (example,) = blocks("json")[:1]
    h = Health.model_validate(json.loads(example))
    assert overall(h.journal, h.tables) == (h.status, h.problems)


def test_the_json_log_lines_parse():
    lines = [line for line in blocks("json")[1].splitlines() if line.strip()]
    assert lines and all({"time", "level", "logger", "message"} <= set(json.loads(line)) for line in lines)


class EmptyStore:
    def last_seq(self) -> int:
        return 0

    def read_after(self, seq: int, limit: int) -> list[tuple[int, str]]:
        return []


def test_the_metrics_table_names_what_is_served():
    documented = set(re.findall(r"^\| `(studio_[a-z_]+)`", DOC.read_text(), flags=re.MULTILINE))
    metrics = StudioMetrics()
    metrics.watch({}, FeedHub(EmptyStore()))
    names = set()
    for family in metrics.registry.collect():
        names.add(family.name + ("_total" if family.type == "counter" else ""))
    assert documented == names
