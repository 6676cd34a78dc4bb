"""Deck-vendor tables: how a card's barcode payload maps to a card (and back, for the simulator).

A table is a TOML (or JSON) file a technician edits; :func:`load_vendor_table` reads
and validates it, naming the file, the key and the problem when it is wrong. The
studio ships one (``default_vendor_table.toml`` beside this module, see
:func:`default_vendor_table`). The format is described in docs/shoes.md:

* ``template``: the payload's layout, literal characters and fields
  ``{name:width}``: ``deck`` (shoe set serial), ``pack`` (deck number inside the
  set), ``code`` (the card, looked up in ``codes``) and ``check`` (check digit,
  always last). ``charset`` says which characters a field may hold.
* ``codes``: card code in the payload -> card ("AS", "TD"; "JK" a joker, "RJ"/"BJ" the red/black joker
  where the cards tell them apart; "ROCK", "PAPER", "SCISSORS" for a symbol deck).
* ``deck``: "standard" (the 52 playing cards, jokers optional) or "symbols" (Rock Paper Scissors's symbol
  cards); ``require_full_deck`` checks that every card of that deck has a code.
* ``specials``: whole payloads with a meaning of their own (the cut card).
* ``deck_id``: how ``CardDrawn.deck`` is built from the fields (default ``"{deck}"``
  when the template has a deck field, else no deck).

Looking a payload up is pure (:meth:`VendorTable.lookup`) and never guesses: a
payload that does not fit the template, or whose code is not in the table, is
"unknown"; one that fits but fails its check digit is "bad_check" (a misread).
"""

from __future__ import annotations

import json
import re
import string
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, model_validator

__all__ = [
    "CARD_CODE_RE",
    "DECK_CARDS",
    "DEFAULT_TABLE_FILE",
    "STANDARD_CARDS",
    "SYMBOLOGIES",
    "SYMBOL_CARDS",
    "SYMBOL_TABLE_FILE",
    "PayloadInfo",
    "Symbology",
    "VendorTable",
    "VendorTableError",
    "default_vendor_table",
    "load_vendor_table",
    "luhn_digit",
    "parse_vendor_table",
    "symbol_vendor_table",
    "vendor_table_from_option",
]

#: rank A 2 3 4 5 6 7 8 9 T J Q K then suit S H D C; "JK" for a joker, "RJ"/"BJ" for the red/black joker;
#: a symbol deck's ROCK, PAPER, SCISSORS
CARD_CODE_RE = re.compile(r"(?:[A2-9TJQK][SHDC]|JK|RJ|BJ|ROCK|PAPER|SCISSORS)")
STANDARD_CARDS: tuple[str, ...] = tuple(r + s for s in "SHDC" for r in "A23456789TJQK")
SYMBOL_CARDS: tuple[str, ...] = ("ROCK", "PAPER", "SCISSORS")
#: what a deck of each kind holds (what `require_full_deck` checks); jokers are optional in a standard deck
DECK_CARDS: dict[str, tuple[str, ...]] = {"standard": STANDARD_CARDS, "symbols": SYMBOL_CARDS}

Symbology = Literal["code128", "qr", "datamatrix"]
SYMBOLOGIES: tuple[str, ...] = ("code128", "qr", "datamatrix")

DEFAULT_TABLE_FILE = "default_vendor_table.toml"
#: the shipped table of a symbol deck (Rock Paper Scissors); the option value "symbols" names it
SYMBOL_TABLE_FILE = "symbol_vendor_table.toml"

_FIELD = re.compile(r"\{([a-z]+):([0-9]+)\}")
_FIELD_NAMES = ("deck", "pack", "code", "check")
_CHARSETS = {
    "digits": ("[0-9]", set(string.digits)),
    "alnum": ("[0-9A-Z]", set(string.digits + string.ascii_uppercase)),
}
_PRINTABLE = set(string.printable) - set("\t\n\r\x0b\x0c")


class VendorTableError(ValueError):
    pass


