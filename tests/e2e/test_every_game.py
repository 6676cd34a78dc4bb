"""Every game of the registry, end to end on its simulated devices: one test per game, generated from the
registry (a new game is covered without editing anything here).

Each family's games run as the tables of one real `studio demo --games ...` process (started once for this
module, the families side by side, fast simulators): device simulators -> real drivers -> the game's judge ->
journal -> signed feed, the decision games played by the demo backend. A betting backend's client
(clients/python, `studio_client.FeedClient`) reads the feed, checking every message's signature and its link
to the one before. Each game's test waits for its table's first certified result and re-checks it with
`studio evaluate` on what was journaled (the cards and decisions the shoe read, the dice, balls, pocket or
segment of the result, the round's revealed draw): the same result and the same outcome.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from waiting import WAIT_S, until

from studio.game_catalog import catalog

from .helpers import DemoProcess

TOKEN = "e2e-every-game-token-0123456789"
#: fast simulators (the judges scale their timing checks by the same factor); a busy machine still keeps up
SPEED = 25
FAMILIES: dict[str, list[str]] = defaultdict(list)
for _entry in catalog():
    if _entry.simulated:
        FAMILIES[_entry.family].append(_entry.game_id)
GAMES = sorted(g for games in FAMILIES.values() for g in games)
FAMILY_OF = {g: f for f, games in FAMILIES.items() for g in games}


def table_id(game_id: str) -> str:
    return f"{game_id.replace('_', '-')}-1"


class VerifiedFeed:
    """The studio's feed as a betting backend reads it: every message verified and chained by studio_client."""

    def __init__(self, base_url: str) -> None:
        from studio_client import FeedClient

        self.client = FeedClient(base_url, TOKEN)
        self.messages: list[dict[str, Any]] = []
        self.error: BaseException | None = None
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name="every-game-feed", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._loop.run_until_complete(self.client.run(lambda m: self.messages.append(m.model_dump())))
        except BaseException as exc:  # noqa: BLE001 - reported by the test that looks
            self.error = exc

    def first_result(self, table: str) -> dict[str, Any] | None:
        if self.error is not None:
            raise AssertionError(f"the feed client stopped: {self.error!r}")
        return next((m for m in self.messages if m["kind"] == "result" and m["table_id"] == table), None)

    def stop(self) -> None:
        self._loop.call_soon_threadsafe(self.client.stop)
        self._thread.join(15)


@pytest.fixture(scope="module")
def studios(request, tmp_path_factory):
    """One demo studio per family of the games this run selected, all started at once."""
    selected = {
        item.callspec.params["game_id"]
        for item in request.session.items
        if item.module is request.module and hasattr(item, "callspec") and "game_id" in item.callspec.params
    }
    started: dict[str, tuple[DemoProcess, VerifiedFeed]] = {}

    def start(n: int, family: str, games: list[str], data: Any) -> None:
        demo = DemoProcess(data, TOKEN, speed=SPEED, seed=11 + n, games=",".join(games))
        started[family] = (demo, VerifiedFeed(demo.url("")))

    todo = [
        (n, f, chosen, tmp_path_factory.mktemp(f.replace(" ", "_")) / "data")  # mktemp is not thread-safe
        for n, (f, games) in enumerate(sorted(FAMILIES.items()))
        if (chosen := [g for g in games if g in selected])
    ]
    try:
        with ThreadPoolExecutor(max(1, len(todo))) as pool:  # the studios start side by side
            for done in [pool.submit(start, *args) for args in todo]:
                done.result()
        yield {g: started[FAMILY_OF[g]] for g in selected if FAMILY_OF[g] in started}
    finally:
        for _, feed in started.values():
            feed.stop()
        with ThreadPoolExecutor(max(1, len(started))) as pool:
            list(pool.map(lambda s: s[0].stop(), started.values()))


def evaluate_item(message: dict[str, Any]) -> dict[str, Any]:
    """What an auditor gives `studio evaluate` for a certified round: the result (dice, balls, pocket,
    segment), the cards and decisions as the shoe read them (not the result's copy) and the revealed draw."""
    source = message["source"]
    item: dict[str, Any] = {"id": message["round_id"]}
    if "cards" in source:  # a card game: re-dealt from the cards read, with the players' decisions
        item.update({k: source[k] for k in ("cards", "decisions") if k in source})
    else:
        item.update(message["result"])
    if message.get("reveal"):
        item["extras"] = message["reveal"]["extras"]
    return item


@pytest.mark.parametrize("game_id", GAMES)
def test_game_certifies_on_its_simulated_devices(game_id, studios, tmp_path, capsys):
    demo, feed = studios[game_id]
    table = table_id(game_id)
    result = until(
        lambda: feed.first_result(table) or (demo.proc.poll() is not None and "exited"),
        what=f"a certified {game_id} result on {table}",
        timeout=2 * WAIT_S,
        poll=0.1,
    )
    assert result != "exited", demo.log.read_text()[-3000:]
    assert result["game"] == game_id and result["result"] is not None
    # the whole feed up to the result came signed and chained (studio_client checks both, or stops)
    assert [m["seq"] for m in feed.messages[: result["seq"]]] == list(range(1, result["seq"] + 1))
    assert result["source"]["device_id"].startswith(f"{table}/")

    # `studio evaluate` re-computes the same result and outcome from what was journaled
    from app.cli import main

    rounds = tmp_path / "rounds.jsonl"
    rounds.write_text(json.dumps(evaluate_item(result)) + "\n")
    capsys.readouterr()
    assert main(["evaluate", "--game", game_id, "--in", str(rounds)]) == 0
    evaluated = json.loads(capsys.readouterr().out)
    assert evaluated["valid"] is True, (evaluated, evaluate_item(result))
    assert evaluated["id"] == result["round_id"]
    assert evaluated["outcome"] == result["outcome"]
    assert evaluated["result"] == result["result"]


def test_every_registered_game_has_a_simulated_table():
    """The registry's games all run here: none is left out for want of a simulator or a table recipe."""
    from recognition.games import GAMES as REGISTRY

    assert sorted(REGISTRY) == GAMES


def test_studio_games_lists_every_game_with_its_equipment(capsys):
    from app.cli import main
    from recognition.games import GAMES as REGISTRY

    assert main(["games", "--json"]) == 0
    listed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [g["game_id"] for g in listed] == sorted(REGISTRY)
    by_id = {g["game_id"]: g for g in listed}
    assert by_id["double_ball_roulette"]["table_kinds"] == ["cammegh-ss2", "roulette-camera"]
    assert by_id["lucky_5"]["table_kinds"] == ["modbus-ball-machine", "serial-ball-reader"]
    assert by_id["blackjack"]["has_decisions"] is True and by_id["blackjack"]["family"] == "cards"
    assert all(
        set(g["table_kinds"]) <= set(REGISTRY[g["game_id"]].device_kinds) | {"cammegh-ss2"} for g in listed
    )


def test_studio_demo_refuses_games_it_cannot_run(tmp_path, capsys):
    from app.cli import main

    assert main(["demo", "--data", str(tmp_path), "--games", "baccarat,no_such_game"]) == 2
    assert "unknown game(s) no_such_game" in capsys.readouterr().err
    assert main(["demo", "--data", str(tmp_path), "--games", " , "]) == 2
    assert "--games needs 'all' or game ids" in capsys.readouterr().err
