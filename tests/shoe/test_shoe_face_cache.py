"""The shoe camera simulator keeps a bounded number of card faces (a demo deals through shoe after shoe)."""

from __future__ import annotations

from devices.shoe.vendor_table import default_vendor_table
from simulators.shoe import FACE_CACHE, CardRenderer, Imaging, Shoe


def test_the_face_cache_holds_at_most_its_bound_and_drops_the_least_recently_used() -> None:
    renderer = CardRenderer(Imaging(), "code128", seed=1)
    shoe = Shoe(default_vendor_table(), decks=8, seed=3, cut_card=None)
    cards = [shoe.next() for _ in range(3 * FACE_CACHE)]
    assert len({(c.payload, c.label) for c in cards}) == len(cards)  # every card a face of its own
    kept, dropped = renderer.face(cards[0]), renderer.face(cards[1])
    for card in cards[2:]:
        renderer.face(card)
        renderer.face(cards[0])  # drawn again each time: the least recently used go first, not this one
        assert len(renderer._faces) <= FACE_CACHE
    assert len(renderer._faces) == FACE_CACHE
    assert renderer.face(cards[0]) is kept
    assert renderer.face(cards[1]) is not dropped  # drawn anew