def luhn_digit(digits: str) -> str:
    """The Luhn check digit for a string of digits (the digit appended after them)."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if not 0 <= d <= 9:
            raise ValueError(f"Luhn needs digits, got {digits!r}")
        if i % 2 == 0:  # the rightmost data digit is doubled (it sits left of the check digit)
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return str((10 - total % 10) % 10)


@dataclass(frozen=True, slots=True)
class PayloadInfo:
    """What a table says about one payload."""

    #: "card": a card of the table; "special": e.g. the cut card; "unknown": not in the table;
    #: "bad_check": fits the template but its check digit is wrong (a misread, never a card)
    status: Literal["card", "special", "unknown", "bad_check"]
    payload: str
    card: str | None = None
    deck: str | None = None
    special: Literal["cut_card"] | None = None
    fields: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class _Part:
    literal: str = ""
    name: str = ""
    width: int = 0


def _parse_template(template: str) -> list[_Part]:
    parts: list[_Part] = []
    pos = 0
    for m in _FIELD.finditer(template):
        if m.start() > pos:
            parts.append(_Part(literal=template[pos : m.start()]))
        parts.append(_Part(name=m.group(1), width=int(m.group(2))))
        pos = m.end()
    if pos < len(template):
        parts.append(_Part(literal=template[pos:]))
    for p in parts:
        if p.literal and ("{" in p.literal or "}" in p.literal):
            raise ValueError(f"template {template!r}: a field is written {{name:width}}, e.g. {{code:2}}")
    return parts


class VendorTable(BaseModel):
    """One deck vendor's payload scheme. Immutable; build it with :func:`load_vendor_table`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    vendor: str = Field(min_length=1, description="name of the scheme, shown in health and logs")
    description: str = ""
    symbology: Symbology = Field("code128", description="barcode symbology printed on the cards")
    template: str = Field(
        min_length=1, description="payload layout, e.g. '{deck:6}{pack:1}{code:2}{check:1}'"
    )
    charset: Literal["digits", "alnum"] = Field(
        "digits", description="characters of the fields (alnum: 0-9 A-Z)"
    )
    check: Literal["none", "luhn"] = Field("none", description="check digit algorithm of the {check:1} field")
    deck_id: str | None = Field(
        None, description="CardDrawn.deck from the fields, e.g. '{deck}' or '{deck}-{pack}'"
    )
    codes: dict[str, str] = Field(description="card code in the payload -> card (AS, TD, JK, ROCK, ...)")
    deck: Literal["standard", "symbols"] = Field(
        "standard", description="the cards' kind: the 52 playing cards (and jokers), or the symbol cards"
    )
    specials: dict[str, Literal["cut_card"]] = Field(
        default_factory=dict, description="whole payload -> meaning"
    )
    require_full_deck: bool = Field(
        True,
        description="refuse a table that lacks a card of its deck (the 52 standard cards, the 3 symbols)",
    )

    _parts: list[_Part] = PrivateAttr(default_factory=list)
    _regex: re.Pattern[str] = PrivateAttr()
    _by_card: dict[str, list[str]] = PrivateAttr(default_factory=dict)

    @model_validator(mode="after")
    def _check(self) -> VendorTable:
        parts = _parse_template(self.template)
        names = [p.name for p in parts if p.name]
        for n in names:
            if n not in _FIELD_NAMES:
                raise ValueError(f"template field {{{n}}} is unknown; fields are {', '.join(_FIELD_NAMES)}")
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise ValueError(f"template field {{{min(dup)}}} appears twice")
        if "code" not in names:
            raise ValueError("the template needs a {code:N} field")
        for p in parts:
            if p.name and p.width < 1:
                raise ValueError(f"template field {{{p.name}}} needs a width of at least 1")
        cls, allowed = _CHARSETS[self.charset]
        if self.check != "none":
            if not parts[-1].name == "check" or parts[-1].width != 1:
                raise ValueError(f"check = {self.check!r} needs the template to end with {{check:1}}")
            all_digits = self.charset == "digits" and all(not p.literal or p.literal.isdigit() for p in parts)
            if self.check == "luhn" and not all_digits:
                raise ValueError(
                    "check = 'luhn' needs an all-digit payload (charset = 'digits', digit literals)"
                )
        elif "check" in names:
            raise ValueError("the template has a {check} field: set check = 'luhn'")

        code_width = next(p.width for p in parts if p.name == "code")
        by_card: dict[str, list[str]] = {}
        for code, card in self.codes.items():
            if len(code) != code_width or not set(code) <= allowed:
                raise ValueError(f"codes: {code!r} is not a {code_width}-character {self.charset} code")
            if not CARD_CODE_RE.fullmatch(card):
                raise ValueError(
                    f"codes: {code!r} = {card!r} is not a card (rank A23456789TJQK + suit SHDC, JK, RJ, BJ, "
                    "or a symbol ROCK, PAPER, SCISSORS)"
                )
            if (card in SYMBOL_CARDS) != (self.deck == "symbols"):
                raise ValueError(
                    f"codes: {code!r} = {card!r} is not a card of a {self.deck} deck"
                    + (" (set deck = 'symbols' for symbol cards)" if card in SYMBOL_CARDS else "")
                )
            by_card.setdefault(card, []).append(code)
        twice = sorted(c for c, codes in by_card.items() if c != "JK" and len(codes) > 1)
        if twice and self.deck == "standard":
            raise ValueError(f"codes: {twice[0]} is given by two codes ({', '.join(by_card[twice[0]])})")
        if self.require_full_deck:
            missing = [c for c in DECK_CARDS[self.deck] if c not in by_card]
            if missing:
                raise ValueError(
                    f"codes: {len(missing)} {self.deck} card(s) missing: {', '.join(missing)} "
                    "(or set require_full_deck = false)"
                )

        pattern = "".join(
            re.escape(p.literal) if p.literal else f"(?P<{p.name}>{cls}{{{p.width}}})" for p in parts
        )
        regex = re.compile(pattern)
        for payload in self.specials:
            if not payload or not set(payload) <= _PRINTABLE:
                raise ValueError(f"specials: {payload!r} must be printable ASCII")
            if regex.fullmatch(payload):
                raise ValueError(f"specials: {payload!r} also fits the template {self.template!r}")

        deck_id = self.deck_id
        if deck_id is not None:
            used = set(re.findall(r"\{([^{}:!]*)", deck_id))
            bad = used - (set(names) - {"code", "check"})
            if bad or not used:
                raise ValueError(
                    f"deck_id {deck_id!r} may use only the template's deck/pack fields"
                    f"{' (not ' + ', '.join(sorted(bad)) + ')' if bad else ''}"
                )
        self._parts = parts
        self._regex = regex
        self._by_card = by_card
        return self

    # -- reading -------------------------------------------------------------
    @property
    def pattern(self) -> str:
        """The regular expression a payload of this scheme matches (whole payload)."""
        return self._regex.pattern

    def _deck_of(self, fields: Mapping[str, str]) -> str | None:
        if self.deck_id is not None:
            return self.deck_id.format(**fields)
        return fields.get("deck")

    def lookup(self, payload: str) -> PayloadInfo:
        """What this payload is. Pure; never raises; never guesses."""
        special = self.specials.get(payload)
        if special is not None:
            return PayloadInfo("special", payload, special=special)
        m = self._regex.fullmatch(payload)
        if m is None:
            return PayloadInfo("unknown", payload)
        fields = {k: v for k, v in m.groupdict().items() if v is not None}
        if self.check == "luhn" and luhn_digit(payload[: m.start("check")]) != fields["check"]:
            return PayloadInfo("bad_check", payload, fields=fields)
        deck = self._deck_of(fields)
        card = self.codes.get(fields["code"])
        if card is None:
            return PayloadInfo("unknown", payload, deck=deck, fields=fields)
        return PayloadInfo("card", payload, card=card, deck=deck, fields=fields)

    # -- printing (the simulator, tests, technicians' test cards) ---------------
    def field_width(self, name: str) -> int | None:
        return next((p.width for p in self._parts if p.name == name), None)

    def encode(self, card: str, *, deck: str | int = 0, pack: str | int = 0, copy: int = 0) -> str:
        """The payload printed on ``card`` (``copy`` picks among codes of one card, e.g. two jokers)."""
        codes = self._by_card.get(card)
        if not codes:
            raise KeyError(f"{card!r} is not in vendor table {self.vendor!r}")
        values = {"code": codes[copy % len(codes)], "deck": deck, "pack": pack}
        return self._fill(values)

    def encode_code(self, code: str, *, deck: str | int = 0, pack: str | int = 0) -> str:
        """A payload of this scheme with any code (also codes the table does not list)."""
        return self._fill({"code": code, "deck": deck, "pack": pack})

    def _fill(self, values: Mapping[str, str | int]) -> str:
        _, allowed = _CHARSETS[self.charset]
        out: list[str] = []
        for p in self._parts:
            if p.literal:
                out.append(p.literal)
            elif p.name == "check":
                out.append(luhn_digit("".join(out)))
            else:
                v = str(values.get(p.name, 0))
                v = v.rjust(p.width, "0") if v.isdigit() else v
                if len(v) != p.width or not set(v) <= allowed:
                    raise ValueError(f"{p.name} = {v!r} does not fit {{{p.name}:{p.width}}} ({self.charset})")
                out.append(v)
        return "".join(out)

    def special_payload(self, special: str = "cut_card") -> str:
        for payload, what in self.specials.items():
            if what == special:
                return payload
        raise KeyError(f"vendor table {self.vendor!r} has no {special} payload")

    @property
    def cards(self) -> tuple[str, ...]:
        """Every card of one deck of this table (a joker once per code)."""
        return tuple(card for card, codes in self._by_card.items() for _ in codes)


