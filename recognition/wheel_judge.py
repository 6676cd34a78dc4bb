"""The spin judge: vendor-neutral wheel events in, round decisions out. Pure.

It reads only :mod:`devices.events` (``WheelStatus`` with its phase and standing warnings,
``WheelResult``, ``WheelWarning``, ``WheelRestart``): any wheel driver that maps its protocol
onto them is judged by these rules (docs/roulette.md). No clock is read: every time comes
from ``event.at``, so a tolerance can only run out when some event arrives.

A spin is certified (:class:`ResultReady`) only when all of these hold:

* the judge saw the game open: it entered ``spin_started`` while the judge watched, or its
  game number appeared in ``spin_started`` or ``ball_in_rim`` (the first status after a
  connect counts only in ``spin_started``: in ``ball_in_rim`` the ball is already running);
* the game then went through ``ball_in_rim`` and ``no_more_bets`` in that order, with the
  same game number, and the number came in ``no_more_bets`` or ``winning_number``;
* no warning stands when the number comes, and no disqualifying warning was raised during
  the game (see the rules below);
* the game number advanced compared with the last certified game: an exact repeat is never
  certified, nor is a number less than half the 1-256 cycle behind it (serial-number
  arithmetic; 256 -> 1 and 256 -> 0 are the next game). After the judge was blind (a
  disconnect) only the exact repeat is refused, since any number of games may have gone by;
  a controller restart starts afresh;
* the number is a pocket of the wheel (when the judge is told the pockets).

Rules, by event:

* ``WheelStatus``: a new game -> :class:`OpenRound` (a game still unresolved is first voided
  ``no_result``); ``no_more_bets`` -> :class:`CloseBetting`, :class:`StartPlay`; ``starting``,
  ``closed`` or ``ball_out_of_track``, or a game-number change outside ``spin_started`` /
  ``ball_in_rim``, during a game -> void (``no_result``, ``wheel_powered_down``,
  ``ball_not_in_track``, ``controller_restart``). Back to ``spin_started`` from ``ball_in_rim``
  with the same game number while betting is still open is the wheel relaunching the ball:
  the same game goes on. Warnings during a game: ``component_fault`` -> void ``wheel_fault``;
  ``ball_with_rotor`` in ``ball_in_rim`` or ``no_more_bets`` -> void ``miss_spin`` and send
  ``acknowledge_void``; ``launch_retry`` in ``spin_started`` -> :class:`Note` ``launch_retry``
  (once per appearance); ``launch_retry`` in ``ball_in_rim`` for longer than the launch
  tolerance from the start of ``ball_in_rim`` -> void ``launch_failed``; ``no_ball`` in
  ``ball_in_rim`` or ``no_more_bets`` for longer than the no-ball tolerance without a break
  -> void ``no_ball``.
* ``WheelResult``: certified as above; a warning standing at the result -> void with that
  warning's code; anything else uncertain -> :class:`Hold` ``unverified_result`` with the
  reason, released just before the next game opens.
* ``WheelWarning`` (not a self-test answer, not ``ok``) during a game -> void ``wheel_fault``.
* ``WheelRestart`` -> void ``controller_restart``.
* ``DeviceDisconnected`` -> void ``device_lost`` if a game is open, and :class:`Hold`
  ``device_lost``; ``DeviceConnected`` -> :class:`Release` ``device_lost``. Once the wheel's
  own events have named its device, a connect or disconnect of another device of the table
  (an overhead camera) is not the wheel's and changes nothing.

A game is voided at most once; after a void, a certification or a hold, the rest of that
game's events produce nothing until a new game opens.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from devices.events import (
    ACKNOWLEDGE_VOID,
    DeviceConnected,
    DeviceDisconnected,
    DeviceEvent,
    WheelPhase,
    WheelRestart,
    WheelResult,
    WheelStatus,
    WheelWarning,
    WheelWarningCode,
)
from recognition.game import (
    BaseJudge,
    CloseBetting,
    Decision,
    Hold,
    Note,
    OpenRound,
    Release,
    ResultReady,
    RoundSignal,
    SendCommand,
    StartPlay,
    Void,
)

#: how far a game has gone: the phases of a game in their order (a game's `stage`)
STAGES: dict[WheelPhase, int] = {"spin_started": 1, "ball_in_rim": 2, "no_more_bets": 3, "winning_number": 4}
PLACE_BETS, BALL_IN_RIM, NO_MORE_BETS, WINNING_NUMBER = 1, 2, 3, 4
_STAGE_NAMES = {v: k for k, v in STAGES.items()}

COUNTER_CYCLE = 256

#: why a game was voided (all stakes returned), in words for the dealer
VOID_REASONS: dict[str, str] = {
    "miss_spin": "Miss-spin: the ball ran the same way as the wheel. The game is void and all bets are returned.",
    "no_ball": "The wheel lost sight of the ball. The game is void and all bets are returned.",
    "launch_failed": "The wheel could not launch the ball. The game is void and all bets are returned.",
    "wheel_fault": "The wheel reported a sensor or motor fault. The game is void and all bets are returned. "
    "Call a technician.",
    "wheel_powered_down": "The wheel stopped during the game. The game is void and all bets are returned.",
    "ball_not_in_track": "The wheel reports the ball is not in the ball track. "
    "The game is void and all bets are returned.",
    "controller_restart": "The wheel controller restarted during the game. "
    "The game is void and all bets are returned.",
    "device_lost": "The studio lost contact with the wheel during the game. "
    "The game is void and all bets are returned.",
    "no_result": "The wheel moved on without giving a winning number. The game is void and all bets are returned.",
}

#: why the judge asks the dealer to stop and look
HOLD_REASONS: dict[str, str] = {
    "unverified_result": "The wheel gave a number the studio cannot confirm. It is not paid. "
    "Check the wheel; the hold clears when the next game starts.",
    "device_lost": "No connection to the wheel. Wait for it to reconnect, or call a technician.",
}

#: things worth showing that change nothing
NOTE_REASONS: dict[str, str] = {
    "launch_retry": "The wheel is launching the ball again. Bets stay open.",
    "wheel_fault": "The wheel reported a fault between games.",
}

#: the void code for each standing warning, most serious first
_WARNING_VOIDS: tuple[tuple[WheelWarningCode, str], ...] = (
    ("component_fault", "wheel_fault"),
    ("ball_with_rotor", "miss_spin"),
    ("no_ball", "no_ball"),
    ("launch_retry", "launch_failed"),
)

#: a phase that ends a game in progress, and the void it gets
_ENDS: dict[WheelPhase, str] = {
    "starting": "no_result",
    "closed": "wheel_powered_down",
    "ball_out_of_track": "ball_not_in_track",
}


def counter_step(previous: int, current: int) -> int:
    """How many games the counter moved forward, 0-255 (256 -> 1 and 256 -> 0 are both 1)."""
    if previous == COUNTER_CYCLE and current == 0:
        return 1
    return (current - previous) % COUNTER_CYCLE


@dataclass
class _Game:
    counter: int
    phase: int  # the last stage reached (STAGES)
    betting_closed: bool = False
    state3_at: datetime | None = None
    no_ball_since: datetime | None = None
    irregular: str | None = None  # why the states did not go 2/3 -> 3 -> 4 in order
    done: str | None = None  # "certified", "voided" or "held": nothing more for this game
    number: str | None = None  # the certified number


class WheelJudge(BaseJudge):
    """Turns one roulette wheel's events into round decisions (the :class:`recognition.game.Judge` protocol)."""

    def __init__(
        self,
        *,
        no_ball_tolerance_s: float = 5.0,
        launch_tolerance_s: float = 3.0,
        pockets: Iterable[str] | None = None,
        last_certified_counter: int | None = None,
    ) -> None:
        """
        no_ball_tolerance_s: how long `no_ball` may stand in ball_in_rim / no_more_bets (at least 5 s).
        launch_tolerance_s: how long `launch_retry` may stand from the start of ball_in_rim (3 s).
        pockets: the wheel's pocket labels; a number outside them is held, not certified.
        last_certified_counter: the counter of the table's last certified game, when a judge is
            rebuilt; only an exact repeat of it is then refused.
        """
        if no_ball_tolerance_s < 0 or launch_tolerance_s < 0:
            raise ValueError("tolerances are durations in seconds and cannot be negative")
        self.no_ball_tolerance = timedelta(seconds=no_ball_tolerance_s)
        self.launch_tolerance = timedelta(seconds=launch_tolerance_s)
        self.pockets = frozenset(pockets) if pockets is not None else None
        self._last_certified = last_certified_counter
        self._blind = last_certified_counter is not None
        self._status: WheelStatus | None = None  # last status on the current link
        self._game: _Game | None = None  # the latest game, open or done
        self._device_lost_hold = False
        self._unverified_hold = False
        self._device_id: str | None = None  # the wheel, once its events named it

    # -- entry -------------------------------------------------------------------

    def tick(self, at: datetime) -> list[Decision]:
        """Only move the tolerances' clock on to `at` (an event of another device of the table)."""
        out: list[Decision] = []
        self._check_tolerances(at, out)
        return out

    def feed(self, event: DeviceEvent | RoundSignal) -> list[Decision]:
        """One event -> decisions; a round signal only moves the tolerances' clock on."""
        if isinstance(event, WheelResult) and event.game_counter is None:
            # a reading without the wheel's game number is another source's (an overhead camera), which
            # only a judge that cross-checks the wheel reads (camera = true): here a clock tick
            return self.tick(event.at)
        out: list[Decision] = []
        if isinstance(event, (WheelStatus, WheelResult, WheelWarning, WheelRestart)):
            self._device_id = event.device_id
        self._check_tolerances(event.at, out)
        if isinstance(event, WheelStatus):
            self._on_status(event, out)
            self._check_tolerances(event.at, out)
        elif isinstance(event, WheelResult):
            self._on_result(event, out)
        elif isinstance(event, WheelWarning):
            self._on_warning(event, out)
        elif isinstance(event, WheelRestart):
            self._void_open(
                "controller_restart", f"counter {event.previous_counter} -> {event.game_counter}", out
            )
            self._last_certified = None  # a new counter epoch
            self._blind = False
        elif isinstance(event, (DeviceConnected, DeviceDisconnected)) and self._device_id not in (
            None,
            event.device_id,
        ):
            pass  # another device of the table (an overhead camera): not this wheel's link
        elif isinstance(event, DeviceDisconnected):
            self._void_open("device_lost", f"disconnected: {event.reason}", out)
            self._status = None
            self._blind = True
            if not self._device_lost_hold:
                self._device_lost_hold = True
                out.append(Hold(code="device_lost", message=_say(HOLD_REASONS, "device_lost", event.reason)))
        elif isinstance(event, DeviceConnected):
            self._status = None
            if self._device_lost_hold:
                self._device_lost_hold = False
                out.append(Release(code="device_lost"))
        return out

    # -- status ------------------------------------------------------------------

    def _open(self) -> _Game | None:
        g = self._game
        return g if g is not None and g.done is None else None

    def _on_status(self, s: WheelStatus, out: list[Decision]) -> None:
        prev, self._status = self._status, s
        g = self._open()
        if self._is_new_game(prev, s, g):
            if g is not None:
                self._void(g, "no_result", f"game {s.game_counter} started", out)
            if self._unverified_hold:
                self._unverified_hold = False
                out.append(Release(code="unverified_result"))
            g = self._game = _Game(counter=s.game_counter, phase=STAGES[s.phase])
            if s.phase == "ball_in_rim":
                g.state3_at = s.at
            out.append(OpenRound(device_game=str(s.game_counter)))
        elif g is None or not self._follow(g, s, out):
            return
        self._check_warnings(g, prev, s, out)

    def _is_new_game(self, prev: WheelStatus | None, s: WheelStatus, g: _Game | None) -> bool:
        if s.phase not in ("spin_started", "ball_in_rim"):
            return False
        if prev is None:  # first status on this link: only a game still taking bets
            return s.phase == "spin_started" and (self._game is None or self._game.counter != s.game_counter)
        if s.game_counter != prev.game_counter:
            return True
        if s.phase != "spin_started" or prev.phase == "spin_started":
            return False
        # entering spin_started with the same game number: the wheel relaunching a game whose betting is
        # open is the same game; anything else (from winning_number, starting, the re-spin after a void) is new
        relaunch = (
            prev.phase == "ball_in_rim"
            and g is not None
            and g.counter == s.game_counter
            and not g.betting_closed
        )
        return not relaunch

    def _follow(self, g: _Game, s: WheelStatus, out: list[Decision]) -> bool:
        """Move an open game along with a status of the same link; False when the game ended."""
        if s.game_counter != g.counter:
            self._void(g, "controller_restart", f"game {g.counter} -> {s.game_counter} in {s.phase}", out)
            return False
        if s.phase in _ENDS:
            self._void(g, _ENDS[s.phase], s.phase, out)
            return False
        was = _STAGE_NAMES.get(g.phase, "?")
        if s.phase == "spin_started":  # relaunch (see _is_new_game)
            g.phase, g.state3_at, g.no_ball_since = PLACE_BETS, None, None
        elif s.phase == "ball_in_rim":
            if g.phase == PLACE_BETS:
                g.phase, g.state3_at = BALL_IN_RIM, s.at
            elif g.phase > BALL_IN_RIM:
                g.irregular = g.irregular or f"the wheel went back to ball_in_rim from {was}"
        elif s.phase == "no_more_bets":
            if g.phase == PLACE_BETS:
                g.irregular = (
                    g.irregular or "the wheel went from spin_started to no_more_bets without ball_in_rim"
                )
            elif g.phase == WINNING_NUMBER:
                g.irregular = g.irregular or "the wheel went back to no_more_bets from winning_number"
            g.phase = NO_MORE_BETS
            self._close_betting(g, out)
        elif s.phase == "winning_number":
            if g.phase < NO_MORE_BETS:
                g.irregular = (
                    g.irregular or f"the wheel went from {was} to winning_number without no_more_bets"
                )
            g.phase = WINNING_NUMBER
            self._close_betting(g, out)
        return True

    def _check_warnings(
        self, g: _Game, prev: WheelStatus | None, s: WheelStatus, out: list[Decision]
    ) -> None:
        warnings, running = s.warnings, s.phase in ("ball_in_rim", "no_more_bets")
        if "component_fault" in warnings:
            self._void(g, "wheel_fault", f"warning component_fault in {s.phase}", out)
        elif "ball_with_rotor" in warnings and running:
            self._void(g, "miss_spin", f"warning ball_with_rotor in {s.phase}", out)
            out.append(SendCommand(command=ACKNOWLEDGE_VOID))
        else:
            if "launch_retry" in warnings and s.phase == "spin_started":
                rising = prev is None or prev.phase != "spin_started" or "launch_retry" not in prev.warnings
                if rising:
                    message = _say(NOTE_REASONS, "launch_retry", f"game {g.counter}")
                    out.append(Note(code="launch_retry", message=message))
            if "no_ball" in warnings and running:
                g.no_ball_since = g.no_ball_since or s.at
            else:
                g.no_ball_since = None

    def _check_tolerances(self, now: datetime, out: list[Decision]) -> None:
        """Void a game whose no_ball or launch_retry warning has stood longer than allowed by `now`."""
        g, s = self._open(), self._status
        if g is None or s is None:
            return
        launching = s.phase == "ball_in_rim" and "launch_retry" in s.warnings and g.state3_at is not None
        if launching and g.state3_at is not None and now - g.state3_at > self.launch_tolerance:
            self._void(g, "launch_failed", f"launch_retry for {_secs(now - g.state3_at)} of ball_in_rim", out)
            return
        if g.no_ball_since is not None and now - g.no_ball_since > self.no_ball_tolerance:
            self._void(g, "no_ball", f"warning no_ball for {_secs(now - g.no_ball_since)}", out)

    # -- result ------------------------------------------------------------------

    def _on_result(self, r: WheelResult, out: list[Decision]) -> None:
        counter = r.game_counter
        if counter is None:
            return  # not the wheel's (feed passes these by)
        g = self._game
        if g is not None and g.counter == counter and g.done is not None:
            if g.done == "certified" and g.number != r.number:
                self._hold_unverified(r, f"the game was certified as {g.number}", out)
            return  # the rest of a finished game: nothing
        if g is None or g.done is not None:
            self._game = _Game(counter=counter, phase=0, done="held")
            self._hold_unverified(
                r,
                f"the studio did not see game {counter} start "
                "(joined during the game, or the game was never announced)",
                out,
            )
            return
        if g.counter != counter:
            problem: str | None = f"the game in progress is {g.counter}"
        else:
            standing = self._status.warnings if self._status is not None else ()
            for warning, code in _WARNING_VOIDS:
                if warning in standing:
                    self._void(g, code, f"warning {warning} stood when the number {r.number} came", out)
                    return
            problem = self._problem(g, r)
        if problem:
            self._close_betting(g, out)
            g.done = "held"
            self._hold_unverified(r, problem, out)
            return
        g.done, g.number = "certified", r.number
        self._last_certified, self._blind = counter, False
        out.append(
            ResultReady(
                result={"number": r.number, "game_counter": counter},
                source={"device_id": r.device_id, "game_counter": counter},
            )
        )

    def _problem(self, g: _Game, r: WheelResult) -> str | None:
        """Why a result for the open game cannot be certified, or None."""
        if g.irregular:
            return g.irregular
        if g.phase < NO_MORE_BETS:
            return f"the number came in {_STAGE_NAMES[g.phase]}, before the wheel called no more bets"
        if self.pockets is not None and r.number not in self.pockets:
            return f"{r.number!r} is not a pocket of this wheel"
        last = self._last_certified
        if last is not None:
            step = counter_step(last, g.counter)
            if step == 0:
                return f"game counter {g.counter} was already certified; the wheel did not count a new game"
            if step >= COUNTER_CYCLE // 2 and not self._blind:
                self._blind = True  # hold once, then accept the wheel's new count
                return f"game counter {g.counter} is behind the last certified game {last}"
        return None

    # -- other events --------------------------------------------------------------

    def _on_warning(self, f: WheelWarning, out: list[Decision]) -> None:
        if f.self_test or f.code == "ok":
            return
        detail = (
            f.code
            + (f" ({f.vendor_code})" if f.vendor_code else "")
            + (f": {f.description}" if f.description else "")
        )
        if self._open() is not None:
            self._void_open("wheel_fault", detail, out)
        elif self._game is None or self._game.done != "voided":  # a voided game stays silent
            out.append(Note(code="wheel_fault", message=_say(NOTE_REASONS, "wheel_fault", detail)))

    # -- helpers -------------------------------------------------------------------

    def _close_betting(self, g: _Game, out: list[Decision]) -> None:
        if not g.betting_closed:
            g.betting_closed = True
            out += [CloseBetting(), StartPlay()]

    def _void(self, g: _Game, code: str, detail: str, out: list[Decision]) -> None:
        g.done = "voided"
        out.append(Void(code=code, message=_say(VOID_REASONS, code, f"game {g.counter}: {detail}")))

    def _void_open(self, code: str, detail: str, out: list[Decision]) -> None:
        g = self._open()
        if g is not None:
            self._void(g, code, detail, out)

    def _hold_unverified(self, r: WheelResult, why: str, out: list[Decision]) -> None:
        self._unverified_hold = True
        detail = f"number {r.number} for game {r.game_counter}: {why}"
        out.append(Hold(code="unverified_result", message=_say(HOLD_REASONS, "unverified_result", detail)))


def _say(reasons: dict[str, str], code: str, detail: str) -> str:
    return f"{reasons[code]} ({detail})"


def _secs(d: timedelta) -> str:
    return f"{d.total_seconds():g} s"
