"""A small betting backend for `studio demo`: it plays the demo's decision tables (blackjack) by itself.

It also plays the draw-poker tables (`draw_choice`: exchange or buy with a high card only).

It uses only the public decisions API (docs/decisions.md), through the betting backends' client library
(clients/python, `studio_client.DecisionsClient`), with the demo's decisions token, exactly as a betting
platform would:

* while betting is open it "sits" 1 to 3 random seats (the seats with a main bet this round);
* it answers each decision window it sees (`GET /v1/tables/{id}/decisions`) after a player's thinking
  time, with a basic-strategy-ish choice among the window's `allowed` actions, and now and then lets a
  window run out (`skip_share`) so that the table applies the rules' default (`stand`) and the console
  and the feed show a `"by": "default"` decision.

It is an asyncio task started by `studio demo` only (on the studio's own event loop; `--no-demo-backend`
leaves it out). It never touches the studio's objects: a backend that (re)starts mid-round just reads the
open windows again. Refusals (a window that closed while the player was thinking, ...) are counted and
logged, never fatal; while the studio is unreachable it retries every second.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger(__name__)

SEVEN_SEATS = tuple(f"seat_{n}" for n in range(1, 8))
_VALUES = {"A": 11, "T": 10, "J": 10, "Q": 10, "K": 10, **{str(n): n for n in range(2, 10)}}


def card_value(card: Any) -> int:
    """Blackjack value of a card code ("AS" 11, "TD" 10, "7H" 7); 0 for anything else."""
    return _VALUES.get(str(card or "")[:1].upper(), 0)


def _first(allowed: tuple[str, ...] | list[str], *wanted: str) -> str | None:
    return next((a for a in wanted if a in allowed), None)


def choose(allowed: list[str] | tuple[str, ...], detail: dict[str, Any], rng: random.Random) -> str:
    """A basic-strategy-ish answer to a blackjack window (insurance, a hand's play, Infinite's common card).

    Close to the usual chart for a multi-deck, dealer-stands-on-soft-17 game: pairs of aces and eights split,
    11 and 10 double, hard 12-16 stand against a weak up card, surrender 16 against 9, 10 and ace; never
    insurance, even money a third of the time. Always one of `allowed` (else the window's first action).
    """
    allowed = list(allowed)
    if not allowed:
        return "stand"
    kind = detail.get("kind")
    if kind == "insurance":
        pick = "even_money" if "even_money" in allowed and rng.random() < 1 / 3 else "no_insurance"
        return pick if pick in allowed else allowed[0]
    cards = [str(c) for c in detail.get("cards") or []]
    total = detail.get("total")
    if not isinstance(total, int):
        total = sum(card_value(c) for c in cards)
    soft = bool(detail.get("soft"))
    up = card_value(detail.get("dealer_up") or (detail.get("dealer") or [None])[0]) or 10
    if (
        kind == "common_card"
    ):  # Infinite: the backend's aggregate; our one "player" plays the chart's hard totals
        want = total < 17 and not (13 <= total <= 16 and up <= 6) and not (total == 12 and 4 <= up <= 6)
        return _first(allowed, "hit" if want else "stand") or allowed[0]
    two = len(cards) == 2
    split = _first(allowed, "free_split", "split")
    if two and split and card_value(cards[0]) == card_value(cards[1]):
        v = card_value(cards[0])
        if (
            v in (11, 8)
            or (v in (2, 3, 7) and up <= 7)
            or (v == 6 and up <= 6)
            or (v == 9 and up not in (7, 10, 11))
            or (v == 4 and up in (5, 6))
        ):
            return split
    surrender = _first(allowed, "surrender")
    if two and surrender and not soft and (total == 16 and up >= 9 or total == 15 and up == 10):
        return surrender
    double = _first(allowed, "free_double", "double")
    if two and double:
        if not soft and (total == 11 or (total == 10 and up <= 9) or (total == 9 and 3 <= up <= 6)):
            return double
        if soft and 13 <= total <= 18 and up in (5, 6):
            return double
    if soft:
        hit = total <= 17 or (total == 18 and up >= 9)
    else:
        hit = total <= 11 or (total == 12 and up not in (4, 5, 6)) or (13 <= total <= 16 and up >= 7)
    return _first(allowed, "hit" if hit else "stand") or _first(allowed, "stand") or allowed[0]


_RANKS = "23456789TJQKA"


def draw_choice(allowed: list[str] | tuple[str, ...], detail: dict[str, Any]) -> tuple[str, list[str]]:
    """A draw-poker answer (`detail` has the player's cards): with nothing better than a high card, exchange
    the lowest card (or buy a sixth); else keep. (action, the cards given back)."""
    cards = [str(c) for c in detail.get("player_cards") or []]
    weak = detail.get("player_hand") in (None, "high_card")
    if weak and "discard" in allowed and cards:
        return "discard", [min(cards, key=lambda c: _RANKS.find(c[:1]))]
    if weak and "buy" in allowed:
        return "buy", []
    return ("keep" if "keep" in allowed else (list(allowed) or ["keep"])[0]), []


@dataclass
class BackendStats:
    sits: int = 0
    decisions: int = 0
    left_to_default: int = 0
    refused: dict[str, int] = field(default_factory=dict)
    errors: int = 0


class DemoBackend:
    """Plays `tables` through the decisions API of the studio at `base_url` with a decisions token."""

    def __init__(
        self,
        base_url: str,
        token: str,
        tables: list[str],
        *,
        speed: float = 1.0,
        seed: int | None = None,
        skip_share: float = 0.1,
        max_seats: int = 3,
        seats: Callable[[str], tuple[str, ...]] | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.tables = list(tables)
        self.speed = max(float(speed), 1e-3)
        self.rng = random.Random(seed)
        self.skip_share = skip_share
        self.max_seats = max_seats
        self._seats = seats or _game_seats
        self.stats = BackendStats()
        #: poll the open windows this often (a real backend follows the feed; the windows query is simpler); not
        #: faster at a high speed: the backend shares the studio's loop, and a studio of many decision tables
        #: would spend it answering polls (a decision window is at least 2 s)
        self.poll = 0.2 if self.speed > 2 else 0.25

    async def run(self, ready: Callable[[], bool] | None = None) -> None:
        """Play until cancelled; `ready()` (the server has started) is awaited first."""
        from studio_client import DecisionsClient  # the demo's only: the studio itself does not need it

        while ready is not None and not ready():
            await asyncio.sleep(0.05)
        async with DecisionsClient(self.base_url, self.token, timeout=10) as client:
            await asyncio.gather(*(self._play(client, t) for t in self.tables))

    async def _play(self, client: Any, table_id: str) -> None:
        import httpx
        from studio_client import DecisionError

        sat: set[str] = set()  # rounds we sat at
        seen: set[tuple[str, str]] = set()  # (round, window) already answered, or left to run out
        answering: set[asyncio.Task] = set()
        last_round: str | None = None
        while True:
            try:
                view = await client.windows(table_id)
            except DecisionError:
                await asyncio.sleep(1.0)
                continue
            except httpx.HTTPError:
                self.stats.errors += 1
                await asyncio.sleep(1.0)
                continue
            rid = view.get("round_id")
            if rid != last_round:
                last_round = rid
                seen = {k for k in seen if k[0] == rid}
                sat = {s for s in sat if s == rid}
            if rid and view.get("state") == "betting_open" and rid not in sat:
                sat.add(rid)
                seats = self._seats(str(view.get("game")))
                if seats:
                    picked = sorted(
                        self.rng.sample(seats, self.rng.randint(1, min(self.max_seats, len(seats))))
                    )
                    task = asyncio.ensure_future(self._sit(client, table_id, rid, picked))
                    answering.add(task)
                    task.add_done_callback(answering.discard)
            seconds = float(view.get("decision_seconds") or 15)
            for w in view.get("windows") or []:
                key = (rid, w.get("window"))
                if rid is None or key in seen:
                    continue
                seen.add(key)
                if self.rng.random() < self.skip_share:
                    self.stats.left_to_default += 1
                    continue
                think = self.rng.uniform(0.1, 0.5) * seconds
                task = asyncio.ensure_future(self._answer(client, table_id, rid, w, think))
                answering.add(task)
                task.add_done_callback(answering.discard)
            await asyncio.sleep(self.poll)

    async def _sit(self, client: Any, table_id: str, round_id: str, seats: list[str]) -> None:
        # the players sit side by side: one after the other, each waiting for the studio's answer (a durable
        # record), a busy studio's answers would outlast the betting time
        await asyncio.gather(*(self._sit_one(client, table_id, round_id, seat) for seat in seats))

    async def _sit_one(self, client: Any, table_id: str, round_id: str, seat: str) -> None:
        await asyncio.sleep(self.rng.uniform(0.0, 0.3) / self.speed)
        if await self._post(client, table_id, {"round_id": round_id, "seat": seat, "action": "sit"}):
            self.stats.sits += 1

    async def _answer(
        self, client: Any, table_id: str, round_id: str, w: dict[str, Any], think: float
    ) -> None:
        await asyncio.sleep(think)
        allowed, detail = w.get("allowed") or [], w.get("detail") or {}
        cards: list[str] = []
        if "player_cards" in detail:  # draw poker
            action, cards = draw_choice(allowed, detail)
        else:
            action = choose(allowed, detail, self.rng)
        body: dict[str, Any] = {
            "round_id": round_id,
            "seat": w.get("seat"),
            "hand": w.get("hand") or 1,
            "action": action,
            "window": w.get("window"),
        }
        if cards:
            body["cards"] = cards
        if await self._post(client, table_id, body):
            self.stats.decisions += 1

    async def _post(self, client: Any, table_id: str, body: dict[str, Any]) -> bool:
        import httpx
        from studio_client import DecisionError

        try:
            await client.decide(table_id, **body)
        except httpx.HTTPError as exc:
            self.stats.errors += 1
            log.debug("demo backend: %s: %s", table_id, exc)
            return False
        except DecisionError as exc:
            self.stats.refused[exc.code] = self.stats.refused.get(exc.code, 0) + 1
            log.debug("demo backend: %s refused %s: %s", table_id, body, exc)
            return False
        return True


def _game_seats(game_id: str) -> tuple[str, ...]:
    """The seats of a game (what the platform's table configuration would list); () for a common hand."""
    from recognition.games import GAMES

    try:
        game = GAMES[game_id]
    except KeyError:  # a game the studio does not know: the platform's usual seven seats
        return SEVEN_SEATS
    return () if game.common_hand else tuple(game.seats)


__all__ = ["DemoBackend", "card_value", "choose", "draw_choice"]
