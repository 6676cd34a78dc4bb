"""The layers above the wheel drivers know no wheel vendor: no SS2 name, no SS2 command, in code or text.

A wheel vendor's protocol lives in its driver module (devices/roulette/cammegh_ss2.py for the Cammegh
SS2) and, for its technician page, in dealer_ui/wheel_technician.py; everything else speaks the
neutral events and commands of devices/events.py.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NEUTRAL = [
    "devices/events.py",
    *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "devices" / "overhead_camera").glob("*.py")),
    "recognition/wheel_judge.py",
    "recognition/roulette.py",
    *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "recognition" / "roulette_variants").glob("*.py")),
    "dealer_ui/families.py",
    "dealer_ui/live.py",
]
VENDOR = re.compile(r"ss2|cammegh|slingshot", re.IGNORECASE)
#: an SS2 command or report as text: "*R", "*u 1", "*X;...", "*T n", "*o 1159"
SS2_WIRE = re.compile(r"^\*[A-Za-z](?:$|[ ;])")


def names(tree: ast.AST) -> list[tuple[int, str]]:
    """Every identifier, attribute, import and string constant, with its line."""
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            out.append((node.lineno, node.id))
        elif isinstance(node, ast.Attribute):
            out.append((node.lineno, node.attr))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.append((node.lineno, node.name))
        elif isinstance(node, ast.arg):
            out.append((node.lineno, node.arg))
        elif isinstance(node, ast.alias):
            out.append((node.lineno, node.name))
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.append((node.lineno, node.module))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            out.append((node.lineno, node.value))
    return out


@pytest.mark.parametrize("path", NEUTRAL)
def test_no_vendor_names_above_the_drivers(path):
    source = (ROOT / path).read_text()
    found = [
        f"{path}:{line}: {text[:60]!r}"
        for line, text in names(ast.parse(source))
        if VENDOR.search(text) or SS2_WIRE.match(text)
    ]
    found += [
        f"{path}:{i}: comment"
        for i, line in enumerate(source.splitlines(), 1)
        if "#" in line and VENDOR.search(line.split("#", 1)[1])
    ]
    assert not found, "\n".join(found)


def test_the_check_sees_a_vendor_name():
    tree = ast.parse('from recognition.ss2_judge import X\nSEND = "*R"\nclass CammeghThing: pass\n')
    hits = [t for _, t in names(tree) if VENDOR.search(t) or SS2_WIRE.match(t)]
    assert sorted(hits) == sorted(["recognition.ss2_judge", "*R", "CammeghThing"])