def _error_lines(exc: ValidationError, source: str) -> str:
    lines = []
    for e in exc.errors():
        loc = ".".join(str(p) for p in e["loc"]) or "(top level)"
        msg = e["msg"].removeprefix("Value error, ")
        lines.append(f"{source}: {loc}: {msg}")
    return "\n".join(lines)


def parse_vendor_table(data: Mapping[str, Any], source: str = "<vendor table>") -> VendorTable:
    try:
        return VendorTable.model_validate(dict(data))
    except ValidationError as exc:
        raise VendorTableError(_error_lines(exc, source)) from None


def load_vendor_table(path: str | Path) -> VendorTable:
    """Read and validate a vendor table (``.toml`` or ``.json``); errors name the file and key."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise VendorTableError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise VendorTableError(f"{path}: not UTF-8 text") from None
    try:
        if path.suffix.lower() == ".json":
            data = json.loads(text)
        else:
            data = tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        raise VendorTableError(
            f"{path}: not valid {path.suffix.lstrip('.').upper() or 'TOML'}: {exc}"
        ) from None
    if not isinstance(data, dict):
        raise VendorTableError(f"{path}: a vendor table is a table of keys, not {type(data).__name__}")
    return parse_vendor_table(data, str(path))


@cache
def default_vendor_table() -> VendorTable:
    """The table shipped with the studio (``devices/shoe/default_vendor_table.toml``)."""
    ref = resources.files(__package__).joinpath(DEFAULT_TABLE_FILE)
    data = tomllib.loads(ref.read_text("utf-8"))
    return parse_vendor_table(data, f"devices/shoe/{DEFAULT_TABLE_FILE}")


@cache
def symbol_vendor_table() -> VendorTable:
    """The shipped table of a symbol deck (``devices/shoe/symbol_vendor_table.toml``)."""
    ref = resources.files(__package__).joinpath(SYMBOL_TABLE_FILE)
    data = tomllib.loads(ref.read_text("utf-8"))
    return parse_vendor_table(data, f"devices/shoe/{SYMBOL_TABLE_FILE}")


def vendor_table_from_option(value: VendorTable | str | Path | Mapping[str, Any] | None) -> VendorTable:
    """A driver's ``vendor_table`` option: None or "default" (the shipped table), "symbols" (the shipped
    symbol deck's), a file path, a dict or a table."""
    if value is None or value == "" or value == "default":
        return default_vendor_table()
    if value == "symbols":
        return symbol_vendor_table()
    if isinstance(value, VendorTable):
        return value
    if isinstance(value, Mapping):
        return parse_vendor_table(value, "vendor_table option")
    return load_vendor_table(value)


