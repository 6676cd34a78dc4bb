"""The misdeal of 5-card poker and its exchange variant (000:L335, L391): the void message of a real table
carries the 50 %-of-Ante fine for the platform to pay; other voids, and the poker games without that rule,
return the bets only. The dealer's console names the fine in the void dialog."""

from __future__ import annotations

import json

import pytest

from dealer_ui.views import table_meta
from recognition.games import GAMES
from streaming.canonical import load_public_key_b64, verify_message
from studio.journal import Journal, verify_journal
from studio.keys import load_or_create_key
from studio.table import DeviceSlot, Table

FINE = {"refund": "all_bets", "compensation": {"ante": "1/2"}}


@pytest.fixture
def journal(tmp_path):
    j = Journal(tmp_path, load_or_create_key(tmp_path))
    yield j
    j.close()
    report = verify_journal(tmp_path)
    assert report.ok, report.error


def void_message(journal: Journal, game_id: str, code: str) -> dict:
    table = Table(
        "poker-1",
        GAMES[game_id],
        journal,
        betting_seconds=0,
        devices=[
            DeviceSlot(device_id="poker-1/shoe", kind="serial-shoe", role="shoe", serial_number="SHOE-1")
        ],
    )
    table.open_round_by("dealer-ann")
    table.close_betting_by("dealer-ann")
    table.void_by(code, "the dealer's words", by="dealer-ann", approved_by="sup-bob")
    journal.flush()
    last = json.loads(journal.read_after(0, 10_000)[-1][1])
    assert last["kind"] == "void" and last["reason"]["code"] == code
    verify_message(last, load_public_key_b64(journal.public_key_b64))  # raises if the signature is bad
    return last


@pytest.mark.parametrize(
    ("game_id", "rule"), [("five_card_poker", "000:L335"), ("five_card_poker_exchange", "000:L391")]
)
def test_a_misdeal_void_carries_the_fine_of_half_the_ante(journal, game_id, rule):
    assert void_message(journal, game_id, "misdeal")["outcome"] == {**FINE, "rule": rule}


@pytest.mark.parametrize(
    ("game_id", "code"),
    [
        ("five_card_poker", "card_exposed"),
        ("six_card_poker", "misdeal"),
        ("joker_poker", "misdeal"),
        ("baccarat", "misdeal"),
    ],
)
def test_other_voids_return_the_bets_only(journal, game_id, code):
    assert void_message(journal, game_id, code)["outcome"] is None


def test_the_void_dialog_names_the_fine(journal):
    def reasons(game_id: str) -> dict[str, str]:
        table = Table(
            "poker-2",
            GAMES[game_id],
            journal,
            betting_seconds=0,
            devices=[
                DeviceSlot(device_id="poker-2/shoe", kind="serial-shoe", role="shoe", serial_number="S")
            ],
        )
        return {r["code"]: r["message"] for r in table_meta(table)["void_reasons"]}

    five = reasons("five_card_poker")
    assert "1/2 of the ante" in five["misdeal"] and "000:L335" in five["misdeal"]
    assert "ante" not in five["card_exposed"]
    assert "ante" not in reasons("six_card_poker")["misdeal"]
