"""Wheel vendors' technician pages for the console: the commands and settings of each wheel driver kind.

The roulette wheel family (dealer_ui/families.py) is vendor-neutral: a dealer's start and re-spin and the
wheel's phase work with any wheel driver. What a technician may send to a wheel, and the settings page of
the wheel's own protocol, are the vendor's: one entry per driver kind in :data:`TECHNICIAN_PAGES` (fields of
:class:`dealer_ui.families.Family`). A wheel kind without an entry gets the family's neutral choices and
no technician commands.
"""

from __future__ import annotations

from typing import Any

#: the SS2 `*T` settings (protocol §4.3): letter, name, values, unit and range as the guide gives them
WHEEL_SETTINGS: tuple[dict[str, Any], ...] = (
    {"letter": "d", "name": "Stopping distance before firing", "values": 1, "default": "15", "unit": ""},
    {
        "letter": "c",
        "name": "Firing position of pocket 0",
        "values": 1,
        "default": "",
        "unit": "20000 takes the wheel's current position",
    },
    {"letter": "p", "name": "Ball jet to rim jet delay", "values": 1, "default": "50", "unit": "ms"},
    {"letter": "q", "name": "Rim jet to wheel start delay", "values": 1, "default": "800", "unit": "ms"},
    {
        "letter": "k",
        "name": "Ball time in the rim",
        "values": 1,
        "default": "1900",
        "unit": "1/2048 s per revolution",
    },
    {
        "letter": "i",
        "name": "Broken-off sensor time (state 4)",
        "values": 1,
        "default": "10",
        "unit": "0.5 s steps",
    },
    {
        "letter": "j",
        "name": "Sensor positions and order",
        "values": 4,
        "default": "",
        "unit": "needs save to flash and a mains off/on",
    },
    {"letter": "r", "name": "Rim jet duration min max", "values": 2, "default": "28000 32000", "unit": ""},
    {"letter": "s", "name": "Wheel speed min max", "values": 2, "default": "14.0 17.5", "unit": "rpm"},
    {
        "letter": "t",
        "name": "Deceleration distance to firing",
        "values": 1,
        "default": "4000",
        "unit": "9999 = one revolution",
    },
    {
        "letter": "n",
        "name": "No-more-bets threshold",
        "values": 1,
        "default": "2920",
        "unit": "1/2048 s per ball revolution; lower = earlier",
    },
    {"letter": "m", "name": "Speed change after no more bets", "values": 1, "default": "1.5", "unit": "rpm"},
    {"letter": "h", "name": "Games per hour (maximum)", "values": 1, "default": "60", "unit": "games"},
    {"letter": "z", "name": "Pockets on the wheel", "values": 1, "default": "38", "unit": "37, 38, 39 or 40"},
    {
        "letter": "g",
        "name": "Additional game modes",
        "values": 1,
        "default": "0",
        "unit": "sum of 8 (stop after misfire), 16 (direction), 32 (state 7)",
    },
)

_WHEEL_READS = (
    r"\*X",
    r"\*S",
    r"\*V",
    r"\*v",
    r"\*A",
    r"\*O",
    r"\*o",
    r"\*w",
    r"\*W",
    r"\*M",
    r"\*s t",
    r"\*y",
    r"\*T [A-Z]",
)
_WHEEL_CHANGES = (
    (
        r"\*T [a-eg-z](?: [0-9]{1,5}(?:\.[0-9])?){1,4}",
        "Changes a wheel setting. It is lost at power-off unless saved to flash.",
    ),
    (r"\*T f", "Saves all wheel settings to the wheel's flash memory."),
    (r"\*o [0-9]{1,5}", "Changes the wheel's operating mode (kept in non-volatile memory)."),
    (r"\*P 0", "Stops the wheel. A round in play is voided and all bets are returned."),
    (r"\*P 1", "Starts the wheel turning."),
    (r"\*R", "Resets the wheel to state 1. A round in play is voided and all bets are returned."),
    (
        r"\*(?:K|u [13])",
        (
            "The table is NOT in maintenance: a test spin outside maintenance is a real game for the "
            "studio: the table opens a round and publishes its result to the players. Turn maintenance "
            "mode on first to test the wheel."
        ),
    ),
    (r"\*F", "Runs the wheel's self-test (idle wheel only, up to 5 minutes)."),
    (r"\*C", "Calibrates the sensor positions: the wheel must be stopped with the ball fixed in pocket 0."),
    (r"\*I [04]", "Turns the sensor debug output on (4) or off (0)."),
    (
        r"\*q [01]",
        "Turns the wheel's status output off (0) or on (1). With it off the studio cannot follow games.",
    ),
    (r"\*s e", "Erases the wheel's winning-number log."),
)


#: Cammegh SS2 (Slingshot 2), devices/roulette/cammegh_ss2.py: its page is dealer_ui/static/families/wheel.js
CAMMEGH_SS2: dict[str, Any] = {
    "page": "wheel",
    "self_test": "*F",
    "self_test_warning": (
        "The wheel must be stopped (idle) or it answers BUSY. The test can take up to "
        "5 minutes; its answers appear in the log below."
    ),
    "commands": _WHEEL_READS + tuple(p for p, _ in _WHEEL_CHANGES),
    "confirm": _WHEEL_CHANGES,
    "page_data": {"settings": list(WHEEL_SETTINGS)},
    "test_commands": (r"\*(?:K|u [13])",),
}

#: driver kind -> its technician page
TECHNICIAN_PAGES: dict[str, dict[str, Any]] = {"cammegh-ss2": CAMMEGH_SS2}
