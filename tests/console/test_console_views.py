"""What the dealer is told and offered, from table snapshots alone (no server): plain words and choices."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from dealer_ui.auth import User
from dealer_ui.families import CARDS, GENERIC, WHEEL, family_for_kind
from dealer_ui.live import summarize_event
from dealer_ui.result_forms import result_form
from dealer_ui.views import choices, notice
from recognition.dice_games import DiceDuel
from recognition.game import BaseGame
from recognition.games import game_rules
from recognition.roulette import RouletteRules
from recognition.wheel_judge import HOLD_REASONS, VOID_REASONS
from studio.device_slots import DeviceSlot

DEALER = User("dana", "dealer")
SUPERVISOR = User("sam", "supervisor")
TECH = User("tom", "technician")


class _Game(BaseGame):
    """A game of no family: the defaults of every optional ability."""

    def __init__(self, game_id: str = "test") -> None:
        self.game_id = game_id


class _Roulette(RouletteRules):
    """A wheel game whose result check is the test's."""

    game_id = "odd"

    def __init__(self, check) -> None:
        self.check = check

    def validate_result(self, result: dict) -> dict:
        return self.check(result)


class _RefusingDuel(DiceDuel):
    def validate_result(self, result: dict) -> dict:
        return _refuses(result)


def table(kind: str = "cammegh-ss2", game: str = "european_roulette") -> SimpleNamespace:
    slot = DeviceSlot(
        device_id="t1/x", kind=kind, role="wheel" if kind == "cammegh-ss2" else "shoe", serial_number="S"
    )
    rules = game_rules(game) if game else _Game()
    return SimpleNamespace(devices={"t1/x": slot}, game=rules)


def snap(
    state: str | None = None, *, holds=(), pacing="device", paused: str | None = None, **round_extra
) -> dict:
    r = None
    if state is not None:
        r = {
            "round_id": "r-1",
            "round_number": 7,
            "state": state,
            "holds": [dict(h) for h in holds],
            "result": None,
            "source": None,
            "void_code": None,
            "void_message": None,
            **round_extra,
        }
    return {
        "round": r,
        "pacing": pacing,
        "status": "paused" if paused else "running",
        "paused_reason": paused,
        "holds": [],
    }


PHASES = (None, "starting", "spin_started", "ball_in_rim", "no_more_bets", "winning_number", "closed")


def wheel(state: int | str | None, connected: bool = True, manual_start: bool | None = None) -> list[dict]:
    """A wheel's health; `state` 1-6 is shorthand for the phases in the order of devices.events.WHEEL_PHASES."""
    phase = PHASES[state] if isinstance(state, int) and state < len(PHASES) else state
    if state == 7:
        phase = "ball_out_of_track"
    device = {"phase": phase, "manual_start": manual_start}
    return [{"role": "wheel", "family": "wheel", "connected": connected, "device": device}]


def ids(out: list[dict]) -> dict[str, dict]:
    return {c["id"]: c for c in out}


def test_a_held_roulette_round_says_why_and_cannot_be_released_by_the_dealer():
    message = HOLD_REASONS["unverified_result"] + " (number 5 for game 3: the game in progress is 4)"
    s = snap("in_play", holds=[{"code": "unverified_result", "message": message}])
    n = notice(s)
    assert n["level"] == "hold" and n["title"] == "Round held"
    assert n["lines"][0] == message and "Nothing is paid" in n["lines"][-1]
    c = ids(choices(table(), DEALER, s, wheel(5), []))
    assert "release" not in c  # an unconfirmed number is never certified by one press of a button
    assert c["void"]["needs_approval"] and c["manual_result"]["needs_approval"]
    assert "start_game" not in c and "open_round" not in c


def test_betting_open_void_is_the_dealers_alone_and_nothing_is_entered_by_hand():
    c = ids(choices(table(), DEALER, snap("betting_open"), wheel(2), []))
    assert c["void"]["needs_approval"] is False and c["void"]["danger"]
    assert "manual_result" not in c and "close_betting" not in c  # a device-paced wheel closes betting itself


