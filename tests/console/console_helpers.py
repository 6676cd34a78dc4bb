"""Helpers of the console tests: a whole studio in this process (simulated SS2 wheels on real ptys) served
by real uvicorn on 127.0.0.1, a dealer-paced test table, users per role, screen checks. The fixtures that use
them are in conftest.py; tests import these by this module's unique name (tests/ has other conftests)."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import threading
import time
from collections.abc import Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from fastapi import FastAPI
from journal_records import records
from waiting import WAIT_S, until

from app.api import create_app
from dealer_ui import UserStore, console_router
from devices.events import CardDrawn
from recognition.game import BaseGame, BaseJudge, ResultReady, RoundSignal
from studio.config import parse_config
from studio.service import Studio
from studio.table import DeviceSlot, Table

#: where the screenshots go: <STUDIO_TEST_ARTIFACTS>/console/ (scripts/test.sh sets test-artifacts/); none
#: without it, so that a test run writes nothing into the repo tree by itself
ARTIFACTS = (
    Path(os.environ["STUDIO_TEST_ARTIFACTS"]) / "console" if os.environ.get("STUDIO_TEST_ARTIFACTS") else None
)
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

PINS = {
    "dealer": ("dana", "246810"),
    "dealer2": ("dave", "135790"),
    "supervisor": ("sam", "975312"),
    "supervisor2": ("sue", "864213"),
    "technician": ("tom", "tech-pass-1"),
    "admin": ("ada", "admin-pass-1"),
}

#: manual start, no winning-number delay in state 1: the wheel waits in state 5 (or 1) for *K
MANUAL_START_MODE = 1 + 2 + 4 + 128


# --- a dealer-paced test game (cards), so the generic dealer-paced flow is exercised today ----------------


class _CardJudge(BaseJudge):
    """Four cards after betting closed make a result: player gets cards 1 and 3, banker 2 and 4."""

    def __init__(self) -> None:
        self.cards: list[str] = []
        self.closed = False

    def feed(self, item: Any) -> list[Any]:
        if isinstance(item, RoundSignal):
            if item.signal == "round_opened":
                self.cards, self.closed = [], False
            elif item.signal == "betting_closed":
                self.closed = True
            return []
        if isinstance(item, CardDrawn) and self.closed and item.card:
            self.cards.append(item.card)
            if len(self.cards) == 4:
                c = self.cards
                return [
                    ResultReady(
                        result={"player": [c[0], c[2]], "banker": [c[1], c[3]]},
                        source={"device_id": item.device_id},
                    )
                ]
        return []


class DealerPacedCards(BaseGame):
    game_id = "test_two_hands"
    device_kinds = ("serial-shoe",)
    pacing = "dealer"

    def new_judge(self, **settings: Any) -> _CardJudge:
        return _CardJudge()

    def validate_result(self, result: dict[str, Any]) -> dict[str, Any]:
        """{'player': [2 cards], 'banker': [2 cards]}, or {'cards': [4 cards]} in deal order (as card games do)."""
        if set(result) == {"cards"} and isinstance(result["cards"], list) and len(result["cards"]) == 4:
            c = result["cards"]
            return {"player": [c[0], c[2]], "banker": [c[1], c[3]]}
        if set(result) != {"player", "banker"}:
            raise ValueError(
                "a result is {'player': [two cards], 'banker': [two cards]} or {'cards': [four cards]}"
            )
        return {"player": list(result["player"]), "banker": list(result["banker"])}

    def outcome(self, result: dict[str, Any], extras: dict[str, Any] | None = None) -> dict[str, Any]:
        return {"hands": 2}


class _CardCheck:
    """An opening check for the test game: it passes once two cards have been read."""

    def __init__(self) -> None:
        self.cards: list[str] = []

    def feed(self, event: Any) -> bool:
        if isinstance(event, CardDrawn) and event.card:
            self.cards.append(event.card)
            return True
        return False

    def report(self) -> Any:
        ok = len(self.cards) >= 2
        data = {
            "ok": ok,
            "message": f"{len(self.cards)} of 2 test cards read" + ("" if ok else ": not enough"),
        }
        return type("Report", (), {"as_dict": lambda self: dict(data)})()


class CheckedCards(DealerPacedCards):
    """The test game with an opening check, like the ball games' ball-set check."""

    game_id = "test_two_hands_checked"

    def opening_check(self, devices: dict[str, Any]) -> _CardCheck:
        return _CardCheck()


# --- the studio -------------------------------------------------------------------------------------------


def wheel_table(
    table_id: str,
    *,
    speed: float = 20,
    seed: int = 1,
    mode: int | None = MANUAL_START_MODE,
    settings: dict | None = None,
) -> dict[str, Any]:
    sim: dict[str, Any] = {"speed": speed, "seed": seed}
    if mode is not None:
        sim["options"] = {"mode": mode}
    return {
        "id": table_id,
        "game": "european_roulette",
        "settings": settings or {},
        "device": {
            "kind": "cammegh-ss2",
            "role": "wheel",
            "url": "simulator",
            "serial_number": f"SIM-{table_id}",
            "options": {"keep_powered": True},
            "simulator": sim,
        },
    }


