"""CameraTracker, pure: observations of frames in, card events out."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from devices.shoe.tracking import CameraTracker
from devices.shoe.vendor_table import default_vendor_table
from devices.shoe.vision import CardRegion, Observation, Read

T = default_vendor_table()
AS, KD, QH = (T.encode(c, deck=104729, pack=1) for c in ("AS", "KD", "QH"))
T0 = datetime(2026, 1, 1, tzinfo=UTC)
WHOLE = CardRegion((640, 360), (480, 340), 0.0, False, 150000)
EDGE = CardRegion((1200, 360), (480, 340), 0.0, True, 60000)


def card(*texts: str, cards: int = 1) -> Observation:
    return Observation(
        "card", tuple(Read(t, "code128", 100.0 * i) for i, t in enumerate(texts)), (WHOLE,) * cards
    )


def partial(*texts: str) -> Observation:
    return Observation("partial", tuple(Read(t, "code128") for t in texts), (EDGE,))


EMPTY = Observation("empty")


class Run:
    """Feeds observations at 30 frames a second and keeps every event."""

    def __init__(self, **options) -> None:
        self.tracker = CameraTracker("t/shoe", T, **options)
        self.index = 0
        self.events: list = []

    def feed(self, *observations: Observation) -> list:
        out = []
        for obs in observations:
            self.index += 1
            now = self.index / 30
            out += self.tracker.observe(obs, now=now, at=T0 + timedelta(seconds=now), index=self.index)
        self.events += out
        return out

    def kinds(self) -> list[tuple[str, str | None]]:
        return [(e.kind, getattr(e, "card", None)) for e in self.events]


def passage(*middle: Observation) -> list[Observation]:
    return [partial(), *middle, partial(), EMPTY, EMPTY]


def test_a_card_read_in_two_frames_is_drawn_once_at_its_first_read():
    r = Run()
    r.feed(partial(), card(AS))
    assert r.events == []  # one read: not confirmed yet
    r.feed(card(AS))
    assert r.kinds() == [("card_drawn", "AS")]
    drawn = r.events[0]
    assert drawn.at == T0 + timedelta(seconds=2 / 30) and drawn.deck == "104729" and "frames 2-3" in drawn.raw
    r.feed(*[card(AS)] * 20, partial(), EMPTY, EMPTY)
    assert r.kinds() == [("card_drawn", "AS")]  # still in view, then gone: one card


def test_confirm_reads_1_draws_at_once():
    r = Run(confirm_reads=1)
    assert [e.card for e in r.feed(card(AS))] == ["AS"]


def test_a_card_read_only_once_is_unreadable_never_a_card():
    r = Run()
    r.feed(*passage(card(AS), card(), card()))
    assert r.kinds() == [("card_unreadable", None)]
    assert "1 frame(s) only" in r.events[0].reason and AS in r.events[0].raw


def test_an_unread_card_in_view_is_reported_after_n_frames_and_only_once():
    r = Run(unreadable_frames=4)
    r.feed(partial(), *[card()] * 3)
    assert r.events == []
    r.feed(card())
    assert r.kinds() == [("card_unreadable", None)]
    r.feed(*[card()] * 10, partial(), EMPTY, EMPTY)
    assert r.kinds() == [("card_unreadable", None)]


def test_a_card_that_went_by_too_fast_is_reported_when_it_leaves():
    r = Run(unreadable_frames=6, min_unreadable=2)
    r.feed(*passage(card(), card()))
    assert r.kinds() == [("card_unreadable", None)]
    assert "went by" in r.events[0].reason


def test_one_blurred_frame_is_no_card():
    r = Run(min_unreadable=2)
    r.feed(*passage(card()))
    r.feed(*passage(card(KD), card(), card(KD)))
    assert r.kinds() == [("card_drawn", "KD")]


def test_a_second_card_following_without_a_gap_is_not_lost():
    r = Run(unreadable_frames=6, min_unreadable=3)
    # KD read, then (same passage, no empty frame) a card that cannot be read for 3 frames, then gone
    r.feed(partial(), card(KD), card(KD), partial(), card(), card(), card(), partial(), EMPTY, EMPTY)
    assert r.kinds() == [("card_drawn", "KD"), ("card_unreadable", None)]


def test_an_unreadable_card_followed_without_a_gap_by_a_readable_one_is_not_lost():
    r = Run(unreadable_frames=6, min_unreadable=3)
    r.feed(partial(), card(), card(), card(), card(), partial(), card(KD), card(KD), partial(), EMPTY, EMPTY)
    assert r.kinds() == [("card_unreadable", None), ("card_drawn", "KD")]
    assert "then another card was read" in r.events[0].reason


def test_a_card_read_after_a_short_blur_is_no_extra_card():
    r = Run(unreadable_frames=6, min_unreadable=3)
    r.feed(partial(), card(), card(), card(KD), card(KD), partial(), EMPTY, EMPTY)
    assert r.kinds() == [("card_drawn", "KD")]


def test_edge_frames_count_neither_way():
    r = Run(unreadable_frames=3)
    r.feed(*[partial()] * 20)
    r.feed(EMPTY, EMPTY)
    assert r.events == []


def test_misreads_failing_the_check_digit_are_dropped():
    bad = AS[:-1] + str((int(AS[-1]) + 3) % 10)
    r = Run()
    r.feed(*passage(card(bad), card(AS), card(AS, bad), card(AS)))
    assert r.kinds() == [("card_drawn", "AS")]
    assert r.tracker.counts["misreads"] == 2


def test_two_valid_payloads_from_one_card_make_the_frame_ambiguous():
    r = Run()
    r.feed(partial(), card(AS, KD), card(AS, KD), card(AS, KD))
    assert r.events == [] and r.tracker.counts["conflicts"] == 3
    r.feed(card(AS), card(AS), partial(), EMPTY, EMPTY)
    assert r.kinds() == [("card_drawn", "AS")]


def test_cards_are_reported_in_the_order_first_read_even_if_confirmed_later():
    r = Run()
    # two cards in view: AS read first once, KD read twice, then AS again
    r.feed(partial(), card(AS, cards=2), card(KD, cards=2), card(KD, cards=2))
    assert r.events == []  # KD is confirmed but waits for AS, read before it
    r.feed(card(AS, KD, cards=2))
    assert r.kinds() == [("card_drawn", "AS"), ("card_drawn", "KD")]


def test_two_cards_first_read_in_one_frame_cannot_be_ordered():
    r = Run()
    r.feed(partial(), card(AS, KD, cards=2), card(AS, KD, cards=2))
    kinds = r.kinds()
    assert kinds == [("card_unreadable", None), ("card_drawn", "AS"), ("card_drawn", "KD")]
    assert "order cannot be told" in r.events[0].reason


def test_a_double_read_with_the_card_hidden_between_folds():
    r = Run(fold_window=1.0)
    r.feed(partial(), card(QH), card(QH), EMPTY, EMPTY, EMPTY, card(QH), card(QH), partial(), EMPTY, EMPTY)
    assert r.kinds() == [("card_drawn", "QH")]


def test_the_same_payload_after_the_window_is_a_second_draw():
    r = Run(fold_window=0.5)
    r.feed(*passage(card(QH), card(QH)))
    r.feed(*[EMPTY] * 20)  # 0.67 s
    r.feed(*passage(card(QH), card(QH)))
    assert r.kinds() == [("card_drawn", "QH"), ("card_drawn", "QH")]
    assert r.events[0].payload == r.events[1].payload


def test_a_pending_read_expires_when_not_seen_again_within_the_window():
    r = Run(fold_window=0.2)
    r.feed(card(AS), *[card()] * 2)
    assert r.events == []
    r.feed(*[partial()] * 6)  # 0.2 s later, still something in view
    assert r.kinds() == [("card_unreadable", None)]


def test_flush_reports_what_the_link_took_away():
    r = Run()
    r.feed(partial(), card(AS))
    r.feed(card(), card())
    out = r.tracker.flush(now=1.0, at=T0, why="the source dropped")
    assert [(e.kind, "the source dropped" in e.reason) for e in out] == [("card_unreadable", True)] * 2
    assert r.tracker.flush(now=1.1, at=T0, why="again") == []


def test_the_cut_card_and_unknown_barcodes_are_facts_not_guesses():
    r = Run()
    r.feed(*passage(card("CUT"), card("CUT")))
    r.feed(*passage(card("PROMO-0042"), card("PROMO-0042")))
    other = T.encode("AS", deck=123456, pack=0)
    r.feed(*passage(card(other), card(other)))
    assert [(e.card, e.special, e.deck, e.payload) for e in r.events] == [
        (None, "cut_card", None, "CUT"),
        (None, None, None, "PROMO-0042"),
        ("AS", None, "123456", other),
    ]


def test_bad_settings_are_refused():
    with pytest.raises(ValueError):
        CameraTracker("t", T, confirm_reads=0)
