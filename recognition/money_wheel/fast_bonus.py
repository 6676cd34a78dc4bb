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
from functools import cache, lru_cache
from math import gcd
from typing import Any

from recognition.evaluate_fast import MEMO_SIZE, TailCache, plain_line

Evaluate = Callable[[dict[str, Any]], dict[str, Any]]

_INT = r"(?:0|[1-9][0-9]*)"
#: a list's items when they are integers (checked by `_ints_ok`: sre is slow on a repeated group)
_INTS = r"[0-9, ]*"
_NAME = r'"([a-z0-9_]+)"'
#: an item with a leading zero, after a comma (a literal prefix: sre scans for it quickly)
_LEADING_ZERO = re.compile(r",0[0-9]").search


def _ints_ok(text: str) -> bool:
    """Whether `text` (digits, commas, spaces) is a JSON list's integers, a comma and one space or none
    between them, as json.dumps writes them (no leading zero); none is fine."""
    if not text:
        return True
    items = "," + text.replace(", ", ",")
    return " " not in items and ",," not in items and items[-1] != "," and not _LEADING_ZERO(items)


def _list(items: str) -> str:
    """A JSON list of `items` (a pattern), none or more (possessive repeats: each item starts unlike the
    list's end, so there is nothing to take back, and sre runs them without keeping a way back)."""
    return rf"\[(?:{items}(?:, ?+{items})*+)?+\]"


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
#: the Cash Hunt wall's multipliers, each at least 1 (a 0 is the general path's to refuse), read by the regex
#: itself: possessive repeats, which sre runs without keeping a way back (a third of the line's time before)
_WALL = r"(?:[1-9][0-9]*+, ?+)*+[1-9][0-9]*+"
_CRAZY_LINE = plain_line(
    rf'"segment": ?{_NAME}, ?"index": ?(null|{_INT}), ?"extras": ?\{{"top_slot": ?\{{"spot": ?{_NAME}, ?'
    rf'"multiplier": ?(null|{_INT})\}}, ?"bonus": ?\{{"cash_hunt": ?\{{"wall": ?\[({_WALL})\], ?'
    rf'"auto_choice": ?({_INT})\}}, ?"pachinko": ?\{{"drops": ?({_list(_DROP)})\}}, ?"coin_flip": ?\{{'
    rf'"red": ?({_INT}), ?"blue": ?({_INT}), ?"side": ?"(red|blue)"\}}, ?"crazy_time": ?\{{"stops": ?\[({_INTS})\], ?'
    rf'"auto_choice": ?{_NAME}\}}\}}\}}'
).fullmatch


class CrazyTimeLines:
    """`evaluate_json` of Crazy Time: each answer written from the spin, the Top Slot and the bonus game's
    own draws (Pachinko and the Crazy Time bonus played by the module's own rules)."""

    def __init__(self, evaluate: Evaluate) -> None:
        from . import crazy_time

        self.game = crazy_time

    def __call__(self, line: str) -> str | None:
        m = _CRAZY_LINE(line)
        if m is None or not _ints_ok(m[12]):
            return None
        ct = self.game
        label, index, spot, multiplier = m[2], m[3], m[4], m[5]
        if (
            label not in ct.SPOTS
            or spot not in ct.SPOTS
            or multiplier in ("0", "1")
            or (index != "null" and int(index) >= 54)
        ):
            return None
        boost = 1 if multiplier == "null" or spot != label else int(multiplier)
        head = (
            f'{{"id":{m[1]},"valid":true,"result":{{"segment":"{label}","index":{index}}},"outcome":{{'
            f'"segment":"{label}","index":{index},"top_slot":{{"spot":"{spot}","multiplier":{multiplier}}},'
            f'"top_slot_applied":{"true" if boost != 1 else "false"},"winning_bets":[{{"bet":"{label}",'
        )
        if label in ct.NUMBERS:
            return f'{head}"type":"number","payout":{int(label) * boost}}}]}}}}\n'
        if label == ct.COIN_FLIP:
            if m[9] == "0" or m[10] == "0":
                return None
            red, blue = int(m[9]) * boost, int(m[10]) * boost
            won = red if m[11] == "red" else blue
            return (
                f'{head}"type":"bonus","payout":{won}}}],"coin_flip":{{"red":{red},"blue":{blue},'
                f'"side":"{m[11]}"}}}}}}\n'
            )
        if label == ct.CASH_HUNT:
            return self.cash_hunt(m, head, boost)
        try:
            if label == ct.PACHINKO:
                played = ct._pachinko_play(json.loads(m[8]), boost)
                return (
                    f'{head}"type":"bonus","payout":{played["win"]}}}],"pachinko":'
                    f"{json.dumps(played, separators=(',', ':'))}}}}}\n"
                )
            return self.crazy_time(m, head, boost)
        except ValueError:  # not a whole bonus game: the general path says what is wrong
            return None

    def cash_hunt(self, m: re.Match[str], head: str, boost: int) -> str | None:
        """The wall, times the Top Slot's multiplier on Cash Hunt, written from its text."""
        wall, auto = m[6].replace(", ", ","), int(m[7])
        if (
            wall.count(",") != 107 or f",{wall},".find(",0,") >= 0 or auto >= 108
        ):  # 108 multipliers, each >= 1
            return None
        if boost != 1:
            wall = ",".join(str(int(v) * boost) for v in wall.split(","))
        return (
            f'{head}"type":"bonus_choice","choices":[{wall}],"auto_choice":{auto},'
            f'"pays":"{self.game.CASH_HUNT_PAYS}"}}]}}}}\n'
        )

    def crazy_time(self, m: re.Match[str], head: str, boost: int) -> str | None:
        """The three flappers' multipliers after the recorded spins (every flapper done, no spin too many)."""
        ct = self.game
        stops, auto = json.loads(f"[{m[12]}]"), m[13]
        if not stops or max(stops) >= len(ct.CT_WHEEL) or auto not in ("green", "blue", "yellow"):
            return None
        flappers = ct._crazy_play(stops, boost)
        if not all(f["done"] for f in flappers.values()) or max(f["spins"] for f in flappers.values()) != len(
            stops
        ):
            return None
        choices = json.dumps({n: f["value"] for n, f in flappers.items()}, separators=(",", ":"))
        played = json.dumps({"stops": stops, "flappers": flappers}, separators=(",", ":"))
        return (
            f'{head}"type":"bonus_choice","choices":{choices},"auto_choice":"{auto}",'
            f'"pays":"{ct.CRAZY_TIME_PAYS}"}}],"crazy_time":{played}}}}}\n'
        )


