"""What every card game shares: the deal script contract, evaluate, validate_result. Pure.

A card game dealt without player decisions is fully described by its **deal script**:

* ``next_position(cards, context)``: given the cards already dealt in this round (in
  deal order), the position the next card goes to (``"player_2"``, ``"dragon"``,
  ``"flop_1"``...), or ``None`` when the hand is complete;
* ``result_from_cards(cards, context)``: the result of a complete hand;
* ``cards_from_result(result)``: the deal order back from a result (so a result typed
  in by people, or read from the journal, is re-checked card by card).

``context`` is whatever the deal depends on besides the cards: ``None`` for almost
every game; Andar Bahar's first side (a computer draw committed before betting closes).

**Games with player decisions** (``has_decisions = True``: blackjack, draw poker) replace the
script by ``next_step(cards, decisions, context)``: the position of the next card, or the
decision windows (:class:`Ask`) the deal waits for, or ``None`` when the hand is complete;
``check_decision`` says whether a decision is allowed now (else :class:`DecisionError` with one
of :data:`REFUSAL_CODES`); ``result_from_play`` gives the result, which carries the decisions so
that ``validate_result`` and ``studio evaluate`` re-deal exactly (:meth:`CardGame.play`).
Decisions are dicts ``{"window", "seat", "hand", "action", "cards", "by"}`` in the order taken,
the ``"sit"`` decisions (the seats with a main bet, posted while betting is open) first.

The same script drives :class:`recognition.cards.judge.CardJudge` (device events in,
decisions out) and ``studio evaluate`` (a recorded round in, result and outcome out),
so the studio and an auditor can never disagree about a deal.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from recognition import equipment
from recognition.game import BaseGame

from .cards import ShoeSpec, check_copies, describe, parse_card, standard_shoe

DEVICE_KINDS: tuple[str, ...] = ("serial-shoe", "camera-shoe")

#: how the first cards of a new shoe are burned (see docs/card-games.md, "Burn cards")
SHOE_START_BURNS = ("none", "face_value", "fixed")


#: the codes a decision is refused with (docs/card-games.md, "Games with player decisions")
REFUSAL_CODES: tuple[str, ...] = (
    "no_round",
    "betting_open",
    "betting_closed",
    "seat_not_in_play",
    "hand_not_in_play",
    "not_your_turn",
    "window_closed",
    "not_allowed",
    "bad_cards",
    "round_over",
)

#: the action that says a seat has a main bet this round (posted while betting is open)
SIT = "sit"


@dataclass(frozen=True)
class Ask:
    """A decision window the deal waits for: `window` is unique in the round and deterministic."""

    window: str
    seat: str
    hand: int
    allowed: tuple[str, ...]
    default: str
    detail: dict = field(default_factory=dict)


class DecisionError(ValueError):
    """A decision the rules do not allow now; `code` is one of :data:`REFUSAL_CODES`."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def decision_dict(raw: Any, index: int | None = None) -> dict[str, Any]:
    """A decision in canonical dict form from a mapping (an evaluate item's, a result's, a
    PlayerDecision's ``model_dump()``): ``{"window", "seat", "hand", "action", "cards", "by"}``.
    ValueError if it is malformed (``index`` numbers it in the message)."""
    where = f"decision {index + 1}" if index is not None else "a decision"
    if not isinstance(raw, Mapping):
        from pydantic import BaseModel  # here: a round's rules alone (`studio evaluate`) read dicts

        if isinstance(raw, BaseModel):  # a PlayerDecision
            raw = raw.model_dump()
    if not isinstance(raw, Mapping):
        raise ValueError(f"{where} must be an object with 'seat' and 'action', not {type(raw).__name__}")
    action = raw.get("action")
    if not isinstance(action, str) or not action:
        raise ValueError(f"{where} needs an 'action' (e.g. 'hit', 'stand', 'sit')")
    seat = raw.get("seat")
    if not isinstance(seat, str) or not seat:
        raise ValueError(f"{where} needs a 'seat' (e.g. 'seat_3')")
    hand = raw.get("hand", 1)
    if isinstance(hand, bool) or not isinstance(hand, int) or hand < 1:
        raise ValueError(f"{where}: 'hand' must be a whole number from 1, not {hand!r}")
    window = raw.get("window")
    if window is not None and not isinstance(window, str):
        raise ValueError(f"{where}: 'window' must be a string, not {window!r}")
    cards = raw.get("cards") or []
    if not isinstance(cards, (list, tuple)):
        raise ValueError(f"{where}: 'cards' must be a list of card codes")
    parsed = []
    for c in cards:
        try:
            parsed.append(parse_card(c))
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None
    by = raw.get("by") or "backend"
    if by not in ("backend", "default"):
        raise ValueError(f"{where}: 'by' is 'backend' or 'default', not {by!r}")
    return {"window": window, "seat": seat, "hand": hand, "action": action, "cards": parsed, "by": by}


def ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


class CardGame(BaseGame):
    """Defaults for a card game: dealer pacing, a card shoe, a deal script, evaluate over the script."""

    game_id: str = ""
    device_kinds: tuple[str, ...] = DEVICE_KINDS
    pacing = "dealer"  # type: ignore[assignment]
    #: decks in the shoe (a fresh deck per round for games with reshuffle_each_round)
    decks: int = 8
    #: a fresh (or reshuffled) deck every round: the copy check starts afresh at each round
    reshuffle_each_round: bool = False
    #: default burn at the start of a new shoe (the judge's shoe_start_burn setting overrides it)
    shoe_start_burn: str = "none"
    shoe_start_burn_count: int = 0
    #: decks follow one another without a cut card (Jokerbet): a card of another deck starts a new shoe
    alternating_decks: bool = False
    #: the deal depends on player decisions (next_step / check_decision / result_from_play)
    has_decisions: bool = False
    #: a decision game with one common player hand: always in play, no "sit" decisions
    common_hand: bool = False
    #: the seats of a decision game with seats, in deal order (a "sit" names one of them)
    seats: tuple[str, ...] = ()

    # --- the shoe -----------------------------------------------------------------------

    def shoe_spec(self, decks: int | None = None) -> ShoeSpec:
        return standard_shoe(decks or self.decks)

    def equipment_reading(
        self, result: Mapping[str, Any], source: Mapping[str, Any]
    ) -> list[tuple[str, str]]:
        return equipment.card_reading(source)

    def equipment_odds(self, quantity: str, settings: Mapping[str, Any]) -> Mapping[str, float] | None:
        return equipment.card_odds(self.shoe_spec().copies, quantity)

    # --- the deal script (subclasses) --------------------------------------------------------

    def next_position(self, cards: Sequence[str], context: Any = None) -> str | None:
        raise NotImplementedError

    def position_label(self, position: str) -> str:
        """Plain words for a position, for the dealer and for error messages."""
        name, _, n = position.rpartition("_")
        if n.isdigit() and name:
            return f"the {name.replace('_', ' ')}'s {ordinal(int(n))} card"
        return f"the {position.replace('_', ' ')} card"

    def result_from_cards(self, cards: Sequence[str], context: Any = None) -> dict[str, Any]:
        raise NotImplementedError

    def cards_from_result(self, result: Mapping[str, Any]) -> list[Any]:
        raise NotImplementedError

    def deal_context(self, source: Mapping[str, Any] | None) -> Any:
        """What the deal depends on besides the cards, from a round's extras, an evaluate item or a result.
        Raises ValueError when it is needed and missing."""
        return None

    # --- games with player decisions -----------------------------------------------------------

    def next_step(
        self, cards: Sequence[str], decisions: Sequence[Mapping[str, Any]], context: Any = None
    ) -> str | list[Ask] | None:
        """The position of the next card, or the windows the deal waits for now (a non-empty list),
        or None when the hand is complete. Games without decisions: ``next_position``."""
        return self.next_position(cards, context)

    def check_decision(
        self,
        cards: Sequence[str],
        decisions: Sequence[Mapping[str, Any]],
        decision: Mapping[str, Any],
        context: Any = None,
    ) -> dict[str, Any]:
        """The canonical decision dict (window filled in) if the rules allow `decision` now,
        else DecisionError(code, message)."""
        if decision.get("action") == SIT and self.has_decisions and not self.common_hand:
            return self.check_sit(cards, decisions, decision)
        raise DecisionError("not_allowed", f"{self.game_id} takes no player decisions")

    def check_sit(
        self, cards: Sequence[str], decisions: Sequence[Mapping[str, Any]], decision: Mapping[str, Any]
    ) -> dict[str, Any]:
        """A "sit" (the seat has a main bet this round): allowed before any card, once per seat."""
        d = decision_dict(decision)
        if not self.has_decisions or self.common_hand:
            raise DecisionError("not_allowed", f"{self.game_id} has no seats to sit at")
        if cards or any(x.get("action") != SIT for x in decisions):
            raise DecisionError("betting_closed", "seats sit only while betting is open")
        if self.seats and d["seat"] not in self.seats:
            raise DecisionError(
                "seat_not_in_play",
                f"{d['seat']!r} is not a seat of {self.game_id} (seats: {', '.join(self.seats)})",
            )
        if d["hand"] != 1:
            raise DecisionError("hand_not_in_play", "a seat sits with hand 1")
        if any(x.get("seat") == d["seat"] for x in decisions):
            raise DecisionError("not_allowed", f"{d['seat']} has already sat this round")
        return {**d, "window": None, "cards": []}

    def sat(self, decisions: Sequence[Mapping[str, Any]]) -> list[str]:
        """The seats that sat, in deal order (the game's seat order)."""
        taken = {d["seat"] for d in decisions if d.get("action") == SIT}
        if self.seats:
            return [s for s in self.seats if s in taken]
        return sorted(taken)

    def result_from_play(
        self, cards: Sequence[str], decisions: Sequence[Mapping[str, Any]], context: Any = None
    ) -> dict[str, Any]:
        """The result of a complete hand; a decision game's result carries its decisions."""
        return self.result_from_cards(cards, context)

    def play(
        self, raw_cards: Any, raw_decisions: Any, context: Any = None, seats: Any = None
    ) -> tuple[list[str], list[dict[str, Any]]]:
        """Replay a decision game's deal: (cards, accepted decisions), or ValueError naming the problem.

        `raw_decisions` in the order taken (the "sit" decisions first; `seats` is a shorthand for
        them); each is checked with ``check_decision`` when the deal waits for it, so the order of
        decisions relative to cards needs no saying."""
        if not isinstance(raw_cards, (list, tuple)):
            raise ValueError(
                f"'cards' must be a list of card codes in deal order, not {type(raw_cards).__name__}"
            )
        raw_decisions = [] if raw_decisions is None else raw_decisions
        if not isinstance(raw_decisions, (list, tuple)):
            raise ValueError(
                f"'decisions' must be a list of decisions in the order taken, not "
                f"{type(raw_decisions).__name__}"
            )
        pending: list[tuple[int, Any]] = list(enumerate(raw_decisions))
        if seats is not None:
            if not isinstance(seats, (list, tuple)):
                raise ValueError("'seats' must be a list of seat ids, e.g. ['seat_1', 'seat_3']")
            pending = [(-1, {"seat": s, "action": SIT}) for s in seats] + pending
        shoe = self.shoe_spec()
        cards: list[str] = []
        decisions: list[dict[str, Any]] = []

        def take(i: int, raw: Any) -> None:
            d = decision_dict(raw, i if i >= 0 else None)
            try:
                decisions.append(self.check_decision(cards, decisions, d, context))
            except DecisionError as exc:
                name = f"decision {i + 1}" if i >= 0 else f"seat {d['seat']!r}"
                raise ValueError(
                    f"{name} ({d['seat']} hand {d['hand']} {d['action']}) refused [{exc.code}]: {exc.message}"
                ) from None

        while pending and isinstance(pending[0][1], Mapping) and pending[0][1].get("action") == SIT:
            take(*pending.pop(0))
        n = 0
        while True:
            step = self.next_step(cards, decisions, context)
            if step is None:
                break
            if isinstance(step, str):
                if n >= len(raw_cards):
                    raise ValueError(
                        f"too few cards ({len(cards)}): the next card is {self.position_label(step)} ({step})"
                    )
                try:
                    card = parse_card(raw_cards[n])
                except ValueError as exc:
                    raise ValueError(f"card {n + 1}: {exc}") from None
                if not shoe.holds(card):
                    raise ValueError(
                        f"card {n + 1}: {describe(card)} is not a card of {self.game_id} ({shoe.name})"
                    )
                cards.append(card)
                n += 1
                continue
            if not pending:
                waits = "; ".join(f"{a.window} ({', '.join(a.allowed)})" for a in step)
                raise ValueError(f"too few decisions ({len(decisions)}): the deal waits for {waits}")
            take(*pending.pop(0))
        if n < len(raw_cards):
            raise ValueError(
                f"card {n + 1} ({raw_cards[n]}) is not used by the rules: the hand was complete after "
                f"{len(cards)} card{'s' if len(cards) != 1 else ''}"
            )
        if pending:
            i, raw = pending[0]
            raise ValueError(f"decision {i + 1} ({raw!r}) is not used by the rules: the hand was complete")
        check_copies(cards, shoe)
        return cards, decisions

    # --- shared machinery -------------------------------------------------------------------

    def deal(self, raw_cards: Any, context: Any = None) -> tuple[list[str], list[str]]:
        """Check a whole deal against the script: (cards, positions), or ValueError naming the problem."""
        if not isinstance(raw_cards, (list, tuple)):
            raise ValueError(
                f"'cards' must be a list of card codes in deal order, not {type(raw_cards).__name__}"
            )
        shoe = self.shoe_spec()
        cards: list[str] = []
        positions: list[str] = []
        for i, raw in enumerate(raw_cards):
            try:
                card = parse_card(raw)
            except ValueError as exc:
                raise ValueError(f"card {i + 1}: {exc}") from None
            if not shoe.holds(card):
                raise ValueError(
                    f"card {i + 1}: {describe(card)} is not a card of {self.game_id} ({shoe.name})"
                )
            position = self.next_position(cards, context)
            if position is None:
                raise ValueError(
                    f"card {i + 1} ({card}) is not used by the rules: the hand was complete after "
                    f"{len(cards)} card{'s' if len(cards) != 1 else ''}"
                )
            cards.append(card)
            positions.append(position)
        position = self.next_position(cards, context)
        if position is not None:
            raise ValueError(
                f"too few cards ({len(cards)}): the next card is {self.position_label(position)} ({position})"
            )
        check_copies(cards, shoe)
        return cards, positions

    def evaluate(self, item: dict[str, Any]) -> dict[str, Any]:
        if "cards" not in item:
            raise ValueError("a recorded round needs 'cards': the card codes in deal order")
        extras = item.get("extras")
        self.check_extras(extras)
        context = self.deal_context(item)
        if self.has_decisions:
            cards, decisions = self.play(item["cards"], item.get("decisions"), context, item.get("seats"))
            result = self.result_from_play(cards, decisions, context)
            return {"result": result, "outcome": self.outcome(result, extras)}
        cards, _ = self.deal(item["cards"], context)
        result = self.result_from_cards(cards, context)
        return {"result": result, "outcome": self.outcome(result, extras)}

    def validate_result(self, result: dict[str, Any]) -> dict[str, Any]:
        """The canonical result for a result dict (the judge's, or one typed in by people).

        Accepts the canonical form or ``{"cards": [...]}`` in deal order (decision games: with
        ``"decisions"``, or the ``"seats"`` shorthand for the "sit" ones). The cards are re-dealt
        through the script; every other given key must agree with what the cards give.
        Keys the canonical result does not have are dropped.
        """
        if not isinstance(result, Mapping):
            raise ValueError(f"a {self.game_id} result is a dict, not {type(result).__name__}")
        context = self.deal_context(result)
        raw = result["cards"] if "cards" in result else self.cards_from_result(result)
        if self.has_decisions:
            seats = result.get("seats")
            shorthand = seats if isinstance(seats, list) and all(isinstance(x, str) for x in seats) else None
            cards, decisions = self.play(raw, result.get("decisions"), context, shorthand)
            canonical = self.result_from_play(cards, decisions, context)
        else:
            cards, _ = self.deal(raw, context)
            canonical = self.result_from_cards(cards, context)
        for key, value in result.items():
            if key in canonical and key not in ("cards", "decisions") and value != canonical[key]:
                raise ValueError(f"{key} is {canonical[key]!r} for these cards, not {value!r}")
        return canonical

    def check_extras(self, extras: Any) -> None:
        """ValueError if `extras` (a round's committed draws) is not what this game draws."""
        if extras not in (None, {}):
            raise ValueError(f"{self.game_id} has no computer draws, but extras {extras!r} were given")

    def draw_extras(self, rng: random.Random, **settings: Any) -> dict[str, Any] | None:
        return None

    def new_judge(self, **settings: Any):  # type: ignore[override]
        from .judge import CardJudge

        return CardJudge(self, **settings)


def need(result: Mapping[str, Any], key: str, game_id: str) -> Any:
    if key not in result:
        raise ValueError(f"a {game_id} result needs {key!r} (or 'cards': the card codes in deal order)")
    return result[key]


def card_list(value: Any, key: str) -> list[Any]:
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"{key!r} must be a list of card codes, not {type(value).__name__}")
    return list(value)
