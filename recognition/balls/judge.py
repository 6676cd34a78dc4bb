"""The draw judge: ball machine and ball reader events in, round decisions out. Pure.

One judge serves every draw game (recognition/draw_games): it takes the ball set,
the draw count and the completion rule from the game object and knows nothing else
about the game. No clock is read: every time comes from ``event.at`` (or the
signal's ``at``), so a timeout can only run out when some event arrives; the
machine driver repeats its status every second while the machine is busy, which
gives the judge those events (docs/balls.md).

The draw, step by step (dealer pacing: the table opens rounds and closes betting):

1. ``RoundSignal("betting_closed")``: ``SendCommand("start_blower")`` to the machine
   (``blower=False``: the machine mixes by itself, no blower commands).
2. The machine reports the blower running; after ``mix_seconds`` of mixing,
   ``SendCommand("release_ball")``.
3. The machine reports the release (:class:`BallReleased` count 1); the ball falls
   into the chute (``ball_in_chute``) and the reader reads it (:class:`BallRead`).
   The read is paired with the release and checked: the tag is in the ball-set
   table, the ball is in the game's set, no tag comes twice, no label more often
   than the set has it, the colour agrees, and the game accepts the partial draw.
4. When the chute is clear again (and ``ball_interval_s`` has passed), the next
   release; until the game says the draw is complete (``draw_complete``).
5. ``SendCommand("stop_blower")`` and ``ResultReady({"balls": [labels in draw order]})``.

Anything else holds the draw for the dealer (codes, in plain English for the
dealer in :data:`HOLD_TEXT`):

* recoverable holds: the draw waits, and goes on when the missing piece arrives:
  ``misread`` (a no-read, or a ball in the chute with no read for ``read_timeout_s``;
  the dealer presents the ball to the reader again; a clean re-read releases the
  hold), ``jam`` (no ball in the chute ``jam_timeout_s`` after its release; when the
  ball arrives and is read the draw goes on, but the hold stays for the dealer to
  release, since people reached into the machine), ``no_release`` (the machine did
  not report the release within ``release_timeout_s``; released when it does),
  ``device_lost`` before the first ball (released when the devices are back);
* stopping holds: no more balls are released, the blower is stopped, the hold
  stands until the dealer voids the round (or enters the result with a supervisor):
  ``two_balls``, ``extra_ball``, ``unknown_tag``, ``not_in_set``, ``repeat``,
  ``wrong_color``, ``invalid_draw``, ``read_without_release``, ``early_draw``, ``link_lost``,
  ``machine_fault``, ``machine_stopped``, ``machine_not_ready``, ``chute_blocked``;
* the link to the machine or the reader lost after the first ball was asked for:
  ``on_link_lost="void"`` (default, the general rule 000:L59: "In case of
  communication failure ... the bet is calculated with the odds of 1") voids the
  round (``device_lost``); ``"hold"`` stops the draw with a ``link_lost`` hold.
  Balls released while the machine link was down (its counter moved) are treated
  the same way.

Commands go to the machine: every :class:`SendCommand` carries
``device_role=machine_role``, so the table sends it to the machine whichever
event caused it (the first ``start_blower`` is caused by the betting_closed
signal, the reads by the reader).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, Protocol

from devices.balls.events import BallRead, BallReleased, BallUnreadable, MachineStatus
from devices.events import DeviceConnected, DeviceDisconnected, DeviceEvent
from recognition.game import (
    BaseJudge,
    Decision,
    Hold,
    Note,
    Release,
    ResultReady,
    RoundSignal,
    SendCommand,
    Void,
)

__all__ = ["HOLD_TEXT", "RECOVERABLE_HOLDS", "STOPPING_HOLDS", "DrawJudge"]

#: what the dealer reads for each hold code (the judge appends the details)
HOLD_TEXT: dict[str, str] = {
    "misread": "A ball was not read. Present it to the reader again; the draw goes on once it is read.",
    "jam": "A released ball has not reached the chute: the machine may be jammed. Free the ball; it is read when "
    "it arrives and the draw goes on, but the round waits for you to release this hold.",
    "no_release": "The machine was asked to release a ball and reports no release. Check the gate and the ball "
    "count; the draw goes on when the machine releases the ball.",
    "device_lost": "No contact with a device of the table. The draw waits for it to reconnect.",
    "two_balls": "Two balls left the machine at once. The draw is stopped and nothing is paid: void the round, "
    "or enter the result with a supervisor if the house rules allow.",
    "extra_ball": "The machine released a ball the studio did not ask for. The draw is stopped and nothing is "
    "paid: void the round, or enter the result with a supervisor if the house rules allow.",
    "unknown_tag": "A ball's tag is not in this table's ball set (a foreign or damaged ball). The draw is stopped: "
    "void the round and check the ball set.",
    "not_in_set": "A ball that does not belong to this game's set was drawn. The draw is stopped: void the round "
    "and check the ball set.",
    "repeat": "A ball was read twice in one draw. The draw is stopped: void the round and check the ball set "
    "and the reader.",
    "wrong_color": "A ball's colour does not match the game's ball set. The draw is stopped: void the round and "
    "check the ball set.",
    "invalid_draw": "The game does not accept the balls drawn so far. The draw is stopped: void the round.",
    "read_without_release": "The reader read a ball the machine did not report releasing. The draw is stopped: "
    "void the round, or enter the result with a supervisor.",
    "link_lost": "The studio lost contact with a device of the table during the draw. The draw is stopped: void "
    "the round, or enter the result with a supervisor from what the cameras show.",
    "early_draw": "A ball came out before betting closed. The round cannot be drawn: void it.",
    "machine_fault": "The ball machine reports a fault during the draw. The draw is stopped: void the round and "
    "call a technician.",
    "machine_stopped": "The blower stopped during the draw. The draw is stopped: void the round and call a "
    "technician.",
    "machine_not_ready": "The ball machine did not start its blower. The draw is stopped: void the round and call "
    "a technician.",
    "chute_blocked": "The chute sensor keeps seeing a ball. The draw is stopped: void the round and call a "
    "technician.",
}

VOID_TEXT: dict[str, str] = {
    "device_lost": "The studio lost contact with a device of the table during the draw. The round is void and all "
    "bets are returned.",
}

RECOVERABLE_HOLDS = frozenset({"misread", "jam", "no_release", "device_lost"})
STOPPING_HOLDS = frozenset(HOLD_TEXT) - RECOVERABLE_HOLDS

Phase = Literal["idle", "betting", "waiting", "starting", "mixing", "drawing", "stopped", "done"]
_ACTIVE: tuple[str, ...] = ("waiting", "starting", "mixing", "drawing")


@dataclass
class _Released:
    """One ball the machine reported releasing, and what became of it."""

    released_at: datetime
    chute_at: datetime | None = None
    read: BallRead | None = None
    misread: bool = False
    jam: bool = False


class DrawRules(Protocol):
    """What the draw judge and the ball-set check need of a draw game (every ``DrawGame`` has it)."""

    game_id: str
    #: how the dealer's messages name the game
    title: str
    #: the labels of the set's balls (a label may repeat: ``max_count``)
    ball_labels: tuple[str, ...]
    #: balls drawn per round; where the count varies, the most a round can draw
    draw_count: int
    #: label -> the colour printed on its balls (None: the colour is not checked)
    colors: dict[str, str] | None

    def max_count(self, label: str) -> int:
        """How many balls of the set carry this label."""
        ...

    def draw_complete(self, balls: Sequence[str], extras: dict[str, Any] | None = None) -> bool:
        """True once the balls drawn so far (in draw order) complete the round's draw."""
        ...

    def validate_partial(self, balls: Sequence[Any], extras: dict[str, Any] | None = None) -> list[str]:
        """The labels of a draw in progress, or ValueError if no complete draw can start this way."""
        ...


