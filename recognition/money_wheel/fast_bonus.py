"""`studio evaluate`'s fast paths of the two wheels whose rounds carry their bonus games' draws (Crazy Time,
Monopoly Live). Pure.

A round's line is long (Crazy Time's 108-multiplier Cash Hunt wall, Monopoly's two boards), and the outcome
reads little of it: a number segment only the Top Slot or the multipliers carried, a bonus segment its own
game. A line in the usual shape (the studio's keys in its order, integers as json.dumps writes them: the
line is then JSON without being parsed) is read with one regex; the answer to a number segment, a Coin Flip
or a Chance card is kept by the facts it reads, any other is the game's `evaluate` of the round reduced to
what it reads (the same answer: the rest of the draws is not read). Anything else, or a round the game
refuses, is left to the general path (None), which gives the same answer or the error.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Hashable
from typing import Any

from recognition.evaluate_fast import MEMO_SIZE, TailCache, plain_line

Evaluate = Callable[[dict[str, Any]], dict[str, Any]]

_INT = r"(?:0|[1-9][0-9]*)"
#: a list's items when they are integers (checked by `_ints_ok`: sre is slow on a repeated group)
_INTS = r"[0-9, ]*"
_NAME = r'"([a-z0-9_]+)"'
_LEADING_ZERO = re.compile(r"(?:^|,)0[0-9]").search


def _ints_ok(text: str) -> bool:
    """Whether `text` (digits, commas, spaces) is a JSON list's integers, a comma and one space or none
    between them, as json.dumps writes them (no leading zero); none is fine."""
    if not text:
        return True
    items = text.replace(", ", ",")
    return (
        " " not in items
        and ",," not in items
        and items[0] != ","
        and items[-1] != ","
        and not (("0" in items[:1] or ",0" in items) and _LEADING_ZERO(items))
    )


def _list(items: str) -> str:
    """A JSON list of `items` (a pattern), none or more."""
    return rf"\[(?:{items}(?:, ?{items})*)?\]"


def _answered(evaluate: Evaluate, rid_text: str, item: dict[str, Any]) -> str | None:
    """The general path's line for a round, not kept (None: the game refuses it)."""
    try:
        answer = evaluate(item)
    except (ValueError, TypeError, KeyError):
        return None
    if "id" in answer:
        return None
    return json.dumps({"id": int(rid_text), "valid": True, **answer}, separators=(",", ":")) + "\n"


class _Lines:
    """The kept answers of one game, and the round's answer when its facts are not kept."""

    def __init__(self, evaluate: Evaluate) -> None:
        self.evaluate = evaluate
        self.tails = TailCache(evaluate)

    def line(self, rid_text: str, facts: Hashable | None, item: Callable[[], dict[str, Any]]) -> str | None:
        kept = self.tails.tails
        if facts is None or len(kept) >= MEMO_SIZE:
            return _answered(self.evaluate, rid_text, item())
        tail = kept.get(facts)
        if tail is not None:
            return f'{{"id":{rid_text},{tail}'
        return self.tails.line(rid_text, "", facts, item())


# --- Crazy Time ---------------------------------------------------------------------------------------------

_DROP = rf'\{{"zone": ?{_INT}, ?"slot": ?{_INT}(?:, ?"rescue": ?true)?\}}'
_CRAZY_LINE = plain_line(
    rf'"segment": ?{_NAME}, ?"index": ?(null|{_INT}), ?"extras": ?\{{"top_slot": ?\{{"spot": ?{_NAME}, ?'
    rf'"multiplier": ?(null|{_INT})\}}, ?"bonus": ?\{{"cash_hunt": ?\{{"wall": ?\[({_INTS})\], ?'
    rf'"auto_choice": ?({_INT})\}}, ?"pachinko": ?\{{"drops": ?({_list(_DROP)})\}}, ?"coin_flip": ?\{{'
    rf'"red": ?({_INT}), ?"blue": ?({_INT}), ?"side": ?"(red|blue)"\}}, ?"crazy_time": ?\{{"stops": ?\[({_INTS})\], ?'
    rf'"auto_choice": ?{_NAME}\}}\}}\}}'
).fullmatch


