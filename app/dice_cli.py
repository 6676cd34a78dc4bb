"""``studio recognize dice``: read dice in image files, or measure the recognizer on a labelled folder.

    studio recognize dice IMAGE... [--count N] [--colors red,blue] [--calibration FILE] [--annotate DIR]
    studio recognize dice --accuracy FOLDER... [--count N] [--calibration FILE]

Without --accuracy, one JSON line per image on standard output::

    {"file": "a.jpg", "status": "ok", "faces": [2, 5, 6], "dice": [{"face": 5, "color": "white",
     "center": [640.5, 300.0]}, ...], "confidence": 0.98, "issues": []}

``status`` is "ok" only when the dice are certain (with --count N: exactly N dice found, each
read with high confidence, none cocked, outside the tray or stacked); "uncertain" otherwise,
with the reasons in ``issues``; "error" when the file cannot be read (then ``error``). Without
--calibration the whole frame is searched for dice of the default colours and the die size is
estimated from the picture. The exit status is 0 when every file could be read, 1 otherwise,
2 for a usage error.

With --accuracy, each FOLDER holds pictures with a ``labels.json`` (``{file: [faces, sorted]}``, files
in nested folders allowed: the photo set's format), or pictures (.jpg, .jpeg, .png) with their truth
beside them (NAME.json: {"faces": [...] or null for a fault, "dice": [{"face", "color"}...], "expected": N},
or the file name itself: `throw7_1-3-6.jpg`, `duel_red5-blue2.png`, `x_fault.jpg`;
as ``python -m simulators.dice --write-dataset`` writes them) and optionally a calibration.json
(used when --calibration is not given). One JSON report per folder; exit status 0 when no picture
was read wrong while saying ok, 1 otherwise.

It sits in the composition root: recognition.dice itself reads no files.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from recognition.dice.calibration import Calibration, accuracy, load_calibration
from recognition.dice.vision import read_dice

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp")


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
        return _accuracy(args.images, calibration, expected)
    out = sys.stdout
    failed = False
    annotate_dir = Path(args.annotate) if args.annotate else None
    if annotate_dir is not None:
        annotate_dir.mkdir(parents=True, exist_ok=True)
    for name in args.images:
        line = recognize_file(name, calibration, expected, colors, annotate_dir)
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
) -> dict[str, Any]:
    image = _load(name)
    if image is None:
        return {"file": name, "status": "error", "error": "not a picture OpenCV can read (or no such file)"}
    try:
        reading = read_dice(image, calibration, expected=expected, colors=colors)
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


_FAULT_WORDS = ("fault", "cocked", "outside", "missing", "stacked")
_NAME_TRUTH = re.compile(r"(?:^|_)((?:[a-z]*[1-6])(?:-[a-z]*[1-6])*|" + "|".join(_FAULT_WORDS) + r")$")
_DIE_TOKEN = re.compile(r"^([a-z]*)([1-6])$")


def truth_from_name(name: str) -> dict[str, Any] | None:
    """The truth a picture's file name gives, or None: the stem ends with ``_`` and the dice, each an optional
    colour and its face, joined by ``-`` (``throw7_1-3-6.jpg``, ``duel_red5-blue2.png``, or the whole stem
    ``4-4-5.jpg``); a stem ending in ``_fault`` (or ``_cocked``, ``_outside``, ``_missing``, ``_stacked``) is a
    picture that must be refused."""
    stem = Path(name).stem.lower()
    m = _NAME_TRUTH.search(stem)
    if m is None:
        return None
    body = m.group(1)
    if body in _FAULT_WORDS:
        return {"faces": None, "dice": [], "faults": [body]}
    dice = []
    for token in body.split("-"):
        t = _DIE_TOKEN.match(token)
        if t is None:  # pragma: no cover - the pattern above allows only these
            return None
        dice.append({"face": int(t.group(2)), **({"color": t.group(1)} if t.group(1) else {})})
    return {"faces": sorted(d["face"] for d in dice), "dice": dice, "faults": [], "expected": len(dice)}


def labelled_pictures(
    folder: Path, *, limit: int | None = None
) -> Iterator[tuple[str, np.ndarray, dict[str, Any]]]:
    """(name, picture, truth) for every picture of `folder` with a truth: a ``labels.json`` in the folder
    (``{file: [faces, sorted]}``, files relative to the folder, in nested folders too: the photo set's
    format), else NAME.json beside each picture, else the file name (:func:`truth_from_name`); pictures
    without any are skipped. At most `limit` pictures."""
    count = 0
    if (folder / "labels.json").is_file():
        labels = json.loads((folder / "labels.json").read_text(encoding="utf-8"))
        for rel, faces in sorted(labels.items()):
            if limit is not None and count >= limit:
                return
            image = _load(str(folder / rel))
            if image is None:
                continue
            count += 1
            yield rel, image, {"faces": sorted(faces), "dice": [], "faults": [], "expected": len(faces)}
        return
    for path in sorted(folder.iterdir()):
        if path.suffix.lower() not in IMAGE_SUFFIXES:
            continue
        label = path.with_suffix(".json")
        if label.exists():
            truth = json.loads(label.read_text(encoding="utf-8"))
        else:
            truth = truth_from_name(path.name)
            if truth is None:
                continue
        if limit is not None and count >= limit:
            return
        image = _load(str(path))
        if image is None:
            continue
        count += 1
        yield path.name, image, truth


def folder_accuracy(
    folder: Path,
    calibration: Calibration | None = None,
    expected: int | None = None,
    *,
    limit: int | None = None,
) -> dict[str, Any]:
    """The accuracy report of one labelled folder as JSON (what ``--accuracy`` prints and the console's
    dice API returns): the counts, the calibration used (the one given, else the folder's calibration.json,
    else none: the whole frame searched) and the first 20 misses. Raises ValueError for a folder that
    cannot be used."""
    if not folder.is_dir():
        raise ValueError(f"{folder} is not a folder")
    cal = calibration
    source = "given" if cal is not None else None
    if cal is None and (folder / "calibration.json").exists():
        cal = load_calibration((folder / "calibration.json").read_text(encoding="utf-8"))
        source = "calibration.json"
    report = accuracy(labelled_pictures(folder, limit=limit), cal, expected)
    return {
        "folder": str(folder),
        **report.summary(),
        "calibration_source": source,
        "misses": [m.model_dump() for m in report.misses[:20]],
    }


def _accuracy(folders: Sequence[str], calibration: Calibration | None, expected: int | None) -> int:
    worst = 0
    for name in folders:
        folder = Path(name)
        if not folder.is_dir():
            print(f"studio recognize dice: {name} is not a folder", file=sys.stderr)
            return 2
        body = folder_accuracy(folder, calibration, expected)
        body["folder"] = name
        print(json.dumps(body))
        if body["wrong_ok"]:
            worst = 1
    return worst


if __name__ == "__main__":
    sys.exit(recognize_main())
