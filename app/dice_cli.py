"""``studio recognize dice``: read dice in image files, or measure the recognizer on a labelled folder.

    studio recognize dice IMAGE... [--count N] [--colors red,blue] [--calibration FILE] [--annotate DIR]
                                   [--reader rules|learned|auto]
    studio recognize dice --accuracy FOLDER... [--count N] [--calibration FILE] [--reader rules|learned|auto]

Without --accuracy, one JSON line per image on standard output::

    {"file": "a.jpg", "status": "ok", "faces": [2, 5, 6], "dice": [{"face": 5, "color": "white",
     "center": [640.5, 300.0]}, ...], "confidence": 0.98, "issues": []}

``status`` is "ok" only when the dice are certain (with --count N: exactly N dice found, each
read with high confidence, none cocked, outside the tray or stacked); "uncertain" otherwise,
with the reasons in ``issues``; "error" when the file cannot be read (then ``error``). Without
--calibration the whole frame is searched for dice of the default colours and the die size is
estimated from the picture. ``--reader`` chooses the reader (default: the calibration's ``reader``,
"rules" without one; see docs/dice-vision.md). The exit status is 0 when every file could be read, 1 otherwise,
2 for a usage error.

With --accuracy, each FOLDER holds pictures with a ``labels.json`` (``{file: [faces, sorted]}``, files
in nested folders allowed: the photo set's format), or pictures (.jpg, .jpeg, .png) with their truth
beside them (NAME.json: {"faces": [...] or null for a fault, "dice": [{"face", "color"}...], "expected": N},
or the file name itself: `throw7_1-3-6.jpg`, `duel_red5-blue2.png`, `x_fault.jpg`;
as ``python -m simulators.dice --write-dataset`` writes them) and optionally a calibration.json
(used when --calibration is not given). One JSON report per folder (:func:`studio.dice_camera.folder_accuracy`,
the one the console's accuracy run gives); exit status 0 when no picture was read wrong while saying ok,
1 otherwise.

It sits in the composition root: recognition.dice itself reads no files.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from recognition.dice.calibration import Calibration, ReaderName, load_calibration
from recognition.dice.vision import read_dice
from studio.dice_camera import folder_accuracy


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="studio recognize dice", description="Read dice in pictures: one JSON line per picture."
    )
    p.add_argument("images", nargs="+", metavar="IMAGE", help="picture files (or folders with --accuracy)")
    p.add_argument(
        "--count", type=int, metavar="N", help="the number of dice thrown (expected in every picture)"
    )
    p.add_argument("--colors", help="the colour of each die, comma-separated (e.g. red,blue)")
    p.add_argument("--calibration", metavar="FILE", help="the camera's calibration (JSON)")
    p.add_argument("--annotate", metavar="DIR", help="also write each picture with what was seen drawn on it")
    p.add_argument(
        "--accuracy",
        action="store_true",
        help="the arguments are labelled folders: report how the recognizer does on them",
    )
    p.add_argument(
        "--reader",
        choices=("rules", "learned", "auto"),
        help="the dice reader (default: the calibration's, else rules)",
    )
    return p


def recognize_main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``studio recognize dice`` (returns the exit status)."""
    parser = build_parser()
    try:
        args = parser.parse_args(list(argv) if argv is not None else None)
    except SystemExit as exc:
        return int(exc.code or 0)
    if args.count is not None and not 1 <= args.count <= 12:
        print("studio recognize dice: --count must be 1..12", file=sys.stderr)
        return 2
    colors = [c.strip() for c in args.colors.split(",") if c.strip()] if args.colors else None
    if colors is not None and args.count is not None and len(colors) != args.count:
        print("studio recognize dice: --colors must name one colour per die (--count)", file=sys.stderr)
        return 2
    expected = args.count if args.count is not None else (len(colors) if colors else None)
    calibration = None
    if args.calibration:
        try:
            calibration = load_calibration(Path(args.calibration).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            print(f"studio recognize dice: {args.calibration}: {exc}", file=sys.stderr)
            return 2
    if args.accuracy:
        return _accuracy(args.images, calibration, expected, args.reader)
    out = sys.stdout
    failed = False
    annotate_dir = Path(args.annotate) if args.annotate else None
    if annotate_dir is not None:
        annotate_dir.mkdir(parents=True, exist_ok=True)
    for name in args.images:
        line = recognize_file(name, calibration, expected, colors, annotate_dir, reader=args.reader)
        failed = failed or line["status"] == "error"
        out.write(json.dumps(line) + "\n")
        out.flush()
    return 1 if failed else 0


def recognize_file(
    name: str,
    calibration: Calibration | None,
    expected: int | None,
    colors: Sequence[str] | None = None,
    annotate_dir: Path | None = None,
    *,
    reader: ReaderName | None = None,
) -> dict[str, Any]:
    image = _load(name)
    if image is None:
        return {"file": name, "status": "error", "error": "not a picture OpenCV can read (or no such file)"}
    try:
        reading = read_dice(image, calibration, expected=expected, colors=colors, reader=reader)
    except ValueError as exc:
        return {"file": name, "status": "error", "error": str(exc)}
    line = {"file": name, **reading.as_json()}
    line["issues"] = [i["message"] for i in line["issues"]]
    if annotate_dir is not None:
        from recognition.dice.annotate import annotate

        cv2.imwrite(str(annotate_dir / (Path(name).stem + ".annotated.jpg")), annotate(image, reading, name))
    return line


def _load(name: str) -> np.ndarray | None:
    try:
        data = np.fromfile(name, dtype=np.uint8)
    except OSError:
        return None
    if data.size == 0:
        return None
    return cv2.imdecode(data, cv2.IMREAD_COLOR)


def _accuracy(
    folders: Sequence[str], calibration: Calibration | None, expected: int | None, reader: ReaderName | None
) -> int:
    worst = 0
    for name in folders:
        folder = Path(name)
        if not folder.is_dir():
            print(f"studio recognize dice: {name} is not a folder", file=sys.stderr)
            return 2
        try:
            body = folder_accuracy(folder, calibration, expected, reader=reader)
        except ValueError as exc:  # a calibration.json in the folder that is not valid
            print(f"studio recognize dice: {name}: {exc}", file=sys.stderr)
            return 2
        body["folder"] = name
        print(json.dumps(body))
        if body["wrong_ok"]:
            worst = 1
    return worst


if __name__ == "__main__":
    sys.exit(recognize_main())
