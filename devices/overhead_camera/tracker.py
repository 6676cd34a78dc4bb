"""Frame readings in, camera events out: the ball's revolutions and the balls at rest. Pure.

:class:`BallTracker` is fed one :class:`devices.overhead_camera.finder.Reading` per frame
with the frame's time (seconds, any monotonic clock: the sender's capture time, or a
recording's frame position) and the wall-clock time to stamp events with. No I/O.

* **Spin.** The first frame with a ball in the track starts a spin: the vendor-neutral
  :class:`devices.events.BallLaunched`, as a wheel driver reports a launch.
  Each ball in the track is followed from frame to frame: its angle is unwrapped using
  its predicted step (angle + speed x time), so a ball may move up to ~170 degrees between
  two frames; its travel against the stator, in whole turns, is its revolution count.
  When the track has been empty for ``end_s`` the spin ends (``BallDropped``). The
  count is marked incomplete when a frame came more than ``max_gap_s`` after the previous
  one, a ball jumped further than its prediction allows, a ball turned back, or the
  tracks could not be told apart; a judge then ignores it.
* **At rest.** When no ball is in the track or falling, every ball lies in a pocket that
  the finder could name, and the same pockets were read for ``settle_s`` (at least 3
  frames), a ``WheelResult`` (every ball's pocket, no game number, the evidence) is emitted
  once; again only when the reading changes, or after the next spin.
* **Unreadable.** A problem that lasts ``unreadable_s`` (no rotor found, a ball on a fret,
  a blob that is not a whole number of balls, no ball to be seen after a spin) is reported
  once (a ``WheelWarning`` with the problem's neutral code) until a good reading clears it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from ..events import BallDropped, BallLaunched, DeviceEvent, WheelResult, WheelWarning, WheelWarningCode
from .finder import Reading

__all__ = ["BallTracker"]


def _wrap(deg: float) -> float:
    """An angle difference in (-180, 180]."""
    d = (deg + 180.0) % 360.0 - 180.0
    return 180.0 if d == -180.0 else d


@dataclass
class _Track:
    raw: float  # the last picture angle seen
    t: float
    travelled: float = 0.0  # signed degrees since it entered the track
    speed: float = 0.0  # degrees per second, signed
    frames: int = 1
    steps: int = 0
    done: bool = False  # left the track
    broken: str | None = None


@dataclass
class _Spin:
    started_t: float
    tracks: list[_Track] = field(default_factory=list)
    empty_since: float | None = None
    frames: int = 0
    problem: str | None = None
    max_balls: int = 0
    rotor_last: float | None = None
    rotor_travel: float = 0.0  # the rotor's own travel while the balls ran (signed degrees)


class BallTracker:
    """One camera's frame readings -> :mod:`devices.overhead_camera.events` events."""

    def __init__(
        self,
        device_id: str,
        order: Sequence[str],
        *,
        clockwise: bool = True,
        settle_s: float = 0.5,
        end_s: float = 0.2,
        unreadable_s: float = 1.0,
        max_gap_s: float = 0.25,
        max_jump_deg: float = 40.0,
        max_step_deg: float = 170.0,
    ) -> None:
        if settle_s < 0 or end_s < 0 or unreadable_s < 0 or max_gap_s <= 0:
            raise ValueError("the tracker's times are positive durations in seconds")
        self.device_id = device_id
        #: the finder's rotor angle runs in the calibrated order's direction: picture angles go the
        #: same way for a camera that sees the wheel clockwise, the other way for a mirrored one
        self._picture = 1.0 if clockwise else -1.0
        self._index = {p: i for i, p in enumerate(order)}
        self.settle_s, self.end_s, self.unreadable_s = settle_s, end_s, unreadable_s
        self.max_gap_s, self.max_jump_deg, self.max_step_deg = max_gap_s, max_jump_deg, max_step_deg
        self._last_t: float | None = None
        self._spin: _Spin | None = None
        self._candidate: tuple[str, ...] | None = None
        self._candidate_since = 0.0
        self._candidate_frames = 0
        self._emitted: tuple[str, ...] | None = None
        self._problem: tuple[WheelWarningCode, str] | None = None
        self._problem_since = 0.0
        self._problem_emitted: str | None = None
        self._seen_ball = False
        self._rotor: tuple[float, float] | None = None  # (angle, t) of the last frame that found it
        self._rotor_speed = 0.0  # degrees per second, signed, smoothed
        self.last_rest: WheelResult | None = None

    @property
    def spinning(self) -> bool:
        return self._spin is not None

    def reset(self) -> None:
        """The source was reopened: what the frames showed before says nothing about the next ones."""
        self._last_t = None
        self._spin = None
        self._candidate = None
        self._problem = None

    def update(
        self, reading: Reading, t: float, at: datetime, image: bytes | None = None
    ) -> list[DeviceEvent]:
        out: list[DeviceEvent] = []
        gap = None if self._last_t is None else t - self._last_t
        self._last_t = t
        self._seen_ball = self._seen_ball or bool(reading.balls)
        if reading.rotor_deg is not None:
            if self._rotor is not None and t > self._rotor[1] and gap is not None and gap <= self.max_gap_s:
                speed = self._picture * _wrap(reading.rotor_deg - self._rotor[0]) / (t - self._rotor[1])
                self._rotor_speed = 0.8 * self._rotor_speed + 0.2 * speed if self._rotor_speed else speed
            self._rotor = (reading.rotor_deg, t)
        self._follow_spin(reading, t, gap, at, out)
        self._rest(reading, t, at, image, out)
        return out

    # -- the spin ---------------------------------------------------------------------------

    def _follow_spin(
        self, reading: Reading, t: float, gap: float | None, at: datetime, out: list[DeviceEvent]
    ) -> None:
        in_track = [b.angle_deg for b in reading.balls if b.zone == "track"]
        spin = self._spin
        if spin is None:
            if not in_track:
                return
            spin = self._spin = _Spin(started_t=t, rotor_last=reading.rotor_deg)
            spin.tracks = [_Track(raw=a, t=t) for a in in_track]
            spin.max_balls = len(in_track)
            spin.frames = 1
            self._emitted = None  # the next reading at rest is new, even in the same pocket
            self._candidate = None
            out.append(BallLaunched(device_id=self.device_id, at=at, balls=len(in_track)))
            return
        spin.frames += 1
        if reading.rotor_deg is not None:
            if spin.rotor_last is not None:
                spin.rotor_travel += self._picture * _wrap(reading.rotor_deg - spin.rotor_last)
            spin.rotor_last = reading.rotor_deg
        if gap is not None and gap > self.max_gap_s:
            spin.problem = spin.problem or f"a gap of {gap * 1000:.0f} ms between frames"
        self._associate(spin, in_track, t)
        spin.max_balls = max(spin.max_balls, len(in_track))
        if in_track:
            spin.empty_since = None
            return
        if spin.empty_since is None:
            spin.empty_since = t
        if t - spin.empty_since >= self.end_s:
            self._spin = None
            problems = [tr.broken for tr in spin.tracks if tr.broken] + (
                [spin.problem] if spin.problem else []
            )
            directions = {tr.travelled > 0 for tr in spin.tracks}
            if len(directions) > 1 or any(tr.steps < 2 for tr in spin.tracks):
                problems.append("the balls did not all run the same way round, or too briefly to tell")
            elif (
                spin.tracks
                and abs(spin.rotor_travel) > 5
                and (spin.tracks[0].travelled > 0) == (spin.rotor_travel > 0)
            ):
                # a ball runs against the rotor: the same way means a miss-spin, or a count gone wrong
                problems.append("the balls seemed to run the same way as the rotor")
            out.append(
                BallDropped(
                    device_id=self.device_id,
                    at=at,
                    balls=spin.max_balls,
                    revolutions=tuple(int(abs(tr.travelled) // 360) for tr in spin.tracks),
                    complete=not problems and len(spin.tracks) == spin.max_balls,
                    frames=spin.frames,
                )
            )

    def _associate(self, spin: _Spin, angles: list[float], t: float) -> None:
        """Match this frame's balls in the track to the followed ones, nearest to their prediction.

        A match must be unambiguous: the chosen ball at most half as far from the prediction
        as any other ball (two balls half a turn apart, each moving 100 degrees a frame, are
        not); otherwise the count is marked incomplete rather than risk swapping two balls.
        """
        live = [tr for tr in spin.tracks if not tr.done]
        free = list(angles)
        pairs: list[tuple[float, int, int]] = []
        # a ball's first step has no speed to predict it: it must go against the rotor, as thrown balls do
        against = -1.0 if self._rotor_speed > 5 else 1.0 if self._rotor_speed < -5 else 0.0
        for i, tr in enumerate(live):
            predicted = tr.raw + tr.speed * (t - tr.t)
            dists = []
            for j, a in enumerate(free):
                step = _wrap(a - predicted)
                if tr.steps == 0 and against and step * against < 0 and abs(step) > 10:
                    continue
                dists.append(abs(step))
                pairs.append((abs(step), i, j))
            dists.sort()
            if len(dists) >= 2 and dists[0] > 0.5 * dists[1]:
                spin.problem = spin.problem or "two balls in the track could not be told apart"
        pairs.sort()
        used_t: set[int] = set()
        used_a: set[int] = set()
        for dist, i, j in pairs:
            if i in used_t or j in used_a:
                continue
            tr = live[i]
            if dist > self.max_jump_deg and tr.steps >= 1:
                continue  # too far from where this ball should be: not this ball
            used_t.add(i)
            used_a.add(j)
            self._step(tr, free[j], t)
        for i, tr in enumerate(live):
            if i not in used_t:
                tr.done = True  # dropped out of the track (or lost: another ball would then be new)
        for j, a in enumerate(free):
            if j not in used_a:
                if spin.tracks:
                    spin.problem = spin.problem or "a ball appeared in the track after the spin began"
                spin.tracks.append(_Track(raw=a, t=t))

    def _step(self, tr: _Track, angle: float, t: float) -> None:
        dt = t - tr.t
        predicted = tr.speed * dt
        # the step closest to the prediction among angle + k x 360
        raw = _wrap(angle - tr.raw)
        step = raw + 360.0 * round((predicted - raw) / 360.0)
        if tr.steps >= 1:
            if abs(step - predicted) > self.max_jump_deg:
                tr.broken = tr.broken or f"a ball jumped {abs(step - predicted):.0f} degrees from its course"
            elif tr.speed and step * tr.speed < 0 and abs(step) > 3:
                tr.broken = tr.broken or "a ball turned back in the track"
        elif abs(step) > self.max_step_deg:
            tr.broken = tr.broken or "the first step was too long to be sure of its direction"
        tr.travelled += step
        if dt > 0:
            tr.speed = step / dt
        tr.raw, tr.t = angle, t
        tr.frames += 1
        tr.steps += 1

    # -- at rest ------------------------------------------------------------------------------

    def _rest(
        self, reading: Reading, t: float, at: datetime, image: bytes | None, out: list[DeviceEvent]
    ) -> None:
        problem = self._problem_of(reading)
        if problem is not None:
            self._candidate = None
            self._track_problem(problem, t, at, out)
            return
        labels = [b.pocket for b in reading.balls]
        if self._spin is not None or not labels or any(b.zone != "pockets" for b in reading.balls):
            self._candidate = None
            self._problem = None  # moving: nothing to read yet, nothing wrong yet
            return
        key = tuple(sorted((str(p) for p in labels), key=lambda p: self._index.get(p, len(self._index))))
        if key != self._candidate:
            self._candidate, self._candidate_since, self._candidate_frames = key, t, 1
        else:
            self._candidate_frames += 1
        self._problem = None
        self._problem_emitted = None
        if (
            key != self._emitted
            and self._candidate_frames >= 3
            and t - self._candidate_since >= self.settle_s
        ):
            self._emitted = key
            assert reading.rotor_deg is not None
            event = WheelResult(
                device_id=self.device_id,
                at=at,
                number=key[0],
                numbers=key if len(key) > 1 else (),
                rotor_angle_cdeg=round(reading.rotor_deg * 100) % 36000,
                quality=max(0, min(100, reading.quality)),
                settled_ms=round((t - self._candidate_since) * 1000),
                frames=self._candidate_frames,
                image=image,
            )
            self.last_rest = event
            out.append(event)

    def _problem_of(self, reading: Reading) -> tuple[WheelWarningCode, str] | None:
        if reading.blob_problem is not None:
            return "ball_count", reading.blob_problem
        if self._spin is not None:
            return None
        if reading.rotor_deg is None and any(b.zone == "pockets" for b in reading.balls):
            return (
                "rotor_not_found",
                f"the number ring matched {reading.quality}% (margin {reading.margin:.1f})",
            )
        if reading.rotor_deg is None and not reading.balls:
            return "rotor_not_found", f"the number ring matched {reading.quality}% and no ball is in sight"
        on_fret = [b for b in reading.balls if b.zone == "pockets" and b.on_fret]
        if on_fret and all(b.zone == "pockets" for b in reading.balls):
            return "ball_on_fret", f"a ball at {on_fret[0].angle_deg:.1f} degrees lies on a fret"
        if not reading.balls and self._seen_ball:
            return "no_ball", "no ball in sight"
        return None

    def _track_problem(
        self, problem: tuple[WheelWarningCode, str], t: float, at: datetime, out: list[DeviceEvent]
    ) -> None:
        if self._problem is None or self._problem[0] != problem[0]:
            self._problem, self._problem_since = problem, t
        if t - self._problem_since >= self.unreadable_s and self._problem_emitted != problem[0]:
            self._problem_emitted = problem[0]
            out.append(WheelWarning(device_id=self.device_id, at=at, code=problem[0], description=problem[1]))
