"""The journal's texts: canonical JSON of its records' bodies, of its signed feed messages and of each
record's hash input, byte for byte what `streaming.canonical.canonical_json` gives (`studio verify` and every
consumer recompute them from it), made with json's C encoder alone where the value is plain data.

Where a value is not plain data (a key that is not a str, a subclass of dict, list or tuple, NaN, an object),
canonical_json itself encodes it or names what is wrong. tests/studio/test_journal_writer_fast.py holds these
to their plain versions on varied values.
"""

from __future__ import annotations

import base64
import bisect
import hashlib
import json
import json.encoder
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from itertools import chain, compress, repeat
from operator import is_
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from streaming.canonical import canonical_json, sha256_hex


def rfc3339(at: datetime) -> str:
    """`at` as `YYYY-MM-DDTHH:MM:SS.ffffffZ` (UTC)."""
    global _second
    if at.tzinfo is UTC:
        # the text of the second before the fraction is kept: most records come within the second of the one
        # before them, and a subtraction and a comparison cost a fifth of formatting the whole datetime
        base, prefix = _second
        if not _NO_TIME <= at - base < _ONE_SECOND:
            if at.year < 1000:  # isoformat writes fewer than four digits of year
                return at.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
            base = at.replace(microsecond=0)
            prefix = base.isoformat()[:-6] + "."  # isoformat is ~5x quicker than strftime, the same text
            _second = (base, prefix)  # one tuple: another thread reads a pair that goes together
        return f"{prefix}{at.microsecond:06d}Z"
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


_NO_TIME = timedelta(0)
_ONE_SECOND = timedelta(seconds=1)
#: (a whole second, its text up to the fraction's dot), the last one rfc3339 formatted
_second: tuple[datetime, str] = (datetime(2000, 1, 1, tzinfo=UTC), "2000-01-01T00:00:00.")  # a year >= 1000


def record_hash(
    seq: int,
    at: str,
    kind: str,
    table_id: str | None,
    round_id: str | None,
    feed_seq: int | None,
    body: str,
    prev_hash: str,
) -> str:
    """SHA-256 hex of the canonical JSON of the record's fields (the chain's link)."""
    if (
        type(seq) is int
        and (feed_seq is None or type(feed_seq) is int)
        and type(at) is str
        and type(kind) is str
        and type(body) is str
        and type(prev_hash) is str
        and (table_id is None or type(table_id) is str)
        and (round_id is None or type(round_id) is str)
    ):
        # the canonical JSON of this flat object written out in key order: the same bytes, without the walk
        text = (
            f'{{"at":{_string(at)},"body":{_string(body)},'
            f'"feed_seq":{"null" if feed_seq is None else feed_seq},"kind":{_string(kind)},'
            f'"prev_hash":{_string(prev_hash)},"round_id":{"null" if round_id is None else _string(round_id)},'
            f'"seq":{seq},"table_id":{"null" if table_id is None else _string(table_id)}}}'
        )
        return _sha256(text.encode("utf-8")).hexdigest()
    return sha256_hex(
        canonical_json(
            {
                "seq": seq,
                "at": at,
                "kind": kind,
                "table_id": table_id,
                "round_id": round_id,
                "feed_seq": feed_seq,
                "body": body,
                "prev_hash": prev_hash,
            }
        )
    )


_sha256 = hashlib.sha256

#: a string as JSON, non-ASCII as itself (what canonical JSON writes; json's C encoder)
_string: Callable[[str], str] = json.encoder.encode_basestring  # type: ignore[attr-defined]


def _not_json(value: Any) -> Any:
    raise TypeError(f"Object of type {value.__class__.__name__} is not JSON serializable")


#: json's C encoder set up as canonical_json's (sorted keys, no whitespace, no NaN), called without the Python
#: layers of json.dumps around it (half the time of a small body)
_c_encode = json.encoder.c_make_encoder(  # type: ignore[attr-defined]
    None, _not_json, _string, None, ":", ",", True, False, False
)


#: the types of JSON's scalars as the studio's records hold them
_SCALARS = frozenset({str, int, float, bool, type(None)})


_CONTAINERS = frozenset({dict, list, tuple})
_FLAT = _SCALARS | _CONTAINERS
#: deeper than this, plain_types gives up (canonical_json then names a cycle, or encodes it)
_DEPTH = 100