def test_a_result_waiting_behind_a_hold_can_only_be_voided():
    s = snap("result_pending", holds=[{"code": "x", "message": "m"}], result={"number": "5"})
    c = ids(choices(table(), DEALER, s, wheel(5), []))
    assert set(c) == {"incident", "void"} and c["void"]["needs_approval"]


def test_between_rounds_the_wheel_offers_a_start_or_a_respin_only_when_it_can():
    done = snap("certified", result={"number": "5", "color": "red"})
    assert "start_game" in ids(choices(table(), DEALER, done, wheel(5), []))
    assert "start_game" in ids(choices(table(), DEALER, snap(None), wheel(1), []))
    spinning = ids(choices(table(), DEALER, done, wheel(2), []))
    assert "start_game" not in spinning and "retry" not in spinning
    assert ids(choices(table(), DEALER, done, wheel(7), []))["retry"]["label"] == "Re-spin"
    assert "start_game" not in ids(choices(table(), DEALER, done, wheel(5, connected=False), []))
    assert "start_game" in ids(
        choices(table(), DEALER, done, wheel(5, manual_start=True), [])
    )  # manual start
    assert "start_game" not in ids(
        choices(table(), DEALER, done, wheel(5, manual_start=False), [])
    )  # arcade: it spins alone
    paused = snap("voided", paused="t1/wheel: disconnected")
    assert "start_game" not in ids(choices(table(), DEALER, paused, wheel(5), []))


def test_corrections_are_offered_once_a_recent_round_is_certified():
    recent = [{"round_id": "a", "state": "voided"}]
    assert "correct" not in ids(choices(table(), DEALER, snap(None), wheel(6), recent))
    recent.append({"round_id": "b", "state": "certified"})
    c = ids(choices(table(), SUPERVISOR, snap(None), wheel(6), recent))
    assert c["correct"]["needs_approval"]


def test_dealer_paced_tables_open_and_close_betting_and_offer_a_shoe_change_between_rounds():
    cards = table("serial-shoe", game=None)
    dev = [{"role": "shoe", "family": "cards", "connected": True, "device": {}}]
    c = ids(choices(cards, DEALER, snap(None, pacing="dealer"), dev, []))
    assert "open_round" in c and "shoe_change" in c
    c = ids(choices(cards, DEALER, snap("betting_open", pacing="dealer"), dev, []))
    assert "close_betting" in c and "open_round" not in c and "shoe_change" not in c
    c = ids(choices(cards, DEALER, snap(None, pacing="dealer", paused="shoe lost"), dev, []))
    assert "open_round" not in c  # a paused table opens no round


def test_an_opening_check_comes_before_the_first_round():
    cards = table("serial-shoe", game=None)
    dev = [{"role": "shoe", "family": "cards", "connected": True, "device": {}}]
    s = snap(None, pacing="dealer")
    s["opening_check"] = {
        "required": True,
        "passed": False,
        "running": False,
        "report": {"ok": False, "message": "ball 7 is missing"},
    }
    c = ids(choices(cards, DEALER, s, dev, []))
    assert "open_round" not in c and c["start_opening_check"]["label"] == "Run opening check"
    n = notice(s)
    assert n["title"] == "Opening check needed" and n["lines"][0] == "Last check: ball 7 is missing"
    assert set(ids(choices(cards, TECH, s, dev, []))) == {"incident", "start_opening_check"}
    s["opening_check"].update(running=True, report={"ok": False, "message": "12 of 48 balls read"})
    c = ids(choices(cards, DEALER, s, dev, []))
    assert "finish_opening_check" in c and "open_round" not in c
    assert notice(s)["lines"] == ["12 of 48 balls read"]
    s["opening_check"].update(running=False, passed=True)
    c = ids(choices(cards, DEALER, s, dev, []))
    assert "open_round" in c and c["start_opening_check"]["label"] == "Check again"
    assert notice(s)["title"] == ""


