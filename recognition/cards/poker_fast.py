"""`studio evaluate`'s fast paths of the poker games against the dealer (recognition/cards/poker_games.py).
Pure.

Each reads a complete deal's cards (recognition.evaluate_fast.CardLines has checked them against the deck)
and names the answer's head (the result's cards, echoed) and the facts that decide the rest of it: the hands'
categories, whether the dealer qualifies, the winner, the side bets' hands. The best five of seven come from
`best_value`, not from ranking every five of them.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence

from .cards import ACE_HIGH
from .poker import PAIR, HandValue, best_category, best_value, compare, rank3

Shaped = tuple[str, Hashable] | None


def rank5(cards: Sequence[str], _high: dict[str, int] = ACE_HIGH) -> HandValue:
    """`recognition.cards.poker.rank5` of five cards, by the shapes a sorted hand can take."""
    c0, c1, c2, c3, c4 = cards
    a, b, c, d, e = sorted(
        (_high[c0[0]], _high[c1[0]], _high[c2[0]], _high[c3[0]], _high[c4[0]]), reverse=True
    )
    flush = c0[1] == c1[1] == c2[1] == c3[1] == c4[1]
    if a > b > c > d > e:
        high = a if a - e == 4 else 5 if a == 14 and b == 5 else 0
        if high:
            if flush:
                return (9,) if high == 14 else (8, high)
            return (4, high)
        return (5, a, b, c, d, e) if flush else (0, a, b, c, d, e)
    if flush:
        return (5, a, b, c, d, e)
    if a == e:  # five of a kind (several decks): no shape of poker's, so a high card, as rank5 has it
        return (0, a, b, c, d, e)
    if a == d or b == e:
        return (7, b, e if a == d else a)
    if a == c and d == e:
        return (6, a, d)
    if a == b and c == e:
        return (6, c, a)
    if a == c:
        return (3, a, d, e)
    if b == d:
        return (3, b, a, e)
    if c == e:
        return (3, c, a, b)
    if a == b:
        if c == d:
            return (2, a, c, e)
        if d == e:
            return (2, a, d, c)
        return (1, a, c, d, e)
    if b == c:
        return (2, b, d, a) if d == e else (1, b, a, d, e)
    if c == d:
        return (1, c, a, b, e)
    return (1, d, a, b, c)


def _cards(cards: list[str]) -> str:
    return '["' + '","'.join(cards) + '"]'


def side_bet_city(cards: list[str]) -> Shaped:
    if len(cards) != 7:
        return None
    five = rank5(cards[:5])
    facts = (rank3(cards[:3])[0], five[0], five[0] == PAIR and five[1] >= 11, best_category(cards))
    return f'"valid":true,"result":{{"cards":{_cards(cards)},', facts


def caribbean_stud(cards: list[str]) -> Shaped:
    if len(cards) != 10:
        return None
    player, dealer = cards[:5], cards[5:]
    p, d = rank5(player), rank5(dealer)
    qualifies = d[0] > 0 or (d[1] == 14 and d[2] == 13)
    facts = (p[0], d[0], qualifies, compare(p, d), best_category(player + dealer[:1]))
    head = (
        f'"valid":true,"result":{{"player_cards":{_cards(player)},"dealer_cards":{_cards(dealer)},'
        f'"dealer_up_card":"{dealer[0]}",'
    )
    return head, facts


def five_card_poker(cards: list[str]) -> Shaped:
    """5-card poker (recognition/draw_poker): the result echoes the deal, then the two hands."""
    if len(cards) != 10:
        return None
    player, dealer = cards[:5], cards[5:]
    p, d = rank5(player), rank5(dealer)
    qualifies = d[0] > 0 or (d[1] == 14 and d[2] == 13)
    head = (
        f'"valid":true,"result":{{"cards":{_cards(cards)},"player_cards":{_cards(player)},'
        f'"dealer_cards":{_cards(dealer)},"dealer_up_card":"{dealer[0]}",'
    )
    return head, (p[0], d[0], qualifies, compare(p, d))


def holdem(qualifies: Callable[[HandValue], bool]) -> Callable[[list[str]], Shaped]:
    """Casino and Texas Hold'em: the facts add the Bonus bet's hand (the player's two and the flop)."""

    def shape(cards: list[str]) -> Shaped:
        if len(cards) != 9:
            return None
        player, dealer, board = cards[:2], cards[2:4], cards[4:]
        p, d = best_value(player + board), best_value(dealer + board)
        first5 = rank5(player + board[:3])
        facts = (p[0], d[0], qualifies(d), compare(p, d), first5[0], first5[0] == PAIR and first5[1] == 14)
        head = (
            f'"valid":true,"result":{{"player_cards":{_cards(player)},"dealer_cards":{_cards(dealer)},'
            f'"board":{_cards(board)},'
        )
        return head, facts

    return shape
