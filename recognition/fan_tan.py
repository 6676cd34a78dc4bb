"""Fan Tan (seed 000:L3981-4003): the dealer separates beads with a cup and lays them out four by four; the
result is the number of beads in the last line, 1 to 4. Pure.

Result: ``{"result": k}`` (1-4), with ``"beads": n`` when the beads were counted: the last line holds
``n mod 4`` beads, 4 when that is 0 (L3987, L3991). A count comes from a bead counter: a camera over the
tray (``camera-bead-counter``, devices/beads/camera.py) or a counter on a serial line
(``serial-bead-counter``, devices/beads/counter.py); without one, or when it cannot count, the dealer enters
the last line (or the count) with a supervisor: the table's manual result, four eyes (docs/games.md).

Bets (L3993-4003), bet spots of the outcome:

* ``fan_1`` .. ``fan_4``: the number;
* ``small`` (1 or 2), ``big`` (3 or 4); ``odd`` (1 or 3), ``even`` (2 or 4);
* ``nim_a_b`` (a != b): a wins, b returns the stake ("odds of 1", L3999), anything else loses;
* ``kwok_a_b`` (a < b): both numbers win (L4001);
* ``ssh_a_b_c`` (a < b < c): any of the three wins (L4003).

The seed gives no odds. The winning spots carry the traditional Fan Tan odds (fan 3 to 1, nim 2 to 1, kwok,
small/big and odd/even 1 to 1, ssh 1 to 3), less the house's commission on winnings, the game option
``commission`` (default 1/20, the customary 5%; "0" for none).

The judge (dealer pacing: the table opens rounds and closes betting): the first count after betting closed
is the result; a count while betting is open holds (``early_count``: the beads were counted before the cup was
lifted for the last bets); the counter's no-read holds (``misread``) until the dealer counts again; a count of
no beads holds (``no_beads``).
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from recognition.game import BaseGame, BaseJudge
from recognition.payouts import payout

if TYPE_CHECKING:
    from recognition.game import Decision

NUMBERS = (1, 2, 3, 4)
#: the traditional odds (net, to 1) before the commission
ODDS: dict[str, Fraction] = {
    "fan": Fraction(3),
    "nim": Fraction(2),
    "kwok": Fraction(1),
    "ssh": Fraction(1, 3),
    "small_big": Fraction(1),
    "odd_even": Fraction(1),
}
HOLD_TEXT = {
    "early_count": "The beads were counted while betting was open. Void the round, or enter the result with a "
    "supervisor if the cup stayed down until betting closed.",
    "misread": "The bead counter could not count the beads. Spread them and count again; the round goes on "
    "once they are counted.",
    "no_beads": "The counter reported no beads. Count again, or enter the result with a supervisor.",
    "device_lost": "The bead counter is not connected. Reconnect it, or enter the result with a supervisor.",
}


def last_line(beads: int) -> int:
    """The beads left in the last line when `beads` are laid out four by four (L3987): 1-4."""
    return (beads - 1) % 4 + 1


def _whole(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what} is a whole number, not {value!r}")
    return value


class FanTan(BaseGame):
    game_id = "fan_tan"
    device_kinds = ("serial-bead-counter", "camera-bead-counter")
    pacing = "dealer"  # type: ignore[assignment]

    def __init__(self, commission: str | int = "1/20") -> None:
        try:
            c = Fraction(commission) if not isinstance(commission, bool) else None
        except (TypeError, ValueError):
            c = None
        if c is None or isinstance(commission, float) or not 0 <= c < 1:
            raise ValueError(
                f"commission is an exact fraction of the winnings in [0, 1), e.g. '1/20', not {commission!r}"
            )
        self.commission = c

    # --- results -------------------------------------------------------------------------------

    def validate_result(self, result: dict[str, Any]) -> dict[str, Any]:
        if not isinstance(result, dict) or not ({"result", "beads"} & set(result)):
            raise ValueError(
                "a fan_tan result is {'result': 1-4} (the last line) and/or {'beads': n} (the count)"
            )
        out: dict[str, Any] = {}
        if "beads" in result and result["beads"] is not None:
            beads = _whole(result["beads"], "'beads'")
            if beads < 1:
                raise ValueError(f"'beads' is the number of beads separated, at least 1, not {beads}")
            out = {"result": last_line(beads), "beads": beads}
        if "result" in result:
            k = _whole(result["result"], "'result'")
            if k not in NUMBERS:
                raise ValueError(f"'result' is the beads in the last line, 1 to 4, not {k}")
            if out and out["result"] != k:
                raise ValueError(f"{out['beads']} beads leave {out['result']} in the last line, not {k}")
            out.setdefault("result", k)
        return out

    def outcome(self, result: dict[str, Any], extras: dict[str, Any] | None = None) -> dict[str, Any]:
        if extras not in (None, {}):
            raise ValueError(f"fan_tan has no computer draws, but extras {extras!r} were given")
        k = self.validate_result(result)["result"]
        keep = 1 - self.commission

        def pay(kind: str) -> Any:
            return payout(ODDS[kind] * keep)

        wins: list[dict[str, Any]] = [{"bet": f"fan_{k}", "payout": pay("fan")}]
        wins.append({"bet": "small" if k <= 2 else "big", "payout": pay("small_big")})
        wins.append({"bet": "odd" if k % 2 else "even", "payout": pay("odd_even")})
        pushed: list[dict[str, Any]] = []
        for a, b in itertools.permutations(NUMBERS, 2):
            if a == k:
                wins.append({"bet": f"nim_{a}_{b}", "payout": pay("nim")})
            elif b == k:
                pushed.append({"bet": f"nim_{a}_{b}", "returned": 1})
        for a, b in itertools.combinations(NUMBERS, 2):
            if k in (a, b):
                wins.append({"bet": f"kwok_{a}_{b}", "payout": pay("kwok")})
        for trio in itertools.combinations(NUMBERS, 3):
            if k in trio:
                wins.append({"bet": "ssh_" + "_".join(map(str, trio)), "payout": pay("ssh")})
        return {"winning_bets": wins, "pushed_bets": pushed, "result": k}

    def new_judge(self, **settings: Any) -> FanTanJudge:
        return FanTanJudge(**settings)


class FanTanJudge(BaseJudge):
    """Bead counts and round signals in, decisions out (module docstring)."""

    def __init__(self) -> None:
        self.round: int | None = None
        self.betting_closed = False
        self.done = False
        self.holds: set[str] = set()

    def _hold(self, code: str, detail: str = "") -> list[Decision]:
        from recognition.game import Hold

        self.holds.add(code)
        return [Hold(code=code, message=HOLD_TEXT[code] + (f" ({detail})" if detail else ""))]

    def _release(self, *codes: str) -> list[Decision]:
        from recognition.game import Release

        out: list[Decision] = [Release(code=c) for c in codes if c in self.holds]
        self.holds -= set(codes)
        return out

    def feed(self, event: Any) -> list[Decision]:
        # the device events and decisions (pydantic) on first use: the rules alone (`studio evaluate`) need none
        from devices.beads.events import BeadCount, BeadCountUnreadable
        from devices.events import DeviceConnected, DeviceDisconnected
        from recognition.game import Note, ResultReady, RoundSignal

        if isinstance(event, RoundSignal):
            if event.signal == "round_opened":
                self.round, self.betting_closed, self.done, self.holds = (
                    event.round_number,
                    False,
                    False,
                    set(),
                )
            elif event.signal == "betting_closed":
                self.betting_closed = True
            else:
                self.round, self.betting_closed, self.done, self.holds = None, False, False, set()
            return []
        if isinstance(event, DeviceDisconnected):
            if self.round is None or self.done or "device_lost" in self.holds:
                return []
            return self._hold("device_lost", event.reason)
        if isinstance(event, DeviceConnected):
            return self._release("device_lost")
        if isinstance(event, BeadCountUnreadable):
            if self.round is None or not self.betting_closed or self.done:
                return [
                    Note(
                        code="misread_ignored",
                        message=f"bead counter no-read outside a count: {event.reason}",
                    )
                ]
            return self._hold("misread", event.reason)
        if not isinstance(event, BeadCount):
            return []
        if self.round is None or self.done:
            return [
                Note(code="count_ignored", message=f"a count of {event.count} beads with no count awaited")
            ]
        if not self.betting_closed:
            return self._hold("early_count", f"{event.count} beads")
        if "early_count" in self.holds:
            return [
                Note(code="count_ignored", message=f"a count of {event.count} beads after an early count")
            ]
        if event.count < 1:
            return self._hold("no_beads")
        self.done = True
        out = self._release("misread", "no_beads")
        out.append(
            ResultReady(
                result={"result": last_line(event.count), "beads": event.count},
                source={"device_id": event.device_id, "raw": event.raw, "at": event.at.isoformat()},
            )
        )
        return out


GAMES = {g.game_id: g for g in (FanTan(),)}