def test_a_game_may_let_the_dealer_confirm_its_own_holds():
    cards = table("serial-shoe", game=None)
    cards.game.dealer_releasable_holds = ("card_unreadable",)
    s = snap(
        "in_play",
        holds=[{"code": "card_unreadable", "message": "re-read the card"}, {"code": "other", "message": "m"}],
        pacing="dealer",
    )
    c = [x for x in choices(cards, DEALER, s, [], []) if x["id"] == "release"]
    assert [x["code"] for x in c] == ["card_unreadable"]


def test_people_who_do_not_deal_get_no_round_choices():
    for user in (TECH, User("ada", "admin")):
        assert [c["id"] for c in choices(table(), user, snap("in_play"), wheel(4), [])] == ["incident"]
    assert choices(table(), User("x", "dealer", disabled=True), snap("in_play"), wheel(4), []) == []


def test_plain_words_for_pause_void_and_hand_entered_results():
    n = notice(snap("in_play", paused="t1/wheel: no data from the device for 3.0 s"))
    assert n["level"] == "paused" and "no data from the device" in n["lines"][0]
    assert "nothing is paid" in n["lines"][1]
    v = notice(snap("voided", void_code="miss_spin", void_message=VOID_REASONS["miss_spin"]))
    assert v["level"] == "void" and v["lines"] == [VOID_REASONS["miss_spin"]]
    ok = notice(snap("certified", source={"type": "manual", "people": ["dana", "sam"]}))
    assert ok["lines"] == ["Entered by hand by dana and sam."]
    assert notice(snap("betting_open"))["title"] == ""


@pytest.mark.parametrize(
    "kind, family",
    [
        ("cammegh-ss2", "wheel"),
        ("serial-shoe", "cards"),
        ("camera-shoe", "cards"),
        ("rfid-shoe-x", "cards"),
        ("dice-camera", "dice"),
        ("modbus-ball-machine", "balls"),
        ("lottery-balls", "balls"),
        ("wheel-encoder", "money_wheel"),
        ("roulette-camera", "roulette_camera"),
        ("thermometer", "generic"),
        (None, "generic"),
    ],
)
def test_device_kinds_find_their_family(kind, family):
    assert family_for_kind(kind).id == family


def test_a_guessed_family_never_sends_anything_to_the_device():
    ss2 = family_for_kind("cammegh-ss2")  # the neutral wheel family with the SS2's technician page
    assert ss2.id == "wheel" and ss2.start == WHEEL.start and family_for_kind("serial-shoe") is CARDS
    guessed = family_for_kind("acme-roulette-x")  # not the SS2: it may read the same bytes differently
    assert guessed.id == "wheel" and guessed.commands == () and guessed.self_test is None
    assert guessed.start is None and guessed.retry is None and guessed.page == "generic"
    assert not guessed.allows("*P 0")
    assert guessed.void_reasons == WHEEL.void_reasons  # the dealer's words stay
    assert family_for_kind("wheel-pointer").allows("*P 0") is False  # a money wheel is no SS2


def test_a_driver_that_declares_the_wheel_family_gets_its_choices_whoever_made_it():
    acme = family_for_kind("acme-wheel", "roulette-wheel")  # Driver.family of a second vendor's wheel
    assert acme.id == "wheel" and acme.start == WHEEL.start and acme.retry == WHEEL.retry
    assert acme.phase is WHEEL.phase and acme.void_reasons == WHEEL.void_reasons
    # the SS2's technician commands and page are the SS2's: another vendor's wheel gets none of them
    assert acme.commands == () and acme.self_test is None and acme.page == "generic"
    assert not acme.allows("*P 0")
    assert family_for_kind("acme-wheel").id == "generic"  # a kind alone, without the declaration
    assert family_for_kind("serial-shoe", "roulette-wheel") is CARDS  # a listed kind comes first


