from __future__ import annotations

from pathlib import Path

import pytest

SEED = Path(__file__).resolve().parents[3] / "shared" / "seeds" / "000_300cbc27d72ea06a.txt"


@pytest.fixture(scope="session")
def seed_lines() -> list[str]:
    """The seed's lines, 1-based (index 0 is empty); skips where the shared specs are not checked out."""
    if not SEED.exists():
        pytest.skip(f"seed text not found at {SEED}")
    return [""] + SEED.read_text(encoding="utf-8").splitlines()
