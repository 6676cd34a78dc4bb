"""How the manual-result and correction dialogs ask for a result of each game: a pad of pockets, cards, dice or
balls, or a JSON object, told apart by the family class the game declares, and always checked by the game's
own ``validate_result``."""

from __future__ import annotations

from typing import Any

from studio.game_families import DiceGame, DrawGame, GameRules, RouletteRules

from .families import CARDS


def result_form(game: GameRules) -> dict[str, Any]:
    """How the manual-result and correction dialogs ask for a result of this game.

    Roulette: a pad of the wheel's pockets with their colours. Card games (played with a shoe): a pad of the
    52 cards, tapped in deal order, sent as ``{"cards": [...]}`` (every card game's ``validate_result``
    re-deals that list through its own script). Any other game (or a wheel game whose result is neither of the
    pocket forms): dice games a die pad per group of dice (with the dice's colours: Dice Duel's red and blue
    die, Bac Bo's sides; craps adds the point), ball draws a pad of the game's balls tapped in draw order
    (``{"balls": [...]}``), any other game a JSON object. Whatever the form, the game's own
    ``validate_result`` checks the result on the server, and its message is shown when it refuses.
    """
    if isinstance(game, RouletteRules):
        pockets = game.wheel.pockets
        pad = {
            "type": "pockets",
            "pockets": list(pockets),
            "colors": {p: game.wheel.color(p) for p in pockets},
        }
        # one winning pocket ({"number": ...}) or, as in double ball roulette, two ({"numbers": [...]}):
        # the game's own check says which (recognition is pure, so asking it is safe)
        for field, count, probe in (("number", 1, pockets[0]), ("numbers", 2, [pockets[0], pockets[-1]])):
            if _accepts(game, {field: probe}):
                return {**pad, "field": field, "count": count}
    if game.device_kinds and set(game.device_kinds) <= set(CARDS.kinds):
        return {"type": "cards", "field": "cards", "ranks": list("A23456789TJQK"), "suits": list("SHDC")}
    form = (
        _dice_form(game)
        if isinstance(game, DiceGame)
        else _balls_form(game)
        if isinstance(game, DrawGame)
        else None
    )
    if form is not None:
        return form
    return {"type": "json", "example": _EXAMPLES.get(game.game_id, {})}


def _accepts(game: GameRules, probe: dict[str, Any]) -> bool:
    """Does the game's own check take a result of this shape? (recognition is pure: asking it is safe)"""
    try:
        game.validate_result(probe)
    except (ValueError, TypeError, KeyError):
        return False
    return True


#: the dice games' result shapes: groups of dice (field, how many, colour of the dice, one face or a list)
_DICE_GROUPS: dict[str, list[dict[str, Any]]] = {
    **{
        g: [{"field": "dice", "label": "Dice", "count": 3, "color": None, "single": False}]
        for g in ("sic_bo", "super_sic_bo", "mega_sic_bo", "lightning_dice")
    },
    "craps": [{"field": "dice", "label": "Dice", "count": 2, "color": None, "single": False}],
    "bac_bo": [
        {"field": "player", "label": "Player", "count": 2, "color": "blue", "single": False},
        {"field": "banker", "label": "Banker", "count": 2, "color": "red", "single": False},
    ],
    "dice_duel": [
        {"field": "red", "label": "Red die", "count": 1, "color": "red", "single": True},
        {"field": "blue", "label": "Blue die", "count": 1, "color": "blue", "single": True},
    ],
}
#: craps: the point in force before the throw (None: a come-out roll)
_CRAPS_POINTS = [None, 4, 5, 6, 8, 9, 10]


def _dice_form(game: DiceGame) -> dict[str, Any] | None:
    """A die pad per group (Dice Duel: a red and a blue die; Bac Bo: the player's blue and the banker's red
    pair), faces 1-6; checked against the game's own ``validate_result`` with a probe, else None."""
    groups = _DICE_GROUPS.get(game.game_id)
    if groups is None:
        return None
    # a game that groups its dice by side says the colour of each side's dice (Bac Bo)
    groups = [dict(g, color=game.side_colors.get(g["field"], g["color"])) for g in groups]
    probe: dict[str, Any] = {g["field"]: 1 if g["single"] else [1] * g["count"] for g in groups}
    form: dict[str, Any] = {"type": "dice", "groups": groups, "faces": [1, 2, 3, 4, 5, 6]}
    if game.game_id == "craps":
        probe["point"] = None
        form["point"] = {"field": "point", "label": "Point before the throw", "choices": _CRAPS_POINTS}
    return form if _accepts(game, probe) else None


def _balls_form(game: DrawGame) -> dict[str, Any] | None:
    """A pad of the game's balls tapped in draw order, sent as ``{"balls": [...]}`` (every draw game)."""
    if not game.ball_labels or game.draw_count < 1:
        return None
    colors = game.colors or {}
    counts = {}
    for label in game.ball_labels:
        try:
            counts[label] = int(game.max_count(label))
        except Exception:  # noqa: BLE001 - a game's own table may fail for a label: show 1, the page stays up
            counts[label] = 1
    unique = list(dict.fromkeys(game.ball_labels))
    return {
        "type": "balls",
        "field": "balls",
        "labels": unique,
        "colors": {k: colors.get(k) for k in unique},
        "counts": counts,
        "draw_count": game.draw_count,
    }


#: example results for the JSON form (docs/dice-games.md and the card family's shapes)
_EXAMPLES: dict[str, dict[str, Any]] = {
    "sic_bo": {"dice": [1, 3, 6]},
    "super_sic_bo": {"dice": [1, 3, 6]},
    "mega_sic_bo": {"dice": [1, 3, 6]},
    "lightning_dice": {"dice": [1, 3, 6]},
    "craps": {"dice": [3, 4], "point": None},
    "bac_bo": {"player": [2, 5], "banker": [6, 6]},
    "dice_duel": {"red": 4, "blue": 2},
    "fan_tan": {"result": 3},  # the beads in the last line, or {"beads": 39}: the count
    "deal_or_no_deal": {"opened": [5, 9, 1, 16, 2, 3, 4, 6, 7, 8, 10, 11, 12, 13, 14, 15]},
}
