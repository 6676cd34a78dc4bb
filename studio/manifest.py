"""Software integrity: a signed list of the hashes of the studio's code and data files (`studio manifest`), and
the check of the installed files against it, at start and every 24 hours (US state rules: control programs
authenticated at least every 24 h).

The manifest lists every file of the studio's packages (code, the console's pages, vendor tables, the dice
model) with its SHA-256, and is signed with an Ed25519 key kept by whoever certifies the build (not the
studio's own journal key: a studio must not be able to bless code it runs). The studio's configuration pins
that key's public half (`manifest_public_key`); a manifest signed by another key is refused like changed code.

A check answers: the signature (good, bad, or by a key that is not the pinned one), and the files changed,
missing or added since the manifest was signed. The studio journals every check (`software_check`), and with
`manifest_action = "refuse"` (the default) pauses every table while the code differs; "warn" only journals and
logs it.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from .keys import KeyError_, create_key, read_key

FORMAT = "studio-manifest/1"
#: the packages whose files the manifest covers (pyproject.toml's packages)
PACKAGES = ("app", "studio", "devices", "recognition", "streaming", "dealer_ui", "simulators", "discovery")
SUFFIXES = (".py", ".js", ".html", ".css", ".json", ".toml", ".onnx", ".txt", ".csv")


def package_root(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise ValueError(f"package {name!r} is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


def installed_files(packages: Iterable[str] = PACKAGES) -> dict[str, Path]:
    """Every code and data file of the packages, by its path relative to the folder that holds them."""
    out: dict[str, Path] = {}
    for name in packages:
        root = package_root(name)
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__" and not d.startswith("."))
            for f in sorted(filenames):
                if f.endswith(SUFFIXES):
                    path = Path(dirpath) / f
                    out[str(path.relative_to(root.parent))] = path
    return out


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _canonical(body: dict[str, Any]) -> bytes:
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def public_b64(key: Ed25519PublicKey) -> str:
    raw = key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return base64.b64encode(raw).decode()


def build(key: Ed25519PrivateKey, packages: Iterable[str] = PACKAGES) -> dict[str, Any]:
    files = {rel: sha256(p) for rel, p in installed_files(packages).items()}
    body: dict[str, Any] = {
        "format": FORMAT,
        "created_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "files": files,
        "public_key": public_b64(key.public_key()),
    }
    return sign(key, body)


def sign(key: Ed25519PrivateKey, body: dict[str, Any]) -> dict[str, Any]:
    """The manifest `body` (without its signature) signed with `key`."""
    unsigned = {k: v for k, v in body.items() if k != "signature"}
    return {**unsigned, "signature": base64.b64encode(key.sign(_canonical(unsigned))).decode()}


def load_or_create_signer(path: Path) -> Ed25519PrivateKey:
    """The certifier's key (PEM, 0600), made on first use."""
    try:
        return read_key(path) if path.exists() else create_key(path)
    except KeyError_ as exc:
        raise ValueError(str(exc)) from None


@dataclass
class Check:
    ok: bool
    signature: str  # "good", "bad", "untrusted key", "unreadable"
    files: int = 0
    changed: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    error: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "signature": self.signature,
            "files": self.files,
            "changed": self.changed,
            "missing": self.missing,
            "added": self.added,
            "error": self.error,
        }

    def summary(self) -> str:
        if self.ok:
            return f"the software is the certified software ({self.files} files)"
        if self.error:
            return f"the software cannot be checked: {self.error}"
        parts = []
        if self.signature != "good":
            parts.append(f"the manifest's signature is {self.signature}")
        for what, names in (("changed", self.changed), ("missing", self.missing), ("added", self.added)):
            if names:
                parts.append(
                    f"{len(names)} files {what} ({', '.join(names[:3])}{', ...' if len(names) > 3 else ''})"
                )
        return "the software differs from its certified manifest: " + "; ".join(parts)


def check(manifest_path: Path, trusted_key_b64: str | None, packages: Iterable[str] = PACKAGES) -> Check:
    """The installed files against the manifest, and the manifest's signature against the pinned key."""
    try:
        body = json.loads(Path(manifest_path).read_text(encoding="utf-8"))
        if not isinstance(body, dict) or body.get("format") != FORMAT:
            raise ValueError(f"not a {FORMAT} manifest")
        signature = base64.b64decode(body.pop("signature"), validate=True)
        key_b64 = str(body["public_key"])
        key = Ed25519PublicKey.from_public_bytes(base64.b64decode(key_b64, validate=True))
        listed = body["files"]
        if not isinstance(listed, dict):
            raise ValueError("its files are not a path -> hash table")
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return Check(False, "unreadable", error=f"{manifest_path}: {exc}")
    try:
        key.verify(signature, _canonical(body))
        verdict = "good" if trusted_key_b64 in (None, key_b64) else "untrusted key"
    except InvalidSignature:
        verdict = "bad"
    installed = installed_files(packages)
    changed = sorted(
        rel for rel, digest in listed.items() if rel in installed and sha256(installed[rel]) != digest
    )
    missing = sorted(set(listed) - set(installed))
    added = sorted(set(installed) - set(listed))
    ok = verdict == "good" and not (changed or missing or added)
    return Check(ok, verdict, len(installed), changed, missing, added)
