"""`studio evaluate`: auditors re-check recorded rounds, JSON Lines in, one JSON line out per input line.

Quick to start: the game's own module is the only one imported (found through a small index of game id ->
module, kept in the user's cache folder and rebuilt whenever a file of `recognition` changes), so a card game
never loads OpenCV and `--list` imports no game at all once the index is there. Quick to run: a game whose
rounds rarely repeat has a fast path (`evaluate_json`: baccarat's family, Lucky 5, most card games through
recognition/evaluate_fast.py's CardLines) that writes the line itself, the general path answering what it
leaves; for every other game each distinct round is evaluated once and its answer reused for every line that
repeats it (a roulette number, three dice, two cards: the rounds of a long file repeat). bench/evaluate.py
measures both against plain implementations of the rules.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import os
import re
import sys
from collections.abc import Iterable
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from recognition.game import GameRules

#: how many distinct rounds' answers are kept; past it, rounds are evaluated without keeping their answer
MEMO_SIZE = 200_000
#: after this many lines, answers are kept only if at least half the lines repeated an earlier round
MEMO_PROBE = 20_000


def cmd_evaluate(args: argparse.Namespace) -> int:
    index = game_index()
    if args.list:
        sys.stdout.write("".join(f"{game_id}\n" for game_id in index))
        return 0
    if not args.game:
        print("studio evaluate: --game GAME is required (studio evaluate --list shows them)", file=sys.stderr)
        return 2
    if args.game not in index:
        print(f"studio evaluate: unknown game {args.game!r}; known: {', '.join(index)}", file=sys.stderr)
        return 2
    game = load_game(args.game, index)
    if not args.input:
        _evaluate_lines(game, sys.stdin)
        return 0
    try:
        with open(args.input, encoding="utf-8", errors="replace") as source:
            _evaluate_lines(game, source)
    except OSError as exc:
        print(f"studio evaluate: {args.input}: {exc.strerror}", file=sys.stderr)
        return 2
    return 0


# --- which module holds which game -------------------------------------------------------------------


def _sources_stamp() -> str:
    """A digest of the names, sizes and times of every source file of `recognition` (and of the discovery)."""
    root = Path(__file__).resolve().parent.parent
    h = hashlib.sha256()
    for folder in (root / "recognition", root / "discovery"):
        for path in sorted(folder.rglob("*.py")):
            st = path.stat()
            h.update(f"{path.relative_to(root)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:32]


def _index_path() -> Path:
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "studio" / f"games-{_sources_stamp()}.json"


def game_index() -> dict[str, str]:
    """Game id -> the module that defines it, in id order (`recognition.games.GAMES`'s keys)."""
    path = _index_path()
    try:
        index = json.loads(path.read_text())
        if type(index) is dict and all(type(k) is str and type(v) is str for k, v in index.items()):
            return index
    except (OSError, ValueError):
        pass
    index = _discover_index()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(index))
        os.replace(tmp, path)
    except OSError:
        pass  # no cache folder to write: the next start discovers again
    return index


def _discover_index() -> dict[str, str]:
    import recognition
    from discovery import discover
    from recognition.games import _check

    modules: dict[str, str] = {}

    def check(game_id: str, rules: Any, module: str) -> None:
        _check(game_id, rules, module)
        modules.setdefault(game_id, module)

    games = discover(recognition, "GAMES", what="game id", skip=("recognition.games",), check=check)
    return {game_id: modules[game_id] for game_id in games}


def load_game(game_id: str, index: dict[str, str]) -> GameRules:
    """The game's rules, importing only its module (all of them if the index is out of date)."""
    try:
        game: GameRules = importlib.import_module(index[game_id]).GAMES[game_id]
        return game
    except (ImportError, AttributeError, KeyError):
        from recognition.games import GAMES

        return GAMES[game_id]


# --- the lines ---------------------------------------------------------------------------------------


#: a line that starts with a plain id (an integer, an ASCII string without escapes, null): the id's text is what
#: json.dumps writes for it, and the rest of the line (the round) is a key for the answer
_PLAIN_ID = re.compile(r'\{"id": ?(0|-?[1-9][0-9]*|"[ !#-\[\]-~]*"|null), ?(.*)', re.DOTALL)


def _evaluate_lines(game: GameRules, source: Iterable[str]) -> None:
    if game.fast_evaluate:
        _fast_lines(game, source)
    else:
        _memo_lines(game, source)


