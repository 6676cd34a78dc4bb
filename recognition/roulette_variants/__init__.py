"""Roulette variants beyond the single-ball wheels of recognition/roulette.py (docs/roulette.md).

* :mod:`.lightning` - Lightning Roulette: lucky numbers and their payouts, drawn by the studio.
* :mod:`.double_ball` - Double Ball Roulette: two balls, read by the overhead camera.
* :mod:`.spin_validity` - did the ball go round often enough (from the wheel's timings or the camera).
* :mod:`.table_judge` - the judge of a roulette table with a camera, a revolution check or auto-start.

The package itself imports nothing, so that recognition/roulette.py can import the judge.
"""
