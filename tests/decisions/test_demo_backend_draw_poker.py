"""The demo backend's draw-poker answers: always a decision the rules take."""

from studio.demo_backend import draw_choice


def test_a_high_card_exchanges_its_lowest_card_or_buys():
    detail = {"player_cards": ["KS", "2H", "9D", "JC", "5S"], "player_hand": "high_card", "max_discards": 1}
    assert draw_choice(["discard", "keep"], detail) == ("discard", ["2H"])
    assert draw_choice(["buy", "keep"], detail) == ("buy", [])


def test_a_made_hand_is_kept():
    detail = {"player_cards": ["KS", "KH", "9D", "JC", "5S"], "player_hand": "pair"}
    assert draw_choice(["discard", "keep"], detail) == ("keep", [])
    assert draw_choice(["buy", "keep"], detail) == ("keep", [])
