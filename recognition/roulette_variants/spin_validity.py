"""How many times did the ball go round the track? Pure arithmetic on exact numbers.

A spin counts only if the ball completed a minimum number of revolutions in the ball
track (a common regulatory rule; the table's ``min_ball_revolutions``, default 4).
Two independent estimates:

* **The camera** follows the ball from the frame it enters the track to the frame it
  leaves it and counts whole turns against the stator (:class:`devices.events.BallDropped`).
  That is a direct observation, used whenever the camera followed the whole spin.
* **The wheel's timings.** An automated wheel reports ``ball_in_rim`` after it has seen the
  ball go round once, and ``no_more_bets`` when the ball's revolution time has grown to its
  no-more-bets threshold (n / 2048 s; 2920 by default, 1.43 s; docs/roulette.md).
  While in ``ball_in_rim`` each revolution is therefore shorter than the threshold, so the
  ball made at least ``1 + t3 / (n / 2048)`` revolutions by the time ``no_more_bets`` began,
  where t3 is how long ``ball_in_rim`` lasted. What it does after "no more bets" (up to ~3.5
  more turns) is not counted: the estimate is a lower bound, so it can void a good spin that
  was very short but never pass a short one. The real capture's games (7-8 s in the rim)
  give 5.9-6.6.

Times come from the events (``at``), never from a clock. ``time_scale`` says how many real
seconds one second of event time is: 1 for a real wheel; a simulator run at ``speed`` N
compresses time N-fold, so its tables set ``wheel_time_scale = N``.

An event's ``at`` is when we read its line, and a starved reader reads late: two lines read in one go
get nearly one time, and a valid spin would be void. A wheel that reports on its own clock (its
automatic status, every 500 ms) also says how many reports it sent in ``ball_in_rim`` (k): its first
``no_more_bets`` report then came k periods after its first ``ball_in_rim`` report, and the phase lasted
more than k - 1 periods. The read times are held to that window of the wheel's own time, so lateness
on our side moves the estimate by at most one period, in either direction.
"""

from __future__ import annotations

from datetime import timedelta
from fractions import Fraction

#: the wheel's default no-more-bets threshold, in 1/2048 s per ball revolution
DEFAULT_NMB_THRESHOLD = 2920
#: the common regulatory minimum of ball revolutions for a valid spin
DEFAULT_MIN_REVOLUTIONS = 4


def exact(value: float | str | Fraction, what: str) -> Fraction:
    """A setting as an exact positive fraction ("2.5", 2.5, "5/2" and 5/2 are all 5/2)."""
    if isinstance(value, bool):
        raise ValueError(f"{what} must be a positive number, not {value!r}")
    try:
        f = Fraction(str(value)) if isinstance(value, float) else Fraction(value)
    except (TypeError, ValueError, ZeroDivisionError):
        raise ValueError(f"{what} must be a positive number, not {value!r}") from None
    if f <= 0:
        raise ValueError(f"{what} must be a positive number, not {value!r}")
    return f


def seconds(d: timedelta) -> Fraction:
    """A duration as exact seconds."""
    return Fraction(d // timedelta(microseconds=1), 1_000_000)


def revolutions_from_wheel(
    state3: timedelta,
    *,
    nmb_threshold: int = DEFAULT_NMB_THRESHOLD,
    time_scale: Fraction = Fraction(1),
    reports: tuple[int, Fraction] | None = None,
) -> Fraction:
    """The least number of revolutions a ball made whose wheel stayed ``state3`` in ``ball_in_rim``.

    ``1 + t3 / (nmb_threshold / 2048)``, with t3 in real seconds (event time x ``time_scale``).
    ``reports``: (k, period in seconds) when the wheel said it sent k reports in ``ball_in_rim``; t3 is
    then held within ((k - 1) x period, k x period), the wheel's own time.
    """
    if nmb_threshold <= 0:
        raise ValueError("the no-more-bets threshold is a positive number of 1/2048 s")
    t3 = max(seconds(state3), Fraction(0)) * time_scale
    if reports is not None:
        k, period = reports
        if k < 1 or period <= 0:
            raise ValueError(
                f"a wheel's reports are a count of at least 1 at a positive period, not {reports}"
            )
        t3 = min(max(t3, (k - 1) * period), k * period)
    return 1 + t3 * 2048 / nmb_threshold


def whole(revolutions: Fraction) -> int:
    """Whole revolutions (rounded down): what is reported and compared with the minimum."""
    return revolutions.numerator // revolutions.denominator
