"""The ball-set check: before a table opens, every ball is read once. Pure.

The dealer (or the machine, releasing every ball through the chute) presents each
ball of the set to the reader once. The check passes only when the reads are
exactly the game's ball set:

* ``missing``: a label read fewer times than the set has balls with it (for a
  ball-set table with tags, the tags never read are listed too);
* ``unknown_tags``: a tag not in the ball-set table (a foreign or damaged ball);
* ``not_in_game``: a ball of the table that is not a ball of the game;
* ``duplicated``: a tag read twice (the same ball presented twice, or two balls
  with one tag), or a label read more often than the set has it;
* ``wrong_color``: a ball whose colour in the ball-set table is not the game's.

Unreadable reads (no-reads) are counted but do not fail the check by themselves:
a ball that never reads shows as missing. A passing report is what the studio must
see (journaled) before it opens the table's first round; see docs/balls.md for the
flow the studio runs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from devices.balls.events import BallRead, BallUnreadable

if TYPE_CHECKING:  # pragma: no cover
    from .judge import DrawRules

__all__ = ["BallSetCheck", "BallSetReport", "ball_set_check"]


class BallSetReport(BaseModel):
    """The outcome of one ball-set check (journaled as is: no floats)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    ok: bool
    expected: int
    read: int
    missing: list[str]
    missing_tags: list[str]
    unknown_tags: list[str]
    not_in_game: list[str]
    duplicated: list[str]
    wrong_color: list[str]
    unreadable: int
    message: str

    def as_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


class BallSetCheck:
    """Accumulates the reads of one check; :meth:`report` can be asked at any time.

    ``labels``: the game's ball labels; ``counts``: label -> balls carrying it (default 1;
    a game object's ``max_count`` is used by :meth:`for_game`); ``colors``: the game's
    colours; ``tags``: optional label -> the tags the ball-set table gives it (to name the
    missing balls by tag).
    """

    def __init__(
        self,
        labels: Sequence[str],
        *,
        counts: Mapping[str, int] | None = None,
        colors: Mapping[str, str] | None = None,
        tags: Mapping[str, Sequence[str]] | None = None,
    ) -> None:
        if not labels:
            raise ValueError("a ball-set check needs the game's ball labels")
        self.labels = tuple(labels)
        self.counts = {label: int((counts or {}).get(label, 1)) for label in self.labels}
        self.colors = dict(colors or {})
        self.tags = {k: tuple(v) for k, v in (tags or {}).items()}
        self.reads: list[BallRead] = []
        self.unreadable = 0

    @classmethod
    def for_game(cls, game: DrawRules, ball_set: Any = None) -> BallSetCheck:
        """A check for a draw game and optionally its ball-set table (``with_label(label)`` -> the balls)."""
        labels = tuple(game.ball_labels)
        counts = {label: game.max_count(label) for label in labels}
        tags = None
        if ball_set is not None:
            tags = {label: tuple(b.tag for b in ball_set.with_label(label)) for label in labels}
        return cls(labels, counts=counts, colors=game.colors, tags=tags)

    @property
    def expected(self) -> int:
        return sum(self.counts.values())

    def feed(self, event: Any) -> bool:
        """Take one reader event; True if it counted (a read or a no-read)."""
        if isinstance(event, BallRead):
            self.reads.append(event)
            return True
        if isinstance(event, BallUnreadable):
            self.unreadable += 1
            return True
        return False

    @property
    def complete(self) -> bool:
        """As many good reads as the set has balls (the studio may then finish the check)."""
        return len({r.tag for r in self.reads if r.ball in self.counts}) >= self.expected

    def report(self) -> BallSetReport:
        tags_seen = Counter(r.tag for r in self.reads)
        duplicated = sorted(t for t, n in tags_seen.items() if n > 1)
        unknown = sorted({r.tag for r in self.reads if r.ball is None})
        first_read: dict[str, BallRead] = {}
        for r in self.reads:
            first_read.setdefault(r.tag, r)
        good = [(r, r.ball) for r in first_read.values() if r.ball is not None]  # (read, its label)
        not_in_game = sorted({ball for _, ball in good if ball not in self.counts})
        per_label = Counter(ball for _, ball in good if ball in self.counts)
        over = sorted(label for label, n in per_label.items() if n > self.counts[label])
        duplicated += [
            f"label {label} ({per_label[label]} balls, the set has {self.counts[label]})" for label in over
        ]
        missing = [label for label in self.labels if per_label.get(label, 0) < self.counts[label]]
        missing_tags: list[str] = []
        if self.tags:
            seen = set(first_read)
            missing_tags = [t for label in missing for t in self.tags.get(label, ()) if t not in seen]
        wrong_color = sorted(
            {
                f"{ball} ({r.color}, the game says {self.colors[ball]})"
                for r, ball in good
                if ball in self.colors and r.color is not None and r.color != self.colors[ball]
            }
        )
        read = sum(min(n, self.counts[label]) for label, n in per_label.items())
        ok = not (missing or unknown or not_in_game or duplicated or wrong_color)
        return BallSetReport(
            ok=ok,
            expected=self.expected,
            read=read,
            missing=missing,
            missing_tags=missing_tags,
            unknown_tags=unknown,
            not_in_game=not_in_game,
            duplicated=duplicated,
            wrong_color=wrong_color,
            unreadable=self.unreadable,
            message=self._message(ok, read, missing, unknown, not_in_game, duplicated, wrong_color),
        )

    def _message(
        self,
        ok: bool,
        read: int,
        missing: list[str],
        unknown: list[str],
        not_in_game: list[str],
        duplicated: list[str],
        wrong_color: list[str],
    ) -> str:
        if ok:
            return f"Ball set complete: all {self.expected} balls read once."
        parts = [f"The ball set is not right ({read} of {self.expected} balls read): the table cannot open."]
        if missing:
            parts.append(f"Missing: {_list(missing)}.")
        if unknown:
            parts.append(f"Unknown tags (not in the ball-set table): {_list(unknown)}.")
        if not_in_game:
            parts.append(f"Balls that are not in this game's set: {_list(not_in_game)}.")
        if duplicated:
            parts.append(f"Read more than once: {_list(duplicated)}.")
        if wrong_color:
            parts.append(f"Wrong colour: {_list(wrong_color)}.")
        return " ".join(parts)


def ball_set_check(
    reads: Iterable[Any],
    labels: Sequence[str],
    *,
    counts: Mapping[str, int] | None = None,
    colors: Mapping[str, str] | None = None,
    tags: Mapping[str, Sequence[str]] | None = None,
) -> BallSetReport:
    """Check the reads of a ball-set check (BallRead / BallUnreadable events, in any order)."""
    check = BallSetCheck(labels, counts=counts, colors=colors, tags=tags)
    for event in reads:
        check.feed(event)
    return check.report()


def _list(items: list[str], limit: int = 12) -> str:
    if len(items) <= limit:
        return ", ".join(items)
    return ", ".join(items[:limit]) + f" and {len(items) - limit} more"