class _Game:
    """The game as the judge uses it: its rules, or (no game: tests, a bare draw) the labels and count given."""

    def __init__(
        self,
        game: DrawRules | None,
        ball_labels: Sequence[str] | None,
        draw_count: int | None,
        colors: dict[str, str] | None,
    ) -> None:
        self.game = game
        labels = ball_labels if ball_labels is not None else game.ball_labels if game is not None else None
        if not labels:
            raise ValueError("the draw judge needs the game's ball labels (game.ball_labels or ball_labels=)")
        self.labels = tuple(str(x) for x in labels)
        self.label_set = frozenset(self.labels)
        count = draw_count if draw_count is not None else game.draw_count if game is not None else None
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise ValueError("the draw judge needs the game's draw count (game.draw_count or draw_count=)")
        self.draw_count = count
        if colors is None and game is not None:
            colors = game.colors
        self.colors = dict(colors or {})
        self.title = ((game.title or game.game_id) if game is not None else "") or "this game"
        self._explicit_count = draw_count is not None

    def max_count(self, label: str) -> int:
        return int(self.game.max_count(label)) if self.game is not None else 1

    def complete(self, labels: list[str], extras: dict[str, Any] | None) -> bool:
        if self.game is not None and not self._explicit_count:
            return bool(self.game.draw_complete(tuple(labels), extras))
        return len(labels) >= self.draw_count

    def partial_problem(self, labels: list[str], extras: dict[str, Any] | None) -> str | None:
        if self.game is None:
            return None
        try:
            self.game.validate_partial(list(labels), extras)
        except ValueError as exc:
            return str(exc)
        return None