def test_the_wheel_family_allows_known_commands_and_warns_before_changes():
    SS2 = family_for_kind("cammegh-ss2")
    assert SS2.allows("*T N") and SS2.allows("*T n 2500") and SS2.allows("*T s 14.0 17.5")
    assert SS2.allows("*F") and SS2.allows("*S") and SS2.allows("*u 3")
    for bad in ("*T N 5", "*X;1;001", "rm -rf /", "*T n 2500\r\n*P 0", "*T f 1", "*P 2", ""):
        assert not SS2.allows(bad), bad
    assert SS2.warning("*T S") is None and SS2.warning("*S") is None
    assert "voided" in SS2.warning("*P 0") and "real game" in SS2.warning("*K")
    assert GENERIC.allows("*T N") is False


def _two_balls(result: dict) -> dict:
    if not isinstance(result.get("numbers"), list) or len(result["numbers"]) != 2:
        raise ValueError("two numbers")
    return result


def _refuses(result: dict) -> dict:
    raise ValueError("no")


def test_result_forms():
    form = result_form(game_rules("european_roulette"))
    assert form["type"] == "pockets" and form["pockets"][0] == "0" and len(form["pockets"]) == 37
    assert form["field"] == "number" and form["count"] == 1
    two = result_form(_Roulette(_two_balls))
    assert two["field"] == "numbers" and two["count"] == 2
    odd = result_form(_Roulette(_refuses))
    assert odd["type"] == "json"  # neither pocket form fits: the JSON form, checked by the game
    assert form["colors"]["17"] == "black" and form["colors"]["0"] == "green"
    assert "00" in result_form(game_rules("american_roulette"))["pockets"]
    assert result_form(_Game("sic_bo"))["example"] == {"dice": [1, 3, 6]}
    cards = result_form(game_rules("baccarat"))
    assert (
        cards["type"] == "cards"
        and cards["field"] == "cards"
        and len(cards["ranks"]) * len(cards["suits"]) == 52
    )
    assert game_rules("baccarat").validate_result({"cards": ["9S", "9D", "TH", "TC"]})["winner"] == "tie"
    assert result_form(_Game("new_game")) == {"type": "json", "example": {}}


def test_device_events_in_a_line():
    assert (
        summarize_event({"kind": "wheel_result", "number": "17", "game_counter": 4}) == "number 17 (game 4)"
    )
    assert (
        summarize_event({"kind": "card_drawn", "card": None, "payload": "X9", "special": "cut_card"})
        == "card cut_card (X9)"
    )
    assert (
        summarize_event({"kind": "wheel_fault", "code": 21, "description": "sensor 1", "self_test": True})
        == "self-test: fault 21: sensor 1"
    )  # a journal written before the neutral events
    warning = {
        "kind": "wheel_warning",
        "code": "sensor_blind",
        "vendor_code": "21",
        "description": "sensor 1",
    }
    assert summarize_event({**warning, "self_test": True}) == "self-test: sensor_blind (21): sensor 1"
    status = {"kind": "wheel_status", "phase": "ball_in_rim", "game_counter": 4, "speed_rpm": 15.0}
    assert summarize_event({**status, "direction": "clockwise", "warnings": ["no_ball"]}) == (
        "ball_in_rim, game 4, 15.0 rpm clockwise, warnings no_ball"
    )
    assert summarize_event({"kind": "dice_read", "device_id": "x", "dice": [1, 2, 3]}) == "dice [1, 2, 3]"