def main(argv: list[str] | None = None) -> int:
    """``python -m devices.shoe.tablecheck [--table FILE] [PAYLOAD ...]``: check a table, look payloads up."""
    import argparse

    ap = argparse.ArgumentParser(
        prog="python -m devices.shoe.tablecheck",
        description="Check a deck-vendor table and look barcode payloads up in it",
    )
    ap.add_argument("--table", dest="file", help="vendor table (.toml or .json); default: the shipped table")
    ap.add_argument("payloads", nargs="*", help="payloads to look up")
    ap.add_argument(
        "--print", dest="card", metavar="CARD", help="print the payload of CARD (with --deck, --pack)"
    )
    ap.add_argument("--deck", default="0")
    ap.add_argument("--pack", default="0")
    args = ap.parse_args(argv)
    try:
        table = load_vendor_table(args.file) if args.file else default_vendor_table()
    except VendorTableError as exc:
        print(exc)
        return 1
    print(
        f"{args.file or DEFAULT_TABLE_FILE}: OK - vendor {table.vendor!r}, {table.symbology}, "
        f"pattern {table.pattern}, {len(table.codes)} codes, specials {dict(table.specials)}"
    )
    if args.card:
        print(table.encode(args.card, deck=args.deck, pack=args.pack))
    for payload in args.payloads:
        info = table.lookup(payload)
        print(f"{payload!r}: {info.status} card={info.card} deck={info.deck} special={info.special}")
    return 0
