"""Dice recognition: read dice at rest from overhead camera frames, decide when a throw can be certified.

* :mod:`recognition.dice.calibration` - per-camera calibration (tray, die colours, sizes, exposure,
  which reader) and the accuracy runner;
* :mod:`recognition.dice.vision` - :func:`read_dice`: a frame in, a :class:`Reading`
  (:mod:`~recognition.dice.reading`) out; the rule reader, the default, or the learned one when the
  calibration or the call asks for it;
* :mod:`recognition.dice.learned` - the learned reader (opt-in): :mod:`~recognition.dice.find` (the dice
  against the background), :mod:`~recognition.dice.pips` (the pip counter) and
  :mod:`~recognition.dice.classifier` (a CNN, ONNX via cv2.dnn) must agree;
* :mod:`recognition.dice.stability` - at rest = the same reading over N frames;
* :mod:`recognition.dice.judge` - :class:`DiceJudge`, the round judge for every dice game;
* :mod:`recognition.dice.annotate` - the evidence picture shown to the dealer on a hold.

``studio recognize dice`` (the file side) is :mod:`app.dice_cli`.

See docs/dice-vision.md.
"""
