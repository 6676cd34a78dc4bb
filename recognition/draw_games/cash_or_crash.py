"""Cash or Crash: balls of 19 green, 8 red and 1 golden, drawn one by one until the blimp crashes. Pure.

Seed 000 L4397-L4409 (digest: rules-digest/seed-C.md §22). Ball labels are the
colours "green", "red", "golden". Per ball (L4401-L4407):

* green: the blimp rises one level; the player may then Continue, Take Half or Take All;
* golden: the blimp rises one level and gets a shield;
* red: with a shield, the shield is used up and the game continues; without, the
  blimp crashes, the bet is lost and the game ends.

Choices where the seed is silent (the common rules of the studio game):

* balls are not put back; the blimp starts at level 0;
* a shielded red does not raise the blimp;
* the top is level 20 (19 green and the golden ball): once every non-red ball is
  out the round ends there, uncrashed; so a round draws at most 21 balls;
* Take Half is allowed once: half the stake is paid at the current level's odds
  and the other half plays on; Take All pays what is still in play;
* a decision is made after a green ball (L4403), named by that ball's position.

Odds per level are the operator's ("which the player can familiarize with before
making a bet", L4409): a bet settles with a table level -> decimal odds.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from fractions import Fraction
from functools import cached_property
from typing import Any

from recognition.evaluate_fast import MEMO_SIZE, TailCache, plain_line

from .base import DrawGame, Drawn, Market, as_exact, exact, odds_table

GREEN, RED, GOLDEN = "green", "red", "golden"
TOP_LEVEL = 20

#: `studio evaluate`'s usual line: an integer id and the balls
_PLAIN_LINE = plain_line(r'"balls": ?\[([^\]]*)\]').fullmatch


def walk(balls: Sequence[str]) -> list[dict[str, Any]]:
    """The blimp after each ball: level, shield, and how the round ended at that ball (None while it goes on)."""
    level, shield, states = 0, False, []
    for ball in balls:
        end = None
        if ball == GREEN:
            level += 1
        elif ball == GOLDEN:
            level += 1
            shield = True
        elif shield:
            shield = False
        else:
            end = "crash"
        if end is None and level == TOP_LEVEL:
            end = "top"
        states.append({"ball": ball, "level": level, "shield": shield, "end": end})
    return states


class CashOrCrash(DrawGame):
    game_id = "cash_or_crash"
    title = "Cash or Crash"
    seed_lines = (4397, 4409)
    ball_labels = (GREEN, RED, GOLDEN)
    counts = {GREEN: 19, RED: 8, GOLDEN: 1}
    colors = {GREEN: "green", RED: "red", GOLDEN: "golden"}  # the seed's words (L4399)
    #: the most a round can draw (20 non-red balls and the red the shield absorbed)
    draw_count = 21

    def __init__(self) -> None:
        self.markets = (Market("blimp", 4409, lambda d, s: None, keyed=True),)

    # --- studio evaluate's fast path --------------------------------------------------------

    fast_evaluate = True

    def evaluate_json(self, line: str) -> str | None:
        """A usual line: the answer past its id kept by the balls' text (a round is short: rounds repeat);
        None for any other line, or a round the game refuses (the general path answers it)."""
        m = _PLAIN_LINE(line)
        if m is None:
            return None
        tails = self._tails
        text = m[2]
        tail = tails.tails.get(text)
        if tail is not None:
            return f'{{"id":{m[1]},{tail}'
        try:
            balls = json.loads(f"[{text}]")
        except ValueError:
            return None
        if len(tails.tails) >= MEMO_SIZE:  # answered, not kept
            tails = TailCache(self.evaluate)
        return tails.line(m[1], "", text, {"balls": balls})

    @cached_property
    def _tails(self) -> TailCache:
        return TailCache(self.evaluate)

    def draw_complete(self, balls: Sequence[str], extras: dict[str, Any] | None = None) -> bool:
        """True once a red ball hits an unshielded blimp, or the blimp reached the top level."""
        states = walk(balls)
        return bool(states) and states[-1]["end"] is not None

    def _complete_words(self, n: int) -> str:
        return f"the round ended at ball {n}: the blimp crashed or reached level {TOP_LEVEL}"

    def _drawn_words(self) -> str:
        return "ball colours"

    def _check_final(self, labels: list[str]) -> None:
        if not self.draw_complete(labels):
            raise ValueError(
                f"the draw is incomplete: after {len(labels)} ball(s) the blimp is at level "
                f"{walk(labels)[-1]['level'] if labels else 0} and has not crashed; a round ends with "
                f"a red ball on an unshielded blimp or at level {TOP_LEVEL}"
            )

    def facts(self, d: Drawn) -> dict[str, Any]:
        states = walk(d.balls)
        shielded = [i for i, s in enumerate(states, 1) if s["ball"] == RED and s["end"] is None]
        return {
            "levels": [s["level"] for s in states],
            "final_level": states[-1]["level"],
            "end": states[-1]["end"],
            "shield_used_at": shielded[0] if shielded else None,
        }

    def settle(
        self, bet: dict[str, Any], result: dict[str, Any], extras: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """``{"market": "blimp", "stake": S, "odds": {level: odds}, "take_half_after": n, "take_all_after": m}``
        (decisions optional; n, m = the position of the green ball after which the player chose)."""
        if not isinstance(bet, dict) or bet.get("market", "blimp") != "blimp":
            raise ValueError(
                f"a Cash or Crash bet is {{'market': 'blimp', 'stake': S, 'odds': {{level: odds}}}}, "
                f"not {bet!r}"
            )
        canonical = self.validate_result(result)
        states = walk(canonical["balls"])
        stake = exact(bet.get("stake"), "stake")
        table = odds_table(bet.get("odds"))

        def odds_at(level: int) -> Fraction:
            if str(level) not in table:
                raise ValueError(f"the bet's odds table has no entry for level {level}")
            return table[str(level)]

        def decision(key: str) -> int | None:
            n = bet.get(key)
            if n is None:
                return None
            if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= len(states):
                raise ValueError(
                    f"{key} must be the position (1..{len(states)}) of a drawn green ball, not {n!r}"
                )
            if states[n - 1]["ball"] != GREEN:
                raise ValueError(
                    f"{key}={n}: ball {n} is {states[n - 1]['ball']}; "
                    "a player decides only after a green ball (L4403)"
                )
            return n

        half, all_ = decision("take_half_after"), decision("take_all_after")
        if half is not None and all_ is not None and all_ <= half:
            raise ValueError(f"take_all_after={all_} must come after take_half_after={half}")
        in_play, paid, cashed = stake, Fraction(0), []
        if half is not None:
            level = states[half - 1]["level"]
            paid += stake / 2 * odds_at(level)
            in_play = stake / 2
            cashed.append({"after_ball": half, "level": level, "part": "half"})
        if all_ is not None:
            level = states[all_ - 1]["level"]
            paid += in_play * odds_at(level)
            in_play = Fraction(0)
            cashed.append({"after_ball": all_, "level": level, "part": "all"})
        end = states[-1]
        if in_play and end["end"] == "top":
            paid += in_play * odds_at(end["level"])
            cashed.append({"after_ball": len(states), "level": end["level"], "part": "top"})
        return {
            "market": "blimp",
            "cashed": cashed,
            "end": end["end"],
            "won": paid > 0,
            "void": False,
            "return": as_exact(paid),
        }
