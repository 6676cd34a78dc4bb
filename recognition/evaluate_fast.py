"""What the fast paths of `studio evaluate` share: an answer line's tail kept for every round with the same
deciding facts. Pure.

A fast path reads a line in its usual shape with a regex, writes the part of the answer that echoes the
round (its id, cards or balls) itself, and takes the rest (the hands' names, the winner, the outcome) from
the first round with the same facts, answered by the game's own `evaluate`: the answer is then the general
path's answer, byte for byte, and the tails are few (a few thousand for hundreds of thousands of rounds).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Hashable, Mapping
from typing import Any

#: an integer id as json.dumps writes it (no leading zero, no "-0"): the id's text is then the answer's
PLAIN_ID = r'\{"id": ?(0|-?[1-9][0-9]*), ?'


class TailCache:
    """The answers' tails of one game (its `evaluate`), by the facts that decide them."""

    def __init__(self, evaluate: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
        self.evaluate = evaluate
        self.tails: dict[Hashable, str] = {}

    def line(
        self, rid_text: str, head: str, facts: Hashable, item: dict[str, Any] | Callable[[], dict[str, Any]]
    ) -> str | None:
        """The answer line to the round `item` (or `item()`, made only when the facts are new) whose id is
        written `rid_text`: `head` (the answer up to the tail, after `{"id":ID,`) and the tail kept for
        `facts`. None if the game refuses the round (the general path then writes the error)."""
        tail = self.tails.get(facts)
        if tail is None:
            try:
                answer = self.evaluate(item() if callable(item) else item)
            except (ValueError, TypeError, KeyError):
                return None
            full = json.dumps({"id": int(rid_text), "valid": True, **answer}, separators=(",", ":")) + "\n"
            start = f'{{"id":{rid_text},{head}'
            if not full.startswith(start):  # not the shape this path writes: answered, not kept
                return full
            tail = self.tails[facts] = full[len(start) :]
        return f'{{"id":{rid_text},{head}{tail}'


def plain_line(body: str) -> re.Pattern[str]:
    """The pattern of a line `{"id": N, BODY}` (one space or none after each colon and comma, a newline or
    none at the end)."""
    return re.compile(PLAIN_ID + body + r"\}\n?")


#: how many rounds' answers CardLines keeps by their text; and after how many rounds it stops keeping them if
#: fewer repeated an earlier one
MEMO_SIZE = 200_000
MEMO_PROBE = 20_000

#: a card game's plain line: `{"id": N, "cards": ["AS", ...]}` with standard codes only (no jokers, no symbols)
#: (the list's text is read by CardLines.answer, which checks it is quoted codes and commas)
_CARDS = r'"cards": ?\[([^\]]*)\]'
_CARDS_LINE = plain_line(_CARDS).fullmatch

#: what a card game's fast path makes of a round's cards (and the groups of `after`, the line's text after
#: them): None (not a complete deal of the game: the general path answers), the finished answer line past
#: `{"id":ID,`, or (head, facts) for the tail cache
Shape = Callable[..., "str | tuple[str, Hashable] | None"]


def codes_json(cards: list[str]) -> str:
    """A list of card codes as json.dumps writes it (no spaces)."""
    return '["' + '","'.join(cards) + '"]' if cards else "[]"


def card_codes(text: str) -> list[str] | None:
    """The codes of a plain line's list of cards (its text between the brackets), if it holds only quoted
    strings, a space after a comma at most; None otherwise. The caller checks each is a
    code of its shoe (then no quote, comma or space is left in one)."""
    text = text.replace('", "', '","')
    if not text:
        return []
    if " " in text or text[0] != '"' or text[-1] != '"':
        return None
    return text[1:-1].split('","')


class CardLines:
    """`evaluate_json` of a card game without decisions or computer draws: a plain line's cards, checked
    against the shoe (each code a card of it, no more copies than it holds), then `shape` (the game's own
    reading: it checks the deal is complete) writes the answer or names its head and facts."""

    def __init__(
        self,
        evaluate: Callable[[dict[str, Any]], dict[str, Any]],
        copies: Mapping[str, int],
        shape: Shape,
        after: str = "",
    ) -> None:
        """`after`: a pattern of what follows the cards in the line (an extras object); a shape that writes the
        whole answer itself takes its groups after the cards."""
        self.match = _CARDS_LINE if not after else plain_line(_CARDS + after).fullmatch
        self.tails = TailCache(evaluate)
        self.kept = self.tails.tails
        self.copies = copies
        self.codes = frozenset(copies)
        self.least = min(copies.values(), default=0)
        self.shape = shape
        #: the answers by the round's text (a shoe's few cards a round repeat: 2,704 pairs of cards)
        self.memo: dict[str, str] | None = {}
        self.calls = self.repeats = 0

    def __call__(self, line: str) -> str | None:
        m = self.match(line)
        if m is None:
            return None
        memo = self.memo
        if memo is not None:
            rest = line[m.end(1) :]  # the round after its id: the same text, the same answer
            answer = memo.get(rest)
            if answer is not None:
                self.repeats += 1
                return '{"id":' + m[1] + "," + answer
            answer = self.answer(m)
            self.calls += 1
            if answer is None:
                return None
            if len(memo) < MEMO_SIZE:
                memo[rest] = answer
            if self.calls == MEMO_PROBE and self.repeats < MEMO_PROBE:
                self.memo = (
                    None  # few rounds repeat (many cards a round): keeping them costs more than it saves
                )
                memo.clear()
        else:
            answer = self.answer(m)
            if answer is None:
                return None
        return '{"id":' + m[1] + "," + answer

    def answer(self, m: re.Match[str]) -> str | None:
        """The answer line past `{"id":ID,` to a matched line, or None (the general path's)."""
        cards = card_codes(m[2])
        if cards is None or not self.codes.issuperset(cards):
            return None
        if len(cards) > self.least and len(set(cards)) < len(cards):
            copies = self.copies
            if any(cards.count(c) > copies[c] for c in set(cards)):
                return None
        shaped = self.shape(cards, *m.groups()[2:])
        if shaped is None or isinstance(shaped, str):
            return shaped
        head, facts = shaped
        tail = self.kept.get(facts)
        if tail is None:
            full = self.tails.line(m[1], head, facts, {"cards": cards})
            start = f'{{"id":{m[1]},{head}'
            if full is None or not full.startswith(start):
                return None  # refused, or not this path's shape: the general path answers
            return full[len(start) - len(head) :]
        return head + tail
