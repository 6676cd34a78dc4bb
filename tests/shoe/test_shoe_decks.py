"""Decks other than the 52 cards in the vendor table (symbol cards, named jokers, short decks), and the
simulated dealer who shuffles a single deck before every round."""

from __future__ import annotations

from collections import Counter

import pytest

from devices.shoe.vendor_table import (
    VendorTableError,
    default_vendor_table,
    parse_vendor_table,
    symbol_vendor_table,
    vendor_table_from_option,
)
from recognition.games import GAMES
from simulators.shoe import Shoe, ShoeSimulator
from studio.game_catalog import shoe_vendor_table

BASE = {"vendor": "v", "template": "{pack:1}{code:2}", "deck": "symbols"}


def test_the_shipped_symbol_deck_reads_and_deals_symbols():
    table = vendor_table_from_option("symbols")
    assert table is symbol_vendor_table() and table.deck == "symbols"
    shoe = Shoe(table, decks=2, seed=3, cut_card=None)
    cards = [shoe.next() for _ in range(24)]
    assert Counter(c.card for c in cards) == {"ROCK": 8, "PAPER": 8, "SCISSORS": 8}
    assert len({c.payload for c in cards}) == 24  # one payload per physical card
    assert all(table.lookup(c.payload).card == c.card for c in cards)


def test_a_symbol_deck_is_checked_like_any_other():
    full = {"10": "ROCK", "11": "PAPER", "12": "SCISSORS"}
    assert parse_vendor_table({**BASE, "codes": full}).cards == ("ROCK", "PAPER", "SCISSORS")
    with pytest.raises(VendorTableError, match="1 symbols card.s. missing: SCISSORS"):
        parse_vendor_table({**BASE, "codes": {"10": "ROCK", "11": "PAPER"}})
    with pytest.raises(VendorTableError, match="'AS' is not a card of a symbols deck"):
        parse_vendor_table({**BASE, "codes": {**full, "13": "AS"}})
    with pytest.raises(VendorTableError, match="set deck = 'symbols'"):
        parse_vendor_table({**BASE, "deck": "standard", "require_full_deck": False, "codes": full})
    with pytest.raises(VendorTableError, match="'LIZARD' is not a card"):
        parse_vendor_table({**BASE, "codes": {**full, "13": "LIZARD"}})


@pytest.mark.parametrize(
    ("game_id", "size", "extra"),
    [("jokerbet", 54, {"RJ", "BJ"}), ("joker_poker", 53, {"JK"}), ("twenty_one_bet", 36, set())],
)
def test_a_games_deck_is_a_vendor_table_of_just_its_cards(game_id, size, extra):
    table = parse_vendor_table(shoe_vendor_table(GAMES[game_id]))
    cards = table.cards
    assert len(cards) == size and extra <= set(cards)
    assert set(cards) <= set(GAMES[game_id].shoe_spec(GAMES[game_id].decks).copies) | {"JK"}
    assert shoe_vendor_table(GAMES["baccarat"]) is None  # the shipped table is the 52 cards
    assert shoe_vendor_table(GAMES["rock_paper_scissors"]) == "symbols"
    assert default_vendor_table().lookup(table.encode(cards[0])).card == cards[0]  # same barcodes


def test_a_single_deck_is_shuffled_for_every_round():
    sim = ShoeSimulator("serial", decks=1, seed=4, reshuffle_each_round=True, deal_interval=0.001)
    try:
        assert sim.shoe.cut_card is None
        firsts = []
        for n in range(3):
            sim.table_event("round", {"round_id": f"r{n}", "transition": "close_betting"})
            firsts.append(sim.shoe.remaining)
        assert firsts == [52, 52, 52]  # a whole deck each round, the first card queued from it
    finally:
        sim.stop()
