"""A second dice renderer, of a look of its own, to measure the dice recognizer on pictures it was not tuned on.

:mod:`simulators.dice` draws the studio's own look (a wooden tray, green or grey felt, rounded dice from
straight above). This one is written apart from it and draws other things: true perspective cubes seen by
a pinhole camera tipped up to 25 degrees and turned any way, sharp or rounded edges, round or square pips,
flat or engraved, pips of colour, dice of eleven colours, translucent or marbled, on cloth, wood, leather,
felt or card, with or without a rim in view; a directional light with soft shadows and glare, light
fall-off, vignetting, lens and motion blur, sensor noise and JPEG. Dice may touch; a die may be cocked
(leaning on an edge: a fault a reader must refuse).

    img, faces, info = render(seed=7, count=3)                  # 1280x720, a random style
    empty, _, _ = render(seed=8, count=0, style=info["style"])  # the same tray empty (same style)

``info`` says, per die, its face, colour, the centre of its upper face in pixels, whether it is cocked and
its side in pixels; and the tray's outline (None when the felt fills the view). A seed gives the same
picture every time. The labelled-set writer::

    python -m simulators.dice_alt --out DIR --n 200 --seed 1 [--size 640x480] [--count 3] [--cocked 0.1]

writes DIR/alt_NNNNN.jpg, DIR/labels.json in the photo set's format (``{file: [faces, sorted]}``, for the
pictures a reader must read: one with a cocked die is left out, as the photo set has no word for a fault)
and, beside each picture, NAME.json with the whole truth (faults included: the other format
``studio recognize dice --accuracy`` reads).
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from .dice_alt_die import BODY_COLOURS, PIP_COLOURS, DieLook, Pose, die_values, draw_die, draw_shadow
from .dice_alt_scene import SURFACE_COLOURS, Camera, Optics, finish, surface_image, tray_outline

BGR = tuple[int, int, int]


@dataclass(frozen=True)
class Style:
    """Everything about a picture but where the dice lie and what they show."""

    surface: tuple[str, BGR] = ("cloth", SURFACE_COLOURS["cloth"][0])
    rim: tuple[str, BGR] = ("wood", SURFACE_COLOURS["wood"][1])
    tray: tuple[float, float] | None = None  # half sizes of the tray in die sides; None: felt fills the view
    rim_width: float = 1.5
    die_px: float = 50.0  # a die's side in pixels at 1280 wide (scaled with the width)
    fov: float = 1.0  # focal length / frame width
    pitch: float = 0.0  # degrees from looking straight down
    roll: float = 0.0  # degrees about the camera's axis
    looks: tuple[DieLook, ...] = (DieLook(),)  # die i has looks[i % len(looks)]
    light: tuple[float, float] = (30.0, 60.0)  # azimuth and elevation, degrees
    ambient: float = 0.6
    shadow: float = 0.35
    softness: float = 0.08  # shadow edge blur, of a die side
    touching: float = 0.3  # chance a die is put against another
    optics: Optics = field(default_factory=Optics)
    texture_seed: int = 0

    def light_vector(self) -> np.ndarray:
        az, el = math.radians(self.light[0]), math.radians(self.light[1])
        return np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)])


def _contrast_pip(rng: np.random.Generator, body: BGR) -> BGR:
    luma = 0.114 * body[0] + 0.587 * body[1] + 0.299 * body[2]
    fits = [c for c in PIP_COLOURS.values() if abs(0.114 * c[0] + 0.587 * c[1] + 0.299 * c[2] - luma) > 90]
    if rng.random() < 0.7:  # most dice: black pips on light bodies, white on dark
        return PIP_COLOURS["black"] if luma > 128 else PIP_COLOURS["white"]
    return fits[int(rng.integers(len(fits)))]


def random_look(rng: np.random.Generator) -> DieLook:
    name = str(rng.choice(list(BODY_COLOURS)))
    body = BODY_COLOURS[name]
    marble = None
    if rng.random() < 0.15:
        other = str(rng.choice([n for n in BODY_COLOURS if n != name]))
        marble = tuple(int(0.5 * a + 0.5 * b) for a, b in zip(body, BODY_COLOURS[other], strict=True))
        name = f"marbled-{name}"
    translucent = name in ("red", "blue", "green", "purple", "teal") and rng.random() < 0.25
    return DieLook(
        name=("clear-" + name) if translucent else name,
        body=body,
        pip=_contrast_pip(rng, body),
        pip_shape="square" if rng.random() < 0.2 else "round",
        pip_style="engraved" if rng.random() < 0.3 else "flat",
        pip_radius=float(rng.uniform(0.075, 0.105)),
        rounding=float(rng.choice([0.0, 0.06, 0.12, 0.2])),
        alpha=float(rng.uniform(0.78, 0.9)) if translucent else 1.0,
        marble=marble,  # type: ignore[arg-type]
        glare=float(rng.uniform(0.2, 0.6)) if rng.random() < 0.3 else 0.0,
    )


def random_style(seed: int | np.random.Generator) -> Style:
    """A style drawn at random (deterministic per seed)."""
    rng = np.random.default_rng(seed)
    felt_kind = str(rng.choice(list(SURFACE_COLOURS)))
    felt = SURFACE_COLOURS[felt_kind][int(rng.integers(len(SURFACE_COLOURS[felt_kind])))]
    rim_kind = str(rng.choice(["wood", "leather", "card"]))
    rim = SURFACE_COLOURS[rim_kind][int(rng.integers(len(SURFACE_COLOURS[rim_kind])))]
    die_px = float(rng.uniform(34, 80))
    # the view is about 1280/die_px sides wide: a tray of half that or more shows its rim at the edges
    half_w, half_h = 640 / die_px, 360 / die_px
    tray = None
    if rng.random() < 0.5:
        tray = (half_w * float(rng.uniform(0.7, 0.92)), half_h * float(rng.uniform(0.7, 0.9)))
    shared = random_look(rng)
    looks = (shared,) if rng.random() < 0.6 else tuple(random_look(rng) for _ in range(3))
    return Style(
        surface=(felt_kind, felt),
        rim=(rim_kind, rim),
        tray=tray,
        rim_width=float(rng.uniform(0.8, 2.5)),
        die_px=die_px,
        fov=float(rng.uniform(0.8, 1.5)),
        pitch=float(rng.uniform(0, 25)) if rng.random() < 0.6 else 0.0,
        roll=float(rng.uniform(-180, 180)) if rng.random() < 0.3 else float(rng.uniform(-4, 4)),
        looks=looks,
        light=(float(rng.uniform(0, 360)), float(rng.uniform(40, 80))),
        ambient=float(rng.uniform(0.45, 0.75)),
        shadow=float(rng.uniform(0.15, 0.5)),
        softness=float(rng.uniform(0.04, 0.2)),
        touching=float(rng.uniform(0.0, 0.5)),
        optics=Optics(
            falloff=(float(rng.uniform(-0.25, 0.25)), float(rng.uniform(-0.25, 0.25))),
            vignette=float(rng.uniform(0, 0.35)),
            glare=(
                float(rng.uniform(0.2, 0.8)),
                float(rng.uniform(0.2, 0.8)),
                float(rng.uniform(0.05, 0.2)) if rng.random() < 0.4 else 0.0,
                float(rng.uniform(0.1, 0.3)),
            ),
            blur=float(rng.uniform(0.3, 1.3)),
            motion=float(rng.uniform(2, 5)) if rng.random() < 0.15 else 0.0,
            motion_angle=float(rng.uniform(0, math.pi)),
            noise=float(rng.uniform(1, 6)),
            jpeg=int(rng.integers(45, 95)) if rng.random() < 0.7 else None,
        ),
        texture_seed=int(rng.integers(1 << 30)),
    )


def camera_for(style: Style, width: int, height: int) -> Camera:
    focal = style.fov * width
    return Camera(width, height, focal, focal / (style.die_px * width / 1280), style.pitch, style.roll)


def _footprint(pose: Pose, grow: float = 1.0) -> np.ndarray:
    xy = pose.corners()[:, :2]
    centre = xy.mean(axis=0)
    return cv2.convexHull(((xy - centre) * grow + centre).astype(np.float32))


def _overlaps(a: np.ndarray, b: np.ndarray) -> bool:
    area, _ = cv2.intersectConvexConvex(a, b)
    return bool(area > 1e-6)


def _place(
    rng: np.random.Generator, style: Style, camera: Camera, faces: Sequence[int], cocked: int
) -> list[Pose]:
    """Where the dice lie: inside the tray and well inside the view, none over another, some touching."""
    region = camera.visible(inset=0.1).astype(np.float32)
    lo, hi = region.min(axis=0), region.max(axis=0)
    poses: list[Pose] = []
    for i, face in enumerate(faces):
        values = die_values(rng, face)
        turns = tuple(int(t) for t in rng.integers(0, 4, 6))
        tilt = math.radians(float(rng.uniform(18, 35))) if i < cocked else 0.0
        for attempt in range(400):
            yaw = float(rng.uniform(0, 2 * math.pi))
            x, y = (float(v) for v in rng.uniform(lo, hi))
            flat = [p for p in poses if not p.cocked]
            if tilt == 0 and flat and attempt < 200 and rng.random() < style.touching:
                base = flat[int(rng.integers(len(flat)))]
                along, lateral = 1.0 + float(rng.uniform(0.0, 0.03)), float(rng.uniform(-0.35, 0.35))
                if rng.random() < 0.5:
                    along, lateral = lateral, along
                sign = 1 if rng.random() < 0.5 else -1
                c, s = math.cos(base.yaw), math.sin(base.yaw)
                x = base.x + sign * (c * along - s * lateral)
                y = base.y + sign * (s * along + c * lateral)
                yaw = base.yaw
                grow = 0.985  # may touch
            else:
                grow = 1.12  # a little apart
            pose = Pose(face, x, y, yaw, tilt, values, turns)
            if cv2.pointPolygonTest(region, (x, y), False) < 0:
                continue
            if style.tray is not None and (abs(x) > style.tray[0] - 0.9 or abs(y) > style.tray[1] - 0.9):
                continue
            if any(_overlaps(_footprint(pose, grow), _footprint(p, grow)) for p in poses):
                continue
            poses.append(pose)
            break
        else:
            raise ValueError(f"{len(faces)} dice do not fit in this view and tray")
    return poses


def _touching(poses: Sequence[Pose]) -> bool:
    return any(
        _overlaps(_footprint(a, 1.04), _footprint(b, 1.04))
        for i, a in enumerate(poses)
        for b in poses[i + 1 :]
    )


def render(
    seed: int,
    count: int,
    *,
    width: int = 1280,
    height: int = 720,
    style: Style | None = None,
    cocked: int = 0,
    faces: Sequence[int] | None = None,
) -> tuple[np.ndarray, list[int], dict[str, Any]]:
    """One picture of `count` dice at rest (the first `cocked` of them leaning on an edge).

    Returns the BGR uint8 picture, the faces sorted, and the truth: ``{"width", "height", "style", "tray",
    "die_px", "touching", "dice": [{"face", "color", "center", "cocked", "side_px", "top"}]}``.
    """
    if not 0 <= count <= 12 or not 0 <= cocked <= count:
        raise ValueError("count is 0..12 and cocked 0..count")
    if faces is not None and (len(faces) != count or any(f not in range(1, 7) for f in faces)):
        raise ValueError("faces gives one face 1..6 per die")
    rng = np.random.default_rng(seed)
    style = style if style is not None else random_style(rng)
    camera = camera_for(style, width, height)
    img = surface_image(
        camera,
        np.random.default_rng(style.texture_seed),
        felt=style.surface,
        rim=style.rim,
        tray=style.tray,
        rim_width=style.rim_width,
    )
    shown = list(faces) if faces is not None else [int(f) for f in rng.integers(1, 7, count)]
    poses = _place(rng, style, camera, shown, cocked)
    light = style.light_vector()
    for pose in poses:
        draw_shadow(img, pose, camera, light, style.shadow, style.softness)
    eye = camera.position
    order = sorted(range(len(poses)), key=lambda k: -float(np.linalg.norm(poses[k].centre() - eye)))
    for k in order:
        draw_die(img, poses[k], style.looks[k % len(style.looks)], camera, light, style.ambient, rng)
    out = finish(img, style.optics, rng)
    dice: list[dict[str, Any]] = []
    for k, pose in enumerate(poses):
        top = camera.project(pose.face_quad(0))
        side = float(np.mean([np.linalg.norm(top[j] - top[(j + 1) % 4]) for j in range(4)]))
        dice.append(
            {
                "face": pose.face,
                "color": style.looks[k % len(style.looks)].name,
                "center": [round(float(v), 1) for v in top.mean(axis=0)],
                "cocked": pose.cocked,
                "side_px": round(side, 2),
                "top": [[round(float(x), 1), round(float(y), 1)] for x, y in top],
            }
        )
    flat = [float(d["side_px"]) for d in dice if not d["cocked"]]
    info = {
        "width": width,
        "height": height,
        "style": style,
        "tray": tray_outline(camera, style.tray),
        "die_px": round(float(np.mean(flat)), 2) if flat else None,
        "touching": _touching(poses),
        "dice": dice,
    }
    return out, sorted(shown), info


def write_set(
    out: Path,
    n: int,
    seed: int,
    *,
    width: int = 1280,
    height: int = 720,
    count: int | None = None,
    cocked: float = 0.0,
) -> dict[str, list[int]]:
    """Write `n` labelled pictures (each its own style) into `out`; returns the labels written (the
    pictures with a cocked die are not among them: their NAME.json says so)."""
    out.mkdir(parents=True, exist_ok=True)
    labels: dict[str, list[int]] = {}
    picker = np.random.default_rng([seed, 1])
    for i in range(n):
        dice = count if count is not None else int(picker.integers(1, 6))
        bad = 1 if picker.random() < cocked else 0
        img, faces, info = render(seed * 100_003 + i, dice, width=width, height=height, cocked=bad)
        name = f"alt_{i:05d}.jpg"
        cv2.imwrite(str(out / name), img, [cv2.IMWRITE_JPEG_QUALITY, 95])
        if not bad:
            labels[name] = faces
        truth = {
            "faces": None if bad else faces,
            "expected": dice,
            "faults": ["cocked"] if bad else [],
            # "look", not "color": the recognizer names colours its own way
            "dice": [
                {"face": d["face"], "look": d["color"], "center": d["center"], "cocked": d["cocked"]}
                for d in info["dice"]
            ],
        }
        (out / name).with_suffix(".json").write_text(json.dumps(truth), encoding="utf-8")
    (out / "labels.json").write_text(json.dumps(labels, indent=1, sort_keys=True), encoding="utf-8")
    return labels


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m simulators.dice_alt", description="Write labelled dice pictures of another look."
    )
    p.add_argument("--out", required=True, type=Path, help="the folder to write into")
    p.add_argument("--n", type=int, default=100, help="how many pictures")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--size", default="1280x720", help="WIDTHxHEIGHT (1280x720, 640x480, ...)")
    p.add_argument("--count", type=int, help="dice per picture (default: 1-5 at random)")
    p.add_argument("--cocked", type=float, default=0.0, help="the share of pictures with a cocked die")
    args = p.parse_args(list(argv) if argv is not None else None)
    try:
        width, height = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        p.error("--size is WIDTHxHEIGHT, e.g. 640x480")
    if args.count is not None and not 1 <= args.count <= 12:
        p.error("--count is 1..12")
    labels = write_set(
        args.out, args.n, args.seed, width=width, height=height, count=args.count, cocked=args.cocked
    )
    print(json.dumps({"out": str(args.out), "pictures": len(labels)}))
    return 0


__all__ = ["DieLook", "Optics", "Style", "camera_for", "random_look", "random_style", "render", "write_set"]

if __name__ == "__main__":
    raise SystemExit(main())
