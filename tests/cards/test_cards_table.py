"""Card games on a real studio table (journal, round lifecycle, feed): faults hold, people decide, nothing wrong
is certified."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from journal_records import records

from devices.events import CardDrawn, CardUnreadable
from recognition.cards import all_card_games
from studio.journal import Journal, verify_journal
from studio.keys import load_or_create_key
from studio.rounds import RoundError, RoundState
from studio.table import DeviceSlot, Table

DEV = "bac-1/shoe"


@pytest.fixture
def journal(tmp_path):
    j = Journal(tmp_path, load_or_create_key(tmp_path))
    yield j
    j.close()
    report = verify_journal(tmp_path)
    assert report.ok, report.error


def table_for(game_id: str, journal: Journal, **settings) -> Table:
    return Table(
        "bac-1",
        GAMES[game_id],
        journal,
        betting_seconds=0,
        judge_settings=settings,
        devices=[DeviceSlot(device_id=DEV, kind="serial-shoe", role="shoe", serial_number="SHOE-7")],
    )


def card(code: str | None, deck: str | None = "104729") -> CardDrawn:
    return CardDrawn(device_id=DEV, at=datetime.now(UTC), card=code, payload=f"P{code}", deck=deck)


def cut() -> CardDrawn:
    return CardDrawn(device_id=DEV, at=datetime.now(UTC), card=None, payload="CUT", special="cut_card")


def messages(journal: Journal) -> list[dict]:
    journal.flush()
    return [json.loads(t) for _, t in journal.read_after(0, 10_000)]


def deal(table: Table, cards: list[str], deck: str = "104729") -> None:
    table.open_round_by("dealer-ann")
    table.close_betting_by("dealer-ann")
    for c in cards:
        table.device_event(card(c, deck))


NATURAL = ["9S", "4D", "KH", "3C"]


GAMES = all_card_games()


def test_the_card_games_are_registered_for_dealer_paced_tables():
    for game_id in ("baccarat", "no_commission_baccarat", "golden_wealth_baccarat", "lightning_baccarat"):
        game = GAMES[game_id]
        assert game.game_id == game_id
        assert game.pacing == "dealer" and game.device_kinds == ("serial-shoe", "camera-shoe")


def test_a_dealt_round_is_certified_with_its_outcome(journal):
    table = table_for("baccarat", journal)
    deal(table, NATURAL)
    assert table.round.state is RoundState.CERTIFIED
    result = next(m for m in messages(journal) if m["kind"] == "result")
    expected = GAMES["baccarat"].evaluate({"cards": NATURAL})
    assert result["result"] == expected["result"] and result["outcome"] == expected["outcome"]
    assert result["source"]["cards"] == NATURAL and result["source"]["serial_number"] == "SHOE-7"


def test_an_unreadable_card_waits_for_the_dealer(journal):
    table = table_for("baccarat", journal)
    table.open_round_by("dealer-ann")
    table.close_betting_by("dealer-ann")
    table.device_event(card("9S"))
    table.device_event(CardUnreadable(device_id=DEV, reason="smudge"))
    for c in NATURAL[1:]:  # the re-scan, then the rest
        table.device_event(card(c))
    assert table.round.state is RoundState.RESULT_PENDING and table.round.held
    assert [m["kind"] for m in messages(journal)] == ["betting_opened", "betting_closed"]  # no result yet
    table.release_by("card_unreadable", by="dealer-ann")
    assert table.round.state is RoundState.CERTIFIED
    assert messages(journal)[-1]["result"]["player_cards"] == ["9S", "KH"]


@pytest.mark.parametrize("bad", [card(None), card("7S", deck="OTHER"), card("JK")])
def test_a_bad_card_is_never_certified_and_a_void_needs_two_people(journal, bad):
    table = table_for("baccarat", journal)
    table.open_round_by("dealer-ann")
    table.close_betting_by("dealer-ann")
    table.device_event(card("9S"))
    table.device_event(bad)
    for c in NATURAL[1:] + ["2S", "5D"]:
        table.device_event(card(c))
    assert table.round.state is RoundState.IN_PLAY and table.round.held
    with pytest.raises(RoundError, match="supervisor"):
        table.void_by("misdeal", "a card that does not belong", by="dealer-ann")
    table.void_by("misdeal", "a card that does not belong", by="dealer-ann", approved_by="sup-bob")
    assert [m["kind"] for m in messages(journal)] == ["betting_opened", "betting_closed", "void"]
    actions = [a for a in records(journal, "operator_action") if a["action"] == "void"]
    assert actions and actions[-1]["by"] == "dealer-ann" and actions[-1]["approved_by"] == "sup-bob"
    # the next round is judged afresh
    deal(table, NATURAL)
    assert table.round.state is RoundState.CERTIFIED


def test_a_manual_result_is_rechecked_by_the_rules(journal):
    table = table_for("baccarat", journal)
    table.open_round_by("dealer-ann")
    table.close_betting_by("dealer-ann")
    table.device_event(card(None))
    with pytest.raises(ValueError, match="not used by the rules"):
        table.manual_result_by(
            {"cards": NATURAL + ["2C"]}, by="dealer-ann", approved_by="sup-bob", reason="scan"
        )
    table.manual_result_by(
        {"player_cards": ["9S", "KH"], "banker_cards": ["4D", "3C"]},
        by="dealer-ann",
        approved_by="sup-bob",
        reason="barcode unreadable",
    )
    msg = messages(journal)[-1]
    assert msg["kind"] == "result" and msg["result"]["winner"] == "player"


def test_a_card_while_betting_is_open_is_voided_by_the_dealer(journal):
    table = table_for("baccarat", journal)
    table.open_round_by("dealer-ann")
    table.device_event(card("9S"))
    assert table.round.held
    table.void_by("card_exposed", "card out before betting closed", by="dealer-ann")
    assert messages(journal)[-1]["kind"] == "void"


def test_cut_card_last_hand_and_shoe_change_are_journaled(journal):
    table = table_for("baccarat", journal, shoe_start_burn="none")
    table.open_round_by("dealer-ann")
    table.close_betting_by("dealer-ann")
    table.device_event(card("9S"))
    table.device_event(cut())
    for c in NATURAL[1:]:
        table.device_event(card(c))
    deal(table, NATURAL)  # the last hand
    assert "shoe_change" in table.table_holds
    # the next round opens held; the new shoe's first card lifts the hold and the round is certified
    deal(table, NATURAL, deck="NEWSHOE")
    assert table.round.state is RoundState.CERTIFIED and "shoe_change" not in table.table_holds
    notes = [r for r in records(journal, "note")]
    codes = [n["code"] for n in notes]
    assert (
        codes.index("cut_card")
        < codes.index("last_hand")
        < codes.index("table_hold")
        < codes.index("new_shoe")
    )
    assert any("shoe_change" in n["message"] for n in notes if n["code"] == "table_hold")


def test_lightning_outcome_uses_the_committed_draw(journal):
    table = table_for("lightning_baccarat", journal)
    deal(table, NATURAL)
    msgs = messages(journal)
    assert [m["kind"] for m in msgs] == ["commitment", "betting_opened", "betting_closed", "result"]
    result = msgs[3]
    extras = result["reveal"]["extras"]
    assert len(extras["lightning_cards"]) == 5
    expected = GAMES["lightning_baccarat"].evaluate({"cards": NATURAL, "extras": extras})
    assert result["outcome"] == expected["outcome"]
    assert result["outcome"]["lightning_cards"] == extras["lightning_cards"]


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_card_game_certifies_a_dealt_round_on_a_table(journal, game_id):
    import random

    from recognition.cards.cards import SYMBOLS

    game = GAMES[game_id]
    table = Table(
        "t-1",
        game,
        journal,
        betting_seconds=0,
        devices=[DeviceSlot(device_id=DEV, kind="camera-shoe", role="shoe", serial_number="CAM-1")],
    )
    table.open_round_by("dealer-ann")
    table.close_betting_by("dealer-ann")
    extras = table.draw.extras if table.draw else None
    context = game.deal_context({"extras": extras}) if game_id == "andar_bahar" else None
    rng = random.Random(game_id)
    pool = (
        list(SYMBOLS) * 3
        if game_id == "rock_paper_scissors"
        else [c for c, n in game.shoe_spec().copies.items() if c != "JK" for _ in range(n)]
    )
    rng.shuffle(pool)
    cards: list[str] = []
    while game.next_position(cards, context) is not None:
        cards.append(pool.pop())
        table.device_event(card(cards[-1], deck=None))
    assert table.round.state is RoundState.CERTIFIED, table.round.holds
    result = [m for m in messages(journal) if m["kind"] == "result"][-1]
    expected = game.evaluate({"cards": cards, **({"extras": extras} if extras else {})})
    assert result["result"] == expected["result"] and result["outcome"] == expected["outcome"]
    assert result["game"] == game_id and result["source"]["cards"] == cards
