"""The card judge, fed hand-built shoe events and round signals (baccarat deal script)."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest

from devices.events import (
    CardDrawn,
    CardUnreadable,
    DeviceConnected,
    DeviceDisconnected,
    DeviceUnknownMessage,
)
from recognition.cards.baccarat import GAMES
from recognition.cards.cards import STANDARD_52
from recognition.cards.judge import HOLD_MESSAGES, CardJudge, face_value_burn
from recognition.game import Hold, Note, Release, ResultReady, RoundSignal

BACCARAT = GAMES["baccarat"]
DEV = "bac-1/shoe"
T0 = datetime(2026, 11, 29, 20, 0, 0, tzinfo=UTC)
_clock = [0.0]


def at() -> datetime:
    _clock[0] += 0.5
    return T0 + timedelta(seconds=_clock[0])


def card(code: str | None, deck: str | None = "104729", payload: str | None = None) -> CardDrawn:
    return CardDrawn(device_id=DEV, at=at(), card=code, payload=payload or f"P-{code}", deck=deck)


def cut() -> CardDrawn:
    return CardDrawn(device_id=DEV, at=at(), card=None, payload="CUT", special="cut_card")


def sig(signal: str, n: int, extras=None) -> RoundSignal:
    return RoundSignal(signal=signal, round_number=n, at=at(), extras=extras)  # type: ignore[arg-type]


def feed(judge: CardJudge, *items) -> list:
    out = []
    for item in items:
        out += judge.feed(item)
    return out


def kinds(decisions: list) -> list[str]:
    return [f"{d.kind}:{getattr(d, 'code', '')}".rstrip(":") for d in decisions]


def results(decisions: list) -> list[dict]:
    return [d.result for d in decisions if isinstance(d, ResultReady)]


def holds(decisions: list) -> list[Hold]:
    return [d for d in decisions if isinstance(d, Hold)]


HAND = ["AS", "2H", "AD", "KC", "QS", "5S"]  # Banker 7 beats Player 2, six cards
NATURAL = ["9S", "4D", "KH", "3C"]


def play(judge: CardJudge, n: int, cards: list[str]) -> list:
    return feed(judge, sig("round_opened", n), sig("betting_closed", n), *[card(c) for c in cards])


def test_a_clean_round_is_certified_with_the_cards_in_deal_order():
    judge = BACCARAT.new_judge()
    out = play(judge, 1, HAND)
    assert kinds(out) == ["result_ready"]
    assert out[0].result == BACCARAT.evaluate({"cards": HAND})["result"]
    assert out[0].source == {"device_id": DEV, "cards": HAND}
    assert feed(judge, sig("round_ended", 1)) == []
    out = play(judge, 2, NATURAL)
    assert results(out) == [BACCARAT.evaluate({"cards": NATURAL})["result"]]
    assert judge.shoe_counts["AS"] == 1 and sum(judge.shoe_counts.values()) == 10
    # no decision for things the judge does not need
    assert feed(judge, DeviceUnknownMessage(device_id=DEV, raw="??")) == []


def test_every_hand_of_a_shoe_is_certified_as_evaluate_says():
    rng = random.Random(9)
    shoe = list(STANDARD_52) * 8
    rng.shuffle(shoe)
    judge = BACCARAT.new_judge()
    n = 0
    while len(shoe) > 6:
        n += 1
        feed(judge, sig("round_opened", n), sig("betting_closed", n))
        dealt: list[str] = []
        out: list = []
        while not results(out):
            dealt.append(shoe.pop())
            out = feed(judge, card(dealt[-1]))
            assert not holds(out)
        assert results(out) == [BACCARAT.evaluate({"cards": dealt})["result"]]
        feed(judge, sig("round_ended", n))
    assert sum(judge.shoe_counts.values()) == 416 - len(shoe)


@pytest.mark.parametrize(
    "bad,code",
    [
        (card(None, payload="9999999999"), "unknown_card"),
        (card("KD", deck="555555"), "wrong_shoe"),
        (card("JK"), "impossible_card"),
        (card("ROCK"), "impossible_card"),
    ],
)
def test_a_card_that_cannot_be_trusted_holds_the_round_for_good(bad, code):
    judge = BACCARAT.new_judge()
    out = feed(judge, sig("round_opened", 1), sig("betting_closed", 1), card("AS"), card("2H"), bad)
    assert kinds(out) == [f"hold:{code}"]
    assert out[0].message.startswith(HOLD_MESSAGES[code])
    assert "void" in out[0].message
    # the dealer carries on dealing: the hand is "complete" but nothing is certified
    out = feed(judge, card("AD"), card("KC"), card("QS"), card("5S"), card("7S"))
    assert results(out) == [] and holds(out) == []
    # the dealer voids (or enters the result by hand): the round ends and the next one is judged afresh
    feed(judge, sig("round_ended", 1))
    assert results(play(judge, 2, NATURAL)) == [BACCARAT.evaluate({"cards": NATURAL})["result"]]


def test_a_card_not_counted_when_it_cannot_be_from_the_shoe():
    judge = BACCARAT.new_judge(decks=1)
    feed(judge, sig("round_opened", 1), sig("betting_closed", 1), card("AS"))
    out = feed(judge, card("AS"))
    assert kinds(out) == ["hold:impossible_card"]
    assert "drawn 2 times but this shoe (1 deck of 52 cards) holds only 1" in out[0].message
    assert judge.shoe_counts["AS"] == 1


def test_eight_copies_are_fine_and_the_ninth_is_impossible():
    judge = BACCARAT.new_judge()
    out = play(judge, 1, ["KS"] * 6)  # 0 v 0: the Player draws, then the Banker
    assert kinds(out) == ["result_ready"]
    out = feed(
        judge, sig("round_ended", 1), sig("round_opened", 2), sig("betting_closed", 2), card("KS"), card("KS")
    )
    assert judge.shoe_counts["KS"] == 8 and out == []
    out = feed(judge, card("KS"))
    assert kinds(out) == ["hold:impossible_card"] and "drawn 9 times" in out[0].message


def test_a_card_before_betting_closed_holds_and_voids_are_the_way_out():
    judge = BACCARAT.new_judge()
    out = feed(judge, sig("round_opened", 1), card("9S"))
    assert kinds(out) == ["hold:card_before_betting_closed"]
    assert "Void the round" in out[0].message and "9S" in out[0].message
    out = feed(judge, sig("betting_closed", 1), card("4D"), card("KH"), card("3C"), card("2C"))
    assert results(out) == [] and holds(out) == []
    feed(judge, sig("round_ended", 1))
    assert results(play(judge, 2, NATURAL))


def test_an_unreadable_card_is_rescanned_and_the_dealer_checks_before_release():
    judge = BACCARAT.new_judge()
    out = feed(
        judge,
        sig("round_opened", 1),
        sig("betting_closed", 1),
        card("9S"),
        card("4D"),
        CardUnreadable(device_id=DEV, at=at(), reason="barcode smudged"),
    )
    assert kinds(out) == ["hold:card_unreadable"]
    assert "the player's 2nd card" in out[0].message and "Scan that card again" in out[0].message
    out = feed(judge, card("KH"))
    assert kinds(out) == ["note:rescanned"] and "KH" in out[0].message
    out = feed(judge, card("3C"))
    # the result goes out; the hold keeps it from being certified until the dealer releases it
    assert results(out) == [BACCARAT.evaluate({"cards": NATURAL})["result"]]
    assert not any(isinstance(d, Release) for d in out)


def test_two_incidents_of_one_kind_get_their_own_codes():
    judge = BACCARAT.new_judge()
    bad = CardUnreadable(device_id=DEV, at=at(), reason="no read")
    out = feed(judge, sig("round_opened", 1), sig("betting_closed", 1), bad, card("9S"), bad)
    assert [h.code for h in holds(out)] == ["card_unreadable", "card_unreadable_2"]


def test_an_extra_card_after_the_hand_holds():
    judge = BACCARAT.new_judge()
    out = play(judge, 1, NATURAL)
    assert results(out)
    out = feed(judge, card("7H"))  # the round is still open: it was held, or the table has not ended it
    assert kinds(out) == ["hold:extra_card"] and "[9S 4D KH 3C]" in out[0].message
    assert feed(judge, card("7H")) == []
    bad = feed(
        judge,
        sig("round_ended", 1),
        sig("round_opened", 2),
        sig("betting_closed", 2),
        card("9S"),
        card("4D"),
        card("KH"),
        card("3C"),
        CardUnreadable(device_id=DEV, at=at(), reason="x"),
    )
    assert kinds(bad)[-1] == "hold:extra_card"


def test_a_card_between_rounds_is_a_table_hold_and_counts_as_burned():
    judge = BACCARAT.new_judge()
    out = feed(judge, card("5S"))
    assert kinds(out) == ["hold:card_between_rounds"] and "burned" in out[0].message
    assert judge.shoe_counts == {"5S": 1}
    out = feed(judge, CardUnreadable(device_id=DEV, at=at(), reason="no read"))
    assert kinds(out) == ["hold:card_between_rounds"]
    assert results(play(judge, 1, NATURAL))


def test_unknown_or_foreign_cards_between_rounds_are_held_too():
    judge = BACCARAT.new_judge(deck_id="104729")
    assert kinds(feed(judge, card(None))) == ["hold:unknown_card"]
    assert kinds(feed(judge, card("AS", deck="1"))) == ["hold:wrong_shoe"]
    assert judge.shoe_counts == {}


def test_the_deck_is_learned_from_the_first_card_when_not_configured():
    judge = BACCARAT.new_judge()
    feed(judge, sig("round_opened", 1), sig("betting_closed", 1), card("AS", deck="A1"))
    out = feed(judge, card("2S", deck="B2"))
    assert kinds(out) == ["hold:wrong_shoe"] and "deck 'B2'; this shoe is deck 'A1'" in out[0].message
    # cards whose vendor table gives no deck are not checked
    judge = BACCARAT.new_judge()
    assert results(
        feed(judge, sig("round_opened", 1), sig("betting_closed", 1), *[card(c, deck=None) for c in NATURAL])
    )


def test_cut_card_last_hand_shoe_change_and_face_value_burns():
    judge = BACCARAT.new_judge()
    out = feed(judge, sig("round_opened", 1), sig("betting_closed", 1), card("9S"), cut())
    assert kinds(out) == ["note:cut_card"] and "the round in progress and 1 more round" in out[0].message
    out = feed(judge, card("4D"), card("KH"), card("3C"), sig("round_ended", 1))
    assert kinds(out) == ["result_ready"]
    out = feed(judge, sig("round_opened", 2))
    assert kinds(out) == ["note:last_hand"]
    out = feed(judge, sig("betting_closed", 2), *[card(c) for c in HAND], sig("round_ended", 2))
    assert kinds(out) == ["result_ready", "hold:shoe_change"]
    assert "change the shoe" in out[1].message
    # the new shoe: its first card (a 7) is burned and says to burn 7 more
    out = feed(judge, card("7C", deck="NEW"))
    assert kinds(out) == ["release:shoe_change", "note:new_shoe", "note:burn"]
    assert judge.shoe_counts == {"7C": 1}
    for i in range(7):
        out = feed(judge, card(STANDARD_52[i], deck="NEW"))
        assert kinds(out) == ["note:burn"] and f"{6 - i} more to burn" in out[0].message
    out = feed(
        judge, sig("round_opened", 3), sig("betting_closed", 3), *[card(c, deck="NEW") for c in NATURAL]
    )
    assert kinds(out) == ["result_ready"]
    # the new shoe has its own deck: a card of the old one is foreign now
    feed(judge, sig("round_ended", 3))
    assert kinds(play(judge, 4, ["AS"])) == ["hold:wrong_shoe"]


def test_burns_may_be_drawn_while_betting_is_open():
    judge = BACCARAT.new_judge(new_shoe_at_start=True, shoe_start_burn="fixed", shoe_start_burn_count=2)
    out = feed(judge, sig("round_opened", 1), card("AS"), card("2S"), card("3S"))
    assert kinds(out) == ["note:new_shoe", "note:burn", "note:burn", "hold:card_before_betting_closed"]


def test_a_deal_without_the_owed_burns_is_held_for_the_dealer():
    judge = BACCARAT.new_judge(new_shoe_at_start=True)
    out = play(judge, 1, NATURAL)
    assert kinds(out) == ["note:new_shoe", "hold:burns_skipped", "result_ready"]
    assert "9S taken as the player's 1st card" in out[1].message.replace("the nine of spades (9S)", "9S")


def test_burn_each_round_is_drawn_while_betting_is_open():
    judge = BACCARAT.new_judge(burn_each_round=1)
    out = feed(
        judge, sig("round_opened", 1), card("TD"), sig("betting_closed", 1), *[card(c) for c in NATURAL]
    )
    assert kinds(out) == ["note:burn", "result_ready"]
    assert out[1].result["player_cards"] == ["9S", "KH"]
    # a card after betting closed is always dealt: a burn not drawn before is a check for the dealer, never a
    # silent shift of the deal
    feed(judge, sig("round_ended", 1))
    out = play(judge, 2, NATURAL)
    assert kinds(out) == ["hold:burns_skipped", "result_ready"]
    assert out[1].result["player_cards"] == ["9S", "KH"]
    assert "1 burn card(s) of this round owed" in out[0].message


def test_an_unreadable_first_burn_card():
    judge = BACCARAT.new_judge(new_shoe_at_start=True)
    out = feed(judge, CardUnreadable(device_id=DEV, at=at(), reason="no read"), card("5S"))
    assert kinds(out) == ["note:new_shoe", "note:burn", "hold:card_between_rounds"]
    assert "cannot tell how many more to burn" in out[1].message


def test_no_more_rounds_after_the_cut_card_when_so_configured():
    judge = BACCARAT.new_judge(hands_after_cut_card=0, shoe_start_burn="none")
    out = feed(judge, cut())
    assert kinds(out) == ["note:cut_card", "hold:shoe_change"]
    # the table carries the table hold into the next round; the new shoe's first card lifts it
    assert feed(judge, sig("round_opened", 1)) == []
    out = feed(judge, sig("betting_closed", 1), card("9S", deck="N"))
    assert kinds(out) == ["release:shoe_change", "note:new_shoe"]
    out = feed(judge, *[card(c, deck="N") for c in NATURAL[1:]])
    assert kinds(out) == ["result_ready"]
    # a cut card during a round with 0 hands after it: that round is the last
    judge = BACCARAT.new_judge(hands_after_cut_card=0)
    out = feed(
        judge,
        sig("round_opened", 1),
        cut(),
        sig("betting_closed", 1),
        *[card(c) for c in NATURAL],
        sig("round_ended", 1),
    )
    assert kinds(out) == ["note:cut_card", "result_ready", "hold:shoe_change"]


def test_an_exhausted_shoe_starts_a_new_one_at_the_next_card():
    judge = BACCARAT.new_judge(decks=1, shoe_start_burn="none")
    deck = list(STANDARD_52)
    feed(judge, sig("round_opened", 1), sig("betting_closed", 1))
    notes = []
    for i, c in enumerate(deck):
        out = feed(judge, card(c))
        notes += [(i, d.code) for d in out if isinstance(d, Note)]
        if results(out):
            feed(judge, sig("round_ended", 1), sig("round_opened", 1), sig("betting_closed", 1))
    assert notes == [(51, "shoe_exhausted")] and sum(judge.shoe_counts.values()) == 52
    feed(judge, sig("round_ended", 1))
    out = feed(judge, sig("round_opened", 2), sig("betting_closed", 2), card("AS"))
    assert kinds(out) == ["note:new_shoe"] and judge.shoe_counts == {"AS": 1}


def test_a_second_cut_card_is_only_a_note():
    judge = BACCARAT.new_judge()
    feed(judge, cut())
    out = feed(judge, cut())
    assert kinds(out) == ["note:cut_card"]


def test_shoe_disconnects():
    judge = BACCARAT.new_judge()
    out = feed(judge, DeviceDisconnected(device_id=DEV, at=at(), reason="cable"))
    assert kinds(out) == ["hold:shoe_lost"]
    assert feed(judge, DeviceDisconnected(device_id=DEV, at=at(), reason="cable")) == []
    assert kinds(feed(judge, DeviceConnected(device_id=DEV, at=at(), port="/dev/ttyUSB0"))) == [
        "release:shoe_lost"
    ]
    # during a deal: the dealer must check the hand, so the judge does not release by itself
    out = feed(
        judge,
        sig("round_opened", 1),
        sig("betting_closed", 1),
        card("9S"),
        DeviceDisconnected(device_id=DEV, at=at(), reason="cable"),
    )
    assert kinds(out) == ["hold:shoe_lost"] and "compare the cards" in out[0].message
    out = feed(
        judge,
        DeviceConnected(device_id=DEV, at=at(), port="/dev/ttyUSB0"),
        card("4D"),
        card("KH"),
        card("3C"),
    )
    assert kinds(out) == ["note:shoe_reconnected", "result_ready"]


def test_betting_closed_for_a_round_the_judge_did_not_see_open():
    judge = BACCARAT.new_judge()
    out = feed(judge, sig("betting_closed", 7), *[card(c) for c in NATURAL])
    assert kinds(out) == ["hold:round_not_seen"]


def test_settings_are_checked():
    with pytest.raises(ValueError, match="shoe_start_burn must be one of"):
        BACCARAT.new_judge(shoe_start_burn="sometimes")
    with pytest.raises(ValueError, match="hands_after_cut_card"):
        BACCARAT.new_judge(hands_after_cut_card=-1)
    with pytest.raises(ValueError, match="shoe_start_burn_count of 1 or more"):
        BACCARAT.new_judge(shoe_start_burn="fixed")
    with pytest.raises(TypeError):
        BACCARAT.new_judge(colour="red")
    # the draw's settings are the table's too: the judge leaves them to draw_extras
    GAMES["lightning_baccarat"].new_judge(multiplier_cards_min=1)


def test_face_value_burn():
    assert [face_value_burn(c) for c in ("AS", "5H", "9D", "TC", "JS", "QH", "KD")] == [
        1,
        5,
        9,
        10,
        10,
        10,
        10,
    ]


def test_faults_never_lead_to_a_wrong_result():
    """Random rounds with random faults: whenever a result goes out, it is exactly the evaluate of the cards
    the dealer dealt after betting closed, and no fault was raised in that round; a round with a fault never
    produces a result, and one with a re-scan or a lost link produces it only under a standing hold."""
    rng = random.Random(2024)
    shoe = list(STANDARD_52) * 8
    judge = BACCARAT.new_judge(deck_id="D1")  # burns: face value at each new shoe
    changes = [0]
    faults = {"unknown_card", "wrong_shoe", "impossible_card", "card_before_betting_closed", "extra_card"}
    for n in range(1, 1500):
        out = feed(judge, sig("round_opened", n))
        fault = rng.random() < 0.5
        kind = rng.choice(["unknown", "foreign", "early", "unreadable", "joker", "lost"]) if fault else None
        if kind == "early":
            out += feed(judge, card(rng.choice(shoe), deck="D1"))
        out += feed(judge, sig("betting_closed", n))
        dealt: list[str] = []
        at_card = rng.randrange(4)  # every hand has at least four cards
        while BACCARAT.next_position(dealt) is not None:
            if kind in ("unknown", "foreign", "joker", "unreadable", "lost") and len(dealt) == at_card:
                bad = {
                    "unknown": card(None, deck="D1"),
                    "foreign": card(rng.choice(shoe), deck="X"),
                    "joker": card("JK", deck="D1"),
                    "unreadable": CardUnreadable(device_id=DEV, at=at(), reason="no read"),
                    "lost": DeviceDisconnected(device_id=DEV, at=at(), reason="cable"),
                }[kind]
                out += feed(judge, bad)
                if kind == "lost":
                    out += feed(judge, DeviceConnected(device_id=DEV, at=at(), port="p"))
                at_card = -1
            if rng.random() < 0.02:  # the cut card may come out at any time: shoe changes follow
                out += feed(judge, cut())
            c = rng.choice(shoe)
            dealt.append(c)
            out += feed(judge, card(c, deck="D1"))
        if rng.random() < 0.1:
            out += feed(judge, card(rng.choice(shoe), deck="D1"))
        out += feed(judge, sig("round_ended", n))
        raised = {h.code.rstrip("_0123456789") for h in holds(out)}
        changes[0] += "shoe_change" in raised
        got = results(out)
        if raised & faults - {"extra_card"}:
            assert got == [], (n, kind, raised)
        else:
            assert got == [BACCARAT.evaluate({"cards": dealt})["result"]], (n, kind, dealt)
            if kind in ("unreadable", "lost"):
                first_hold = next(i for i, d in enumerate(out) if isinstance(d, Hold))
                assert first_hold < next(i for i, d in enumerate(out) if isinstance(d, ResultReady))
        judge._counts.clear()  # the test draws with replacement: keep the copy check out of the way
    assert changes[0] > 5  # shoe changes did happen