def test_the_overhead_cameras_neutral_events_in_a_line():
    # a source that counts no games: its reading at rest, every ball's pocket, with how well it read them
    at_rest = {
        "kind": "wheel_result",
        "number": "0",
        "numbers": ["0", "10"],
        "game_counter": None,
        "quality": 97,
    }
    assert summarize_event(at_rest) == "numbers 0, 10 at rest, ring 97%"
    assert (
        summarize_event({"kind": "wheel_result", "number": "5", "game_counter": None}) == "number 5 at rest"
    )
    dropped = {"kind": "ball_dropped", "revolutions": [6, 7], "complete": False}
    assert summarize_event(dropped) == "the ball left the track after 6, 7 turns (not followed all the way)"
    old = {
        "kind": "roulette_ball_spin",
        "revolutions": [4],
        "complete": True,
    }  # a log before the neutral events
    assert summarize_event(old) == "the ball left the track after 4 turns"


def test_dice_forms_follow_each_game_and_its_own_check():
    duel = result_form(game_rules("dice_duel"))
    assert duel["type"] == "dice" and [
        (g["field"], g["count"], g["color"], g["single"]) for g in duel["groups"]
    ] == [("red", 1, "red", True), ("blue", 1, "blue", True)]
    bac_bo = result_form(game_rules("bac_bo"))
    assert [(g["field"], g["count"], g["color"]) for g in bac_bo["groups"]] == [
        ("player", 2, "blue"),
        ("banker", 2, "red"),
    ]
    craps = result_form(game_rules("craps"))
    assert craps["groups"][0]["count"] == 2 and craps["point"]["choices"] == [None, 4, 5, 6, 8, 9, 10]
    for game_id in ("sic_bo", "super_sic_bo", "mega_sic_bo", "lightning_dice"):
        form = result_form(game_rules(game_id))
        assert (
            form["type"] == "dice" and form["groups"][0]["count"] == 3 and form["faces"] == [1, 2, 3, 4, 5, 6]
        )
    # what each form sends is what the game takes, for every face the pad offers
    for face in range(1, 7):
        assert game_rules("dice_duel").validate_result({"red": face, "blue": 7 - face}) == {
            "red": face,
            "blue": 7 - face,
        }
    # a game whose check refuses the form's shape gets the JSON form (never a form that cannot be entered)
    assert result_form(_RefusingDuel())["type"] == "json"


def test_ball_forms_list_the_games_balls_with_their_counts():
    lucky = result_form(game_rules("lucky_5"))
    assert lucky["type"] == "balls" and lucky["draw_count"] == 5 and lucky["labels"][:3] == ["1", "2", "3"]
    assert len(lucky["labels"]) == 36 and set(lucky["counts"].values()) == {1}
    cash = result_form(game_rules("cash_or_crash"))
    assert cash["counts"]["green"] == 19 and cash["colors"]["red"] == "red"
    with pytest.raises(ValueError, match="draws 5 balls"):
        game_rules("lucky_5").validate_result({"balls": ["1", "2", "3", "4"]})
    assert game_rules("lucky_5").validate_result({"balls": ["1", "2", "3", "4", "5"]}) == {
        "balls": ["1", "2", "3", "4", "5"]
    }


def test_the_judges_view_is_checked_for_the_screen():
    from dealer_ui.views import judge_view

    assert judge_view(None) is None and judge_view("x") is None
    j = judge_view(
        {
            "next": {"position": "seat_3_hand_1_card_3", "label": "Seat 3, hand 1: third card"},
            "awaiting": [
                {
                    "window": "w1",
                    "seat": "3",
                    "hand": 1,
                    "allowed": ["hit", "stand", "double"],
                    "default": "stand",
                    "deadline": "2026-01-01T00:00:12Z",
                },
                "junk",
            ],
            "extra": 1,
        }
    )
    assert j["next"]["label"] == "Seat 3, hand 1: third card" and j["extra"] == 1
    assert j["awaiting"] == [
        {
            "window": "w1",
            "seat": "3",
            "hand": 1,
            "allowed": ["hit", "stand", "double"],
            "default": "stand",
            "deadline": "2026-01-01T00:00:12Z",
        }
    ]
    assert judge_view({"next": None, "awaiting": []}) == {"next": None, "awaiting": []}
    assert judge_view({"next": {"position": "dealer_card_2"}})["next"]["label"] == "dealer card 2"
