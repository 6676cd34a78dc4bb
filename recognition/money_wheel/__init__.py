"""Money wheels: calibration, spin analysis, the judge and the games (see docs/money-wheels.md)."""
