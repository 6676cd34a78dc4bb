"""The dice games inside a real studio table (real journal, real signing, no event loop): Lightning Dice's
draw is committed, revealed and paid; Craps' point is carried round to round through the table.

The vision half's DiceJudge is replaced by a scripted stand-in that hands over one throw when betting
closes, so that these tests exercise only the games and the table."""

from __future__ import annotations

import importlib
import json
import sys
import types

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from recognition.dice_games import GAMES
from recognition.dice_games._common import as_fraction
from recognition.game import BaseJudge, ResultReady, RoundSignal
from studio.journal import Journal, verify_journal
from studio.table import Table


@pytest.fixture
def throws(monkeypatch):
    """The dice the stand-in judge will hand over, one per round, when betting closes."""
    queue: list[dict] = []

    class DiceJudge(BaseJudge):
        def __init__(self, game, dice, colors, **settings):
            self.game = game

        def feed(self, event):
            if isinstance(event, RoundSignal) and event.signal == "betting_closed" and queue:
                return [ResultReady(result=queue.pop(0), source={"camera": "scripted"})]
            return []

    module = types.ModuleType("recognition.dice.judge")
    module.DiceJudge = DiceJudge
    try:  # the vision package itself, if it is there; only its judge module is replaced
        importlib.import_module("recognition.dice")
    except ImportError:
        monkeypatch.setitem(sys.modules, "recognition.dice", types.ModuleType("recognition.dice"))
    monkeypatch.setitem(sys.modules, "recognition.dice.judge", module)
    return queue


@pytest.fixture
def journal(tmp_path):
    j = Journal(tmp_path / "data", Ed25519PrivateKey.generate())
    yield j
    j.close()


def feed_messages(journal: Journal) -> list[dict]:
    journal.flush()
    return [json.loads(text) for _, text in journal.read_after(0, 10_000)]


def play(table: Table, rounds: int) -> None:
    for _ in range(rounds):
        table.open_round_by("dealer-1")
        table.close_betting_by("dealer-1")


def test_lightning_dice_commits_its_draw_and_pays_from_it(throws, journal, tmp_path):
    throws.extend({"dice": d} for d in ([1, 1, 1], [3, 4, 4], [6, 6, 5], [2, 2, 6], [5, 5, 1], [4, 4, 4]))
    table = Table("dice-1", GAMES["lightning_dice"], journal, betting_seconds=0)
    play(table, 6)
    messages = feed_messages(journal)
    assert [m["kind"] for m in messages] == ["commitment", "betting_opened", "betting_closed", "result"] * 6
    game = GAMES["lightning_dice"]
    for m in (m for m in messages if m["kind"] == "result"):
        extras = m["reveal"]["extras"]
        assert game.validate_extras(extras) == extras
        assert m["outcome"] == game.outcome(m["result"], extras)
        (win,) = m["outcome"]["winning_bets"]
        struck = {s["total"]: s["multiplier"] for s in extras["lightning"]}
        total = m["outcome"]["total"]
        assert as_fraction(win["payout"]) + 1 == struck.get(total, game.base_multiplier[total])
    journal.flush()
    report = verify_journal(tmp_path / "data")
    assert report.ok, report.error


def test_craps_carries_the_point_through_the_table(throws, journal):
    hand = ([2, 2], [1, 5], [3, 1], [5, 5], [6, 1], [3, 4])
    throws.extend({"dice": d} for d in hand)
    table = Table("craps-1", GAMES["craps"], journal, betting_seconds=0)
    play(table, len(hand))
    results = [m for m in feed_messages(journal) if m["kind"] == "result"]
    assert [(m["result"]["point"], m["outcome"]["new_point"]) for m in results] == [
        (None, 4),
        (4, 4),
        (4, None),
        (None, 10),
        (10, None),
        (None, None),
    ]
    wins = [{b["bet"] for b in m["outcome"]["winning_bets"]} for m in results]
    assert "pass_line" in wins[2] and "dont_pass" in wins[4] and "pass_line" in wins[5]
    assert table.judge.point is None


def test_a_refused_craps_throw_leaves_the_point(throws, journal):
    throws.extend([{"dice": [2, 2]}, {"dice": [2, 7]}, {"dice": [4, 4]}])
    table = Table("craps-2", GAMES["craps"], journal, betting_seconds=0)
    play(table, 2)  # the second throw is unreadable (a 7 on a die): the table holds it
    assert table.round.held and table.judge.point == 4
    table.void_by("dice_unreadable", "a die could not be read", by="dealer-1", approved_by="pit-boss")
    play(table, 1)
    results = [m for m in feed_messages(journal) if m["kind"] == "result"]
    assert [(m["result"]["point"], m["outcome"]["new_point"]) for m in results] == [(None, 4), (4, 4)]
