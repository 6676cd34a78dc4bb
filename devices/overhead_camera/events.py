"""Typed events of the overhead roulette camera (driver kind ``roulette-camera``).

The camera knows the wheel's geometry and its number order (the technician's
calibration, like a money wheel's tag table) but no game: how many balls a game
throws, whether a spin went round often enough and whether the camera agrees with
the wheel's own number is decided in ``recognition/roulette_variants``.

* :class:`devices.events.BallLaunched` (vendor-neutral, as a wheel reports it): a ball
  entered the ball track.
* :class:`BallSpin`: no ball is left in the track (every ball dropped towards the pockets),
  with the whole revolutions each tracked ball made around the track.
* :class:`BallsAtRest`: the balls lie still in pockets; one pocket label per ball (two
  balls in one pocket give the label twice). Emitted once per settled reading, again
  only when the reading changes.
* :class:`CameraUnreadable`: the frames stopped giving a trustworthy reading (emitted on
  change, after a persistence time): the rotor's number ring not found, a ball on a fret,
  a blob that is not a whole number of balls, no ball to be seen.

A :class:`BallsAtRest` may carry the frame it was read from as JPEG bytes (``image``),
for the dealer's screen and the technician; it is excluded from ``model_dump`` and so
from the journal (a journal of camera frames would be gigabytes a day).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from ..events import BallLaunched, DeviceConnected, DeviceDisconnected, DeviceEvent, DeviceUnknownMessage

__all__ = [
    "CAMERA_EVENT_KINDS",
    "AnyRouletteCameraEvent",
    "BallSpin",
    "BallsAtRest",
    "CameraEvent",
    "CameraUnreadable",
]


class BallSpin(DeviceEvent):
    """The track emptied after a spin (the spin's start is a :class:`devices.events.BallLaunched`).

    ``revolutions``: the whole turns each tracked ball made around the track
    (relative to the stator, where the track is), in the order the balls entered it.
    ``complete``: the camera followed every ball from its entry into the track to its exit
    without a gap (no dropped frames, no ball lost or confused with another); when False
    the counts are lower bounds at best and a judge must not rely on them.
    ``balls``: how many balls were seen in the track at most.
    """

    kind: Literal["roulette_ball_spin"] = "roulette_ball_spin"
    phase: Literal["ended"] = "ended"  # kept so that the journal's records of a spin keep their shape
    balls: int = Field(ge=0)
    revolutions: list[int] = Field(default_factory=list)
    complete: bool = True
    frames: int = Field(0, ge=0, description="frames the spin was followed over")


class BallsAtRest(DeviceEvent):
    """The balls lie still in these pockets (one label per ball, sorted in wheel order).

    ``rotor_angle_cdeg``: the rotor's angle when read, in hundredths of a degree (0-35999),
    ``quality``: how well the number ring matched the calibrated colours, in percent;
    ``settled_ms``: for how long the reading had held.
    """

    kind: Literal["roulette_balls_at_rest"] = "roulette_balls_at_rest"
    pockets: list[str]
    rotor_angle_cdeg: int = Field(ge=0, lt=36000)
    quality: int = Field(ge=0, le=100)
    settled_ms: int = Field(ge=0)
    frames: int = Field(ge=1)
    image: bytes | None = Field(default=None, exclude=True, repr=False)


class CameraUnreadable(DeviceEvent):
    """The camera cannot give a reading it trusts (``reason`` is a code, ``detail`` says more)."""

    kind: Literal["roulette_camera_unreadable"] = "roulette_camera_unreadable"
    reason: Literal["rotor_not_found", "ball_on_fret", "ball_count", "no_ball", "frames_dropped"]
    detail: str = ""


CameraEvent = BallLaunched | BallSpin | BallsAtRest | CameraUnreadable

#: everything the camera driver emits, for parsing journaled events back
AnyRouletteCameraEvent = Annotated[
    BallLaunched
    | BallSpin
    | BallsAtRest
    | CameraUnreadable
    | DeviceConnected
    | DeviceDisconnected
    | DeviceUnknownMessage,
    Field(discriminator="kind"),
]

CAMERA_EVENT_KINDS = frozenset(
    {"ball_launched", "roulette_ball_spin", "roulette_balls_at_rest", "roulette_camera_unreadable"}
)
