"""Ball-set tables: which tag (RFID tag, printed code) is which ball, and its colour.

A table is a TOML file a technician edits (format in docs/balls.md) or a short
option string for the common case of balls numbered in a range:

* ``"1-48"`` (or ``"numbered:1-48"``): balls "1".."48" whose tags are
  ``BALL001``..``BALL048`` (the default tag format, ``tag_format`` changes it:
  ``"{n}"`` when the camera reads the number printed on the ball);
* a path ending in ``.toml``: a file, either a list of balls::

      name = "lucky7-set-A"
      [[balls]]
      tag = "E2003412012345670001"
      label = "1"
      color = "yellow"

  or a numbered range with optional colours::

      name = "mega6"
      [numbered]
      first = 1
      last = 49
      tag_format = "BALL{n:03d}"
      [colors]
      "1" = "white"

Looking a tag up is pure and never guesses: a tag not in the table is unknown
(``None``). Tags are compared upper-cased unless the table says
``case_sensitive = true``. Within a table every tag is unique (a file that
repeats one is refused, naming the file and the balls); a label may be carried
by several balls when the game's balls are told apart by colour only (Cash or
Crash: 19 balls "green", each with its own tag).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, model_validator

from ..tomlfile import read_toml

__all__ = [
    "DEFAULT_BALL_SET",
    "DEFAULT_TAG_FORMAT",
    "Ball",
    "BallSet",
    "BallSetError",
    "ball_set_from_option",
    "load_ball_set",
    "numbered_ball_set",
    "parse_ball_set",
]

DEFAULT_TAG_FORMAT = "BALL{n:03d}"
#: the set a reader uses when none is configured: balls "0".."99", tags BALL000..BALL099
DEFAULT_BALL_SET = "0-99"

_RANGE = re.compile(r"^(?:numbered:)?\s*(\d{1,4})\s*-\s*(\d{1,4})\s*$")
_TAG = re.compile(r"^[!-~]{1,128}$")  # printable ASCII without spaces


class BallSetError(ValueError):
    pass


class Ball(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    tag: str = Field(description="what the reader sends for this ball: RFID tag, printed code")
    label: str = Field(min_length=1, max_length=16, description="the ball as the game names it: '7', '48'")
    color: str | None = Field(None, max_length=32)

    @model_validator(mode="after")
    def _check(self) -> Ball:
        if not _TAG.match(self.tag):
            raise ValueError(f"tag {self.tag!r} must be 1-128 printable ASCII characters without spaces")
        if self.label != self.label.strip():
            raise ValueError(f"label {self.label!r} has surrounding spaces")
        return self


class BallSet(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = "unnamed"
    case_sensitive: bool = False
    balls: tuple[Ball, ...] = Field(min_length=1)

    _by_tag: dict[str, Ball] = PrivateAttr(default_factory=dict)
    _by_label: dict[str, list[Ball]] = PrivateAttr(default_factory=dict)

    @model_validator(mode="after")
    def _unique(self) -> BallSet:
        by_tag: dict[str, Ball] = {}
        by_label: dict[str, list[Ball]] = {}
        for ball in self.balls:
            key = self.normalise(ball.tag)
            if key in by_tag:
                raise ValueError(
                    f"tag {ball.tag!r} is given to two balls ({by_tag[key].label} and {ball.label})"
                )
            by_tag[key] = ball
            by_label.setdefault(ball.label, []).append(ball)
        for label, balls in by_label.items():
            colors = {b.color for b in balls}
            if len(colors) > 1:
                raise ValueError(
                    f"the balls labelled {label!r} have different colours: "
                    f"{', '.join(sorted(str(c) for c in colors))}"
                )
        self._by_tag = by_tag
        self._by_label = by_label
        return self

    def normalise(self, tag: str) -> str:
        tag = tag.strip()
        return tag if self.case_sensitive else tag.upper()

    def lookup(self, tag: str) -> Ball | None:
        """The ball with this tag, or None (unknown tag)."""
        return self._by_tag.get(self.normalise(tag))

    def with_label(self, label: str) -> tuple[Ball, ...]:
        """Every ball carrying this label (one for numbered balls)."""
        return tuple(self._by_label.get(label, ()))

    def tag_for(self, label: str) -> str:
        """The tag of the (first) ball with this label."""
        balls = self._by_label.get(label)
        if not balls:
            raise KeyError(f"ball {label!r} is not in the ball set {self.name}")
        return balls[0].tag

    @property
    def labels(self) -> tuple[str, ...]:
        """Each label once, in table order."""
        return tuple(self._by_label)

    def count(self, label: str) -> int:
        return len(self._by_label.get(label, ()))

    def __len__(self) -> int:
        return len(self.balls)


def numbered_ball_set(
    first: int,
    last: int,
    *,
    tag_format: str = DEFAULT_TAG_FORMAT,
    colors: Mapping[str, str] | None = None,
    name: str | None = None,
    case_sensitive: bool = False,
) -> BallSet:
    """Balls labelled first..last ("1".."48"), tag ``tag_format.format(n=number)``."""
    if not 0 <= first <= last <= 9999:
        raise BallSetError(f"a numbered ball set needs 0 <= first <= last <= 9999, not {first}-{last}")
    try:
        tags = [tag_format.format(n=n) for n in range(first, last + 1)]
    except (KeyError, IndexError, ValueError) as exc:
        raise BallSetError(f"tag_format {tag_format!r} must use {{n}} (the ball's number): {exc}") from None
    colors = dict(colors or {})
    labels = [str(n) for n in range(first, last + 1)]
    stray = sorted(set(colors) - set(labels))
    if stray:
        raise BallSetError(f"colours are given for balls that are not in {first}-{last}: {', '.join(stray)}")
    try:
        return BallSet(
            name=name or f"numbered {first}-{last}",
            case_sensitive=case_sensitive,
            balls=tuple(Ball(tag=t, label=lab, color=colors.get(lab)) for t, lab in zip(tags, labels)),
        )
    except ValidationError as exc:
        raise BallSetError(_first_error(exc)) from None


def parse_ball_set(data: Mapping[str, Any], source: str = "<ball set>") -> BallSet:
    """A ball-set table from parsed TOML/JSON data, or BallSetError naming the source and the problem."""
    data = dict(data)
    numbered = data.pop("numbered", None)
    colors = data.pop("colors", None)
    if colors is not None and not isinstance(colors, Mapping):
        raise BallSetError(f"{source}: colors must be a table of label = colour")
    if numbered is not None:
        if "balls" in data:
            raise BallSetError(f"{source}: give either [numbered] or [[balls]], not both")
        if not isinstance(numbered, Mapping):
            raise BallSetError(f"{source}: numbered must be a table with first, last and tag_format")
        unknown = set(numbered) - {"first", "last", "tag_format"}
        if unknown:
            raise BallSetError(f"{source}: numbered: unknown key(s) {', '.join(sorted(unknown))}")
        try:
            first, last = int(numbered["first"]), int(numbered["last"])
        except (KeyError, TypeError, ValueError):
            raise BallSetError(f"{source}: numbered needs integer first and last") from None
        extra = set(data) - {"name", "case_sensitive"}
        if extra:
            raise BallSetError(f"{source}: unknown key(s) {', '.join(sorted(extra))}")
        try:
            return numbered_ball_set(
                first,
                last,
                tag_format=str(numbered.get("tag_format", DEFAULT_TAG_FORMAT)),
                colors={str(k): str(v) for k, v in (colors or {}).items()},
                name=str(data.get("name", f"numbered {first}-{last}")),
                case_sensitive=bool(data.get("case_sensitive", False)),
            )
        except BallSetError as exc:
            raise BallSetError(f"{source}: {exc}") from None
    if colors:
        balls = data.get("balls")
        if isinstance(balls, list):
            data["balls"] = [
                dict(b, color=b.get("color", colors.get(str(b.get("label")))))
                if isinstance(b, Mapping)
                else b
                for b in balls
            ]
    try:
        return BallSet.model_validate(data)
    except ValidationError as exc:
        raise BallSetError(f"{source}: {_first_error(exc)}") from None


def load_ball_set(path: str | Path) -> BallSet:
    return parse_ball_set(read_toml(path, "the ball-set table", BallSetError), str(path))


def ball_set_from_option(option: Any = None, *, tag_format: str | None = None) -> BallSet:
    """The ``ball_set`` option of a reader: None (the default set), "1-48", a .toml path, a table, a BallSet."""
    if isinstance(option, BallSet):
        return option
    if option is None:
        option = DEFAULT_BALL_SET
    if isinstance(option, Mapping):
        return parse_ball_set(option, "ball_set option")
    if not isinstance(option, str):
        raise BallSetError(f"ball_set must be a range like '1-48', a .toml path or a table, not {option!r}")
    m = _RANGE.match(option)
    if m:
        return numbered_ball_set(
            int(m.group(1)), int(m.group(2)), tag_format=tag_format or DEFAULT_TAG_FORMAT
        )
    if option.endswith(".toml"):
        return load_ball_set(option)
    raise BallSetError(f"ball_set {option!r} is neither a range like '1-48' nor a .toml file")


def _first_error(exc: ValidationError) -> str:
    e = exc.errors()[0]
    loc = ".".join(str(p) for p in e["loc"])
    return f"{loc}: {e['msg']}" if loc else e["msg"]