def plain_types(
    value: Any, ints: list[int] | None = None, strings: list[str] | None = None
) -> set[type] | None:
    """The types of the values in `value` (a dict, list or tuple) other than plain dicts, lists and tuples;
    None where an object key is not a str (json would quietly turn it into one), or deeper than _DEPTH.
    `ints` and `strings`, if given, get every int value, and every str (keys too, a level's keys joined).

    One level of nesting at a time, every step in C (itertools over all the level's containers at once): a
    roulette outcome's forty bets cost what one does."""
    if type(value) not in _CONTAINERS:
        return None
    if type(value) is dict and ints is None and strings is None:
        # a device line's body: scalars and empty lists, one level, no walk
        flat = set(map(type, value.values()))
        if flat <= _FLAT and not any(
            compress(value.values(), map(_CONTAINERS.__contains__, map(type, value.values())))
        ):
            try:
                "".join(value)
            except TypeError:
                return None
            return flat - _CONTAINERS
    seen: set[type] = set()
    dicts: list[Any] = [value] if type(value) is dict else []
    seqs: list[Any] = [] if dicts else [value]
    for _ in range(_DEPTH):
        try:
            keys = "".join(chain.from_iterable(dicts))  # the keys' check: a TypeError names a key not a str
        except TypeError:
            return None
        values = [*chain.from_iterable(map(dict.values, dicts)), *chain.from_iterable(seqs)]
        kinds = list(map(type, values))
        types = set(kinds)
        if ints is not None and int in types:
            ints.extend(compress(values, map(is_, kinds, repeat(int))))
        if strings is not None:
            strings.append(keys)
            if str in types:
                strings.extend(compress(values, map(is_, kinds, repeat(str))))
        if types.isdisjoint(_CONTAINERS):
            return seen | types
        seen |= types - _CONTAINERS
        dicts = list(compress(values, map(is_, kinds, repeat(dict)))) if dict in types else []
        seqs = list(compress(values, map(is_, kinds, repeat(list)))) if list in types else []
        if tuple in types:
            seqs += compress(values, map(is_, kinds, repeat(tuple)))
    return None


def _string_keys(value: Any) -> bool:
    """Every object key in `value` is a str; False too for a subclass of dict, list or tuple (canonical_json
    looks at those)."""
    types = plain_types(value)
    if types is None:
        return False
    return types <= _SCALARS or not any(issubclass(t, (dict, list, tuple)) for t in types)


def canonical_text(value: Any) -> str:
    """canonical_json(value).decode(), with the C encoder alone for plain data (a walk over the keys, not a
    read-back, checks that none is hidden); anything else goes through canonical_json, which names what is
    wrong."""
    try:
        if type(value) is dict:
            text: str = "".join(_c_encode(value, 0))
            # The encoder quietly turns a key that is not a str into one, so every key is looked at. With a
            # single "{" in the text (its own: no object inside it, e.g. a device line's body) the object's keys
            # are the only ones, and "".join checks them (a TypeError names one that is not a str), in a tenth
            # of the time of the walk.
            if text.count("{") == 1:
                "".join(value)
                plain = True
            else:
                plain = _string_keys(value)
        else:
            plain = _string_keys(value)
            if plain:
                text = "".join(_c_encode(value, 0))
        if plain:
            if not text.isascii():
                text.encode("utf-8")  # a lone surrogate: canonical_json names it
            return text
    except (TypeError, ValueError, RecursionError):
        pass
    return canonical_json(value).decode()


def message_items(message: dict[str, Any], at: str | None = None, checked: bool = False) -> dict[str, str]:
    """name -> `"name":value` in canonical JSON for each top-level field of `message` but `hash` and
    `signature`, and `occurred_at` = `at` where it has none: the pieces `signed_items` puts together, each
    value encoded once. `checked`: `message` passed `studio.journal.check_feed_message` (every key in it a str,
    every value JSON), so its values are not looked at again before the C encoder encodes them."""
    items: dict[str, str] = {}
    for k, v in message.items():
        if not isinstance(k, str):
            raise TypeError(f"canonical JSON: object key {k!r} at $ is {type(k).__name__}, not str")
        if k == "hash" or k == "signature":
            continue
        t = type(v)
        if t is str:
            text = _string(v)
        elif t in _SCALARS:
            try:
                text = "".join(_c_encode(v, 0))
            except ValueError:
                text = canonical_json(v).decode()  # names what is wrong (NaN)
        elif checked:
            text = "".join(_c_encode(v, 0))
        else:
            text = canonical_text(v)
        items[k] = _string(k) + ":" + text
    if at is not None and "occurred_at" not in items:
        items["occurred_at"] = '"occurred_at":' + _string(at)
    try:
        "".join(items.values()).encode("utf-8")
    except UnicodeEncodeError as exc:  # a lone surrogate, as canonical_json says it
        raise ValueError(f"canonical JSON: string is not valid Unicode ({exc.reason})") from None
    return items


def signed_items(items: dict[str, str], key: Ed25519PrivateKey) -> tuple[str, str]:
    """(hash, canonical text of the signed message) from `message_items`' pieces: the three texts (without
    hash, with it, with the signature) put together from them, in key order."""
    names = sorted(items)
    parts = [items[k] for k in names]
    digest = sha256_hex(("{" + ",".join(parts) + "}").encode("utf-8"))
    at = bisect.bisect(names, "hash")
    names.insert(at, "hash")
    parts.insert(at, '"hash":"' + digest + '"')
    signature = base64.b64encode(key.sign(("{" + ",".join(parts) + "}").encode("utf-8"))).decode("ascii")
    parts.insert(bisect.bisect(names, "signature"), '"signature":"' + signature + '"')
    return digest, "{" + ",".join(parts) + "}"


def signed_text(message: dict[str, Any], key: Ed25519PrivateKey) -> tuple[str, str]:
    """(hash, canonical text of the signed message) of `message` (its hash and signature, if any, left out):
    the bytes streaming.canonical.sign_message_text gives."""
    return signed_items(message_items(message), key)
