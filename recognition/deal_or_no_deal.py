"""Deal or No Deal Live (seed 000:L1942-2009): the main game's 16 physical briefcases opened in the studio.
Pure.

What the studio certifies is the main game (L1958-2008), the part played with physical equipment: 16
briefcases, each holding a number card 1-16 placed at random (L1962); the player's briefcase on the table
and 15 in two rows (L1960). The dealer's assistant opens them in four stages, 3, 4, 4 and 3 briefcases
(L1970, L1980, L1984, L1988), the Banker making an offer after each; at the final opening the last briefcase
of the rows and then the player's briefcase are opened (L2002).

Result: ``{"opened": [n1, ..., n16]}``, the numbers in the order opened: the 15th is the other briefcase, the
16th the player's. Outcome: the stages, the numbers still closed at each offer, and the briefcase each final
choice wins: ``no_deal`` the player's briefcase (L2004), ``switch`` the other one (L2006).

Software, not certified here: the qualifying round's vault wheel and the top-up wheel (L1948-1956, spun by
the player), the amounts behind the numbers (scaled by the bet, L1952, and topped up, L1956), the Banker's
offers (no formula in the seed) and each player's Deal / No Deal / Switch decisions; the betting backend
settles those with the certified numbers.

The judge (dealer pacing: the table opens the round; betting closes when qualifying ends): each read after
betting closed opens the next briefcase; the 16th gives the result. Holds: ``misread`` (a no-read: scan the
card again; released by the next read), ``early_open`` (a briefcase opened before betting closed),
``unknown_card`` (not a card of the set), ``repeat`` (a number already opened: cards mixed up); the same card
scanned again right after itself is only noted. A dealer without a working scanner enters the 16 numbers with
a supervisor (the table's manual result).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from recognition.evaluate_fast import plain_line
from recognition.game import BaseGame, BaseJudge

if TYPE_CHECKING:
    from recognition.game import Decision

CASES = 16
#: briefcases opened before each of the four offers (L1970, L1980, L1984, L1988)
STAGES = (3, 4, 4, 3)
HOLD_TEXT = {
    "misread": "A briefcase's card was not read. Show it to the scanner again; the game goes on once it is read.",
    "early_open": "A briefcase was opened before betting closed. Void the round.",
    "unknown_card": "The card read is not one of the set's 16. Check the briefcase; void the round or enter the "
    "numbers with a supervisor.",
    "repeat": "A number already opened was read again. Check the cards; void the round or enter the numbers "
    "with a supervisor.",
    "device_lost": "The briefcase scanner is not connected. Reconnect it, or enter the numbers with a supervisor.",
}


#: `studio evaluate`'s usual line: an integer id and the 16 numbers (one space or none after each comma)
_PLAIN_LINE = plain_line(r'"opened": ?\[([0-9, ]*)\]').fullmatch
_NUMBERS = frozenset(str(n) for n in range(1, CASES + 1))
_ORDER = {str(n): n for n in range(1, CASES + 1)}.__getitem__
#: the stages' briefcases as json.dumps writes them, from the 16 numbers' texts (the last two are not a stage's)
_STAGES = "[[{},{},{}],[{},{},{},{}],[{},{},{},{}],[{},{},{}]]".format
#: `evaluate_json`'s text of the 13 numbers closed at the first offer, by the 3 opened before it
_CLOSED: dict[frozenset[str], str] = {}


def stage_of(index: int) -> int:
    """The stage (1-4, 5: the final opening) of the index-th briefcase opened (0-based)."""
    end = 0
    for stage, n in enumerate(STAGES, 1):
        end += n
        if index < end:
            return stage
    return len(STAGES) + 1


class DealOrNoDeal(BaseGame):
    game_id = "deal_or_no_deal"
    device_kinds = ("serial-briefcase-scanner", "serial-ball-reader", "camera-ball-reader")
    pacing = "dealer"  # type: ignore[assignment]

    def validate_result(self, result: dict[str, Any]) -> dict[str, Any]:
        if not isinstance(result, dict) or "opened" not in result:
            raise ValueError(
                "a deal_or_no_deal result is {'opened': [the 16 briefcase numbers in opening order]}"
            )
        opened = result["opened"]
        if not isinstance(opened, list) or len(opened) != CASES:
            raise ValueError(
                f"'opened' lists the {CASES} briefcase numbers in the order opened, got {opened!r}"
            )
        for i, n in enumerate(opened, 1):
            if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= CASES:
                raise ValueError(f"briefcase {i}: {n!r} is not a number card 1-{CASES}")
            if n in opened[: i - 1]:
                raise ValueError(f"briefcase {i}: number {n} was already opened")
        return {"opened": list(opened)}

    def outcome(self, result: dict[str, Any], extras: dict[str, Any] | None = None) -> dict[str, Any]:
        if extras not in (None, {}):
            raise ValueError(f"deal_or_no_deal has no computer draws, but extras {extras!r} were given")
        opened = self.validate_result(result)["opened"]
        stages, closed, at = [], [], 0
        for n in STAGES:
            stages.append(opened[at : at + n])
            at += n
            closed.append(sorted(opened[at:]))
        return {
            "winning_bets": [
                {"bet": "no_deal", "briefcase": opened[-1]},
                {"bet": "switch", "briefcase": opened[-2]},
            ],
            "pushed_bets": [],
            "stages": stages,
            "closed_at_offer": closed,
            "player_briefcase": opened[-1],
            "other_briefcase": opened[-2],
        }

    fast_evaluate = True

    def evaluate_json(self, line: str) -> str | None:
        """`studio evaluate`'s line for a usual line (the 16 numbers, each once), written from the numbers'
        text; None for any other line (the general path answers it, or names what is wrong)."""
        m = _PLAIN_LINE(line)
        if m is None:
            return None
        opened = m[2].replace(", ", ",").split(",")
        if len(opened) != CASES or _NUMBERS != set(opened):  # each number once (and as json.dumps writes it)
            return None
        # the numbers still closed at each offer: after 3, 7, 11 and 14 briefcases (the 13 after the first 3
        # kept by those 3: 560 sets)
        first = frozenset(opened[:3])
        closed = _CLOSED.get(first)
        if closed is None:
            closed = _CLOSED[first] = ",".join(sorted(opened[3:], key=_ORDER))
        offers = [closed, *(",".join(sorted(opened[at:], key=_ORDER)) for at in (7, 11, 14))]
        player, other = opened[15], opened[14]
        return (
            f'{{"id":{m[1]},"valid":true,"result":{{"opened":[{",".join(opened)}]}},"outcome":{{"winning_bets":'
            f'[{{"bet":"no_deal","briefcase":{player}}},{{"bet":"switch","briefcase":{other}}}],"pushed_bets":[],'
            f'"stages":{_STAGES(*opened)},"closed_at_offer":[[{"],[".join(offers)}]],'
            f'"player_briefcase":{player},"other_briefcase":{other}}}}}\n'
        )

    def new_judge(self, **settings: Any) -> BriefcaseJudge:
        return BriefcaseJudge(**settings)


class BriefcaseJudge(BaseJudge):
    """Briefcase reads and round signals in, decisions out (module docstring)."""

    def __init__(self) -> None:
        self._reset(None)

    def _reset(self, round_number: int | None) -> None:
        self.round = round_number
        self.betting_closed = False
        self.opened: list[int] = []
        self.stopped = False
        self.done = False
        self.holds: set[str] = set()

    def _hold(self, code: str, detail: str = "", stop: bool = False) -> list[Decision]:
        self.holds.add(code)
        from recognition.game import Hold

        self.stopped = self.stopped or stop
        return [Hold(code=code, message=HOLD_TEXT[code] + (f" ({detail})" if detail else ""))]

    def _release(self, code: str) -> list[Decision]:
        if code not in self.holds:
            return []
        from recognition.game import Release

        self.holds.discard(code)
        return [Release(code=code)]

    def status(self) -> dict[str, Any] | None:
        if self.round is None or not self.betting_closed or self.done:
            return None
        return {
            "opened": list(self.opened),
            "stage": stage_of(len(self.opened)),
            "next_briefcase": len(self.opened) + 1,
        }

    def feed(self, event: Any) -> list[Decision]:
        # the device events and decisions (pydantic) on first use: the rules alone (`studio evaluate`) need none
        from devices.balls.events import BallRead, BallUnreadable
        from devices.briefcases.events import BriefcaseRead, BriefcaseUnreadable
        from devices.events import DeviceConnected, DeviceDisconnected
        from recognition.game import RoundSignal

        if isinstance(event, RoundSignal):
            if event.signal == "round_opened":
                self._reset(event.round_number)
            elif event.signal == "betting_closed":
                self.betting_closed = True
            else:
                self._reset(None)
            return []
        if isinstance(event, DeviceDisconnected):
            if self.round is None or self.done or "device_lost" in self.holds:
                return []
            return self._hold("device_lost", event.reason)
        if isinstance(event, DeviceConnected):
            return self._release("device_lost")
        if isinstance(event, (BriefcaseUnreadable, BallUnreadable)):
            if self.round is None or not self.betting_closed or self.done or self.stopped:
                return []
            return self._hold("misread", event.reason)
        if isinstance(event, BriefcaseRead):
            number = event.number
        elif isinstance(event, BallRead):
            number = int(event.ball) if event.ball is not None and event.ball.isdigit() else None
        else:
            return []
        return self._read(number, event)

    def _read(self, number: int | None, event: Any) -> list[Decision]:
        from recognition.game import Note, ResultReady

        if self.round is None or self.done:
            return [Note(code="read_ignored", message=f"briefcase card {event.tag!r} read with no game open")]
        if self.stopped:
            return []
        if not self.betting_closed:
            return self._hold("early_open", f"card {event.tag!r}", stop=True)
        if number is None or not 1 <= number <= CASES:
            return self._hold("unknown_card", f"code {event.tag!r}", stop=True)
        if self.opened and number == self.opened[-1]:
            return [Note(code="scanned_twice", message=f"briefcase {number} scanned again")]
        if number in self.opened:
            return self._hold("repeat", f"number {number}", stop=True)
        out = self._release("misread")
        self.opened.append(number)
        n = len(self.opened)
        if n < CASES and stage_of(n) != stage_of(n - 1):
            out.append(Note(code="offer", message=f"stage {stage_of(n - 1)} opened: the Banker's offer"))
        if n == CASES:
            self.done = True
            out.append(
                ResultReady(
                    result={"opened": list(self.opened)},
                    source={"device_id": event.device_id, "last_raw": event.raw},
                )
            )
        return out


GAMES = {g.game_id: g for g in (DealOrNoDeal(),)}
