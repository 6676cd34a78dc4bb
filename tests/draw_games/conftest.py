from __future__ import annotations

import pytest
from fixture_files import SeedLines
from fixture_files import seed_lines as seed_excerpt


@pytest.fixture(scope="session")
def seed_lines() -> SeedLines:
    """Seed 000's lines by their line number (fixtures/seeds/); a line not in the excerpt fails the test."""
    return seed_excerpt()
