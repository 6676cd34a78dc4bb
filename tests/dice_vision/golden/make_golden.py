"""Regenerate the golden pictures (python tests/dice_vision/golden/make_golden.py).

Each picture is a rendered 960x540 camera frame (simulators.dice) saved as JPEG, with its truth in
labels.json and the camera's calibration in calibration.json. The test checks the recognizer
against them; regenerate only when the renderer changes on purpose, and look at the pictures.

Regression pictures (``--regression``): crops (PNG) of benchmark frames (bench/dice_vision.py, 1280x720)
that decided a change of the recognizer, each with its truth and its calibration (the tray cut to the crop)
in regression.json: ``touching-flat.png``, flat dice touching (Sic Bo, seed 2026, frame 672) refused as
cocked before the pip-grid cue; ``cocked-leaning.png``, a die cocked against a neighbour (the bench's cocked
frames of seed 7, frame 99) that only the pip-grid cue refuses.
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


#: name -> (dice colours, fault, seed of the frame's generator, frame index) as bench/dice_vision.py renders them
REGRESSION = {
    "touching-flat": (("white", "white", "white"), None, 2026, 672),
    "cocked-leaning": (("white", "white", "white"), "cocked", 7 + 17, 99),
}


def regression() -> None:
    """Crop the benchmark frames of REGRESSION around their dice (1.6 dice beyond the outermost centres)."""
    import numpy as np

    g = TrayGeometry.for_frame(1280, 720)
    out = {}
    for name, (colours, fault, seed, index) in REGRESSION.items():
        rng = random.Random(seed * 1_000_003 + index)  # as bench/dice_vision.py
        img, truth = render_still(rng, colours=colours, faults=(fault,) if fault else (), geometry=g,
                                  jpeg_quality=rng.choice((None, 80, 90)), touching=0.35)
        t = truth.as_json()
        c = np.array([d["center"] for d in t["dice"]])
        x0, y0 = (int(v) for v in np.maximum(0, np.floor(c.min(0) - 1.6 * t["die_size"])))
        x1, y1 = (int(v) for v in np.minimum((1280, 720), np.ceil(c.max(0) + 1.6 * t["die_size"])))
        cal = calibration_document(g, camera="regression")
        tray = np.array(cal["tray"]) - (x0, y0)
        tray[:, 0] = tray[:, 0].clip(0, x1 - x0)
        tray[:, 1] = tray[:, 1].clip(0, y1 - y0)
        cal["tray"], cal["frame_size"] = tray.round(1).tolist(), [x1 - x0, y1 - y0]
        t["dice"] = [{**d, "center": [round(d["center"][0] - x0, 1), round(d["center"][1] - y0, 1)]} for d in t["dice"]]
        t["tray"] = cal["tray"]
        cv2.imwrite(str(HERE / f"{name}.png"), img[y0:y1, x0:x1], [cv2.IMWRITE_PNG_COMPRESSION, 9])
        out[f"{name}.png"] = {"truth": t, "calibration": cal, "source": {"seed": seed, "index": index}}
    (HERE / "regression.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    if "--regression" in sys.argv[1:]:
        regression()
    else:
        main()
