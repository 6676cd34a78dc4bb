"""Dice recognition: read dice at rest from overhead camera frames, decide when a throw can be certified.

* :mod:`recognition.dice.calibration` - per-camera calibration (tray, die colours, sizes, exposure)
  and the accuracy runner;
* :mod:`recognition.dice.vision` - pure functions on numpy images: find the dice, count pips,
  tell colours apart, flag cocked/outside/missing/stacked dice, give a confidence;
* :mod:`recognition.dice.stability` - at rest = the same reading over N frames;
* :mod:`recognition.dice.judge` - :class:`DiceJudge`, the round judge for every dice game;
* :mod:`recognition.dice.annotate` - the evidence picture shown to the dealer on a hold;
* :mod:`recognition.dice.cli` - ``studio recognize dice`` (the only module here that reads files).

See docs/dice-vision.md.
"""
