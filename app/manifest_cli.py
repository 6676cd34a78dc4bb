"""`studio manifest`: write the signed manifest of the installed software, or check the software against one."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def add_manifest_parser(sub: Any) -> None:
    p = sub.add_parser("manifest", help="write (or --check) the signed hash list of the installed software")
    p.add_argument("--key", required=True, help="the certifier's Ed25519 key (PEM; made, 0600, if missing)")
    p.add_argument("--out", help="where to write the manifest (default: standard output)")
    p.add_argument(
        "--check", metavar="MANIFEST", help="check the installed software against MANIFEST instead"
    )
    p.set_defaults(func=cmd_manifest)


def cmd_manifest(args: argparse.Namespace) -> int:
    from studio.manifest import build, check, load_or_create_signer, public_b64

    try:
        key = load_or_create_signer(Path(args.key))
    except (OSError, ValueError) as exc:
        print(f"studio manifest: {exc}", file=sys.stderr)
        return 2
    if args.check:
        result = check(Path(args.check), public_b64(key.public_key()))
        print(result.summary())
        return 0 if result.ok else 1
    body = build(key)
    text = json.dumps(body, indent=1, sort_keys=True) + "\n"
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
        print(
            f"studio manifest: {len(body['files'])} files signed into {args.out}; pin the key in the "
            f'configuration: [studio] manifest_public_key = "{body["public_key"]}"',
            file=sys.stderr,
        )
    else:
        sys.stdout.write(text)
    return 0