# --- Monopoly Live ------------------------------------------------------------------------------------------

_ROLL = rf"\[{_INT}, ?{_INT}\]"
#: a board's building levels (0-5, single digits: any other is the general path's), read by the regex itself
_LEVELS = r"[0-5](?:, ?+[0-5])*+"
_BOARD_GAME = rf'\{{"buildings": ?\[({_LEVELS})\], ?"dice": ?{_list(_ROLL)}, ?"cards": ?\[({_INTS})\]\}}'
_MONOPOLY_LINE = plain_line(
    rf'"segment": ?{_NAME}, ?"index": ?(null|{_INT}), ?"multipliers": ?\[({_INTS})\], ?"extras": ?\{{'
    rf'"chance": ?\{{"type": ?"(cash|multiplier)", ?"value": ?({_INT})\}}, ?"bonus": ?\{{'
    rf'"2_rolls": ?({_BOARD_GAME}), ?"4_rolls": ?({_BOARD_GAME})\}}\}}'
).fullmatch


@lru_cache(maxsize=65_536)
def _tenths_text(tenths: int) -> int | str:
    """`payout` of a non-negative number of tenths of a stake (exact_text: an int when whole, else "a/b")."""
    if tenths % 10 == 0:
        return tenths // 10
    g = gcd(tenths, 10)
    return f"{tenths // g}/{10 // g}"


def _json_payout(tenths: int) -> str:
    text = _tenths_text(tenths)
    return f'"{text}"' if type(text) is str else str(text)


@cache
def _board() -> tuple[tuple[str, str, int, int], ...]:
    """Each field of Monopoly's board: (name, kind, the property's index or -1, value or tax in tenths)."""
    from . import monopoly_live as ml

    out = []
    for pos, (name, kind, group) in enumerate(ml.BOARD):
        prop = ml.PROPERTIES.index(pos) if kind == "property" else -1
        if kind == "property":
            value = ml.GROUP_VALUE[group] * 10
        elif kind in ("railway", "parking"):
            value = ml.GROUP_VALUE[kind] * 10
        elif kind in ("tax", "utility"):
            tax = ml.TAX[group if kind == "tax" else "utility"]
            assert (tax * 10).denominator == 1  # every amount of the walk is whole tenths
            value = int(tax * 10)
        else:
            value = 0
        out.append((name, kind, prop, value))
    return tuple(out)


