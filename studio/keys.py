"""The studio's Ed25519 signing key, kept in the data folder.

Generated on first start with 0600 permissions; never logged or printed. A key
file readable by others is refused rather than used.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

KEY_FILE = "signing-key.pem"


class KeyError_(RuntimeError):
    pass


def load_or_create_key(data_dir: Path) -> Ed25519PrivateKey:
    path = Path(data_dir) / KEY_FILE
    if path.exists():
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode & 0o077:
            raise KeyError_(f"{path}: permissions {oct(mode)} let others read the signing key; chmod 600 it")
        return read_key(path)
    Path(data_dir).mkdir(mode=0o700, parents=True, exist_ok=True)
    return create_key(path)


def create_key(path: Path) -> Ed25519PrivateKey:
    """A new Ed25519 key written to `path` (PEM, 0600); refused if the file exists (O_EXCL: two studios
    starting on one folder must not each write a key)."""
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, pem)
        os.fsync(fd)
    finally:
        os.close(fd)
    return key


def load_public_key(data_dir: Path) -> Ed25519PublicKey:
    path = Path(data_dir) / KEY_FILE
    if not path.exists():
        raise KeyError_(f"{path}: no signing key in this data folder")
    return read_key(path).public_key()


def read_key(path: Path) -> Ed25519PrivateKey:
    key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    if not isinstance(key, Ed25519PrivateKey):
        raise KeyError_(f"{path}: a {type(key).__name__}, not an Ed25519 signing key")
    return key