def make_studio(data: Path, tables: list[dict[str, Any]]) -> Studio:
    cfg = parse_config(
        {
            "studio": {"data_dir": str(data)},
            "consumers": [{"name": "t", "token": "console-test-token"}],
            "tables": tables,
        }
    )
    return Studio(cfg)


def add_users(data: Path) -> dict[str, tuple[str, str]]:
    store = UserStore(data)
    for key, (name, pin) in PINS.items():
        store.add(name, key.rstrip("2"), pin)
    return PINS


class Server:
    """Real uvicorn on an ephemeral 127.0.0.1 port, on a thread of its own."""

    def __init__(self, app: FastAPI) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.server = uvicorn.Server(
            uvicorn.Config(
                app,
                log_level="warning",
                lifespan="on",
                ws_ping_interval=None,
                ws_per_message_deflate=False,
                timeout_graceful_shutdown=2,
            )
        )
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, name="console-uvicorn", daemon=True
        )
        self.thread.start()
        deadline = time.monotonic() + WAIT_S
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the studio did not start")
            time.sleep(0.02)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(WAIT_S)
        self.sock.close()
        assert not self.thread.is_alive(), "uvicorn did not stop"


class Running:
    """A running studio and what tests need to drive it."""

    def __init__(self, studio: Studio, server: Server, router: Any = None) -> None:
        self.studio = studio
        self.server = server
        self.router = router
        self.url = server.url

    def on_loop(self, fn: Callable[[], Any], timeout: float = 10) -> Any:
        """Run fn on the studio's event loop (tables are not thread-safe) and return its value."""

        async def run() -> Any:
            return fn()

        return asyncio.run_coroutine_threadsafe(run(), self.studio.loop).result(timeout)

    def table(self, table_id: str) -> Table:
        return self.studio.tables[table_id]

    def feed(self) -> list[dict[str, Any]]:
        self.studio.journal.flush()
        return [json.loads(t) for _, t in self.studio.journal.read_after(0, 100_000)]

    def records(self, kind: str) -> list[dict[str, Any]]:
        """Journal records of one kind (tests/journal_records.py)."""
        return records(self.studio, kind)

    def wait(self, cond: Callable[[], Any], timeout: float = WAIT_S, what: str = "condition") -> Any:
        return until(cond, what, timeout, poll=0.05)

    def round_state(self, table_id: str) -> str | None:
        r = self.table(table_id).round
        return r.state.value if r is not None else None

    def wheel_state(self, table_id: str) -> int | None:
        slot = next(iter(self.table(table_id).devices.values()))
        return (slot.driver.health().get("device") or {}).get("state") if slot.driver else None


def start_real(data: Path, tables: list[dict[str, Any]]) -> Running:
    """The studio's own app (app.api.create_app), console included."""
    studio = make_studio(data, tables)
    server = Server(create_app(studio))
    return Running(studio, server)


def start_custom(
    data: Path,
    tables: list[dict[str, Any]],
    *,
    extra: Callable[[Studio], list[Table]] | None = None,
    routers: Callable[[Studio, Any], list[Any]] | None = None,
    **console_options: Any,
) -> Running:
    """The console router on a studio, with test settings (short sessions, quick slow-down), extra tables and
    extra routers (`routers(studio, console_router)`, as app/api.py adds the dice router)."""
    studio = make_studio(data, tables)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        studio.start(asyncio.get_running_loop())
        for t in extra(studio) if extra else []:
            studio.tables[t.table_id] = t
            t.start()
        try:
            yield
        finally:
            await asyncio.to_thread(studio.stop)

    app = FastAPI(lifespan=lifespan)
    router = console_router(studio, **console_options)
    app.include_router(router)
    for extra_router in routers(studio, router) if routers else []:
        app.include_router(extra_router)
    server = Server(app)
    return Running(studio, server, router)


def cards_table(
    studio: Studio, table_id: str = "cards-1", betting_seconds: float = 30, game: BaseGame | None = None
) -> Table:
    slot = DeviceSlot(f"{table_id}/shoe", "serial-shoe", "shoe", "SIM-SHOE")
    return Table(
        table_id, game or DealerPacedCards(), studio.journal, devices=[slot], betting_seconds=betting_seconds
    )


# --- HTTP clients --------------------------------------------------------------------------------------