def play_board(
    rolls: int, buildings: list[int], dice: list[list[int]], cards: list[int]
) -> tuple[list[Any], int] | None:
    """`monopoly_live.play_bonus` of a recorded game read from a plain line (integers, lists of two dice), in
    integer tenths of a stake: its steps and its win (tenths); None where play_bonus raises (a building level
    or a die out of range, draws not used up exactly)."""
    from . import monopoly_live as ml

    if len(buildings) != len(ml.PROPERTIES) or max(buildings) > 5:  # integers of the line: none negative
        return None
    board, factor, fields, jail, max_rolls = (
        _board(),
        ml.BUILDING_FACTOR,
        len(ml.BOARD),
        ml.JAIL,
        ml.MAX_ROLLS,
    )
    text = _tenths_text
    pos = total = 0
    doubling, left, in_jail, used_dice, used_cards = 1, rolls, False, 0, 0
    steps: list[Any] = []
    while left > 0 and used_dice < max_rolls:
        if used_dice >= len(dice):
            return None
        roll = dice[used_dice]
        if len(roll) != 2:
            return None
        a, b = roll
        if not (1 <= a <= 6 and 1 <= b <= 6):
            return None
        used_dice += 1
        left -= 1
        step: dict[str, Any] = {"dice": [a, b]}
        if in_jail:
            if a != b:
                step["event"] = "no double in jail: the bonus game ends"
                steps.append(step)
                break
            in_jail = False
            step["event"] = "double: out of jail"
        elif a == b:
            left += 1
            step["extra_roll"] = True
        pos = (pos + a + b) % fields
        name, kind, prop, value = board[pos]
        step["field"] = pos
        step["name"] = name
        gain = 0
        if kind == "property":
            gain = value * factor[buildings[prop]] * doubling
        elif kind in ("railway", "parking"):
            gain = value * doubling
        elif kind in ("chance", "chest"):
            if used_cards >= len(cards):
                return None
            gain = cards[used_cards] * 10
            used_cards += 1
        elif kind in ("tax", "utility"):
            if total >= value:
                gain = -value
            else:
                step["event"] = "tax not taken: the bonus win does not cover it"
        elif kind == "go":
            doubling *= 2
            step["event"] = "GO: every field's value doubles"
        elif kind == "gotojail":
            pos, in_jail = jail, True
            step["event"] = "go to jail: the next roll must be a double"
        total += gain
        step["win"] = text(gain) if gain >= 0 else f"-{text(-gain)}"
        step["total"] = text(total)
        steps.append(step)
    if used_dice != len(dice) or used_cards != len(cards):
        return None
    return steps, total


class MonopolyLines(_Lines):
    """`evaluate_json` of Monopoly Live: numbers and Chance kept by the spin, the multipliers carried and the
    card; 2 Rolls and 4 Rolls played from their own draws."""

    def __call__(self, line: str) -> str | None:
        m = _MONOPOLY_LINE(line)
        # the other integer lists, checked at once (the empty ones left out)
        if m is None or not _ints_ok(",".join(filter(None, m.group(4, 9, 12)))):
            return None
        label, index, carried = m[2], m[3], m[4].replace(" ", "")
        facts: Hashable | None = (label, index, carried)
        if label == "chance":
            facts = (label, index, carried, m[5], m[6])
        elif label in ("2_rolls", "4_rolls"):
            return self.rolls(m, label, index, carried)
        tail = self.tails.tails.get(facts)
        if tail is not None:  # most rounds: a number, kept
            return f'{{"id":{m[1]},{tail}'

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

    def rolls(self, m: re.Match[str], label: str, index: str, carried: str) -> str | None:
        """2 Rolls / 4 Rolls: the board walk played from the round's own draws, the win times the multipliers."""
        from . import monopoly_live as ml

        multipliers = [int(x) for x in carried.split(",")] if carried else []  # checked: integers
        if (index != "null" and int(index) >= 54) or any(x < 2 for x in multipliers):
            return None
        record = json.loads(m[7] if label == "2_rolls" else m[10])
        played = play_board(ml.ROLLS[label], record["buildings"], record["dice"], record["cards"])
        if played is None:  # not a whole bonus game: the general path says what is wrong
            return None
        steps, win = played
        product = 1
        for x in multipliers:
            product *= x
        game = {
            "rolls": ml.ROLLS[label],
            "win": _tenths_text(win),
            "steps": steps,
            "buildings": record["buildings"],
        }
        return (
            f'{{"id":{m[1]},"valid":true,"result":{{"segment":"{label}","index":{index},"multipliers":[{carried}]}},'
            f'"outcome":{{"segment":"{label}","index":{index},"multipliers":[{carried}],"winning_bets":[{{'
            f'"bet":"{label}","type":"bonus","payout":{_json_payout(win * product)}}}],'
            f'"bonus_game":{json.dumps(game, separators=(",", ":"))},"multiplier":{product},"respin":false,'
            f'"bets_stand":false,"next_multipliers":[]}}}}\n'
        )
