"""Regenerate the golden pictures (python tests/dice_vision/golden/make_golden.py).

Each picture is a rendered 960x540 camera frame (simulators.dice) saved as JPEG, with its truth in
labels.json and the camera's calibration in calibration.json. The test checks the recognizer
against them; regenerate only when the renderer changes on purpose, and look at the pictures.

Regression pictures (``--regression``): crops (PNG) of benchmark frames (bench/dice_vision.py, 1280x720)
that decided a change of the recognizer, each with its truth and its calibration (the tray cut to the crop)
in regression.json: ``touching-flat.png``, flat dice touching (Sic Bo, seed 2026, frame 672) refused as
cocked before the pip-grid cue; ``cocked-leaning.png``, a die cocked against a neighbour (the bench's cocked
frames of seed 7, frame 99) that only the pip-grid cue refuses; ``six-in-strips.png``, a flat 6 whose
upper face fell apart into strips between its rows of pips (Sic Bo, seed 7, frame 974: the 2 beside it was
refused as cocked, its walks running over the 6's unlabelled face); ``felt-between.png``, a flat 2 whose walks
crossed the felt into its neighbour's bevel (Craps, seed 2026, frame 231); ``outline-squeezed.png``, a blue 6
between two red dice that cut its outline (Bac Bo, seed 7, frame 524: low confidence before); and two cocked
dice that must stay refused: ``cocked-felt-cut.png`` (seed 7 cocked frame 73: the felt rule shortens a walk
of the cocked die) and ``cocked-face-gathered.png`` (seed 7 cocked frame 44: the tilted die's upper face is
found only by gathering its strips); ``corner-touch.png``, a flat 3 touching a 1 past a corner (Sic Bo, seed 13,
frame 416: three of the 3's walks at that side ran on into the 1, and the band they measured refused the 3 as
cocked; judged by the walks that end at the felt it is read) and its counterpart ``cocked-side-on-neighbour.png``
(seed 2026 cocked frame 92: a cocked 2 whose side face runs partly into a flat 4; the walks that end at the felt
still cross the side face, so it stays refused). Sixth session: ``sixes-face-to-face.png`` (Sic Bo, seed 41, frame
348: the strip beyond a 6's row of pips was lost to the opening of its upper face, which then measured a side
band wide enough to refuse it as cocked; the pips are filled first now), ``gap-then-neighbour.png`` (Sic Bo,
seed 64, frame 1584: two 1s touching past a corner, each a shape of its own; a 1's walks crossed the dark gap
between them and ran on through the other's bevel and side face), ``blue-six-pip-rims.png`` (Bac Bo, seed 41, frame 1744: the light rim of a blue 6's pips raised the
bar of its upper face over a square around each pip, so a corner of the face was lost and the 6 unreadable),
``six-outline-cut.png`` (Sic Bo, seed 41, frame 1379: a 6 whose outline a neighbour cut to 0.86 of a die,
its pip grid measured against that outline at 63 %) and ``three-lit-side.png`` (Sic Bo, seed 41, frame 679: a
3 whose upper face is lengthened by its lit side face, no more than the perspective shows).
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

import cv2

from simulators.dice import TrayGeometry, calibration_document, render_still

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
        img, truth = render_still(
            random.Random(seed), colours=colours, faults=faults, geometry=g, touching=touching
        )
        cv2.imwrite(str(HERE / f"{name}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, 82])
        labels[f"{name}.jpg"] = truth.as_json()
    (HERE / "labels.json").write_text(json.dumps(labels, indent=1) + "\n")
    (HERE / "calibration.json").write_text(
        json.dumps(calibration_document(g, camera="golden"), indent=1) + "\n"
    )


#: name -> (dice colours, fault, seed of the frame's generator, frame index[, the dice to keep]) as
#: bench/dice_vision.py renders them; with dice to keep, the crop holds only those (the others lie well outside
#: it) and the truth names only them
REGRESSION = {
    "touching-flat": (("white", "white", "white"), None, 2026, 672),
    "cocked-leaning": (("white", "white", "white"), "cocked", 7 + 17, 99),
    "six-in-strips": (("white", "white", "white"), None, 7, 974, (0, 1)),
    "felt-between": (("red", "red"), None, 2026, 231),
    "outline-squeezed": (("blue", "blue", "red", "red"), None, 7, 524),
    "cocked-felt-cut": (("white", "white", "white"), "cocked", 7 + 17, 73, (0, 2)),
    "cocked-face-gathered": (("white", "white", "white"), "cocked", 7 + 17, 44, (0,)),
    "corner-touch": (("white", "white", "white"), None, 13, 416, (0, 1)),
    "cocked-side-on-neighbour": (("white", "white", "white"), "cocked", 2026 + 17, 92),
    "sixes-face-to-face": (("white", "white", "white"), None, 41, 348),
    "gap-then-neighbour": (("white", "white", "white"), None, 64, 1584, (0, 1)),
    "blue-six-pip-rims": (("blue", "blue", "red", "red"), None, 41, 1744, (0, 1)),
    "six-outline-cut": (("white", "white", "white"), None, 41, 1379),
    "three-lit-side": (("white", "white", "white"), None, 41, 679, (0, 2)),
}


#: the first regression pictures are read as crops, with the tray cut to the crop
_CUT_CALIBRATION = ("touching-flat", "cocked-leaning")


def regression() -> None:
    """Crop the benchmark frames of REGRESSION around their dice (1.6 dice beyond the outermost centres)."""
    import numpy as np

    g = TrayGeometry.for_frame(1280, 720)
    out = {}
    for name, (colours, fault, seed, index, *rest) in REGRESSION.items():
        rng = random.Random(seed * 1_000_003 + index)  # as bench/dice_vision.py
        img, truth = render_still(
            rng,
            colours=colours,
            faults=(fault,) if fault else (),
            geometry=g,
            jpeg_quality=rng.choice((None, 80, 90)),
            touching=0.35,
        )
        t = truth.as_json()
        keep = rest[0] if rest else tuple(range(len(t["dice"])))
        c = np.array([t["dice"][i]["center"] for i in keep])
        x0, y0 = (int(v) for v in np.maximum(0, np.floor(c.min(0) - 1.6 * t["die_size"])))
        x1, y1 = (int(v) for v in np.minimum((1280, 720), np.ceil(c.max(0) + 1.6 * t["die_size"])))
        for i, d in enumerate(t["dice"]):
            if i not in keep:  # a die left out must lie wholly outside the crop
                cx, cy = d["center"]
                gap = max(x0 - cx, cx - x1, y0 - cy, cy - y1)
                assert gap > t["die_size"], (name, i)
        t["dice"] = [t["dice"][i] for i in keep]
        t["expected"] = len(keep)
        if t["faces"] is not None:
            t["faces"] = sorted(d["face"] for d in t["dice"])
        cal = calibration_document(g, camera="regression")
        tray = np.array(cal["tray"]) - (x0, y0)
        tray[:, 0] = tray[:, 0].clip(0, x1 - x0)
        tray[:, 1] = tray[:, 1].clip(0, y1 - y0)
        cal["tray"], cal["frame_size"] = tray.round(1).tolist(), [x1 - x0, y1 - y0]
        t["dice"] = [
            {**d, "center": [round(d["center"][0] - x0, 1), round(d["center"][1] - y0, 1)]} for d in t["dice"]
        ]
        t["tray"] = cal["tray"]
        cv2.imwrite(str(HERE / f"{name}.png"), img[y0:y1, x0:x1], [cv2.IMWRITE_PNG_COMPRESSION, 9])
        out[f"{name}.png"] = {"truth": t, "calibration": cal, "source": {"seed": seed, "index": index}}
        if name not in _CUT_CALIBRATION:
            # read in place: the crop padded back to the whole frame (its edges, felt, repeated) with the camera's
            # own calibration, so the perspective the reader allows for (from the middle of the picture) is the
            # frame's, not the crop's
            out[f"{name}.png"]["frame"] = {
                "size": [1280, 720],
                "offset": [x0, y0],
                "calibration": calibration_document(g, camera="regression"),
            }
    (HERE / "regression.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    if "--regression" in sys.argv[1:]:
        regression()
    else:
        main()
