"""Device families as the console sees them: names, pages, the commands technicians may send, and the
family-specific choices a dealer gets (start a spin, re-spin, shoe change, void reasons, result entry).

Everything a family adds to the console is data in one :class:`Family`. The console itself is generic
over the table snapshot; a family only says what is special about its devices.

EXTENSION POINTS - see docs/console.md:

1. Add the family's device kinds to its entry in :data:`FAMILIES` below (``kinds``), or the driver family
   whose every driver it takes (``device_families``: a driver's declared ``family``, e.g. "roulette-wheel");
   otherwise a kind is matched by the hints in its name (``kind_hints``) and else falls back to the generic
   family.
2. ``page``: the technician's calibration page, a JavaScript module ``dealer_ui/static/families/<page>.js``
   registered in ``dealer_ui/static/families/index.js``, its data from the studio's ``studio/technician.py``:
   ``wheel``, ``cards`` (shoe decoder test), ``balls`` (ball-set check), ``money_wheel``, ``roulette_camera``,
   ``generic``. ``dice`` (camera region and colours, live overlay) is the dice family's own: index.js loads
   ``families/dice.js`` when it exists, else the generic page.
3. ``self_test``, ``commands``/``confirm``: what a technician may send to the device (regular expressions
   over the command text) and which commands need a confirmation with a warning.
4. ``void_reasons``, ``start``, ``retry``, ``shoe_change``, ``releasable_holds``: the dealer's choices.
5. ``dealer_ui/result_forms.py``: how people enter a result by hand for a game (a pocket, card, die or
   ball pad; other games a JSON form checked by the game).
6. Result rendering on the dealer screen is generic (dealer_ui/static/render.js); a game-specific
   renderer can be registered there.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from .wheel_technician import TECHNICIAN_PAGES

if TYPE_CHECKING:  # pragma: no cover
    from studio.device_slots import DeviceSlot

Health = dict[str, Any]


@dataclass(frozen=True)
class DeviceAction:
    """A dealer's device action (start a spin, re-spin, re-throw, redeal): a command to the device role."""

    id: str
    label: str
    command: str
    #: when the action is offered, from the device's health(); the reason is shown when it is not
    when: Callable[[Health], bool]
    explain: str


@dataclass(frozen=True)
class Family:
    id: str
    name: str
    kinds: tuple[str, ...] = ()
    #: driver families (``Driver.family``) whose every driver this family takes, whoever made the device: it
    #: gets the family's neutral choices, and the fields of ``per_kind`` only for the kinds listed there
    device_families: tuple[str, ...] = ()
    kind_hints: tuple[str, ...] = ()
    page: str = "generic"
    self_test: str | None = None
    self_test_warning: str = ""
    #: commands a technician may send (full match of the command text)
    commands: tuple[str, ...] = ()
    #: (pattern, warning): commands that change something and need an explicit confirmation
    confirm: tuple[tuple[str, str], ...] = ()
    #: reason code -> plain message, added to the generic ones for a dealer's void
    void_reasons: dict[str, str] = field(default_factory=dict)
    start: DeviceAction | None = None
    retry: DeviceAction | None = None
    shoe_change: bool = False
    #: hold codes a dealer may clear alone by confirming the condition is resolved
    releasable_holds: tuple[str, ...] = ()
    #: family data the technician page needs (the wheel's settings table, ...)
    page_data: dict[str, Any] = field(default_factory=dict)
    #: what the device's state means to a dealer, from health() (None: nothing to say)
    phase: Callable[[Health], dict[str, Any] | None] = lambda health: None
    #: kind -> field overrides for that kind (e.g. the money wheel's pointer reader takes no commands)
    per_kind: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: device tests (a test spin, a test ball release): outside maintenance they are real games and need the
    #: confirmation with their warning; while the table is in maintenance they need none (nothing is published)
    test_commands: tuple[str, ...] = ()

    def is_test(self, command: str) -> bool:
        return any(re.fullmatch(p, command) for p in self.test_commands)

    def allows(self, command: str) -> bool:
        return any(re.fullmatch(p, command) for p in self.commands)

    def warning(self, command: str, maintenance: bool = False) -> str | None:
        """The confirmation a command needs (None: none); a device test in maintenance needs none."""
        if maintenance and self.is_test(command):
            return None
        for pattern, warning in self.confirm:
            if re.fullmatch(pattern, command):
                return warning
        return None

    def public(self) -> dict[str, Any]:
        """What the pages need to know about the family (sent as JSON)."""
        return {
            "id": self.id,
            "name": self.name,
            "page": self.page,
            "self_test": self.self_test,
            "self_test_warning": self.self_test_warning,
            "commands": list(self.commands),
            "confirm": [list(c) for c in self.confirm],
            "page_data": self.page_data,
            "shoe_change": self.shoe_change,
            "test_commands": list(self.test_commands),
        }


