"""The repo's reference files (fixtures/, see fixtures/README.md), opened so that a missing one fails the test.

tests/ is on sys.path (tests/conftest.py is there), so any test imports this by name.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Mapping
from functools import cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "fixtures"
SS2_CAPTURE = FIXTURES / "cammegh-ss2-capture.log"
SS2_CAPTURE_SHA256 = "13203e3aebe6eadfa39cab465ce78ecc520ebee76245760b38aa05c3ee4b06c8"
SEED_000 = "000_300cbc27d72ea06a.txt"


def fixture_path(relative: str) -> Path:
    """The path of a fixture file; fails the test (never skips it) when the file is not there."""
    path = FIXTURES / relative
    if not path.is_file():
        pytest.fail(f"fixture file missing: {path} (see fixtures/README.md)", pytrace=False)
    return path


@cache
def ss2_capture() -> bytes:
    """The real SS2 capture, byte-exact."""
    data = fixture_path(SS2_CAPTURE.name).read_bytes()
    assert hashlib.sha256(data).hexdigest() == SS2_CAPTURE_SHA256, (
        "the SS2 capture is not the byte-exact copy"
    )
    return data


class SeedLines(Mapping[int, str]):
    """Lines of a seed by their line number in the full seed (1-based), from its excerpt in fixtures/seeds/."""

    def __init__(self, seed: str, lines: dict[int, str], source: Path) -> None:
        self.seed = seed
        self._lines = lines
        self._source = source

    def __getitem__(self, number: int) -> str:
        try:
            return self._lines[number]
        except KeyError:
            raise KeyError(
                f"seed {self.seed} line {number} is not in {self._source}; copy it there from the seed"
            ) from None

    def __iter__(self) -> Iterator[int]:
        return iter(self._lines)

    def __len__(self) -> int:
        return len(self._lines)


@cache
def seed_lines(seed: str = SEED_000) -> SeedLines:
    """The excerpt of `seed` (a seed file name); each line of the excerpt reads `L<number>: <text>`."""
    source = fixture_path(f"seeds/{seed.removesuffix('.txt')}.excerpt.txt")
    lines: dict[int, str] = {}
    for row in source.read_text(encoding="utf-8").splitlines():
        m = re.fullmatch(r"L(\d+): (.*)", row)
        assert m, f"{source}: not an excerpt line: {row!r}"
        lines[int(m.group(1))] = m.group(2)
    return SeedLines(seed, lines, source)