class CrazyTimeLines(_Lines):
    """`evaluate_json` of Crazy Time: numbers and Coin Flip kept by the spin and the Top Slot (and the coin)."""

    def __call__(self, line: str) -> str | None:
        m = _CRAZY_LINE(line)
        if m is None or not (_ints_ok(m[6]) and _ints_ok(m[12])):
            return None
        label, index, spot, multiplier = m[2], m[3], m[4], m[5]
        facts: Hashable | None = (label, index, spot, multiplier)
        bonus: dict[str, Any] | None = None
        if label == "cash_hunt":
            return self.cash_hunt(m)
        if label == "pachinko":
            facts, bonus = (label, index, spot, multiplier, m[8]), {"drops": json.loads(m[8])}
        elif label == "coin_flip":
            facts = (label, index, spot, multiplier, m[9], m[10], m[11])
        elif label == "crazy_time":
            facts, bonus = None, {"stops": json.loads(f"[{m[12]}]"), "auto_choice": m[13]}

        def item() -> dict[str, Any]:
            top = {"spot": spot, "multiplier": None if multiplier == "null" else int(multiplier)}
            record = {"red": int(m[9]), "blue": int(m[10]), "side": m[11]} if label == "coin_flip" else bonus
            extras = {"top_slot": top, "bonus": {label: record}}
            return {"segment": label, "index": None if index == "null" else int(index), "extras": extras}

        return self.line(m[1], facts, item)

    def cash_hunt(self, m: re.Match[str]) -> str | None:
        """The wall, times the Top Slot's multiplier on Cash Hunt, written from its text."""
        from .crazy_time import CASH_HUNT_PAYS, SPOTS

        index, spot, multiplier, auto = m[3], m[4], m[5], int(m[7])
        wall = m[6].replace(", ", ",")
        boost = 1 if multiplier == "null" or spot != "cash_hunt" else int(multiplier)
        if (
            wall.count(",") != 107
            or f",{wall},".find(",0,") >= 0  # a multiplier is 1 or more
            or auto >= 108
            or spot not in SPOTS
            or multiplier in ("0", "1")
            or (index != "null" and int(index) >= 54)
        ):
            return None
        if boost != 1:
            wall = ",".join(str(int(v) * boost) for v in wall.split(","))
        return (
            f'{{"id":{m[1]},"valid":true,"result":{{"segment":"cash_hunt","index":{index}}},"outcome":{{'
            f'"segment":"cash_hunt","index":{index},"top_slot":{{"spot":"{spot}","multiplier":{multiplier}}},'
            f'"top_slot_applied":{"true" if boost != 1 else "false"},"winning_bets":[{{"bet":"cash_hunt",'
            f'"type":"bonus_choice","choices":[{wall}],"auto_choice":{auto},"pays":"{CASH_HUNT_PAYS}"}}]}}}}\n'
        )


# --- Monopoly Live ------------------------------------------------------------------------------------------

_ROLL = rf"\[{_INT}, ?{_INT}\]"
_BOARD_GAME = rf'\{{"buildings": ?\[({_INTS})\], ?"dice": ?{_list(_ROLL)}, ?"cards": ?\[({_INTS})\]\}}'
_MONOPOLY_LINE = plain_line(
    rf'"segment": ?{_NAME}, ?"index": ?(null|{_INT}), ?"multipliers": ?\[({_INTS})\], ?"extras": ?\{{'
    rf'"chance": ?\{{"type": ?"(cash|multiplier)", ?"value": ?({_INT})\}}, ?"bonus": ?\{{'
    rf'"2_rolls": ?({_BOARD_GAME}), ?"4_rolls": ?({_BOARD_GAME})\}}\}}'
).fullmatch


class MonopolyLines(_Lines):
    """`evaluate_json` of Monopoly Live: numbers and Chance kept by the spin, the multipliers carried and the
    card; 2 Rolls and 4 Rolls played from their own draws."""

    def __call__(self, line: str) -> str | None:
        m = _MONOPOLY_LINE(line)
        if m is None or not all(_ints_ok(m[k]) for k in (4, 8, 9, 11, 12)):
            return None
        label, index, carried = m[2], m[3], m[4].replace(" ", "")
        facts: Hashable | None = (label, index, carried)
        if label == "chance":
            facts = (label, index, carried, m[5], m[6])
        elif label in ("2_rolls", "4_rolls"):
            facts = None

        def item() -> dict[str, Any]:
            extras: dict[str, Any] = {"chance": {"type": m[5], "value": int(m[6])}}
            if label in ("2_rolls", "4_rolls"):
                extras["bonus"] = {label: json.loads(m[7] if label == "2_rolls" else m[10])}
            return {
                "segment": label,
                "index": None if index == "null" else int(index),
                "multipliers": json.loads(f"[{carried}]"),
                "extras": extras,
            }

        return self.line(m[1], facts, item)