class Person:
    """An httpx client signed in as one user, sending the CSRF token as the page does."""

    def __init__(self, base: str, username: str, secret: str) -> None:
        self.client = httpx.Client(base_url=base, timeout=20)
        r = self.client.post("/console/api/login", json={"username": username, "secret": secret})
        assert r.status_code == 200, r.text
        self.me = r.json()
        self.username = username

    def get(self, path: str) -> httpx.Response:
        return self.client.get(path)

    def post(self, path: str, body: dict | None = None, csrf: bool = True) -> httpx.Response:
        headers = {"X-CSRF-Token": self.me["csrf"]} if csrf else {}
        return self.client.post(path, json=body or {}, headers=headers)

    def close(self) -> None:
        self.client.close()


# --- the touch screen ------------------------------------------------------------------------------------------

A11Y = """() => {
  const problems = [];
  const visible = (e) => { const r = e.getBoundingClientRect(); const s = getComputedStyle(e);
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none'; };
  for (const e of document.querySelectorAll('button, a, input, select, textarea, [role=button]')) {
    if (!visible(e)) continue;
    const r = e.getBoundingClientRect();
    if (r.width < 48 || r.height < 48) {
      problems.push(`small target ${e.tagName} '${(e.textContent || e.id).trim()}' ${r.width}x${r.height}`);
    }
  }
  const rgb = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
  const channel = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
  const lum = ([r, g, b]) => 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
  const background = (e) => {
    for (let n = e; n; n = n.parentElement) {
      const c = rgb(getComputedStyle(n).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] > 0.5)) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  for (const e of document.querySelectorAll('body *')) {
    if (!visible(e) || e.closest('[disabled]')) continue;
    const text = [...e.childNodes].filter((n) => n.nodeType === 3 && n.textContent.trim()).length;
    if (!text) continue;
    const s = getComputedStyle(e);
    const l1 = lum(rgb(s.color).slice(0, 3)), l2 = lum(background(e));
    const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
    const size = parseFloat(s.fontSize), bold = parseInt(s.fontWeight) >= 700;
    const need = size >= 24 || (size >= 18.66 && bold) ? 3 : 4.5;
    if (ratio < need) {
      problems.push(`contrast ${ratio.toFixed(2)} < ${need} for '${e.textContent.trim().slice(0, 30)}'`);
    }
  }
  for (const sheet of document.styleSheets) {
    for (const rule of sheet.cssRules) {
      if (rule.selectorText && rule.selectorText.includes(':hover')) problems.push(`hover rule ${rule.selectorText}`);
    }
  }
  return problems;
}"""


def check_screen(page: Any, name: str, size: tuple[int, int]) -> None:
    """Save a screenshot as a test artifact (see ARTIFACTS), then check touch targets, contrast and hover-only
    rules."""
    if ARTIFACTS is not None:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"{name}-{size[0]}x{size[1]}.png"))
    assert page.evaluate(A11Y) == [], name


OUR_THREADS = ("console-uvicorn", "journal-writer", "ss2-simulator", "cammegh-ss2:")


def assert_no_studio_threads(timeout: float = 5) -> None:
    """Everything a studio started (uvicorn, journal writer, simulators, drivers) has ended."""
    deadline = time.monotonic() + timeout
    while True:
        left = [t.name for t in threading.enumerate() if t.is_alive() and t.name.startswith(OUR_THREADS)]
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert not left, f"threads left running: {left}"


def signed_in_page(
    browser: Any,
    url: str,
    size: tuple[int, int],
    key: str,
    path: str,
    timeout_ms: int,
    ready: str | None = "#phase, #maintenance-state",
    clock: bool = False,
) -> tuple[Any, Any, list[str]]:
    """A browser context at `size`, signed in as PINS[key] on the console's page `path`: (context, page, the
    page's errors). `ready`: what the page shows once drawn (the default: a table's round panel or a device's
    maintenance panel), waited for; None: waits for the URL only. `clock`: the pages' clock is Playwright's
    (it runs on its own, and the test may move it on with `page.clock.run_for`), installed before the
    page's scripts start their timers. The caller closes the context."""
    from playwright.sync_api import expect

    ctx = browser.new_context(viewport={"width": size[0], "height": size[1]})
    ctx.set_default_timeout(timeout_ms)
    if clock:
        ctx.clock.install()
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{url}/console/?next={path}")
    name, pin = PINS[key]
    page.fill("#username", name)
    page.fill("#pin", pin)
    page.click("#sign-in")
    page.wait_for_url(f"**{path}")
    if ready is not None:
        expect(page.locator(ready).first).to_be_visible()
    return ctx, page, errors


def no_round_and_no_maintenance(run: Running, table_id: str) -> None:
    """Leave a table between rounds, out of maintenance, with no request pending (a test's clean-up)."""
    table = run.table(table_id)

    def clean() -> None:
        for _ in range(2):  # a pending request is cancelled first, then maintenance is turned off
            if table.maintenance.pending or table.maintenance.on:
                table.set_maintenance_by("tom", False, "test over")
        if table.round is not None and not table.round.is_final:
            table.void_by("dealer_error", "test clean-up", "sue", "sam")

    run.on_loop(clean)
