"""The card judge: a dealer-paced table's shoe events and round signals in, round decisions out. Pure.

One judge per table. It follows two things:

* **the shoe**: how many copies of each card have left it since it was started, its deck
  identity, the burn cards still owed, the cut card and the shoe change;
* **the round**: opened / betting closed / ended (from :class:`RoundSignal`), and the cards
  of the deal, each placed at the next position of the game's deal script
  (:mod:`recognition.cards.base`).

When the script says the hand is complete the judge sends :class:`ResultReady`. Anything
it cannot vouch for becomes a :class:`Hold` with a plain-English message for the dealer.
Two kinds of hold:

* **faults** (the round can never be certified from the shoe, so the judge sends no
  ResultReady for it): an unknown barcode (``card=None``), a card of another shoe, a card
  the shoe cannot hold (more copies than it has, or not in it at all), a card while
  betting was open, an extra card after the hand was complete, a round whose opening the
  judge did not see, a missing computer draw the deal depends on. What follows is the
  dealer's, journaled by the table: void the round (misdeal: stakes returned, seeds 000
  L1587, 004 L614, 001 L49-55) or a manual result with a supervisor (four eyes).
* **checks** (the judge goes on following the deal and sends ResultReady when the hand is
  complete, but the hold blocks certification until the dealer, looking at the hand on
  screen and the cards on the table, releases it or voids the round): an unreadable card
  (re-scan it: the next card read takes its position), the shoe disconnecting during a
  round, burn cards owed by a new shoe but not drawn before the deal.

Between rounds a stray card is a table hold (the card counts as burned). The cut card is
a :class:`Note`; after the round in progress and ``hands_after_cut_card`` more rounds, the
judge asks for a shoe change (a table hold, journaled), and takes the next card drawn as
the first card of the new shoe (releasing that hold itself, and burning per the
``shoe_start_burn`` rule). ``RoundSignal("round_ended")`` resets the round (after a
certification, a void or a manual result alike).

**Games with player decisions** (``game.has_decisions``: blackjack, draw poker): the judge
also takes :class:`PlayerDecision` (from the betting backend, or the rules' default the table
feeds when a window times out) and answers each with exactly one DecisionTaken or
DecisionRefused first, then anything that follows (AskDecision for each newly opened window,
once; ResultReady). "sit" decisions (the seats with a main bet) are taken while betting is open;
a round where no seat sat is voided at betting_closed (``no_players``). A card drawn while the
deal waits for a decision is held (``card_before_decision``, a check): it keeps its order and
goes where the deal sends it once the decision comes. ``status()`` says where the next card
goes, or which windows are awaited.

Holds the judge raises carry codes the dealer releases by (``release_by``); a second
incident of the same kind in one round gets ``code_2``, ``code_3``... so that releasing
one never clears the other.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from devices.events import CardDrawn, CardUnreadable, DeviceConnected, DeviceDisconnected, DeviceEvent
from recognition.game import (
    AskDecision,
    BaseJudge,
    Decision,
    DecisionRefused,
    DecisionTaken,
    Hold,
    Note,
    PlayerDecision,
    Release,
    ResultReady,
    RoundSignal,
    Void,
)

from .base import SHOE_START_BURNS, SIT, Ask, CardGame, DecisionError, decision_dict
from .cards import BACCARAT_VALUE, JOKERS, ShoeSpec, describe

NONE, BETTING, DEALING, COMPLETE, FAULTED = "none", "betting", "dealing", "complete", "faulted"

_FAULT_NEXT = (
    "This round will not be certified from the shoe: void it (misdeal, all bets are returned), "
    "or have a supervisor enter the result by hand."
)
_CHECK_NEXT = (
    "When the hand is complete, compare the cards on screen with the cards on the table: release "
    "this hold if they match, otherwise void the round."
)

#: what each hold tells the dealer (the detail of the incident is appended)
HOLD_MESSAGES: dict[str, str] = {
    "unknown_card": "The shoe read a card that is not in the deck vendor's table. " + _FAULT_NEXT,
    "wrong_shoe": "A card from another shoe came out. " + _FAULT_NEXT,
    "impossible_card": "The shoe reported a card this shoe cannot hold: it was misread or does not belong here. "
    + _FAULT_NEXT,
    "card_before_betting_closed": "A card came out of the shoe while betting was still open; players could see "
    "it. Void the round (all bets are returned).",
    "extra_card": "A card came out after the hand was complete. If it was dealt into the hand the deal is wrong: "
    "void the round. If it was only burned, release this hold.",
    "round_not_seen": "The studio did not see this round open, so it cannot know every card of the deal. "
    + _FAULT_NEXT,
    "deal_context_missing": "The computer draw this deal depends on is missing. " + _FAULT_NEXT,
    "card_unreadable": "The shoe could not read a card. Scan that card again: the next card read takes its "
    "place. " + _CHECK_NEXT,
    "shoe_lost": "Contact with the shoe was lost during the round; cards drawn meanwhile were not read. Wait for "
    "it to reconnect. " + _CHECK_NEXT,
    "burns_skipped": "The new shoe's burn cards were not drawn before the deal began; the studio takes the cards "
    "as dealt. " + _CHECK_NEXT,
    "deck_changed": "A new deck started before the previous one was finished. If the deck was changed on "
    "purpose, release this hold; otherwise void the round.",
    "card_between_rounds": "A card came out of the shoe between rounds. It is not part of any round and counts "
    "as burned: put it in the discard rack, then release this hold.",
    "shoe_lost_idle": "Contact with the shoe was lost. Do not deal until it reconnects.",
    "shoe_change": "The cut card is out and the last hand of this shoe has been played: change the shoe before "
    "the next deal. The studio starts counting the new shoe at its first card and lifts this hold "
    "then.",
    "card_before_decision": "A card came out before the player's decision it depends on. The studio keeps it in "
    "its order: when the decision comes, the card goes where the rules then send it (the "
    "next card of that hand on a hit or a double; otherwise the next hand's, or the "
    "dealer's). When the hand is complete, compare the cards on screen with the table: "
    "release this hold if they match, otherwise void the round.",
}

NOTE_MESSAGES: dict[str, str] = {
    "cut_card": "The cut card came out.",
    "last_hand": "Last hand from this shoe (the cut card is out).",
    "new_shoe": "New shoe started.",
    "burn": "Burn card.",
    "rescanned": "Card read after the unreadable one; check it against the table.",
    "shoe_exhausted": "Every card of the shoe has been drawn; the next card starts a new shoe.",
    "shoe_reconnected": "The shoe is connected again.",
}


def _say(table: dict[str, str], code: str, detail: str) -> str:
    base = table[code]
    return f"{base} ({detail})" if detail else base


def face_value_burn(card: str) -> int:
    """How many cards the first card of a baccarat shoe says to burn: A=1, 2-9 face, ten and pictures 10."""
    if card in JOKERS or len(card) != 2:
        return 0
    return BACCARAT_VALUE[card[0]] or 10


@dataclass
class _Round:
    number: int
    phase: str
    burns_left: int = 0
    cards: list[str] = field(default_factory=list)
    context: Any = None
    extras: dict[str, Any] | None = None
    holds: set[str] = field(default_factory=set)
    rescan: bool = False  # an unreadable card is waiting for its re-scan
    # games with player decisions
    decisions: list[dict[str, Any]] = field(default_factory=list)
    asked: set[str] = field(default_factory=set)  # windows already announced with AskDecision
    early: list[tuple[str, str]] = field(
        default_factory=list
    )  # (card, device_id) drawn before their decision
    device_id: str = ""  # the shoe of the last card placed


class CardJudge(BaseJudge):
    """Turns one shoe's events and the table's round signals into decisions (:class:`recognition.game.Judge`)."""

    def __init__(
        self,
        game: CardGame,
        *,
        decks: int | None = None,
        deck_id: str | None = None,
        shoe_start_burn: str | None = None,
        shoe_start_burn_count: int | None = None,
        burn_each_round: int = 0,
        hands_after_cut_card: int = 1,
        reshuffle_each_round: bool | None = None,
        new_shoe_at_start: bool = False,
    ) -> None:
        """
        decks: decks in the shoe (default: the game's).
        deck_id: the deck identity the vendor table reports for this table's shoe; a card of another
            is held. None: learned from the first card of each shoe.
        shoe_start_burn: "none", "face_value" (the first card of a new shoe is burned and says how many
            more to burn: A=1 .. 9, ten and pictures 10) or "fixed" (shoe_start_burn_count cards).
        burn_each_round: cards burned in every round, drawn while its betting is open (a card after betting
            closed is always dealt; a burn still owed then is a burns_skipped check).
        hands_after_cut_card: rounds still dealt after the round in which the cut card comes out.
        reshuffle_each_round: a fresh deck every round (default: the game's).
        new_shoe_at_start: the judge starts with a new shoe (its burn cards owed); default False, since
            a studio restarts in the middle of a shoe as often as not.
        """
        self.game = game
        rule = shoe_start_burn if shoe_start_burn is not None else game.shoe_start_burn
        if rule not in SHOE_START_BURNS:
            raise ValueError(f"shoe_start_burn must be one of {', '.join(SHOE_START_BURNS)}, not {rule!r}")
        count = shoe_start_burn_count if shoe_start_burn_count is not None else game.shoe_start_burn_count
        for name, value in (
            ("shoe_start_burn_count", count),
            ("burn_each_round", burn_each_round),
            ("hands_after_cut_card", hands_after_cut_card),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(
                    f"{name} must be a whole number of cards or rounds (0 or more), not {value!r}"
                )
        if rule == "fixed" and count == 0:
            raise ValueError("shoe_start_burn 'fixed' needs shoe_start_burn_count of 1 or more")
        self.spec: ShoeSpec = game.shoe_spec(decks)
        self.deck_id = deck_id
        self.burn_rule = rule
        self.burn_count = count
        self.burn_each_round = burn_each_round
        self.hands_after_cut_card = hands_after_cut_card
        self.reshuffle = game.reshuffle_each_round if reshuffle_each_round is None else reshuffle_each_round
        # shoe state
        self._counts: Counter[str] = Counter()
        self._deck: str | None = deck_id
        self._burns_left = 0
        self._face_burn = False
        self._cut_rounds_left: int | None = None  # rounds that may still open after the cut card
        self._change_pending = False  # the next card starts a new shoe
        self._change_hold = False  # a shoe_change hold stands (released by the judge at the new shoe)
        # round and link state
        self._round: _Round | None = None
        self._lost: str | None = None  # "idle" or "round": which shoe_lost hold was raised
        if new_shoe_at_start:
            self._change_pending = True

    # --- entry --------------------------------------------------------------------------

    def feed(self, item: DeviceEvent | RoundSignal) -> list[Decision]:
        out: list[Decision] = []
        if isinstance(item, RoundSignal):
            self._on_signal(item, out)
        elif isinstance(item, PlayerDecision):
            self._on_decision(item, out)
        elif isinstance(item, CardDrawn):
            self._on_card(item, out)
        elif isinstance(item, CardUnreadable):
            self._on_unreadable(item, out)
        elif isinstance(item, DeviceDisconnected):
            self._on_disconnect(item, out)
        elif isinstance(item, DeviceConnected):
            self._on_connect(out)
        return out

    @property
    def shoe_counts(self) -> dict[str, int]:
        """Cards drawn from the current shoe, by code (for the dealer screen and tests)."""
        return dict(self._counts)

    @property
    def phase(self) -> str:
        return self._round.phase if self._round else NONE

    # --- round signals ---------------------------------------------------------------------

    def _on_signal(self, s: RoundSignal, out: list[Decision]) -> None:
        if s.signal == "round_opened":
            self._round = _Round(number=s.round_number, phase=BETTING, burns_left=self.burn_each_round)
            if self.reshuffle:
                self._counts.clear()
                self._deck = self.deck_id
            if self._change_pending:
                pass  # the table carries the standing shoe_change hold into the new round
            elif self._cut_rounds_left is not None and self._cut_rounds_left > 0:
                self._cut_rounds_left -= 1
                if self._cut_rounds_left == 0:
                    out.append(
                        Note(
                            code="last_hand",
                            message=_say(NOTE_MESSAGES, "last_hand", f"round {s.round_number}"),
                        )
                    )
        elif s.signal == "betting_closed":
            r = self._round
            if r is None or r.number != s.round_number or r.phase != BETTING:
                if r is not None and r.number == s.round_number and r.phase == FAULTED:
                    return  # a card while betting was open already faulted it
                self._round = r = _Round(number=s.round_number, phase=BETTING)
                self._fault("round_not_seen", f"round {s.round_number}", out)
                return
            r.phase = DEALING
            r.extras = s.extras
            try:
                r.context = self.game.deal_context({"extras": s.extras} if s.extras is not None else None)
            except ValueError as exc:
                self._fault("deal_context_missing", str(exc), out)
                return
            if self.game.has_decisions:
                if not self.game.common_hand and not self.game.sat(r.decisions):
                    r.phase = FAULTED
                    out.append(
                        Void(
                            code="no_players",
                            message=f"No seat has a main bet in round {r.number}: no cards are dealt.",
                        )
                    )
                    return
                self._advance(r, "", out)
        elif s.signal == "round_ended":
            self._round = None
            if self._cut_rounds_left == 0 and not self._change_pending:
                self._ask_shoe_change(f"after round {s.round_number}", out)

    # --- cards -------------------------------------------------------------------------

    def _on_card(self, ev: CardDrawn, out: list[Decision]) -> None:
        if ev.special == "cut_card":
            self._on_cut_card(out)
            return
        if self._change_pending:
            self._start_new_shoe(out)
        what = describe(ev.card) if ev.card is not None else f"barcode {ev.payload!r}"
        # is it a card of this shoe at all?
        if ev.card is None:
            self._bad_card("unknown_card", f"barcode {ev.payload!r} {self._where()}", out)
            return
        if ev.deck is not None:
            if self._deck is None:
                self._deck = ev.deck
            elif ev.deck != self._deck and self.game.alternating_decks and not self.reshuffle:
                seen = sum(self._counts.values())
                self._start_new_shoe(out)
                self._deck = ev.deck
                self._deck_changed(
                    f"{what} is from deck {ev.deck!r} after {seen} of the {self.spec.size} cards "
                    "of the previous deck",
                    out,
                )
            elif ev.deck != self._deck:
                self._bad_card(
                    "wrong_shoe",
                    f"{what} is from deck {ev.deck!r}; this shoe is deck {self._deck!r}; {self._where()}",
                    out,
                )
                return
        problem = self.spec.problem(ev.card, self._counts)
        if problem:
            self._bad_card("impossible_card", f"{problem}; {self._where()}", out)
            return
        self._counts[ev.card] += 1
        exhausted = sum(self._counts.values()) >= self.spec.size and not self.reshuffle
        self._place(ev, what, out)
        if exhausted:
            self._change_pending = True
            out.append(Note(code="shoe_exhausted", message=NOTE_MESSAGES["shoe_exhausted"]))

    def _place(self, ev: CardDrawn, what: str, out: list[Decision]) -> None:
        card = ev.card
        assert card is not None
        r = self._round
        phase = r.phase if r else NONE
        if phase in (NONE, BETTING) and self._take_burn(card, what, out):
            return
        if r is None:
            self._table_hold("card_between_rounds", what, out)
            return
        if phase == BETTING:
            self._fault("card_before_betting_closed", f"{what} in round {r.number}", out)
            return
        if phase == COMPLETE:
            r.phase = FAULTED
            self._hold("extra_card", f"{what} after the hand {self._hand(r)}", out)
            return
        if phase == FAULTED:
            return
        # dealing: the card takes the next position of the deal script
        if self.game.has_decisions:
            self._place_decided(r, card, ev.device_id, what, out)
            return
        position = self.game.next_position(r.cards, r.context)
        if position is None:  # cannot happen: a complete hand is COMPLETE
            r.phase = FAULTED
            self._hold("extra_card", f"{what} after the hand {self._hand(r)}", out)
            return
        self._burns_skipped(r, f"{what} taken as {self.game.position_label(position)}", out)
        if r.rescan:
            r.rescan = False
            out.append(
                Note(
                    code="rescanned",
                    message=_say(
                        NOTE_MESSAGES, "rescanned", f"{what} taken as {self.game.position_label(position)}"
                    ),
                )
            )
        r.cards.append(card)
        if self.game.next_position(r.cards, r.context) is None:
            r.phase = COMPLETE
            out.append(
                ResultReady(
                    result=self.game.result_from_cards(r.cards, r.context),
                    source={"device_id": ev.device_id, "cards": list(r.cards)},
                )
            )

    # --- games with player decisions ---------------------------------------------------------

    def _step(self, r: _Round) -> str | list[Ask] | None:
        return self.game.next_step(r.cards, r.decisions, r.context)

    def _place_decided(self, r: _Round, card: str, device_id: str, what: str, out: list[Decision]) -> None:
        step = self._step(r)
        if r.early or isinstance(step, list):
            # the deal waits for a decision: keep the card in its order until the decision says where it goes
            waiting = step if isinstance(step, list) else []
            label = (
                ", ".join(f"{a.seat} hand {a.hand} ({a.window})" for a in waiting) or "an earlier decision"
            )
            r.early.append((card, device_id))
            self._burns_skipped(r, f"{what} drawn before the decision of {label}", out)
            if r.rescan:
                r.rescan = False
                out.append(
                    Note(
                        code="rescanned",
                        message=_say(
                            NOTE_MESSAGES, "rescanned", f"{what}, drawn before the decision of {label}"
                        ),
                    )
                )
            self._hold("card_before_decision", f"{what} while waiting for {label}", out)
            return
        if step is None:  # cannot happen: a complete hand is COMPLETE
            r.phase = FAULTED
            self._hold("extra_card", f"{what} after the hand {self._hand(r)}", out)
            return
        label = self.game.position_label(step)
        self._burns_skipped(r, f"{what} taken as {label}", out)
        if r.rescan:
            r.rescan = False
            out.append(
                Note(code="rescanned", message=_say(NOTE_MESSAGES, "rescanned", f"{what} taken as {label}"))
            )
        r.cards.append(card)
        r.device_id = device_id
        self._advance(r, device_id, out)

    def _advance(self, r: _Round, device_id: str, out: list[Decision]) -> None:
        """After a card or a decision: place the cards drawn early where the deal now sends them, announce
        newly opened windows, or send the result when the hand is complete."""
        while True:
            step = self._step(r)
            if isinstance(step, str) and r.early:
                card, r.device_id = r.early.pop(0)
                r.cards.append(card)
                continue
            break
        if isinstance(step, list):
            for ask in step:
                if ask.window not in r.asked:
                    r.asked.add(ask.window)
                    out.append(
                        AskDecision(
                            window=ask.window,
                            seat=ask.seat,
                            hand=ask.hand,
                            allowed=ask.allowed,
                            default=ask.default,
                            detail=dict(ask.detail),
                        )
                    )
        elif step is None:
            if r.early:
                r.phase = FAULTED
                extra = " ".join(c for c, _ in r.early)
                r.early.clear()
                self._hold(
                    "extra_card", f"{extra} drawn early and left over after the hand {self._hand(r)}", out
                )
                return
            r.phase = COMPLETE
            out.append(
                ResultReady(
                    result=self.game.result_from_play(r.cards, r.decisions, r.context),
                    source={
                        "device_id": device_id or r.device_id,
                        "cards": list(r.cards),
                        "decisions": [dict(d) for d in r.decisions],
                    },
                )
            )

    def _on_decision(self, pd: PlayerDecision, out: list[Decision]) -> None:
        r = self._round
        if not self.game.has_decisions:
            out.append(
                DecisionRefused(code="not_allowed", message=f"{self.game.game_id} takes no player decisions")
            )
            return
        if r is None or r.number != pd.round_number:
            now = f"round {r.number} is in play" if r is not None else "no round is in play"
            out.append(
                DecisionRefused(code="no_round", message=f"round {pd.round_number} is not in play ({now})")
            )
            return
        if r.phase == BETTING:
            if pd.action != SIT:
                out.append(
                    DecisionRefused(
                        code="betting_open",
                        message=f"betting is still open in round {r.number}: no {pd.action!r} decisions yet",
                    )
                )
                return
        elif pd.action == SIT:
            out.append(
                DecisionRefused(
                    code="betting_closed",
                    message=f"betting has closed in round {r.number}: seats sit only while it is open",
                )
            )
            return
        elif r.phase in (COMPLETE, FAULTED):
            why = "the hand is complete" if r.phase == COMPLETE else "the round is held for a fault"
            out.append(
                DecisionRefused(code="round_over", message=f"round {r.number} takes no more decisions: {why}")
            )
            return
        try:
            d = self.game.check_decision(r.cards, r.decisions, decision_dict(pd), r.context)
        except DecisionError as exc:
            out.append(DecisionRefused(code=exc.code, message=exc.message))
            return
        except ValueError as exc:
            out.append(DecisionRefused(code="not_allowed", message=str(exc)))
            return
        r.decisions.append(d)
        out.append(
            DecisionTaken(
                window=d["window"] or "",
                seat=d["seat"],
                hand=d["hand"],
                action=d["action"],
                cards=tuple(d["cards"]),
                by=d["by"],
            )
        )
        if r.phase == DEALING:
            self._advance(r, "", out)

    def status(self) -> dict[str, Any] | None:
        """What the dealer must know now: where the next card goes, and the decision windows awaited."""
        r = self._round
        if r is None or r.phase != DEALING:
            return None
        step = self._step(r)
        if isinstance(step, str):
            return {"next": {"position": step, "label": self.game.position_label(step)}, "awaiting": []}
        if isinstance(step, list):
            return {
                "next": None,
                "awaiting": [
                    {
                        "window": a.window,
                        "seat": a.seat,
                        "hand": a.hand,
                        "allowed": list(a.allowed),
                        "default": a.default,
                    }
                    for a in step
                ],
            }
        return {"next": None, "awaiting": []}

    def _take_burn(self, card: str | None, what: str, out: list[Decision]) -> bool:
        """Take a card drawn between rounds or while betting is open as an owed burn card, if one is owed.
        Burns are never taken after betting closed: a card then is always a deal card."""
        r = self._round
        if self._face_burn:
            self._face_burn = False
            if card is None:
                self._burns_left = 0
                detail = (
                    f"the first card of the shoe is {what}: the studio cannot tell how many more to burn; "
                    "burn them as the rule says (each will show as a card between rounds)"
                )
            else:
                self._burns_left = face_value_burn(card)
                detail = f"first card of the shoe {what}: burn {self._burns_left} more"
        elif self._burns_left:
            self._burns_left -= 1
            detail = f"{what}; {self._burns_left} more to burn"
        elif r is not None and r.phase == BETTING and r.burns_left:
            r.burns_left -= 1
            detail = f"{what} burned before the deal of round {r.number}"
        else:
            return False
        out.append(Note(code="burn", message=_say(NOTE_MESSAGES, "burn", detail)))
        return True

    def _burns_skipped(self, r: _Round, detail: str, out: list[Decision]) -> None:
        """The deal began with burn cards still owed: take the cards as dealt and have the dealer check."""
        owed = []
        if self._face_burn:
            owed.append("the new shoe's first card and as many as it shows")
        elif self._burns_left:
            owed.append(f"{self._burns_left} of the new shoe's burn cards")
        if r.burns_left:
            owed.append(f"{r.burns_left} burn card(s) of this round")
        if owed:
            self._face_burn, self._burns_left, r.burns_left = False, 0, 0
            self._hold("burns_skipped", f"{' and '.join(owed)} owed; {detail}", out)

    def _on_unreadable(self, ev: CardUnreadable, out: list[Decision]) -> None:
        if self._change_pending:
            self._start_new_shoe(out)
        r = self._round
        what = f"an unreadable card ({ev.reason})"
        if (r is None or r.phase == BETTING) and self._take_burn(None, what, out):
            return
        if r is None:
            self._table_hold("card_between_rounds", what, out)
        elif r.phase == BETTING:
            self._fault("card_before_betting_closed", f"{what} in round {r.number}", out)
        elif r.phase == COMPLETE:
            r.phase = FAULTED
            self._hold("extra_card", f"{what} after the hand {self._hand(r)}", out)
        elif r.phase == DEALING:
            position = self._step(r)
            if isinstance(position, list):
                label = "a card drawn before the decision of " + ", ".join(a.window for a in position)
            else:
                label = self.game.position_label(position) if position else "after the end of the hand"
            self._burns_skipped(r, f"{what} taken as {label}", out)
            self._hold("card_unreadable", f"{ev.reason}; it is {label}", out)
            r.rescan = True

    def _on_cut_card(self, out: list[Decision]) -> None:
        if self.reshuffle or self._cut_rounds_left is not None:
            out.append(
                Note(code="cut_card", message=_say(NOTE_MESSAGES, "cut_card", "no shoe change pending on it"))
            )
            return
        self._cut_rounds_left = self.hands_after_cut_card
        in_progress = self._round is not None
        if self.hands_after_cut_card == 0:
            detail = (
                "the round in progress is the last from this shoe"
                if in_progress
                else "change the shoe before the next round"
            )
        else:
            n = self.hands_after_cut_card
            detail = (
                f"{'the round in progress and ' if in_progress else ''}{n} more round{'s' if n != 1 else ''} "
                "from this shoe, then change the shoe"
            )
        out.append(Note(code="cut_card", message=_say(NOTE_MESSAGES, "cut_card", detail)))
        if self.hands_after_cut_card == 0 and not in_progress:
            self._ask_shoe_change("the cut card came out between rounds", out)

    # --- the link ------------------------------------------------------------------------------

    def _on_disconnect(self, ev: DeviceDisconnected, out: list[Decision]) -> None:
        if self._lost is not None:
            return
        r = self._round
        if r is not None and r.phase in (BETTING, DEALING, COMPLETE):
            self._lost = "round"
            self._hold("shoe_lost", f"{ev.reason}; round {r.number}", out)
        else:
            self._lost = "idle"
            out.append(Hold(code="shoe_lost", message=_say(HOLD_MESSAGES, "shoe_lost_idle", ev.reason)))

    def _on_connect(self, out: list[Decision]) -> None:
        lost, self._lost = self._lost, None
        if lost == "idle":
            out.append(Release(code="shoe_lost"))
        elif lost == "round":
            out.append(
                Note(
                    code="shoe_reconnected",
                    message=_say(
                        NOTE_MESSAGES,
                        "shoe_reconnected",
                        "check the hand against the table before releasing 'shoe_lost'",
                    ),
                )
            )

    # --- the shoe ---------------------------------------------------------------------------

    def _ask_shoe_change(self, detail: str, out: list[Decision]) -> None:
        self._change_pending = True
        self._change_hold = True
        out.append(Hold(code="shoe_change", message=_say(HOLD_MESSAGES, "shoe_change", detail)))

    def _start_new_shoe(self, out: list[Decision]) -> None:
        self._counts.clear()
        self._deck = self.deck_id
        self._cut_rounds_left = None
        self._change_pending = False
        self._face_burn = self.burn_rule == "face_value"
        self._burns_left = self.burn_count if self.burn_rule == "fixed" else 0
        if self._change_hold:
            self._change_hold = False
            out.append(Release(code="shoe_change"))
        burns = {
            "none": "no burn cards",
            "face_value": "the first card is burned and says how many more to burn",
            "fixed": f"{self.burn_count} burn card(s)",
        }[self.burn_rule]
        out.append(Note(code="new_shoe", message=_say(NOTE_MESSAGES, "new_shoe", burns)))

    # --- helpers ---------------------------------------------------------------------------------

    def _deck_changed(self, detail: str, out: list[Decision]) -> None:
        r = self._round
        if r is None:
            self._table_hold("deck_changed", detail, out)
        elif r.phase != FAULTED:
            self._hold("deck_changed", detail, out)

    def _bad_card(self, code: str, detail: str, out: list[Decision]) -> None:
        r = self._round
        if r is None:
            out.append(Hold(code=code, message=_say(HOLD_MESSAGES, code, detail)))
        elif r.phase == FAULTED:
            return
        else:
            self._fault(code, detail, out)

    def _fault(self, code: str, detail: str, out: list[Decision]) -> None:
        r = self._round
        assert r is not None
        r.phase = FAULTED
        self._hold(code, detail, out)

    def _hold(self, code: str, detail: str, out: list[Decision]) -> None:
        r = self._round
        assert r is not None
        unique, n = code, 1
        while unique in r.holds:
            n += 1
            unique = f"{code}_{n}"
        r.holds.add(unique)
        out.append(Hold(code=unique, message=_say(HOLD_MESSAGES, code, detail)))

    def _table_hold(self, code: str, detail: str, out: list[Decision]) -> None:
        out.append(Hold(code=code, message=_say(HOLD_MESSAGES, code, detail)))

    def _label(self, r: _Round) -> str:
        position = self._step(r)
        if isinstance(position, list):
            return "a card drawn before the decision of " + ", ".join(a.window for a in position)
        return self.game.position_label(position) if position else "after the end of the hand"

    def _where(self) -> str:
        r = self._round
        if r is None:
            return "between rounds"
        if r.phase == DEALING:
            return f"as {self._label(r)} of round {r.number}"
        return f"in round {r.number}"

    def _hand(self, r: _Round) -> str:
        return "[" + " ".join(r.cards) + "]"
