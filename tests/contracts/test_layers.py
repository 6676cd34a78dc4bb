"""Imports point one way: devices -> recognition -> studio -> streaming / dealer_ui, with the composition root
(app/) above them all. Read from the source's syntax tree, so an import inside a function or under
TYPE_CHECKING counts as much as one at the top of a module."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
OURS = ("app", "devices", "discovery", "recognition", "streaming", "studio", "dealer_ui", "simulators")
#: the neutral module-scanning helper every layer may use (it imports nothing of ours itself)
NEUTRAL = "discovery"


def _events_only(module: str) -> bool:
    """devices.events or the events of one device family (devices.balls.events, ...)."""
    parts = module.split(".")
    return parts[0] == "devices" and parts[-1] == "events" and len(parts) in (2, 3)


#: package -> (what it may import of ours besides itself, why)
RULES = {
    "discovery": (lambda m: False, "discovery imports nothing of ours: every layer uses it"),
    "devices": (lambda m: False, "devices imports nothing else of ours"),
    "recognition": (_events_only, "recognition imports at most the event types of devices"),
    "streaming": (
        lambda m: m.split(".")[0] not in ("studio", "recognition", "dealer_ui", "app"),
        "streaming carries signed messages without knowing round logic",
    ),
    "studio": (
        lambda m: m.split(".")[0] not in ("dealer_ui", "app"),
        "studio is the core: the console and the composition root sit above it",
    ),
    "dealer_ui": (lambda m: m.split(".")[0] == "studio", "the console talks only to studio's services"),
    "simulators": (
        lambda m: m.split(".")[0] not in ("studio", "dealer_ui", "app"),
        "simulators are twins of devices, below the core",
    ),
}

#: imports being moved out by work in progress elsewhere: (file, first package of the import). The test fails
#: when one of them is no longer there, so that the exemption is removed with it.
PENDING: set[tuple[str, str]] = set()


def _imports(path: Path, root: Path = ROOT) -> list[tuple[int, str]]:
    """(line, absolute module) of every import in the file, relative imports resolved."""
    package = path.relative_to(root).parts[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                found.append((node.lineno, node.module or ""))
                continue
            base = list(package[: len(package) - (node.level - 1)])
            if node.module:
                found.append((node.lineno, ".".join([*base, node.module])))
            else:
                found += [(node.lineno, ".".join([*base, alias.name])) for alias in node.names]
    return found


def _crossings(package: str) -> list[tuple[str, int, str]]:
    """(file, line, module) of every import of another package of ours in `package`."""
    out = []
    for path in sorted((ROOT / package).rglob("*.py")):
        for line, module in _imports(path):
            top = module.split(".")[0]
            if top in OURS and top != package:
                out.append((path.relative_to(ROOT).as_posix(), line, module))
    return out


@pytest.mark.parametrize("package", sorted(RULES))
def test_imports_point_one_way(package: str) -> None:
    allowed, why = RULES[package]
    wrong = [
        f"{file}:{line} imports {module}"
        for file, line, module in _crossings(package)
        if not allowed(module)
        and not (package != NEUTRAL and module.split(".")[0] == NEUTRAL)
        and (file, module.split(".")[0]) not in PENDING
    ]
    assert not wrong, f"{why}:\n" + "\n".join(wrong)


def test_nothing_imports_the_composition_root() -> None:
    wrong = [
        f"{file}:{line} imports {module}"
        for package in OURS
        if package != "app"
        for file, line, module in _crossings(package)
        if module.split(".")[0] == "app"
    ]
    assert not wrong, "app/ sits above every package:\n" + "\n".join(wrong)


def test_pending_exemptions_are_still_needed() -> None:
    crossings = {(file, module.split(".")[0]) for package in OURS for file, _, module in _crossings(package)}
    stale = sorted(PENDING - crossings)
    assert not stale, f"these imports are gone: remove them from PENDING: {stale}"


def test_the_check_sees_relative_and_nested_imports(tmp_path: Path) -> None:
    """The scanner resolves relative imports and finds imports inside functions (else it passes anything)."""
    inner = tmp_path / "studio" / "inner"
    inner.mkdir(parents=True)
    (inner / "__init__.py").write_text("from . import a\nfrom .. import table\n")
    (inner / "mod.py").write_text(
        "from .a import b\nfrom ..x import y\n\ndef f():\n    import dealer_ui.router\n"
    )
    assert [m for _, m in _imports(inner / "__init__.py", tmp_path)] == ["studio.inner.a", "studio.table"]
    assert [m for _, m in _imports(inner / "mod.py", tmp_path)] == [
        "studio.inner.a",
        "studio.x",
        "dealer_ui.router",
    ]


#: the sources of a roulette wheel's events: the wheel drivers and the overhead camera
WHEEL_SOURCES = ("devices/roulette", "devices/overhead_camera")


def test_every_source_of_a_wheels_events_speaks_the_neutral_events() -> None:
    """The wheel and the overhead camera (a second source of winning numbers) report on the events of
    devices/events.py, told apart by their device's role: no source defines an event type of its own, and
    nothing outside devices/ imports a source's package, so a second vendor's wheel or camera is one module."""
    own_events = []
    for folder in WHEEL_SOURCES:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
                if isinstance(node, ast.ClassDef) and any(
                    (isinstance(b, ast.Name) and b.id.endswith("Event"))
                    or (isinstance(b, ast.Attribute) and b.attr.endswith("Event"))
                    for b in node.bases
                ):
                    own_events.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    assert not own_events, own_events
    sources = tuple(folder.replace("/", ".") for folder in WHEEL_SOURCES)
    crossings = [
        f"{path.relative_to(ROOT)}:{line} imports {module}"
        for package in OURS
        if package != "devices"
        for path in sorted((ROOT / package).rglob("*.py"))
        for line, module in _imports(path)
        if module.startswith(sources)
    ]
    assert not crossings, crossings
