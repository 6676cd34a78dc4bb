"""The judge of a roulette table whose wheel is not alone. Pure.

It wraps :class:`recognition.wheel_judge.WheelJudge` (which keeps every rule about the
wheel's phases, warnings and game numbers) and adds, per table settings (docs/roulette.md):

* **An overhead camera** (``camera = true``; always for two balls). The wheel's number is
  certified only when the camera, having seen the ball launched in this game, reads the
  ball at rest in the same pocket. With two balls (Double Ball Roulette) the camera gives
  both pockets, and the wheel's number must be one of them. A disagreement, an unreadable
  camera or a camera that was lost during the game holds the round for the dealer.
* **Ball revolutions** (``min_ball_revolutions``, default 4; 0 turns the check off): the
  ball must go round the track at least that many times, as the camera counted it when it
  followed the whole spin, else as the wheel's state timings bound it
  (:mod:`.spin_validity`). A short spin is void; the wheel's next game is the re-spin.
* **Auto-start** (``auto_start = true``, for a wheel in manual-start mode): the judge starts
  each game (``start_command``: ``start_spin``, ``start_spin clockwise`` or ``start_spin
  counterclockwise``, which the wheel's driver maps onto its protocol) when the wheel waits in
  ``winning_number`` (or ``starting`` after power-on) and the previous game is certified or
  void; a held game is started only once the dealer has settled it. ``wheel_mode`` is sent
  as ``set_mode <mode>`` whenever the wheel's link comes up. On a table with a camera the
  commands name the wheel's role (``SendCommand.device_role``), since the decision that frees
  the wheel may follow a camera event or the dealer's action.

Which device an event comes from is its device id, ``<table>/<role>`` (roles ``camera_role``,
"camera", and ``wheel_role``, "wheel"), never its type: the wheel and the camera speak the same
vendor-neutral events (:mod:`devices.events`: the camera's ``BallLaunched`` when a ball enters the
track, ``BallDropped`` with each ball's revolutions when the track empties, ``WheelResult`` with every
ball's pocket when they lie still, ``WheelWarning`` when it cannot read). Every device that is not
the camera is the wheel.

No clock is read: every time comes from ``event.at``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction
from typing import Any

from devices.events import (
    SET_MODE,
    START_SPIN_COMMANDS,
    BallDropped,
    BallLaunched,
    DeviceConnected,
    DeviceDisconnected,
    DeviceEvent,
    WheelResult,
    WheelStatus,
    WheelWarning,
)
from recognition.game import (
    BaseJudge,
    Decision,
    Hold,
    Note,
    OpenRound,
    Release,
    ResultReady,
    RoundSignal,
    SendCommand,
    Void,
)
from recognition.wheel_judge import WheelJudge

from .spin_validity import (
    DEFAULT_MIN_REVOLUTIONS,
    DEFAULT_NMB_THRESHOLD,
    exact,
    revolutions_from_wheel,
    whole,
)

__all__ = ["HOLD_REASONS", "START_COMMANDS", "TABLE_SETTINGS", "VOID_REASONS", "RouletteTableJudge"]

#: table settings this judge takes (the rest go to the wheel judge)
TABLE_SETTINGS = frozenset(
    {
        "camera",
        "min_ball_revolutions",
        "nmb_threshold",
        "wheel_time_scale",
        "revolution_source",
        "auto_start",
        "start_command",
        "wheel_mode",
        "wheel_role",
        "camera_role",
    }
)

#: the neutral commands that start a game on a wheel in manual-start mode
START_COMMANDS = START_SPIN_COMMANDS

VOID_REASONS: dict[str, str] = {
    "too_few_revolutions": "The ball did not go round the wheel often enough for a valid spin. The game is void, "
    "all bets are returned and the ball is spun again.",
    "no_camera_reading": "The wheel started a new game before the overhead camera could confirm the number. "
    "The game is void and all bets are returned.",
}

HOLD_REASONS: dict[str, str] = {
    "camera_disagrees": "The overhead camera does not see the ball where the wheel says. Nothing is paid. "
    "Look at the wheel: void the game, or enter the result with a supervisor.",
    "camera_unreadable": "The overhead camera cannot read the balls. Nothing is paid. Look at the wheel: void "
    "the game, or enter the result with a supervisor; call a technician.",
    "camera_lost": "No picture from the overhead camera. Results cannot be cross-checked until it is back.",
    "camera_missed_game": "The overhead camera missed part of this game, so it cannot confirm the number. "
    "Nothing is paid. Look at the wheel: void the game, or enter the result with a supervisor.",
    "revolutions_unknown": "Nobody could tell how many times the ball went round. Nothing is paid. "
    "Void the game unless the spin is known to be good.",
}

NOTE_REASONS: dict[str, str] = {
    "camera_unreadable": "The overhead camera cannot read the wheel between games.",
    "camera_changed": "The overhead camera saw the balls move after the result was certified.",
    "camera_events_ignored": "A camera reports on this table but the game does not use it (set camera = true).",
}


@dataclass
class _Game:
    """One wheel game as this judge follows it (opened by the wheel judge's OpenRound)."""

    counter: int
    state3_at: datetime | None = None
    state4_at: datetime | None = None
    phase: str | None = None  # the wheel's last phase in this game
    rim_reports: tuple[int, Fraction] | None = None  # the wheel's own count of its ball_in_rim reports
    result: ResultReady | None = None  # the wheel judge's certified number, awaiting our checks
    spin_seen: bool = False  # the camera saw a ball launched in this game
    spins: int = 0  # how many times (a ball lost from sight in the track and found again starts another)
    spin_ended: bool = False
    revolutions: tuple[int, ...] | None = None
    spin_complete: bool = False
    rest: tuple[str, ...] | None = None
    camera_problem: str | None = None
    camera_gap: str | None = None  # why the camera was blind during the game
    rest_unlaunched: bool = False  # the camera read balls at rest without having seen them launched
    done: str | None = None  # "certified", "voided", "held"
    certified: tuple[str, ...] | None = None
    notes: set[str] = field(default_factory=set)


class RouletteTableJudge(BaseJudge):
    """Turns one roulette table's wheel and camera events into round decisions."""

    def __init__(
        self,
        *,
        pockets: Iterable[str],
        balls: int = 1,
        wheel_settings: dict[str, Any] | None = None,
        camera: bool | None = None,
        min_ball_revolutions: int = DEFAULT_MIN_REVOLUTIONS,
        nmb_threshold: int = DEFAULT_NMB_THRESHOLD,
        wheel_time_scale: float | str = 1,
        revolution_source: str = "auto",
        auto_start: bool = False,
        start_command: str = "start_spin clockwise",
        wheel_mode: int | None = None,
        wheel_role: str = "wheel",
        camera_role: str = "camera",
    ) -> None:
        """
        pockets: the wheel's pocket labels (a camera reading outside them is held).
        balls: balls per spin (2: Double Ball Roulette, which needs the camera).
        wheel_settings: the wheel judge's own settings (no_ball_tolerance_s, ...).
        camera: the table has an overhead camera that must confirm every result (default: for two balls).
        min_ball_revolutions: the least whole revolutions in the track for a valid spin (0: no check).
        nmb_threshold: the wheel's no-more-bets threshold (1/2048 s per ball revolution at no more bets).
        wheel_time_scale: real seconds per second of event time (a simulator at speed N: N).
        revolution_source: "auto" (the camera when it followed the whole spin, else the wheel's
            timings), "camera" or "wheel".
        auto_start: start each game (manual-start wheels); start_command: the command that does.
        wheel_mode: the operating mode sent as "set_mode <mode>" when the wheel's link comes up.
        wheel_role, camera_role: the devices' roles in the table's configuration.
        """
        self.pockets = tuple(pockets)
        if balls not in (1, 2):
            raise ValueError(f"a roulette spin uses one or two balls, not {balls!r}")
        self.balls = balls
        if camera is None:
            camera = balls == 2
        if not isinstance(camera, bool):
            raise ValueError(f"camera is true or false, not {camera!r}")
        if balls == 2 and not camera:
            raise ValueError("two balls need the overhead camera (camera = true): the wheel reads only one")
        self.camera = camera
        if (
            isinstance(min_ball_revolutions, bool)
            or not isinstance(min_ball_revolutions, int)
            or not 0 <= min_ball_revolutions <= 100
        ):
            raise ValueError(f"min_ball_revolutions is a whole number 0-100, not {min_ball_revolutions!r}")
        self.min_revolutions = min_ball_revolutions
        if (
            isinstance(nmb_threshold, bool)
            or not isinstance(nmb_threshold, int)
            or not 1 <= nmb_threshold <= 65535
        ):
            raise ValueError(
                f"nmb_threshold is the wheel's no-more-bets threshold (1-65535), not {nmb_threshold!r}"
            )
        self.nmb_threshold = nmb_threshold
        self.time_scale = exact(wheel_time_scale, "wheel_time_scale")
        if revolution_source not in ("auto", "camera", "wheel"):
            raise ValueError(f"revolution_source is 'auto', 'camera' or 'wheel', not {revolution_source!r}")
        if revolution_source == "camera" and not camera:
            raise ValueError("revolution_source = 'camera' needs the camera (camera = true)")
        self.revolution_source = revolution_source
        if not isinstance(auto_start, bool):
            raise ValueError(f"auto_start is true or false, not {auto_start!r}")
        self.auto_start = auto_start
        if start_command not in START_COMMANDS:
            raise ValueError(
                f"start_command must be one of {', '.join(START_COMMANDS)}, not {start_command!r}"
            )
        self.start_command = start_command
        if wheel_mode is not None and (
            isinstance(wheel_mode, bool) or not isinstance(wheel_mode, int) or not 0 <= wheel_mode <= 65535
        ):
            raise ValueError(f"wheel_mode is the wheel's operating mode 0-65535, not {wheel_mode!r}")
        self.wheel_mode = wheel_mode
        for name, role in (("wheel_role", wheel_role), ("camera_role", camera_role)):
            if not isinstance(role, str) or not role or "/" in role:
                raise ValueError(f"{name} is a device role such as 'wheel', not {role!r}")
        if wheel_role == camera_role:
            raise ValueError(f"the wheel and the camera need different roles, not both {wheel_role!r}")
        self.wheel_role, self.camera_role = wheel_role, camera_role
        settings = dict(wheel_settings or {})
        settings.setdefault("pockets", self.pockets)
        self.wheel = WheelJudge(**settings)
        self._game: _Game | None = None
        self._camera_ids: set[str] = set()
        self._wheel_status: WheelStatus | None = None
        self._start_sent: tuple[int, str] | None = None
        self._camera_lost = False
        self._notes_given: set[str] = set()

    # -- entry ----------------------------------------------------------------------------

    def feed(self, event: DeviceEvent | RoundSignal) -> list[Decision]:
        out: list[Decision] = []
        if isinstance(event, RoundSignal):
            self._relay(
                self.wheel.feed(event), out
            )  # the wheel judge's tolerances run on every time it is given
            self._on_signal(event, out)
            return out
        if self._from_camera(event):
            self._relay(self.wheel.tick(event.at), out)  # the wheel judge's tolerances run on every time
            if self.camera:
                self._on_camera(event, out)
            elif not isinstance(event, (DeviceConnected, DeviceDisconnected)):
                self._note_once("camera_events_ignored", f"from {event.device_id}", out)
            return out
        if isinstance(event, DeviceConnected):
            self._wheel_status = None
            self._start_sent = None
        self._relay(self.wheel.feed(event), out, wheel_event=event)
        if isinstance(event, WheelStatus):
            self._wheel_status = event
            self._track_states(event)
            self._maybe_start(out)
        elif isinstance(event, DeviceConnected) and self.wheel_mode is not None:
            out.append(self._command(f"{SET_MODE} {self.wheel_mode}"))
        return out

    def _from_camera(self, event: DeviceEvent) -> bool:
        did = event.device_id
        if did == self.camera_role or did.endswith("/" + self.camera_role):
            self._camera_ids.add(did)
            return True
        return False

    # -- the wheel judge's decisions ---------------------------------------------------------

    def _relay(
        self, decisions: list[Decision], out: list[Decision], wheel_event: DeviceEvent | None = None
    ) -> None:
        for d in decisions:
            if isinstance(d, OpenRound):
                self._close_unfinished(out)
                self._game = _Game(counter=int(d.device_game or 0))
                self._start_sent = None
                if isinstance(wheel_event, WheelStatus) and wheel_event.phase == "ball_in_rim":
                    self._game.state3_at = wheel_event.at
                out.append(d)
            elif isinstance(d, ResultReady):
                g = self._game
                if g is None or g.done is not None:
                    continue  # settled already (the dealer voided the round while the wheel played on)
                g.result = d
                self._decide(out)
            elif isinstance(d, Void):
                if self._game is not None and self._game.done is None:
                    self._game.done = "voided"
                out.append(d)
            elif isinstance(d, Hold):
                if d.code == "unverified_result" and self._game is not None and self._game.done is None:
                    self._game.done = "held"
                out.append(d)
            else:
                out.append(d)

    def _close_unfinished(self, out: list[Decision]) -> None:
        """A new game opens while ours still waits for the camera: the old one is void, never guessed."""
        g = self._game
        if g is not None and g.done is None and g.result is not None:
            g.done = "voided"
            number = g.result.result.get("number")
            out.append(
                Void(
                    code="no_camera_reading",
                    message=_say(
                        VOID_REASONS, "no_camera_reading", f"game {g.counter}, wheel number {number}"
                    ),
                )
            )

    def _track_states(self, s: WheelStatus) -> None:
        g = self._game
        if g is None or g.done is not None or s.game_counter != g.counter:
            return
        previous, g.phase = g.phase, s.phase
        if s.phase == "spin_started":  # the wheel relaunched the ball: its time in the rim starts again
            g.state3_at = g.state4_at = g.rim_reports = None
        elif s.phase == "ball_in_rim" and g.state3_at is None:
            g.state3_at = s.at
        elif s.phase == "no_more_bets" and g.state4_at is None:
            g.state4_at = s.at
            # a count is of the phase just left: the rim's only when the wheel went straight from it
            if previous == "ball_in_rim" and s.previous_phase_reports and s.report_period_ms:
                g.rim_reports = (s.previous_phase_reports, Fraction(s.report_period_ms, 1000))

    # -- the camera ----------------------------------------------------------------------------

    def _on_camera(self, event: DeviceEvent, out: list[Decision]) -> None:
        g = self._game
        open_game = g if g is not None and g.done is None else None
        if isinstance(event, DeviceDisconnected):
            if open_game is not None:
                open_game.camera_gap = open_game.camera_gap or f"camera disconnected: {event.reason}"
            if not self._camera_lost:
                self._camera_lost = True
                out.append(Hold(code="camera_lost", message=_say(HOLD_REASONS, "camera_lost", event.reason)))
            self._decide(out)
        elif isinstance(event, DeviceConnected):
            if self._camera_lost:
                self._camera_lost = False
                out.append(Release(code="camera_lost"))
        elif isinstance(event, BallLaunched):
            if open_game is not None:
                open_game.spins += 1
                open_game.spin_seen, open_game.spin_ended = True, False
                open_game.revolutions, open_game.spin_complete = None, False
                open_game.rest, open_game.camera_problem = None, None
        elif isinstance(event, BallDropped):
            if open_game is not None and open_game.spin_seen:
                open_game.spin_ended = True
                open_game.revolutions = tuple(event.revolutions)
                open_game.spin_complete = event.complete
                self._decide(out)
        elif isinstance(event, WheelResult):
            if open_game is not None:
                if open_game.spin_seen:
                    open_game.rest = event.pockets
                    open_game.camera_problem = None
                else:  # the last game's balls still in their pockets, or the camera missed the launch
                    open_game.rest_unlaunched = True
                self._decide(out)
            elif (
                g is not None
                and g.done == "certified"
                and g.certified is not None
                and sorted(event.pockets) != sorted(g.certified)
                and "camera_changed" not in g.notes
            ):
                g.notes.add("camera_changed")
                out.append(
                    Note(
                        code="camera_changed",
                        message=_say(
                            NOTE_REASONS,
                            "camera_changed",
                            f"game {g.counter}: certified {', '.join(g.certified)}, now {', '.join(event.pockets) or 'none'}",
                        ),
                    )
                )
        elif isinstance(event, WheelWarning):
            problem = f"{event.code}: {event.description}" if event.description else event.code
            if open_game is not None and (open_game.spin_seen or open_game.result is not None):
                open_game.camera_problem = problem
                self._decide(out)
            elif open_game is None:
                out.append(
                    Note(code="camera_unreadable", message=_say(NOTE_REASONS, "camera_unreadable", problem))
                )

    # -- the decision -----------------------------------------------------------------------------

    def _decide(self, out: list[Decision]) -> None:
        """Certify, void or hold the open game once everything it needs is known; else wait."""
        g = self._game
        if g is None or g.done is not None or g.result is None:
            return
        number = str(g.result.result["number"])
        counted: tuple[int, str] | None = None
        if self.min_revolutions:
            counted = self._revolutions(g)
            if counted is None:
                return  # the camera's count is still to come
            revolutions, counted_by = counted
            if revolutions < 0:
                self._hold(g, "revolutions_unknown", counted_by, out)
                return
            if revolutions < self.min_revolutions:
                g.done = "voided"
                out.append(
                    Void(
                        code="too_few_revolutions",
                        message=_say(
                            VOID_REASONS,
                            "too_few_revolutions",
                            f"game {g.counter}: {revolutions} revolutions by the {counted_by}, at least "
                            f"{self.min_revolutions} needed; the wheel said {number}",
                        ),
                    )
                )
                self._maybe_start(out)
                return
        pockets: tuple[str, ...] = (number,)
        if self.camera:
            if g.camera_gap is not None:
                self._hold(
                    g, "camera_missed_game", f"game {g.counter}, wheel number {number}: {g.camera_gap}", out
                )
                return
            if not g.spin_seen and g.rest_unlaunched:
                self._hold(
                    g,
                    "camera_missed_game",
                    f"game {g.counter}, wheel number {number}: the camera saw "
                    "the balls at rest but never saw them launched",
                    out,
                )
                return
            if g.rest is None:
                if g.camera_problem is not None:
                    self._hold(
                        g,
                        "camera_unreadable",
                        f"game {g.counter}, wheel number {number}: {g.camera_problem}",
                        out,
                    )
                return  # wait for the camera
            problem = self._compare(number, g.rest)
            if problem is not None:
                self._hold(g, "camera_disagrees", f"game {g.counter}: {problem}", out)
                return
            pockets = g.rest
        g.done, g.certified = "certified", pockets
        result: dict[str, Any] = dict(g.result.result)
        if self.balls == 2:
            result.pop("number", None)
            result["numbers"] = list(pockets)
        source = dict(g.result.source)
        if self.camera:
            source["camera_device_id"] = next(iter(sorted(self._camera_ids)), None)
            source["camera_pockets"] = list(pockets)
        if counted is not None:
            source["ball_revolutions"], source["revolutions_from"] = counted
        out.append(ResultReady(result=result, source=source))
        self._maybe_start(out)

    def _revolutions(self, g: _Game) -> tuple[int, str] | None:
        """(whole revolutions, "camera" or "wheel"); (-1, why) when unknown; None to wait for the camera."""
        if self.camera and self.revolution_source in ("auto", "camera"):
            if (
                g.camera_gap is None
                and g.spin_ended
                and g.spin_complete
                and g.revolutions is not None
                and len(g.revolutions) == self.balls
                and g.spins == 1
            ):
                return min(g.revolutions), "camera"
            still_coming = g.camera_gap is None and g.camera_problem is None and not g.spin_ended
            if self.revolution_source == "camera":
                return None if still_coming else (-1, "the camera did not follow the whole spin")
            if still_coming and g.spin_seen:
                return None  # auto: the camera is following the spin; its count comes when the track empties
        if g.state3_at is None or g.state4_at is None:
            return -1, "the wheel's state timings are incomplete"
        return whole(
            revolutions_from_wheel(
                g.state4_at - g.state3_at,
                nmb_threshold=self.nmb_threshold,
                time_scale=self.time_scale,
                reports=g.rim_reports,
            )
        ), "wheel"

    def _compare(self, number: str, rest: tuple[str, ...]) -> str | None:
        strangers = [p for p in rest if p not in self.pockets]
        if strangers:
            return f"the camera reads {', '.join(strangers)}, not a pocket of this wheel"
        if len(rest) != self.balls:
            return (
                f"the camera sees {len(rest)} ball{'s' if len(rest) != 1 else ''} at rest "
                f"({', '.join(rest) or 'none'}), this game throws {self.balls}"
            )
        if number not in rest:
            return f"the wheel says {number}, the camera sees {' and '.join(rest)}"
        return None

    def _hold(self, g: _Game, code: str, detail: str, out: list[Decision]) -> None:
        g.done = "held"
        out.append(Hold(code=code, message=_say(HOLD_REASONS, code, detail)))

    # -- round signals and auto-start ----------------------------------------------------------------

    def _on_signal(self, s: RoundSignal, out: list[Decision]) -> None:
        if s.signal != "round_ended" or s.final_state is None:
            return
        g = self._game
        if g is not None and g.done != s.final_state:
            # the dealer settled a held game (or voided one still waiting): follow the table
            g.done = s.final_state
            if s.final_state == "certified" and s.result is not None:
                numbers = s.result.get("numbers") or [s.result.get("number")]
                g.certified = tuple(str(n) for n in numbers if n is not None)
        self._maybe_start(out)

    def _maybe_start(self, out: list[Decision]) -> None:
        """Auto-start: send the start command once the wheel waits and the last game is settled."""
        s = self._wheel_status
        if not self.auto_start or s is None or s.phase not in ("starting", "winning_number") or s.warnings:
            return
        if self._start_sent == (s.game_counter, s.phase):
            return
        g = self._game
        if (
            s.phase == "winning_number"
            and g is not None
            and g.counter == s.game_counter
            and g.done not in ("certified", "voided")
        ):
            return  # still deciding, or held for the dealer
        self._start_sent = (s.game_counter, s.phase)
        out.append(self._command(self.start_command))

    def _command(self, command: str) -> SendCommand:
        """A command for the wheel: by its role on a table with a camera (the decision may follow a camera
        event, or the dealer settling a round), else to the table's only device."""
        return SendCommand(command=command, device_role=self.wheel_role if self.camera else None)

    def _note_once(self, code: str, detail: str, out: list[Decision]) -> None:
        if code in self._notes_given:
            return
        self._notes_given.add(code)
        out.append(Note(code=code, message=_say(NOTE_REASONS, code, detail)))


def _say(reasons: dict[str, str], code: str, detail: str) -> str:
    return f"{reasons[code]} ({detail})"
