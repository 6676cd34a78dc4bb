"""The spin judge: Cammegh SS2 wheel events in, round decisions out. Pure.

Spec: shared/protocols/cammegh-ss2.md §5 (state machine), §5.4 (exceptions),
§6 (warning flags), §9 items 12-17 and 27. No clock is read: every time comes
from ``event.at``, so a tolerance can only run out when some event arrives.

A spin is certified (:class:`ResultReady`) only when all of these hold:

* the judge saw the game open: it entered state 2 while the judge watched, or
  its game counter appeared in state 2 or 3 (the first status after a connect
  counts only in state 2: in state 3 the ball is already running);
* the game then went through state 3 (ball in rim) and state 4 (no more bets)
  in that order, with the same game counter, and the number came in state 4 or 5;
* no warning flag stands when the number comes, and no disqualifying flag was
  raised during the game (see the rules below);
* the counter advanced compared with the last certified game: an exact repeat
  is never certified, nor is a counter less than half the 1-256 cycle behind it
  (serial-number arithmetic; 256 -> 1 and 256 -> 0 are the next game). After
  the judge was blind (a disconnect) only the exact repeat is refused, since
  any number of games may have gone by; a controller restart starts afresh;
* the number is a pocket of the wheel (when the judge is told the pockets).

Rules, by event:

* ``WheelStatus``: a new game -> :class:`OpenRound` (a game still unresolved is
  first voided ``no_result``); state 4 -> :class:`CloseBetting`, :class:`StartPlay`;
  state 1, 6 or 7, or a counter change outside states 2/3, during a game -> void
  (``no_result``, ``wheel_powered_down``, ``ball_not_in_track``, ``controller_restart``).
  Back to state 2 from state 3 with the same counter while betting is still open
  is the wheel relaunching the ball: the same game goes on. Flags during a game:
  4 -> void ``wheel_fault``; 2 in state 3 or 4 -> void ``miss_spin`` and send ``*R``;
  8 in state 2 -> :class:`Note` ``launch_retry`` (once per appearance); 8 in
  state 3 for longer than the launch tolerance from the start of state 3 -> void
  ``launch_failed``; 1 in state 3 or 4 for longer than the no-ball tolerance
  without a break -> void ``no_ball``.
* ``WheelResult``: certified as above; a flag standing at the result -> void with
  that flag's code; anything else uncertain -> :class:`Hold` ``unverified_result``
  with the reason, released just before the next game opens.
* ``WheelFault`` (not a self-test answer) during a game -> void ``wheel_fault``.
* ``WheelRestart`` -> void ``controller_restart``.
* ``DeviceDisconnected`` -> void ``device_lost`` if a game is open, and
  :class:`Hold` ``device_lost``; ``DeviceConnected`` -> :class:`Release` ``device_lost``.
  Once the wheel's own events have named its device, a connect or disconnect of another
  device of the table (an overhead camera) is not the wheel's and changes nothing.

A game is voided at most once; after a void, a certification or a hold, the rest
of that game's events produce nothing until a new game opens.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from devices.events import (
    DeviceConnected,
    DeviceDisconnected,
    DeviceEvent,
    WheelFault,
    WheelRestart,
    WheelResult,
    WheelStatus,
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
    SendCommand,
    StartPlay,
    Void,
)

DEVICE_KIND = "cammegh-ss2"

# states (protocol §5.1)
BEFORE_GAME, PLACE_BETS, BALL_IN_RIM, NO_MORE_BETS, WINNING_NUMBER, CLOSE_TABLE, BALL_NOT_IN_TRACK = range(
    1, 8
)
# warning flags (protocol §6)
FLAG_NO_BALL, FLAG_SAME_DIRECTION, FLAG_FAULT, FLAG_LAUNCH = 1, 2, 4, 8

COUNTER_CYCLE = 256
#: the command that acknowledges a miss-spin void (protocol §5.4, §9.27)
ACKNOWLEDGE_VOID = "*R"

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

#: the void code for each warning flag, most serious first
_FLAG_VOIDS: tuple[tuple[int, str], ...] = (
    (FLAG_FAULT, "wheel_fault"),
    (FLAG_SAME_DIRECTION, "miss_spin"),
    (FLAG_NO_BALL, "no_ball"),
    (FLAG_LAUNCH, "launch_failed"),
)


def counter_step(previous: int, current: int) -> int:
    """How many games the counter moved forward, 0-255 (256 -> 1 and 256 -> 0 are both 1)."""
    if previous == COUNTER_CYCLE and current == 0:
        return 1
    return (current - previous) % COUNTER_CYCLE


@dataclass
class _Game:
    counter: int
    phase: int  # the last of states 2..5 reached
    betting_closed: bool = False
    state3_at: datetime | None = None
    no_ball_since: datetime | None = None
    irregular: str | None = None  # why the states did not go 2/3 -> 3 -> 4 in order
    done: str | None = None  # "certified", "voided" or "held": nothing more for this game
    number: str | None = None  # the certified number


class SS2SpinJudge(BaseJudge):
    """Turns one SS2 wheel's events into round decisions (the :class:`recognition.game.Judge` protocol)."""

    def __init__(
        self,
        *,
        no_ball_tolerance_s: float = 5.0,
        launch_tolerance_s: float = 3.0,
        pockets: Iterable[str] | None = None,
        last_certified_counter: int | None = None,
    ) -> None:
        """
        no_ball_tolerance_s: how long flag 1 (no ball) may stand in state 3/4 (guide: at least 5 s).
        launch_tolerance_s: how long flag 8 (launch retry) may stand from the start of state 3 (guide: 3 s).
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

    def feed(self, event: DeviceEvent) -> list[Decision]:
        out: list[Decision] = []
        if isinstance(event, (WheelStatus, WheelResult, WheelFault, WheelRestart)):
            self._device_id = event.device_id
        self._check_tolerances(event.at, out)
        if isinstance(event, WheelStatus):
            self._on_status(event, out)
            self._check_tolerances(event.at, out)
        elif isinstance(event, WheelResult):
            self._on_result(event, out)
        elif isinstance(event, WheelFault):
            self._on_fault(event, out)
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
            g = self._game = _Game(counter=s.game_counter, phase=s.state)
            if s.state == BALL_IN_RIM:
                g.state3_at = s.at
            out.append(OpenRound(device_game=str(s.game_counter)))
        elif g is None or not self._follow(g, s, out):
            return
        self._check_flags(g, prev, s, out)

    def _is_new_game(self, prev: WheelStatus | None, s: WheelStatus, g: _Game | None) -> bool:
        if s.state not in (PLACE_BETS, BALL_IN_RIM):
            return False
        if prev is None:  # first status on this link: only a game still taking bets
            return s.state == PLACE_BETS and (self._game is None or self._game.counter != s.game_counter)
        if s.game_counter != prev.game_counter:
            return True
        if s.state != PLACE_BETS or prev.state == PLACE_BETS:
            return False
        # entering state 2 with the same counter: the wheel relaunching a game whose betting is open
        # is the same game; anything else (5 -> 2, 1 -> 2, the re-spin after a void) is a new one
        relaunch = (
            prev.state == BALL_IN_RIM
            and g is not None
            and g.counter == s.game_counter
            and not g.betting_closed
        )
        return not relaunch

    def _follow(self, g: _Game, s: WheelStatus, out: list[Decision]) -> bool:
        """Move an open game along with a status of the same link; False when the game ended."""
        if s.game_counter != g.counter:
            self._void(
                g, "controller_restart", f"counter {g.counter} -> {s.game_counter} in state {s.state}", out
            )
            return False
        ends = {
            BEFORE_GAME: "no_result",
            CLOSE_TABLE: "wheel_powered_down",
            BALL_NOT_IN_TRACK: "ball_not_in_track",
        }
        if s.state in ends:
            self._void(g, ends[s.state], f"state {s.state}", out)
            return False
        if s.state == PLACE_BETS:  # relaunch (see _is_new_game)
            g.phase, g.state3_at, g.no_ball_since = PLACE_BETS, None, None
        elif s.state == BALL_IN_RIM:
            if g.phase == PLACE_BETS:
                g.phase, g.state3_at = BALL_IN_RIM, s.at
            elif g.phase > BALL_IN_RIM:
                g.irregular = g.irregular or f"the wheel went back to state 3 from state {g.phase}"
        elif s.state == NO_MORE_BETS:
            if g.phase == PLACE_BETS:
                g.irregular = g.irregular or "the wheel went from state 2 to 4 without state 3 (ball in rim)"
            elif g.phase == WINNING_NUMBER:
                g.irregular = g.irregular or "the wheel went back to state 4 from state 5"
            g.phase = NO_MORE_BETS
            self._close_betting(g, out)
        elif s.state == WINNING_NUMBER:
            if g.phase < NO_MORE_BETS:
                g.irregular = (
                    g.irregular or f"the wheel went from state {g.phase} to 5 without state 4 (no more bets)"
                )
            g.phase = WINNING_NUMBER
            self._close_betting(g, out)
        return True

    def _check_flags(self, g: _Game, prev: WheelStatus | None, s: WheelStatus, out: list[Decision]) -> None:
        flags = s.flags
        if flags & FLAG_FAULT:
            self._void(g, "wheel_fault", f"warning flag 4 in state {s.state}", out)
        elif flags & FLAG_SAME_DIRECTION and s.state in (BALL_IN_RIM, NO_MORE_BETS):
            self._void(g, "miss_spin", f"warning flag 2 in state {s.state}", out)
            out.append(SendCommand(command=ACKNOWLEDGE_VOID))
        else:
            if flags & FLAG_LAUNCH and s.state == PLACE_BETS:
                rising = prev is None or prev.state != PLACE_BETS or not prev.flags & FLAG_LAUNCH
                if rising:
                    message = _say(NOTE_REASONS, "launch_retry", f"game {g.counter}")
                    out.append(Note(code="launch_retry", message=message))
            if flags & FLAG_NO_BALL and s.state in (BALL_IN_RIM, NO_MORE_BETS):
                g.no_ball_since = g.no_ball_since or s.at
            else:
                g.no_ball_since = None

    def _check_tolerances(self, now: datetime, out: list[Decision]) -> None:
        """Void a game whose flag 1 or flag 8 has stood longer than allowed by `now`."""
        g, s = self._open(), self._status
        if g is None or s is None:
            return
        if s.state == BALL_IN_RIM and s.flags & FLAG_LAUNCH and g.state3_at is not None:
            if now - g.state3_at > self.launch_tolerance:
                self._void(
                    g, "launch_failed", f"warning flag 8 for {_secs(now - g.state3_at)} of state 3", out
                )
                return
        if g.no_ball_since is not None and now - g.no_ball_since > self.no_ball_tolerance:
            self._void(g, "no_ball", f"warning flag 1 for {_secs(now - g.no_ball_since)}", out)

    # -- result ------------------------------------------------------------------

    def _on_result(self, r: WheelResult, out: list[Decision]) -> None:
        g = self._game
        if g is not None and g.counter == r.game_counter and g.done is not None:
            if g.done == "certified" and g.number != r.number:
                self._hold_unverified(r, f"the game was certified as {g.number}", out)
            return  # the rest of a finished game: nothing
        if g is None or g.done is not None:
            self._game = _Game(counter=r.game_counter, phase=0, done="held")
            self._hold_unverified(
                r,
                f"the studio did not see game {r.game_counter} start "
                "(joined during the game, or the game was never announced)",
                out,
            )
            return
        if g.counter != r.game_counter:
            problem: str | None = f"the game in progress is {g.counter}"
        else:
            flags = self._status.flags if self._status is not None else 0
            for bit, code in _FLAG_VOIDS:
                if flags & bit:
                    self._void(g, code, f"warning flag {bit} stood when the number {r.number} came", out)
                    return
            problem = self._problem(g, r)
        if problem:
            self._close_betting(g, out)
            g.done = "held"
            self._hold_unverified(r, problem, out)
            return
        g.done, g.number = "certified", r.number
        self._last_certified, self._blind = r.game_counter, False
        out.append(
            ResultReady(
                result={"number": r.number, "game_counter": r.game_counter},
                source={"device_id": r.device_id, "game_counter": r.game_counter, "kind": DEVICE_KIND},
            )
        )

    def _problem(self, g: _Game, r: WheelResult) -> str | None:
        """Why a result for the open game cannot be certified, or None."""
        if g.irregular:
            return g.irregular
        if g.phase < NO_MORE_BETS:
            return f"the number came in state {g.phase}, before the wheel called no more bets"
        if self.pockets is not None and r.number not in self.pockets:
            return f"{r.number!r} is not a pocket of this wheel"
        last = self._last_certified
        if last is not None:
            step = counter_step(last, r.game_counter)
            if step == 0:
                return (
                    f"game counter {r.game_counter} was already certified; the wheel did not count a new game"
                )
            if step >= COUNTER_CYCLE // 2 and not self._blind:
                self._blind = True  # hold once, then accept the wheel's new count
                return f"game counter {r.game_counter} is behind the last certified game {last}"
        return None

    # -- other events --------------------------------------------------------------

    def _on_fault(self, f: WheelFault, out: list[Decision]) -> None:
        if f.self_test or f.code == 0:
            return
        detail = f"fault {f.code}: {f.description}"
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
