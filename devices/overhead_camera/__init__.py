"""Overhead roulette camera: finds the ball(s) in the pockets of a wheel seen from above (kind ``roulette-camera``).

It speaks the vendor-neutral wheel events of :mod:`devices.events` (``BallLaunched``,
``BallDropped``, ``WheelResult``, ``WheelWarning``), as a wheel does: no event type of its own.

Modules: :mod:`.calibration` (the wheel's geometry and number order), :mod:`.finder` (one frame -> rotor angle and balls; pure),
:mod:`.tracker` (frames -> events: revolutions, balls at rest; pure), :mod:`.source`
(where frames come from), :mod:`.driver` (the driver). See docs/roulette.md.
"""