def _fast_lines(game: GameRules, source: Iterable[str]) -> None:
    """A game with a fast path of its own writes each line itself (baccarat: about 390,000 rounds/s of CPU
    through the CLI); what it leaves (None) goes through the general path, without kept answers: such a
    game's rounds rarely repeat. Lines go in batches (one `map` over 4,096 lines, one write)."""
    out = sys.stdout
    fast, dumps = game.evaluate_json, json.dumps
    lines = iter(source)
    done = 0  # lines before this batch
    while batch := list(islice(lines, 4096)):
        texts: list[str | None] = list(map(fast, batch))
        if None in texts:
            for i, text in enumerate(texts):
                if text is None:
                    line = batch[i]
                    answer = evaluate_line(game, line, done + i + 1) if line.strip() else None
                    texts[i] = "" if answer is None else dumps(answer, separators=(",", ":")) + "\n"
        _write(out, texts)  # type: ignore[arg-type]  # every None was replaced
        done += len(batch)
    out.flush()


def _memo_lines(game: GameRules, source: Iterable[str]) -> None:
    out = sys.stdout
    chunk: list[str] = []
    write = chunk.append
    loads, dumps = json.loads, json.dumps
    plain_id = _PLAIN_ID.fullmatch
    memo: dict[str, str] | None = {}  # the round (the item without its id) as text -> the answer after the id
    by_text: dict[str, str] = {}  # the rest of a plain-id line -> the answer after the id
    repeats = 0
    for lineno, line in enumerate(source, 1):
        if len(chunk) >= 4096:
            _write(out, chunk)
            chunk.clear()
        if memo is not None:
            m = plain_id(line)
            if m is not None:
                tail = by_text.get(m[2])
                if tail is not None:
                    repeats += 1
                    write('{"id":' + m[1] + "," + tail)
                    continue
        if not line.strip():
            continue
        if memo is None:
            write(dumps(evaluate_line(game, line, lineno), separators=(",", ":")) + "\n")
            continue
        try:
            item = loads(line)
        except ValueError:
            item = None
        if type(item) is not dict:
            write(dumps(evaluate_line(game, line, lineno), separators=(",", ":")) + "\n")
            continue
        rid = item.pop("id", None)
        # the round without its id, as text: 1, 1.0 and true stay apart, as they do in the answer
        key = dumps(item, separators=(",", ":"))
        tail = memo.get(key)
        if tail is None:
            answer = _answer(game, item)
            if answer is None:
                write(dumps(evaluate_line(game, line, lineno), separators=(",", ":")) + "\n")
                continue
            tail = dumps(answer, separators=(",", ":"))[1:] + "\n"
            if len(memo) < MEMO_SIZE:
                memo[key] = tail
        else:
            repeats += 1
        m = plain_id(line) if len(by_text) < MEMO_SIZE else None
        if m is not None and "id" not in item:
            try:  # the rest of the line alone reads as this very round: the next line with it is this one
                again = loads("{" + m[2])
            except ValueError:
                again = None
            if again == item and dumps(again, separators=(",", ":")) == key:
                by_text[m[2]] = tail
        write('{"id":' + dumps(rid) + "," + tail)
        if lineno == MEMO_PROBE and repeats < MEMO_PROBE // 2:
            memo = None  # few rounds repeat: keeping them costs more than it saves
            by_text.clear()
    _write(out, chunk)
    out.flush()


#: the most characters joined into one write: a larger string is fresh pages each time (malloc maps it), each
#: page faulted in (a sixth of a 35-ball draw game's time went to that)
WRITE_CHARS = 65_536


def _write(out: Any, texts: list[str]) -> None:
    size = sum(map(len, texts))
    step = max(len(texts) * WRITE_CHARS // size, 1) if size > WRITE_CHARS else len(texts) or 1
    for i in range(0, len(texts), step):
        out.write("".join(texts[i : i + step]))


def _answer(game: GameRules, item: dict[str, Any]) -> dict[str, Any] | None:
    """`evaluate_line`'s answer without its id (the item without "id"); None for an answer that names an id
    of its own (which would then take the id's place: evaluate_line writes it)."""
    try:
        evaluated = game.evaluate(item)
    except (ValueError, TypeError, KeyError) as exc:
        return {"valid": False, "error": str(exc)}
    if "id" in evaluated:
        return None
    return {"valid": True, **evaluated}


def evaluate_line(game: GameRules, line: str, lineno: int) -> dict[str, Any]:
    try:
        item = json.loads(line)
    except ValueError as exc:
        return {"id": None, "line": lineno, "valid": False, "error": f"line {lineno} is not JSON: {exc}"}
    if not isinstance(item, dict):
        return {"id": None, "line": lineno, "valid": False, "error": f"line {lineno} is not a JSON object"}
    rid = item.get("id")
    try:
        evaluated = game.evaluate({k: v for k, v in item.items() if k != "id"})
    except (ValueError, TypeError, KeyError) as exc:
        return {"id": rid, "valid": False, "error": str(exc)}
    return {"id": rid, "valid": True, **evaluated}