# --- generic choices ------------------------------------------------------------------------

#: a dealer's reasons to void a round, in plain words (the feed carries code and message)
MANUAL_VOID_REASONS: dict[str, str] = {
    "dealer_error": "Dealer error. The round is void and all bets are returned.",
    "device_malfunction": "The device did not work properly during the round. The round is void and all bets "
    "are returned.",
    "foreign_object": "Something interfered with the game. The round is void and all bets are returned.",
    "game_interrupted": "The game was interrupted. The round is void and all bets are returned.",
    "procedure_error": "The game procedure was not followed. The round is void and all bets are returned.",
    "other": "The round is void and all bets are returned.",
}

#: what a dealer may report as an incident
INCIDENT_CATEGORIES: dict[str, str] = {
    "device": "Device problem",
    "game": "Game irregularity",
    "player": "Player or chat",
    "studio": "Studio, camera, light or sound",
    "security": "Security",
    "other": "Other",
}


# --- the roulette wheel ---------------------------------------------------------------------
# Vendor-neutral: the phase, warnings and start mode come from the driver's health() in the neutral words
# of devices.events (WheelPhase), and the dealer's start and re-spin are the neutral wheel commands that
# every wheel driver maps onto its protocol. A vendor's own technician commands and settings page are its
# entry in dealer_ui/wheel_technician.py.

#: the neutral wheel commands (devices.events: START_SPIN, RESET), which the studio passes to the driver
START_SPIN, RESET = "start_spin", "reset"

#: wheel phases in a dealer's words
WHEEL_STATES: dict[str, tuple[str, str]] = {
    "starting": ("Wheel starting", "The wheel is getting up to speed."),
    "spin_started": ("Place your bets", "The wheel is launching the ball."),
    "ball_in_rim": ("Ball in the rim", "Last bets: the ball is running."),
    "no_more_bets": ("No more bets", "The ball is about to drop."),
    "winning_number": ("Winning number", "The ball is in a pocket."),
    "closed": ("Wheel stopped", "The wheel is idle (table closed)."),
    "ball_out_of_track": ("Ball not in the track", "Put the ball back in the track, then re-spin."),
}


def _wheel_health_phase(health: Health) -> str | None:
    device = health.get("device") or {}
    phase = device.get("phase")
    return phase if isinstance(phase, str) else None


def _wheel_waits_for_start(health: Health) -> bool:
    """Connected, waiting (starting or showing the number), and not known to start its games by itself."""
    if not health.get("connected") or _wheel_health_phase(health) not in ("starting", "winning_number"):
        return False
    return (health.get("device") or {}).get("manual_start") is not False


def _wheel_phase(health: Health) -> dict[str, Any] | None:
    phase = _wheel_health_phase(health)
    if phase is None or not health.get("connected", False):
        return None
    title, text = WHEEL_STATES.get(phase, (f"Wheel: {phase}", ""))
    device = health.get("device") or {}
    return {
        "state": phase,
        "title": title,
        "text": text,
        "flags": device.get("warnings") or [],
        "speed_rpm": device.get("speed_rpm"),
        "direction": device.get("direction"),
        "game_counter": device.get("game_counter"),
    }


WHEEL = Family(
    id="wheel",
    name="Roulette wheel",
    kinds=tuple(TECHNICIAN_PAGES),
    device_families=("roulette-wheel",),
    kind_hints=("roulette",),
    void_reasons={
        "ball_left_wheel": "The ball left the wheel. The round is void and all bets are returned.",
        "miss_spin_seen": "Miss-spin seen at the table. The round is void and all bets are returned.",
    },
    # a wheel in manual-start mode waits for a start command; one that starts its games itself refuses it
    start=DeviceAction(
        "start_game",
        "Start spin",
        START_SPIN,
        when=lambda h: _wheel_waits_for_start(h),
        explain="The wheel starts a game when it is waiting (starting, or showing the number) in manual-start mode.",
    ),
    retry=DeviceAction(
        "retry",
        "Re-spin",
        RESET,
        when=lambda h: bool(h.get("connected")) and _wheel_health_phase(h) == "ball_out_of_track",
        explain="Re-spin once the ball is back in the track (the wheel reports the ball out of the track).",
    ),
    page_data={"states": {k: v[0] for k, v in WHEEL_STATES.items()}},
    phase=_wheel_phase,
    per_kind=TECHNICIAN_PAGES,
)

# --- the other families ------------------------------------------------------------------------

