"""The JSON examples of docs/feed.md, docs/decisions.md and docs/operations.md, each with the kind it is.

Every ```json block is preceded by an HTML comment naming what it is: `<!-- example: feed-message result -->`
(a feed message of that kind), `decision-request`, `decision-accepted`, `decisions-view`, `error-message`,
`health`, `log-lines` (one JSON object a line). A block without one is an error: the tests then know nothing
it claims.
"""

from __future__ import annotations

import json
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DOCS = Path(__file__).resolve().parents[2] / "docs"
DOC_FILES = ("feed.md", "decisions.md", "operations.md")

_BLOCK = re.compile(
    r"(?:^[ \t]*<!-- example: (?P<what>[\w-]+)(?: (?P<kind>[\w-]+))? -->\n)?^(?P<indent>[ \t]*)```json\n"
    r"(?P<body>.*?)^[ \t]*```",
    re.MULTILINE | re.DOTALL,
)

#: the RFC 8032 (section 7.1, test 1) secret key the docs' feed examples are signed with
RFC8032_SECRET = bytes.fromhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")


@dataclass(frozen=True)
class Example:
    doc: str
    line: int
    what: str | None
    kind: str | None
    text: str

    @property
    def where(self) -> str:
        return f"docs/{self.doc}:{self.line}"

    def value(self) -> Any:
        return json.loads(self.text)


def examples(doc: str | None = None) -> list[Example]:
    found = []
    for name in DOC_FILES if doc is None else (doc,):
        text = (DOCS / name).read_text(encoding="utf-8")
        for m in _BLOCK.finditer(text):
            line = text.count("\n", 0, m.start("indent")) + 1
            found.append(Example(name, line, m["what"], m["kind"], textwrap.dedent(m["body"])))
    return found


def shape(value: Any) -> Any:
    """The keys at each level and the JSON type of each value: what a client's parser depends on.

    A list's shape is the set of its items' shapes (an empty list says nothing about its items)."""
    if isinstance(value, dict):
        return {k: shape(v) for k, v in sorted(value.items())}
    if isinstance(value, list):
        items: list[Any] = []
        for item in value:
            s = shape(item)
            if s not in items:
                items.append(s)
        return ["list", sorted(items, key=repr)] if items else ["list"]
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "null"


def same_shape(documented: Any, sent: Any) -> bool:
    """True when `sent` has the documented keys and types; an empty documented list matches any list."""
    d, s = shape(documented), shape(sent)
    return _match(d, s)


def _match(d: Any, s: Any) -> bool:
    if isinstance(d, dict):
        return isinstance(s, dict) and d.keys() == s.keys() and all(_match(d[k], s[k]) for k in d)
    if isinstance(d, list):
        if not (isinstance(s, list) and s[0] == "list"):
            return False
        if len(d) == 1 or len(s) == 1:
            return True
        return all(any(_match(di, si) for si in s[1]) for di in d[1]) and all(
            any(_match(di, si) for di in d[1]) for si in s[1]
        )
    # a documented integer where the server sends a number with a fraction (or back) is a difference too
    return bool(d == s)
