"""Regenerate the golden pictures (python tests/dice_vision/golden/make_golden.py).

Each picture is a rendered 960x540 camera frame (simulators.dice) saved as JPEG, with its truth in
labels.json and the camera's calibration in calibration.json. The test checks the recognizer
against them; regenerate only when the renderer changes on purpose, and look at the pictures.
"""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

import cv2  # noqa: E402

from simulators.dice import TrayGeometry, calibration_document, render_still  # noqa: E402

#: name -> (dice colours, faults, seed, touching)
CASES = {
    "sicbo-clean": (("white", "white", "white"), (), 11, 0.0),
    "sicbo-touching": (("white", "white", "white"), (), 12, 1.0),
    "lightning-clean": (("yellow", "yellow", "yellow"), (), 13, 0.3),
    "craps-clean": (("red", "red"), (), 14, 0.3),
    "duel-touching": (("red", "blue"), (), 15, 1.0),
    "bacbo-clean": (("blue", "blue", "red", "red"), (), 16, 0.3),
    "fault-cocked": (("white", "white", "white"), ("cocked",), 17, 0.3),
    "fault-outside": (("red", "blue"), ("outside",), 18, 0.3),
    "fault-missing": (("white", "white", "white"), ("missing",), 19, 0.3),
    "fault-stacked": (("white", "white", "white"), ("stacked",), 20, 0.3),
}


def main() -> None:
    g = TrayGeometry.for_frame(960, 540)
    labels = {}
    for name, (colours, faults, seed, touching) in CASES.items():
        img, truth = render_still(random.Random(seed), colours=colours, faults=faults, geometry=g, touching=touching)
        cv2.imwrite(str(HERE / f"{name}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, 82])
        labels[f"{name}.jpg"] = truth.as_json()
    (HERE / "labels.json").write_text(json.dumps(labels, indent=1) + "\n")
    (HERE / "calibration.json").write_text(json.dumps(calibration_document(g, camera="golden"), indent=1) + "\n")


if __name__ == "__main__":
    main()
