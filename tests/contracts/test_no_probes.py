"""No ability is probed by name: what a game, judge, driver or simulator can do is declared (a member with a
default, an ABC it inherits, a Protocol it follows) and called, never found by ``getattr(obj, "name", None)``
or ``hasattr(obj, "name")``. Read from the source's syntax tree: a ``getattr``/``hasattr`` with a constant
attribute name is a probe unless it is one of the few genuinely dynamic lookups allowed below."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ("app", "dealer_ui", "devices", "discovery", "recognition", "simulators", "streaming", "studio")

#: (file, object, attribute) of the lookups that are no ability probe, each with why
ALLOWED = {
    # thread-local storage: a thread's reader connection exists once that thread has opened one
    ("studio/journal.py", "self._readers", "conn"),
    ("studio/journal.py", "self._readers", "generation"),
    ("recognition/dice/onnx_net.py", "self._local", "net"),  # one network per thread
    # an OS constant Linux has and other systems lack (the pipe size of the journal writer's pipe)
    ("studio/journal.py", "fcntl", "F_SETPIPE_SZ"),
    # the name of any callable in a log line (a functools.partial has none)
    ("studio/service.py", "fn", "__name__"),
    ("simulators/balls.py", "fn", "__name__"),
    # versions of a third-party library: zxing-cpp 2 has no TextMode and no Result.valid, 3 has create_barcode
    ("devices/shoe/vision.py", "zxingcpp", "TextMode"),
    ("devices/shoe/vision.py", "text_mode", "Plain"),
    ("devices/shoe/vision.py", "r", "valid"),
    ("simulators/shoe.py", "zxingcpp", "create_barcode"),
    # the SS2 simulator runs on whatever pyserial-like port its caller gives it (a pty, a socket, a test's
    # loopback): the optional members of pyserial's API it uses when the port has them
    ("simulators/cammegh_ss2.py", "port", "in_waiting"),
    ("simulators/cammegh_ss2.py", "port", "out_waiting"),
    ("simulators/cammegh_ss2.py", "self._port", "close"),
    # argparse: only some subcommands define the logging flags
    ("app/cli.py", "args", "log_level"),
    ("app/cli.py", "args", "log_format"),
    # the ids a log call may pass with `extra=`: a LogRecord has them only then
    ("studio/log_context.py", "record", "table_id"),
    ("studio/log_context.py", "record", "round_id"),
}

#: files still being changed by work in progress elsewhere (a path, or a folder ending in "/"): the test fails
#: when one of them has no probe left, so that the exemption is removed with them
PENDING: set[str] = set()


def _probes(path: Path) -> list[tuple[int, str, str]]:
    """(line, object, attribute) of every getattr/hasattr with a constant attribute name in the file."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "hasattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
        ):
            found.append((node.lineno, ast.unparse(node.args[0]), node.args[1].value))
    return found


def _under(file: str, entry: str) -> bool:
    return file == entry or (entry.endswith("/") and file.startswith(entry))


def _pending(file: str) -> bool:
    return any(_under(file, p) for p in PENDING)


def _all_probes() -> list[tuple[str, int, str, str]]:
    out = []
    for package in SOURCE:
        for path in sorted((ROOT / package).rglob("*.py")):
            file = path.relative_to(ROOT).as_posix()
            out += [(file, line, obj, attr) for line, obj, attr in _probes(path)]
    return out


def test_no_ability_is_probed_by_name() -> None:
    wrong = [
        f"{file}:{line} {obj}.{attr}"
        for file, line, obj, attr in _all_probes()
        if (file, obj, attr) not in ALLOWED and not _pending(file)
    ]
    assert not wrong, (
        "declare the ability (a defaulted member of the contract, an ABC of devices/abilities.py, a family "
        "class) and call it, or add a genuinely dynamic lookup to ALLOWED with why:\n" + "\n".join(wrong)
    )


def test_every_allowed_lookup_is_still_there() -> None:
    seen = {(file, obj, attr) for file, _, obj, attr in _all_probes()}
    stale = sorted(ALLOWED - seen)
    assert not stale, f"these lookups are gone: remove them from ALLOWED: {stale}"


def test_pending_exemptions_are_still_needed() -> None:
    files = {file for file, *_ in _all_probes()}
    stale = sorted(p for p in PENDING if not any(_under(f, p) for f in files))
    assert not stale, f"no probe is left there: remove them from PENDING: {stale}"


def test_the_scan_finds_probes_and_leaves_dynamic_names_alone(tmp_path: Path) -> None:
    """The scanner sees getattr and hasattr with a constant name anywhere (else it passes anything)."""
    module = tmp_path / "mod.py"
    module.write_text(
        "def f(game, name):\n"
        "    if hasattr(game, 'wheel'):\n"
        "        return getattr(game.rules, 'has_decisions', False)\n"
        "    return getattr(game, name)\n"
    )
    assert _probes(module) == [(2, "game", "wheel"), (3, "game.rules", "has_decisions")]


#: classes of ours that define __getattr__, each with why it is no delegation of abilities (a module's own
#: __getattr__, PEP 562, is a lazy import and delegates nothing: recognition.game loads its decision models
#: on first use so that a game's rules import no pydantic)
ALLOWED_GETATTR = {
    # a journal record's Future makes its Condition and waiter lists the first time Future's code asks
    "studio/journal_future.py",
}


def test_no_class_hands_unknown_attributes_to_another_object() -> None:
    """A wrapper declares what it forwards (craps' point judge forwards the dice judge's members one by one):
    a ``__getattr__`` that delegates would make it pass every runtime Protocol check, whatever it has."""
    found = {
        path.relative_to(ROOT).as_posix()
        for package in SOURCE
        for path in sorted((ROOT / package).rglob("*.py"))
        for cls in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path)))
        if isinstance(cls, ast.ClassDef)
        for node in cls.body
        if isinstance(node, ast.FunctionDef) and node.name in ("__getattr__", "__getattribute__")
    }
    assert found == ALLOWED_GETATTR
