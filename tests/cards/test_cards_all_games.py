"""Properties every card game keeps: the judge, evaluate and validate_result agree on random deals; outcomes
hold no floats; too few and too many cards are refused by name; every game registers for dealer pacing."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime

import pytest

from devices.events import CardDrawn
from recognition.cards import CardGame, all_card_games
from recognition.cards.cards import SYMBOLS
from recognition.game import Hold, ResultReady, RoundSignal

GAMES = all_card_games()
T = datetime(2026, 1, 1, tzinfo=UTC)

EXPECTED = {
    "baccarat",
    "no_commission_baccarat",
    "golden_wealth_baccarat",
    "lightning_baccarat",
    "dragon_tiger",
    "kricket_war",
    "football_studio",
    "war_of_bets",
    "andar_bahar",
    "speedy_7",
    "side_bet_city",
    "twenty_one_bet",
    "jokerbet",
    "rock_paper_scissors",
    "three_card_poker",
    "teen_patti",
    "caribbean_stud",
    "casino_holdem",
    "casino_holdem_land",
    "texas_holdem",
}


def test_every_game_is_registered():
    assert set(GAMES) == EXPECTED
    for game_id, game in GAMES.items():
        assert isinstance(game, CardGame) and game.game_id == game_id
        assert game.pacing == "dealer" and game.device_kinds == ("serial-shoe", "camera-shoe")


def shoe_cards(game: CardGame) -> list[str]:
    spec = game.shoe_spec()
    if game.game_id == "rock_paper_scissors":
        return list(SYMBOLS) * 20
    return [c for c, n in spec.copies.items() if c != "JK" for _ in range(n)]


def random_deal(game: CardGame, rng: random.Random, context, pool: list[str] | None = None) -> list[str]:
    """A deal from `pool` (a shuffled shoe that lasts across rounds), or from a fresh shuffled shoe."""
    if pool is None:
        pool = shoe_cards(game)
        rng.shuffle(pool)
    cards: list[str] = []
    while game.next_position(cards, context) is not None:
        cards.append(pool.pop())
    return cards


def no_floats(value) -> bool:
    if isinstance(value, float):
        return False
    if isinstance(value, dict):
        return all(no_floats(v) for v in value.values())
    if isinstance(value, list):
        return all(no_floats(v) for v in value)
    return True


@pytest.mark.parametrize("game_id", sorted(EXPECTED))
def test_judge_evaluate_and_validate_agree_on_random_deals(game_id):
    game = GAMES[game_id]
    rng = random.Random(game_id)
    judge = game.new_judge()
    pool: list[str] = []
    for n in range(1, 121):
        extras = game.draw_extras(rng)
        item = {"extras": extras} if extras else {}
        context = game.deal_context(item or None) if game_id == "andar_bahar" else None
        if (
            game.reshuffle_each_round or len(pool) < 60
        ):  # a fresh deck, or a new shoe (and a new judge for it)
            pool = shoe_cards(game)
            rng.shuffle(pool)
            if not game.reshuffle_each_round:
                judge = game.new_judge()
        cards = random_deal(game, rng, context, pool)
        evaluated = game.evaluate({"cards": cards, **item})
        result, outcome = evaluated["result"], evaluated["outcome"]
        assert game.validate_result(result) == result
        assert (
            game.validate_result({"cards": cards, **({"first_side": context} if context else {})}) == result
        )
        assert no_floats(evaluated) and json.loads(json.dumps(evaluated)) == evaluated
        for w in outcome["winning_bets"]:
            assert set(w) <= {"bet", "payout", "multiplier"}
            if "payout" in w:
                assert isinstance(w["payout"], int) or "/" in w["payout"]
        # the judge, fed the same cards, certifies the same result
        decisions = []
        for item_ in [
            RoundSignal(signal="round_opened", round_number=n, at=T),
            RoundSignal(signal="betting_closed", round_number=n, at=T, extras=extras),
        ]:
            decisions += judge.feed(item_)
        for c in cards:
            decisions += judge.feed(CardDrawn(device_id="t/shoe", at=T, card=c, payload=c))
        decisions += judge.feed(RoundSignal(signal="round_ended", round_number=n, at=T))
        ready = [d for d in decisions if isinstance(d, ResultReady)]
        assert [d.result for d in ready] == [result], (n, cards)
        assert not [d for d in decisions if isinstance(d, Hold)], (n, cards)
        # one card less is too few and names the position; one more is not used by the rules
        with pytest.raises(ValueError, match=r"too few cards .* the next card is "):
            game.evaluate({"cards": cards[:-1], **item})
        with pytest.raises(ValueError, match="not used by the rules"):
            game.evaluate({"cards": cards + [cards[-1]], **item})


@pytest.mark.parametrize("game_id", sorted(EXPECTED))
def test_results_typed_by_people_are_rechecked(game_id):
    game = GAMES[game_id]
    rng = random.Random(1)
    extras = game.draw_extras(rng)
    item = {"extras": extras} if extras else {}
    context = game.deal_context(item or None) if game_id == "andar_bahar" else None
    result = game.evaluate({"cards": random_deal(game, rng, context), **item})["result"]
    for key, value in result.items():
        wrong = [value] if not isinstance(value, list) else value[:-1]
        if isinstance(value, bool):
            wrong = not value
        elif isinstance(value, int):
            wrong = value + 1
        elif isinstance(value, str):
            wrong = value + "x"
        with pytest.raises(ValueError):
            game.validate_result({**result, key: wrong})
    with pytest.raises(ValueError):
        game.validate_result({})