class DrawJudge(BaseJudge):
    """The :class:`recognition.game.Judge` of ball draws. Construct as ``DrawJudge(game=self, **settings)``.

    Settings (all optional; times in seconds, measured by event times):

    * ``blower`` (True): send start_blower / stop_blower; False for a machine that mixes by itself;
    * ``mix_seconds`` (3): mixing before the first ball;
    * ``ball_interval_s`` (0): at least this long between one ball's read and the next release
      (a decision window between balls, e.g. Cash or Crash);
    * ``blower_timeout_s`` (10), ``release_timeout_s`` (5), ``jam_timeout_s`` (8),
      ``read_timeout_s`` (3), ``chute_timeout_s`` (10): see the module docstring;
    * ``pair_window_s`` (1): a read may come this long before the machine's release report;
    * ``linger_s`` (3): a re-read of the ball read last, this soon after it, is the same ball
      still in the reader's field and is ignored;
    * ``on_link_lost`` ("void" or "hold"): a link lost after the first ball was asked for;
    * ``machine_role`` ("machine"): the role of the machine among the table's devices;
    * ``announce_balls`` (True): a :class:`Note` ``ball_drawn`` per ball for the dealer's screen;
    * ``confirm_reread`` (False): a clean re-read after a misread does not release the hold: the draw goes on
      and the dealer releases it (as after a jam);
    * ``ball_labels`` / ``draw_count`` / ``colors``: override the game's (tests, a bare game).
    """

    def __init__(
        self,
        *,
        game: DrawRules | None = None,
        ball_labels: Sequence[str] | None = None,
        draw_count: int | None = None,
        colors: dict[str, str] | None = None,
        blower: bool = True,
        mix_seconds: float = 3.0,
        ball_interval_s: float = 0.0,
        blower_timeout_s: float = 10.0,
        release_timeout_s: float = 5.0,
        jam_timeout_s: float = 8.0,
        read_timeout_s: float = 3.0,
        chute_timeout_s: float = 10.0,
        pair_window_s: float = 1.0,
        linger_s: float = 3.0,
        on_link_lost: str = "void",
        machine_role: str = "machine",
        announce_balls: bool = True,
        confirm_reread: bool = False,
    ) -> None:
        self.game = _Game(game, ball_labels, draw_count, colors)
        for name, value in (
            ("mix_seconds", mix_seconds),
            ("ball_interval_s", ball_interval_s),
            ("blower_timeout_s", blower_timeout_s),
            ("release_timeout_s", release_timeout_s),
            ("jam_timeout_s", jam_timeout_s),
            ("read_timeout_s", read_timeout_s),
            ("chute_timeout_s", chute_timeout_s),
            ("pair_window_s", pair_window_s),
            ("linger_s", linger_s),
        ):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise ValueError(f"{name} is a duration in seconds and cannot be negative, not {value!r}")
        if on_link_lost not in ("void", "hold"):
            raise ValueError(f"on_link_lost must be 'void' or 'hold', not {on_link_lost!r}")
        self.blower = bool(blower)
        self.mix_seconds = float(mix_seconds)
        self.ball_interval_s = float(ball_interval_s)
        self.blower_timeout_s = float(blower_timeout_s)
        self.release_timeout_s = float(release_timeout_s)
        self.jam_timeout_s = float(jam_timeout_s)
        self.read_timeout_s = float(read_timeout_s)
        self.chute_timeout_s = float(chute_timeout_s)
        self.pair_window_s = float(pair_window_s)
        self.linger_s = float(linger_s)
        self.on_link_lost = on_link_lost
        self.machine_role = machine_role
        self.announce_balls = bool(announce_balls)
        self.confirm_reread = bool(confirm_reread)

        self.machine_id: str | None = None
        self.reader_id: str | None = None
        self.lost: dict[str, str] = {}
        self.machine_status: MachineStatus | None = None  # the machine's last status on the current link
        self._last_read: BallRead | None = None  # the last ball accepted, across rounds (lingering re-reads)
        #: we sent stop_blower and have not seen the blower off since: a status still showing it on may be
        #: older than the command, and the next "off" is ours, not a machine failure
        self._awaiting_off = False
        self._counter_at_loss: int | None = None
        self._check_counter = False  # compare the counter on the first status after a machine reconnect
        self._reset_round(None)

    # -- state -------------------------------------------------------------------------

    def _reset_round(self, round_number: int | None) -> None:
        self.round_number = round_number
        self.phase: Phase = "idle" if round_number is None else "betting"
        self.extras: dict[str, Any] | None = None
        self.balls: list[_Released] = []
        self.drawn: list[BallRead] = []
        self.requested = 0
        self.requested_at: datetime | None = None
        self.parked: list[BallRead] = []
        self.holds: set[str] = set()
        self.start_sent_at: datetime | None = None
        self.mix_from: datetime | None = None
        self.last_read_at: datetime | None = None
        self.chute_wait_since: datetime | None = None
        self.blower_on = False  # we started the blower and have not stopped it

    @property
    def labels(self) -> list[str]:
        return [r.ball for r in self.drawn]  # type: ignore[misc]

    # -- entry -------------------------------------------------------------------------

    def feed(self, item: DeviceEvent | RoundSignal) -> list[Decision]:
        out: list[Decision] = []
        if isinstance(item, RoundSignal):
            self._on_signal(item, out)
        elif isinstance(item, MachineStatus):
            self.machine_id = item.device_id
            self._on_status(item, out)
        elif isinstance(item, BallReleased):
            self.machine_id = item.device_id
            self._on_released(item, out)
        elif isinstance(item, BallRead):
            self.reader_id = item.device_id
            self._on_read(item, out)
        elif isinstance(item, BallUnreadable):
            self.reader_id = item.device_id
            self._on_unreadable(item, out)
        elif isinstance(item, DeviceDisconnected):
            self._on_lost(item, out)
        elif isinstance(item, DeviceConnected):
            self._on_back(item, out)
        self._tick(item.at, out)
        return out

    # -- round signals -----------------------------------------------------------------

    def _on_signal(self, s: RoundSignal, out: list[Decision]) -> None:
        if s.signal == "round_opened":
            if self.phase not in ("idle", "done", "stopped", "betting"):
                self._stop_blower(out)
            self._reset_round(s.round_number)
        elif s.signal == "betting_closed":
            if self.phase != "betting" or s.round_number != self.round_number:
                return
            self.extras = s.extras
            if self.lost:
                self.phase = "waiting"
                self._hold("device_lost", f"waiting for {self._names(self.lost)}", out)
            else:
                self._begin(s.at, out)
        elif s.signal == "round_ended":
            if self.round_number is not None and s.round_number != self.round_number:
                return
            self._stop_blower(out)
            self._reset_round(None)

    # -- machine -----------------------------------------------------------------------

    def _on_status(self, st: MachineStatus, out: list[Decision]) -> None:
        prev, self.machine_status = self.machine_status, st
        awaiting_off = self._awaiting_off
        if not st.blower:
            self._awaiting_off = False
        if self._check_counter:
            self._check_counter = False
            before, self._counter_at_loss = self._counter_at_loss, None
            if (
                before is not None
                and st.balls_released != before
                and self.phase in _ACTIVE
                and self.requested
            ):
                self._link_lost(
                    f"the machine's release counter moved from {before} to {st.balls_released} "
                    "while the link was down",
                    out,
                )
                return
        changed_fault = prev is None or prev.fault_code != st.fault_code
        if self.phase in _ACTIVE:
            if st.fault_code:
                self._stop("machine_fault", f"fault {st.fault_code}: {st.fault or 'no description'}", out)
                return
            if self.phase == "starting" and st.blower:
                self.phase = "mixing"
                self.mix_from = st.at
            elif self.phase in ("mixing", "drawing") and self.blower and not st.blower:
                if not awaiting_off:
                    self._stop("machine_stopped", f"machine state {st.state}", out)
                    return
                # our stop_blower of the last draw took effect only now: the start we sent after it follows
                self.phase = "starting"
                self.start_sent_at = st.at
                self.mix_from = None
            current = self._outstanding()
            if current is not None and st.ball_in_chute and current.chute_at is None:
                current.chute_at = st.at
        elif st.fault_code and changed_fault and self.phase in ("idle", "betting", "done"):
            out.append(
                Note(
                    code="machine_fault",
                    message=f"The ball machine reports fault {st.fault_code}: "
                    f"{st.fault or 'no description'}.",
                )
            )

    def _on_released(self, ev: BallReleased, out: list[Decision]) -> None:
        if self.phase == "idle":
            out.append(
                Note(
                    code="machine_release",
                    message=f"The ball machine released {ev.count} ball(s) outside a round.",
                )
            )
            return
        if self.phase == "betting":
            self._stop("early_draw", f"the machine released {ev.count} ball(s) while betting was open", out)
            return
        if self.phase == "done":
            self._stop("extra_ball", f"{ev.count} ball(s) after the draw was complete", out)
            return
        if self.phase == "stopped":
            return
        k = len(self.balls) + 1
        if ev.count > 1:
            self._stop("two_balls", f"{ev.count} balls passed the gate together at ball {k}", out)
            return
        if len(self.balls) + 1 > self.requested:
            self._stop(
                "extra_ball",
                f"ball {k} was released without a release command ({self.requested} asked for)",
                out,
            )
            return
        ball = _Released(released_at=ev.at)
        self.balls.append(ball)
        self._awaiting_off = False  # the draw is under way: a blower that stops now is a machine failure
        self._release("no_release", out)
        if self.parked:
            read = self.parked.pop(0)
            self._attach(ball, read, out)

    # -- reader ------------------------------------------------------------------------

    def _on_read(self, read: BallRead, out: list[Decision]) -> None:
        if self.phase in ("idle", "stopped"):
            return  # no draw: a ball-set check, a test read; after a stop the dealer decides
        if self._lingering(read):
            return
        if self.phase == "betting":
            self._stop("early_draw", f"the reader read {self._ball_name(read)} while betting was open", out)
            return
        if self.phase == "done":
            self._stop(
                "extra_ball", f"the reader read {self._ball_name(read)} after the draw was complete", out
            )
            return
        current = self._outstanding()
        if current is None:
            self.parked.append(read)  # the release report may still be on its way
            return
        self._attach(current, read, out)

    def _on_unreadable(self, ev: BallUnreadable, out: list[Decision]) -> None:
        current = self._outstanding() if self.phase == "drawing" else None
        if current is None:
            return  # nothing was expected at the reader
        current.misread = True
        self._hold("misread", f"ball {len(self.balls)}: {ev.reason}", out)

    def _lingering(self, read: BallRead) -> bool:
        """A re-read of the ball read last, still in the reader's field: within a draw, the draw's last ball;
        before the first ball of a round, the last ball of the previous round (once this round's first ball is
        on its way, that ball may really be drawn again: it went back into the drum)."""
        if self.drawn:
            last: BallRead | None = self.drawn[-1]
        elif self._outstanding() is None:
            last = self._last_read
        else:
            return False
        return last is not None and last.tag == read.tag and _secs(read.at - last.at) <= self.linger_s

    def _attach(self, ball: _Released, read: BallRead, out: list[Decision]) -> None:
        """Check one read against the draw so far; accept it or stop the draw."""
        k = len(self.drawn) + 1
        ball.read = read
        if read.ball is None:
            self._stop("unknown_tag", f"ball {k}: tag {read.tag}", out)
            return
        label = read.ball
        for j, earlier in enumerate(self.drawn, 1):
            if earlier.tag == read.tag:
                self._stop("repeat", f"ball {k} ({label}, tag {read.tag}) is the same ball as ball {j}", out)
                return
        if label not in self.game.label_set:
            self._stop("not_in_set", f"ball {k} is {label!r}, not a ball of {self.game.title}", out)
            return
        seen = self.labels.count(label)
        if seen + 1 > self.game.max_count(label):
            self._stop(
                "repeat",
                f"ball {k} is {label!r}, which was already drawn" + (f" {seen} times" if seen > 1 else ""),
                out,
            )
            return
        want = self.game.colors.get(label)
        if want is not None and read.color is not None and read.color != want:
            self._stop(
                "wrong_color",
                f"ball {k} ({label}) is {read.color} in the ball-set table, {want} in the game",
                out,
            )
            return
        labels = self.labels + [label]
        problem = self.game.partial_problem(labels, self.extras)
        if problem is not None:
            self._stop("invalid_draw", f"ball {k} ({label}): {problem}", out)
            return
        self.drawn.append(read)
        self._last_read = read
        self.last_read_at = read.at
        self.chute_wait_since = None
        if ball.misread and not self.confirm_reread:
            self._release("misread", out)
        if self.announce_balls:
            color = read.color or want
            out.append(
                Note(code="ball_drawn", message=f"Ball {k}: {label}" + (f" ({color})" if color else ""))
            )
        if self.game.complete(labels, self.extras):
            self._finish(out)
        elif len(labels) >= self.game.draw_count:
            self._stop(
                "invalid_draw",
                f"{len(labels)} balls drawn, the most {self.game.title} draws, and the game "
                "does not call the draw complete",
                out,
            )

    # -- links -------------------------------------------------------------------------

    def _on_lost(self, ev: DeviceDisconnected, out: list[Decision]) -> None:
        first = ev.device_id not in self.lost
        self.lost[ev.device_id] = ev.reason
        if self._is_machine(ev.device_id):
            if self.machine_status is not None and first:
                self._counter_at_loss = self.machine_status.balls_released
            self.machine_status = None
        if not first or self.phase not in _ACTIVE:
            return
        if self.requested == 0 and not self.balls:
            self.phase = "waiting"
            self._hold("device_lost", f"{self._name(ev.device_id)}: {ev.reason}", out)
            return
        self._link_lost(f"{self._name(ev.device_id)}: {ev.reason}", out)

    def _on_back(self, ev: DeviceConnected, out: list[Decision]) -> None:
        self.lost.pop(ev.device_id, None)
        machine = self._is_machine(ev.device_id)
        if machine:
            self.machine_status = None
            self._check_counter = True
        if self.phase == "waiting" and not self.lost:
            self._release("device_lost", out)
            if not machine:
                self._begin(ev.at, out)
            # a machine that came back: the draw starts on its first status (the counter is checked first)

    def _link_lost(self, detail: str, out: list[Decision]) -> None:
        if self.on_link_lost == "void":
            self.phase = "stopped"
            if not self._machine_lost():
                self._stop_blower(out)
            out.append(Void(code="device_lost", message=f"{VOID_TEXT['device_lost']} ({detail})"))
        else:
            self._stop("link_lost", detail, out)

    # -- time --------------------------------------------------------------------------

    def _tick(self, now: datetime, out: list[Decision]) -> None:
        if self.phase == "waiting" and not self.lost and self.machine_status is not None:
            self._begin(now, out)  # the machine is back and has reported its state
        if self.phase not in ("starting", "mixing", "drawing"):
            return
        for read in self.parked:
            if _secs(now - read.at) > self.pair_window_s:
                self._stop(
                    "read_without_release",
                    f"{self._ball_name(read)} with no release reported within {self.pair_window_s:g} s",
                    out,
                )
                return
        if self.phase == "starting":
            if self.start_sent_at is not None and _secs(now - self.start_sent_at) > self.blower_timeout_s:
                self._stop(
                    "machine_not_ready",
                    f"no running blower {self.blower_timeout_s:g} s after start_blower",
                    out,
                )
            return
        if self.phase == "mixing":
            if self.mix_from is not None and _secs(now - self.mix_from) >= self.mix_seconds:
                self._next_ball(now, out)
            return
        # drawing
        if self.requested > len(self.balls):
            if self.requested_at is not None and _secs(now - self.requested_at) > self.release_timeout_s:
                self._hold(
                    "no_release",
                    f"ball {self.requested}, asked for {_secs(now - self.requested_at):g} s ago",
                    out,
                )
            return
        current = self._outstanding()
        if current is not None:
            k = len(self.balls)
            if current.chute_at is not None:
                if not current.misread and _secs(now - current.chute_at) > self.read_timeout_s:
                    current.misread = True
                    self._hold(
                        "misread",
                        f"ball {k} has been in the chute {_secs(now - current.chute_at):g} s without a read",
                        out,
                    )
            elif not current.jam and _secs(now - current.released_at) > self.jam_timeout_s:
                current.jam = True
                sensor = (
                    ""
                    if self._has_chute_sensor()
                    else " (this machine has no chute sensor: or it was not read)"
                )
                self._hold(
                    "jam",
                    f"ball {k} was released {_secs(now - current.released_at):g} s ago and has not "
                    f"reached the chute{sensor}",
                    out,
                )
            return
        self._next_ball(now, out)

    def _next_ball(self, now: datetime, out: list[Decision]) -> None:
        """Ask for the next ball when the chute is clear and the interval has passed."""
        if self.machine_status is not None and self.machine_status.ball_in_chute:
            self.chute_wait_since = self.chute_wait_since or now
            if _secs(now - self.chute_wait_since) > self.chute_timeout_s:
                self._stop(
                    "chute_blocked", f"a ball in the chute for {_secs(now - self.chute_wait_since):g} s", out
                )
            return
        self.chute_wait_since = None
        if self.last_read_at is not None and _secs(now - self.last_read_at) < self.ball_interval_s:
            return
        self.phase = "drawing"
        self.requested += 1
        self.requested_at = now
        out.append(self._command("release_ball"))

    # -- steps -------------------------------------------------------------------------

    def _begin(self, now: datetime, out: list[Decision]) -> None:
        running = self.machine_status is not None and self.machine_status.blower and not self._awaiting_off
        if self.blower and not running:
            self.phase = "starting"
            self.start_sent_at = now
            self.blower_on = True
            out.append(self._command("start_blower"))
        else:
            self.phase = "mixing"  # _tick asks for the first ball once mix_seconds have passed
            self.mix_from = now
            self.blower_on = self.blower

    def _finish(self, out: list[Decision]) -> None:
        self.phase = "done"
        self._stop_blower(out)
        out.append(
            ResultReady(
                result={"balls": self.labels},
                source={
                    "device_id": self.machine_id,
                    "reader_device_id": self.reader_id,
                    "tags": [r.tag for r in self.drawn],
                    "balls_released": len(self.balls),
                },
            )
        )

    def _stop(self, code: str, detail: str, out: list[Decision]) -> None:
        self.phase = "stopped"
        self.parked.clear()
        if not self._machine_lost():
            self._stop_blower(out)
        self._hold(code, detail, out)

    def _stop_blower(self, out: list[Decision]) -> None:
        if self.blower_on:
            self.blower_on = False
            self._awaiting_off = True
            out.append(self._command("stop_blower"))

    def _hold(self, code: str, detail: str, out: list[Decision]) -> None:
        if code in self.holds:
            return
        self.holds.add(code)
        out.append(Hold(code=code, message=f"{HOLD_TEXT[code]} ({detail})"))

    def _release(self, code: str, out: list[Decision]) -> None:
        if code in self.holds:
            self.holds.discard(code)
            out.append(Release(code=code))

    def _command(self, command: str) -> SendCommand:
        return SendCommand(command=command, device_role=self.machine_role)

    # -- helpers -----------------------------------------------------------------------

    def _outstanding(self) -> _Released | None:
        """The released ball still waiting for its read (at most one: the next release waits for it)."""
        for ball in self.balls:
            if ball.read is None:
                return ball
        return None

    def _has_chute_sensor(self) -> bool:
        return self.machine_status is None or self.machine_status.ball_in_chute is not None

    def _is_machine(self, device_id: str) -> bool:
        return device_id == self.machine_id or device_id.rsplit("/", 1)[-1] == self.machine_role

    def _machine_lost(self) -> bool:
        return any(self._is_machine(d) for d in self.lost)

    def _name(self, device_id: str) -> str:
        return (
            f"the ball machine ({device_id})" if self._is_machine(device_id) else f"the reader ({device_id})"
        )

    def _names(self, lost: dict[str, str]) -> str:
        return "; ".join(f"{self._name(d)}: {why}" for d, why in sorted(lost.items()))

    @staticmethod
    def _ball_name(read: BallRead) -> str:
        return f"ball {read.ball}" if read.ball is not None else f"tag {read.tag}"


def _secs(delta: Any) -> float:
    return round(delta.total_seconds(), 3)
