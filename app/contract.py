"""The studio's published contract, generated from its models: `studio contract --out docs` writes

* ``schemas/*.schema.json``: the JSON Schemas of the feed's messages and of the public-key and error bodies;
* ``asyncapi.json``: the AsyncAPI 3.0 document of the feed (streaming/asyncapi.py), served at
  ``GET /asyncapi.json``;
* ``openapi.json``: the OpenAPI document of every HTTP route, as the app serves it at ``GET /openapi.json``.

A test fails when the committed files differ from what the models generate, so docs/ cannot drift from the
code. The OpenAPI comes from the app itself (built on an empty studio in a throwaway folder): what the routes
declare, nothing written by hand.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from streaming.asyncapi import asyncapi_text
from streaming.messages import schema_documents

__all__ = ["contract_documents", "openapi_document", "write_contract"]


def openapi_document() -> dict[str, Any]:
    """The OpenAPI document of the studio's app: the same for every configuration (no table is in it)."""
    from studio.config import parse_config
    from studio.service import Studio

    from .api import create_app

    with tempfile.TemporaryDirectory(prefix="studio-contract-") as folder:
        studio = Studio(parse_config({"studio": {"data_dir": str(Path(folder) / "data")}, "tables": []}))
        try:
            return create_app(studio).openapi()
        finally:
            studio.journal.close()


def contract_documents() -> dict[str, str]:
    """Path under docs/ -> exact text of every generated contract file (deterministic)."""
    documents = {f"schemas/{name}": text for name, text in schema_documents().items()}
    documents["asyncapi.json"] = asyncapi_text()
    documents["openapi.json"] = json.dumps(openapi_document(), indent=2, ensure_ascii=False) + "\n"
    return documents


def write_contract(out: str | Path) -> list[Path]:
    """Write every contract file under `out` (folders created as needed); return their paths."""
    written: list[Path] = []
    for name, text in contract_documents().items():
        path = Path(out) / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
