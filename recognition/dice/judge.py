"""The dice judge: camera frames in, a certified result or a hold out. Pure (no I/O, no clock).

One judge serves every dice game (Sic Bo, Lightning Dice, Dice Duel, Craps, Bac Bo): the
game says how many dice and which colours (``DiceJudge(game=..., dice=N, colors=...)``),
and turns what was read into its result (``game.make_result``).

How a round goes (the table is dealer-paced):

1. Frames before betting closes are ignored (the table may show them; the judge does not
   read them).
2. After ``RoundSignal("betting_closed")`` the judge waits for the throw: a frame that
   moved (``CameraFrame.moving``, measured by the driver on every frame). Dice lying still
   since before betting closed are never certified (``require_throw``).
3. Once a camera's frames stop moving, each frame is read (:func:`read_dice`). The dice are
   at rest when ``stable_frames`` consecutive frames read "ok", with the same colours and
   faces, every die in the same place (within ``move_tolerance`` die sizes).
4. When every required camera (``cameras``: 1 or 2) is at rest and they agree on the colours
   and faces, the judge decides :class:`ResultReady` with the game's result and a source
   naming the cameras, the frames and the calibrations used.
5. If a camera still has no certain reading ``hold_after_s`` seconds after its dice stopped
   (or a die is missing, cocked, outside the tray, stacked; or the cameras disagree), the
   judge decides :class:`Hold` with a plain message for the dealer and the id of the
   evidence picture (:meth:`DiceJudge.evidence`: the frame annotated with what was seen).
   It does not read that throw again: the dealer re-throws (the next motion releases the
   hold and the judge starts over from step 3), or a supervisor enters the result by hand.
6. A camera that disconnects during the round holds it (``dice_camera_lost``); the hold
   is released by the first throw that camera sees after it is back.

Every time comes from the events (``at``), so the judge can be replayed.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol

import numpy as np

from devices.camera.events import CameraFrame
from devices.events import DeviceConnected, DeviceDisconnected, DeviceEvent
from recognition.game import BaseJudge, Decision, Hold, Note, Release, ResultReady, RoundSignal

from .annotate import annotate, encode_jpeg, encode_png
from .calibration import Calibration, load_calibration
from .stability import RestTracker, Sighting, reading_key, same_place
from .vision import Reading, read_dice

DEVICE_KIND = "dice-camera"

#: hold codes and what the dealer is told
HOLD_TEXT: dict[str, str] = {
    "dice_cocked": "A die is cocked (not lying flat). Re-throw the dice.",
    "dice_outside": "A die is outside the tray. Re-throw the dice.",
    "dice_missing": "A die is missing (not seen in the tray). Find it and re-throw the dice.",
    "dice_stacked": "Dice are stacked or leaning on each other. Re-throw the dice.",
    "dice_colors": "The dice are not the colours this game uses. Check the dice and re-throw.",
    "dice_exposure": "The camera picture is too dark or too bright. Call a technician, then re-throw.",
    "dice_unreadable": "The camera cannot read the dice with certainty. Re-throw the dice, "
    "or a supervisor enters the result.",
    "dice_cameras_disagree": "The two cameras read different results. Re-throw the dice, "
    "or a supervisor enters the result.",
    "dice_camera_lost": "A dice camera stopped sending pictures. When it is back, re-throw the dice.",
    "dice_invalid": "The dice read do not make a result of this game. Check the dice and re-throw.",
}

#: which hold a reading's problem leads to, most important first
_ISSUE_HOLDS: tuple[tuple[str, str], ...] = (
    ("exposure", "dice_exposure"),
    ("outside", "dice_outside"),
    ("stacked", "dice_stacked"),
    ("cocked", "dice_cocked"),
    ("missing", "dice_missing"),
    ("partial", "dice_missing"),
    ("colors", "dice_colors"),
)

#: settings this judge understands (the others a game or table passes along are ignored)
SETTINGS = (
    "game",
    "dice",
    "colors",
    "cameras",
    "calibration",
    "calibrations",
    "stable_frames",
    "hold_after_s",
    "move_tolerance",
    "require_throw",
    "evidence_keep",
    "min_confidence",
)


class Evidence:
    """A frame kept to show the dealer why the judge held: the picture with what was seen drawn on it.

    The drawing is made when the picture is first asked for (``image``, ``png()``, ``jpeg()``), not when
    the judge holds: the judge's bookkeeping on the event loop stays cheap.
    """

    __slots__ = (
        "_image",
        "at",
        "code",
        "device_id",
        "evidence_id",
        "frame",
        "frame_number",
        "message",
        "reading",
        "title",
    )

    def __init__(
        self,
        evidence_id: str,
        device_id: str,
        frame_number: int,
        at: datetime,
        code: str,
        message: str,
        reading: Reading,
        frame: np.ndarray,
        title: str | None = None,
    ) -> None:
        self.evidence_id = evidence_id
        self.device_id = device_id
        self.frame_number = frame_number
        self.at = at
        self.code = code
        self.message = message
        self.reading = reading
        self.frame = frame  # the camera's picture as it was (never drawn on)
        self.title = title
        self._image: np.ndarray | None = None

    @property
    def image(self) -> np.ndarray:
        """The frame annotated with the tray, each die (outline, face, colour, confidence, problem), the issues."""
        if self._image is None:
            self._image = annotate(self.frame, self.reading, self.title)
        return self._image

    def png(self) -> bytes:
        return encode_png(self.image)

    def jpeg(self, quality: int = 85) -> bytes:
        return encode_jpeg(self.image, quality)

    def as_json(self) -> dict[str, Any]:
        return {
            "evidence_id": self.evidence_id,
            "device_id": self.device_id,
            "frame_number": self.frame_number,
            "at": self.at.isoformat(),
            "code": self.code,
            "message": self.message,
            "reading": self.reading.as_json(),
        }

    def __repr__(self) -> str:
        return f"Evidence({self.evidence_id!r}, {self.code!r})"


@dataclass(frozen=True)
class PreparedFrame:
    """What :meth:`DiceJudge.prepare` made of a camera frame: the frame and its reading (None: not read,
    e.g. the picture moves). Handed to :meth:`DiceJudge.feed` on the event loop."""

    event: CameraFrame
    reading: Reading | None


@dataclass
class _Camera:
    device_id: str
    calibration: Calibration | None
    tracker: RestTracker
    noted: bool = False
    lost: bool = False
    thrown: bool = False
    rest_since: datetime | None = None
    stable: tuple[Sighting, ...] | None = None
    last: tuple[CameraFrame, Reading] | None = None
    frames_read: int = 0


def _hold_code(reading: Reading) -> str:
    codes = {i.code for i in reading.issues}
    for issue, hold in _ISSUE_HOLDS:
        if issue in codes:
            return hold
    return "dice_unreadable"


class DiceRules(Protocol):
    """What the judge asks of a dice game: the result of a throw (faces, or faces by colour)."""

    def make_result(self, dice: Any) -> dict[str, Any]: ...


class DiceJudge(BaseJudge):
    """Turns dice camera frames (and the table's round signals) into round decisions; see the module text."""

    def __init__(
        self,
        *,
        game: DiceRules | None = None,
        dice: int = 3,
        colors: Sequence[str] | None = None,
        cameras: int = 1,
        calibration: Calibration | Mapping[str, Any] | str | None = None,
        calibrations: Mapping[str, Calibration | Mapping[str, Any] | str] | None = None,
        stable_frames: int = 3,
        hold_after_s: float = 3.0,
        move_tolerance: float = 0.25,
        require_throw: bool = True,
        evidence_keep: int = 8,
        min_confidence: float | None = None,
        **ignored: Any,
    ) -> None:
        """
        game: the game's rules; its ``make_result(faces or faces by colour)`` builds the result.
        dice: how many dice are thrown. colors: the colour of each die (e.g. ["red", "blue"]); None: any,
            all of one kind (the result is then ``{"dice": [sorted faces]}`` unless the game says otherwise).
        cameras: how many cameras must read the throw and agree (1 or 2).
        calibration: the calibration for every camera (a Calibration, its dict or JSON); calibrations:
            per camera, keyed by device id ("table/camera-1") or role ("camera-1").
        stable_frames: consecutive sampled frames that must read the same at rest.
        hold_after_s: how long the dice may lie still without a certain reading before the round is held.
        move_tolerance: how far (in die sizes) a die may seem to move between frames and still be at rest.
        require_throw: certify only dice that were seen moving after betting closed.
        evidence_keep: how many evidence pictures are kept (the oldest go first).
        min_confidence: overrides the calibration's minimum confidence per die.
        """
        if not 1 <= int(dice) <= 12:
            raise ValueError("dice must be 1..12")
        if colors is not None and len(colors) != dice:
            raise ValueError(f"colors must name one colour per die ({dice}), not {list(colors)!r}")
        if cameras not in (1, 2):
            raise ValueError("cameras must be 1 or 2")
        if stable_frames < 1 or hold_after_s <= 0 or move_tolerance <= 0:
            raise ValueError("stable_frames, hold_after_s and move_tolerance must be positive")
        self.game = game
        self.dice = int(dice)
        self.colors = tuple(colors) if colors is not None else None
        self.cameras_required = cameras
        self.stable_frames = stable_frames
        self.hold_after = timedelta(seconds=hold_after_s)
        self.move_tolerance = move_tolerance
        self.require_throw = require_throw
        self.evidence_keep = max(1, evidence_keep)
        self.min_confidence = min_confidence
        self.ignored_settings = sorted(ignored)
        self._default_cal = self._calibration(calibration)
        self._cals = {k: self._calibration(v) for k, v in (calibrations or {}).items()}
        self._cams: dict[str, _Camera] = {}
        self._evidence: OrderedDict[str, Evidence] = OrderedDict()
        self._armed = False
        self._armed_at: datetime | None = None
        self._round: int | None = None
        self._done = False  # held (or certified): nothing more until a re-throw
        self._certified = False  # the round has its result: nothing more until the next round
        self._held: set[str] = set()
        self._lost_hold = False
        self._digests: dict[int, str] = {}

    def _calibration(self, value: Calibration | Mapping[str, Any] | str | None) -> Calibration | None:
        if value is None:
            return None
        cal = value if isinstance(value, Calibration) else load_calibration(value)  # type: ignore[arg-type]
        if self.min_confidence is not None:
            cal = cal.model_copy(update={"min_confidence": self.min_confidence})
        return cal

    def calibration_for(self, device_id: str) -> Calibration | None:
        role = device_id.partition("/")[2]
        return self._cals.get(device_id) or self._cals.get(role) or self._default_cal

    # -- evidence ----------------------------------------------------------------------------------

    def evidence(self, evidence_id: str) -> Evidence | None:
        """The annotated picture behind a hold message ("picture <id>"), while it is kept."""
        return self._evidence.get(evidence_id)

    @property
    def evidence_ids(self) -> list[str]:
        return list(self._evidence)

    def _keep(self, ev: Evidence) -> None:
        self._evidence[ev.evidence_id] = ev
        while len(self._evidence) > self.evidence_keep:
            self._evidence.popitem(last=False)

    # -- entry ---------------------------------------------------------------------------------------

    def prepare(self, event: Any) -> Any:
        """The heavy part of :meth:`feed`, for a worker thread: read the dice of a camera frame.

        Pure and thread-safe: it reads only the judge's fixed settings (dice, colours, calibrations) and
        changes nothing. A still frame with a picture is read (whether the round will use it is decided
        by :meth:`feed`); anything else is handed back as it is. ``feed(prepare(e))`` decides exactly
        what ``feed(e)`` decides.
        """
        if isinstance(event, CameraFrame) and event.image is not None and not event.moving:
            reading = read_dice(
                event.image, self.calibration_for(event.device_id), expected=self.dice, colors=self.colors
            )
            return PreparedFrame(event, reading)
        return event

    def feed(self, event: DeviceEvent | RoundSignal | PreparedFrame) -> list[Decision]:
        """One event (raw, or as :meth:`prepare` returned it) in, the decisions it leads to out."""
        out: list[Decision] = []
        if isinstance(event, PreparedFrame):
            self._on_frame(event.event, out, event.reading)
        elif isinstance(event, RoundSignal):
            self._on_signal(event, out)
        elif isinstance(event, CameraFrame):
            self._on_frame(event, out)
        elif isinstance(event, DeviceDisconnected):
            self._on_lost(event, out)
        elif isinstance(event, DeviceConnected):
            cam = self._cam(event.device_id)
            cam.lost = False
        return out

    def _cam(self, device_id: str) -> _Camera:
        cam = self._cams.get(device_id)
        if cam is None:
            cam = _Camera(
                device_id,
                self.calibration_for(device_id),
                RestTracker(self.stable_frames, self.move_tolerance),
            )
            cam.thrown = self._armed and not self.require_throw
            self._cams[device_id] = cam
        return cam

    # -- the round -----------------------------------------------------------------------------------

    def _on_signal(self, s: RoundSignal, out: list[Decision]) -> None:
        if s.signal == "round_opened" or s.signal == "round_ended":
            self._armed = False
            self._done = False
            self._certified = False
            self._held.clear()
            self._lost_hold = False
            self._round = s.round_number
            for cam in self._cams.values():
                self._reset(cam)
        elif s.signal == "betting_closed":
            self._armed = True
            self._armed_at = s.at
            self._done = False
            self._certified = False
            self._round = s.round_number
            for cam in self._cams.values():
                self._reset(cam)
                cam.thrown = not self.require_throw
            if any(c.lost for c in self._cams.values()):
                self._hold_lost(
                    [c.device_id for c in self._cams.values() if c.lost], "lost before betting closed", out
                )

    def _reset(self, cam: _Camera) -> None:
        cam.thrown = False
        cam.rest_since = None
        cam.stable = None
        cam.tracker.reset()

    def _on_lost(self, e: DeviceDisconnected, out: list[Decision]) -> None:
        cam = self._cam(e.device_id)
        cam.lost = True
        if not self._armed or self._certified:
            return  # before betting closed the table pauses by itself; after a result nothing is at stake
        for c in self._cams.values():  # nobody saw what happened meanwhile: everyone needs a fresh throw
            self._reset(c)
        self._done = False
        self._hold_lost([e.device_id], e.reason, out)

    def _hold_lost(self, devices: list[str], why: str, out: list[Decision]) -> None:
        if self._lost_hold:
            return
        self._lost_hold = True
        self._held.add("dice_camera_lost")
        out.append(
            Hold(
                code="dice_camera_lost",
                message=f"{HOLD_TEXT['dice_camera_lost']} ({', '.join(devices)}: {why})",
            )
        )

    def _on_frame(self, f: CameraFrame, out: list[Decision], prepared: Reading | None = None) -> None:
        cam = self._cam(f.device_id)
        cam.lost = False
        if not cam.noted:
            cam.noted = True
            out.append(Note(code="dice_calibration", message=self._calibration_note(cam)))
        if not self._armed or self._certified or f.image is None:
            return
        if self._armed_at is not None and f.at < self._armed_at:
            return  # taken before betting closed
        if f.moving:
            self._on_motion(cam, out)
            return
        if not cam.thrown or self._done:
            return
        if cam.rest_since is None:
            cam.rest_since = f.at
        reading = (
            prepared
            if prepared is not None
            else read_dice(f.image, cam.calibration, expected=self.dice, colors=self.colors)
        )
        cam.frames_read += 1
        cam.last = (f, reading)
        run = cam.tracker.add(Sighting(f.frame_number, f.at, reading))
        if run is not None:
            cam.stable = run
        elif cam.stable is not None and (
            not reading.ok
            or reading_key(reading) != reading_key(cam.stable[-1].reading)
            or not same_place(cam.stable[-1].reading, reading, self.move_tolerance)
        ):
            cam.stable = None  # what was at rest is not any more
        self._decide(f, out)

    def _on_motion(self, cam: _Camera, out: list[Decision]) -> None:
        """The dice (or a hand) moved: a throw. What was held for the last throw is released."""
        self._reset(cam)
        cam.thrown = True
        if self._lost_hold and any(c.lost for c in self._cams.values()):
            return  # a camera is still away: the throw it misses cannot be certified
        if self._held:
            for code in sorted(self._held):
                out.append(Release(code=code))
            self._held.clear()
            self._lost_hold = False
        if self._done:
            # a new throw after a hold: read it afresh (after a certified result the round is over)
            self._done = False
        for other in self._cams.values():
            if other is not cam and not other.thrown:
                other.thrown = True  # one throw for every camera
                self._reset_keep_throw(other)

    def _reset_keep_throw(self, cam: _Camera) -> None:
        cam.rest_since = None
        cam.stable = None
        cam.tracker.reset()

    # -- deciding -------------------------------------------------------------------------------------

    def _decide(self, f: CameraFrame, out: list[Decision]) -> None:
        if self._lost_hold:
            return
        active = [c for c in self._cams.values() if not c.lost]
        stable = [c for c in active if c.stable is not None]
        if len(stable) >= self.cameras_required:
            chosen = stable  # every camera at rest must agree, even beyond the number required
            keys = {reading_key(c.stable[-1].reading) for c in chosen}  # type: ignore[index]
            if len(keys) == 1:
                self._certify(chosen, out)
                return
            self._hold_disagree(chosen, out)
            return
        # not yet: too long at rest without a certain reading?
        waiting = [c for c in active if c.thrown and c.rest_since is not None and c.stable is None]
        late = [c for c in waiting if f.at - c.rest_since >= self.hold_after]  # type: ignore[operator]
        missing_cams = self.cameras_required - len(active)
        if late:
            worst = max(late, key=lambda c: (c.last is not None and not c.last[1].ok, f.at - c.rest_since))  # type: ignore[operator]
            self._hold_reading(worst, out)
        elif missing_cams > 0 and stable and f.at - min(c.rest_since for c in stable) >= self.hold_after:  # type: ignore[misc, type-var, operator]
            self._held.add("dice_unreadable")
            self._done = True
            out.append(
                Hold(
                    code="dice_unreadable",
                    message=f"{HOLD_TEXT['dice_unreadable']} (only {len(active)} of the "
                    f"{self.cameras_required} cameras sends pictures)",
                )
            )

    def _certify(self, cams: list[_Camera], out: list[Decision]) -> None:
        reading = cams[0].stable[-1].reading  # type: ignore[index]
        try:
            result = self._result(reading)
        except ValueError as exc:
            ev = self._save(cams[0], "dice_invalid", str(exc))
            self._held.add("dice_invalid")
            self._done = True
            out.append(
                Hold(code="dice_invalid", message=f"{HOLD_TEXT['dice_invalid']} ({exc}; picture {ev})")
            )
            return
        self._done = True
        self._certified = True
        source: dict[str, Any] = {
            "device_id": cams[0].device_id,
            "kind": DEVICE_KIND,
            "cameras": [
                {
                    "device_id": c.device_id,
                    "frames": [s.frame_number for s in c.stable],  # type: ignore[union-attr]
                    "calibration": self._cal_id(c),
                    "confidence_permille": round(1000 * min(s.reading.confidence for s in c.stable)),  # type: ignore[union-attr]
                }  # type: ignore[union-attr]
                for c in cams
            ],
            "read": [{"face": d.face, "color": d.color} for d in reading.dice],
        }
        out.append(ResultReady(result=result, source=source))

    def _result(self, reading: Reading) -> dict[str, Any]:
        if self.colors is not None:
            by = reading.by_color()
            if self.game is not None:
                return self.game.make_result(by)
            return {c: (v[0] if len(v) == 1 else v) for c, v in by.items()}
        if self.game is not None:
            return self.game.make_result(reading.faces)
        return {"dice": reading.faces}

    def _hold_reading(self, cam: _Camera, out: list[Decision]) -> None:
        assert cam.last is not None
        f, reading = cam.last
        code = _hold_code(reading)
        seen = reading.summary()
        ev = self._save(cam, code, seen)
        self._held.add(code)
        self._done = True
        out.append(
            Hold(
                code=code,
                message=f"{HOLD_TEXT[code]} Seen by {cam.device_id}: {seen} "
                f"(frame {f.frame_number}; picture {ev})",
            )
        )

    def _hold_disagree(self, cams: list[_Camera], out: list[Decision]) -> None:
        parts, ids = [], []
        for c in cams:
            r = c.stable[-1].reading  # type: ignore[index]
            parts.append(f"{c.device_id} read {', '.join(f'{d.color} {d.face}' for d in r.dice)}")
            ids.append(self._save(c, "dice_cameras_disagree", parts[-1]))
        self._held.add("dice_cameras_disagree")
        self._done = True
        out.append(
            Hold(
                code="dice_cameras_disagree",
                message=f"{HOLD_TEXT['dice_cameras_disagree']} "
                f"({'; '.join(parts)}; pictures {', '.join(ids)})",
            )
        )

    def _save(self, cam: _Camera, code: str, message: str) -> str:
        assert cam.last is not None
        f, reading = cam.last
        evidence_id = f.frame_id
        title = f"{cam.device_id} frame {f.frame_number} round {self._round}: {code}"
        self._keep(
            Evidence(evidence_id, cam.device_id, f.frame_number, f.at, code, message, reading, f.image, title)
        )
        return evidence_id

    # -- words ------------------------------------------------------------------------------------------

    def _cal_id(self, cam: _Camera) -> str:
        cal = cam.calibration
        if cal is None:
            return "none"
        key = id(cal)
        if key not in self._digests:
            self._digests[key] = f"v{cal.version}/{cal.digest()}"
        return self._digests[key]

    def _calibration_note(self, cam: _Camera) -> str:
        cal = cam.calibration
        what = (
            f"calibration {cal.camera or 'for all cameras'} version {cal.version} (digest {cal.digest()})"
            if cal is not None
            else "no calibration (the whole frame is searched, sizes are estimated)"
        )
        text = f"{cam.device_id} reads {self.dice} dice with {what}"
        if self.ignored_settings:
            text += f"; settings not for the dice judge: {', '.join(self.ignored_settings)}"
        return text
