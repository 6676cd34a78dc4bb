"""docs/ holds exactly the contract the models generate: `studio contract --out DIR` writes the JSON Schemas, the
feed's AsyncAPI document and the OpenAPI document, and the committed files are those, byte for byte."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_committed_contract_is_what_studio_contract_generates(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", "contract", "--out", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    generated = {
        str(p.relative_to(tmp_path)): p.read_text(encoding="utf-8") for p in tmp_path.rglob("*.json")
    }
    assert {"asyncapi.json", "openapi.json", "schemas/feed-message.schema.json"} <= set(generated)
    stale = [
        name for name, text in generated.items() if (ROOT / "docs" / name).read_text(encoding="utf-8") != text
    ]
    assert stale == [], f"docs/ is stale: run `python -m app.cli contract --out docs` ({stale})"
    committed = {str(p.relative_to(ROOT / "docs")) for p in (ROOT / "docs" / "schemas").glob("*.json")}
    assert committed <= set(generated), "docs/schemas holds a schema nothing generates"