_BALL_COMMANDS = (r"start_blower", r"stop_blower", r"release_ball", r"reset_fault")
_BALL_CONFIRM = (
    (r"start_blower", "Starts the blower: the balls mix. Do it only while no round is being drawn."),
    (r"stop_blower", "Stops the blower. During a draw the judge stops the draw (machine stopped)."),
    (
        r"release_ball",
        (
            "Releases one ball. During a round it is an extra ball and the judge stops the draw; use it "
            "for the ball-set check while the table is closed."
        ),
    ),
    (r"reset_fault", "Clears the machine's fault. Check the machine first."),
)

CARDS = Family(
    id="cards",
    name="Card shoe",
    kinds=("serial-shoe", "camera-shoe"),
    kind_hints=("shoe", "card"),
    page="cards",  # the shoe decoder test (dealer_ui/static/families/cards.js, studio/shoe_test.py)
    commands=(),  # a shoe takes no commands (a serial shoe's line goes to its scanner; a camera refuses)
    void_reasons={
        "card_exposed": "A card was exposed by mistake. The round is void and all bets are returned.",
        "misdeal": "Misdeal. The round is void and all bets are returned.",
    },
    shoe_change=True,
)

DICE = Family(
    id="dice",
    name="Dice shaker and camera",
    kinds=("dice-camera",),
    kind_hints=("dice", "shaker"),
    # the dice camera's page (region and colours, live overlay): dealer_ui/dice.py and
    # dealer_ui/static/families/dice.js (families/index.js falls back to the generic page without it)
    page="dice",
    void_reasons={
        "dice_off_table": "A die left the tray. The round is void and all bets are returned.",
        "cocked_dice": "A die did not land flat. The round is void and all bets are returned.",
    },
)

BALLS = Family(
    id="balls",
    name="Ball draw machine",
    kinds=("modbus-ball-machine", "serial-ball-reader", "camera-ball-reader"),
    kind_hints=("ball", "draw", "lottery", "bingo", "keno"),
    page="balls",  # the ball-set check and the machine's Modbus state
    # the machine's register-map commands (docs/balls.md §2); the readers take none (per_kind below)
    commands=_BALL_COMMANDS,
    confirm=_BALL_CONFIRM,
    per_kind={
        "serial-ball-reader": {"commands": (), "confirm": ()},
        "camera-ball-reader": {"commands": (), "confirm": ()},
    },
    test_commands=(r"release_ball",),  # a test draw
    void_reasons={
        "machine_jam": "The draw machine jammed. The round is void and all bets are returned.",
    },
)

MONEY_WHEEL = Family(
    id="money_wheel",
    name="Money wheel",
    kinds=("wheel-encoder", "wheel-pointer"),
    kind_hints=("money", "fortune"),
    page="money_wheel",  # layout, calibration, the segment under the pointer, the zero mark
    commands=(r"mark_zero", r"sample"),  # the encoder's commands (devices/money_wheel/encoder.py COMMANDS)
    confirm=(
        (
            r"mark_zero",
            (
                "Takes the encoder's position now as the centre of segment 0 (the marked segment must "
                "be under the pointer, the wheel still). The judge uses it at once; it is lost at a "
                "restart unless calibration.zero_offset is put in the table's settings."
            ),
        ),
    ),
    per_kind={"wheel-pointer": {"commands": (), "confirm": ()}},
)

ROULETTE_CAMERA = Family(
    id="roulette_camera",
    name="Roulette camera",
    kinds=("roulette-camera",),
    page="roulette_camera",  # the latest reading (balls, pockets, rotor angle) and the frame when the driver keeps one
)

GENERIC = Family(id="generic", name="Device")

FAMILIES: tuple[Family, ...] = (WHEEL, ROULETTE_CAMERA, CARDS, DICE, BALLS, MONEY_WHEEL)


def family_for_kind(kind: str | None, device_family: str = "") -> Family:
    """The family of a device kind: listed in its ``kinds``, else the family that takes the driver's declared
    family (``device_family``, ``Driver.family``), else guessed from the kind's name, else generic.

    A guess only names the family and its dealer's void reasons: no command, self-test, start or re-spin is
    ever sent to a device whose kind the family does not list and whose driver does not declare the family
    (another vendor's device may read the same bytes differently)."""
    if not kind:
        return GENERIC
    for f in FAMILIES:
        if kind in f.kinds:
            return replace(f, **f.per_kind[kind]) if kind in f.per_kind else f
    if device_family:
        for f in FAMILIES:
            if device_family in f.device_families:
                return f
    low = kind.lower()
    for f in FAMILIES:
        if any(h in low for h in f.kind_hints):
            return replace(
                f,
                commands=(),
                confirm=(),
                self_test=None,
                start=None,
                retry=None,
                page="generic",
                releasable_holds=(),
            )
    return GENERIC


def family_of(slot: DeviceSlot) -> Family:
    """The family of a table's device, by its kind and its driver's declared family."""
    return family_for_kind(slot.kind, slot.family)
