"""The fuzz targets of the wire parsers: one property check per parser, bytes in, AssertionError out.

Each target is a function of the bytes a device (or a feed peer) could send, run through the real parser
(the real driver's `_feed` for the line devices, so framer, parser and tracker run as on a port), that checks:

* it raises nothing but the parser's declared error (most declare none: a bad line is an event of its own);
* no event carries a value out of its range (a pocket that is not a pocket, a segment the wheel lacks...);
* garbage never becomes an event of the game (only "unknown"/"unreadable" events come of it);
* a valid line embedded in garbage is still found, where the protocol allows it;
* memory stays bounded on a flood (a held partial line is never longer than the line limit).

Seeds (`Target.seeds`) start the mutations from real lines: the SS2 targets from the real capture
(fixtures/cammegh-ss2-capture.log), the others from the lines and frames their protocols define. The suite
(tests/fuzz/test_fuzz_*.py) runs these with hypothesis; bench/fuzz.py runs the same functions in a plain
random-mutation loop for a million inputs and more.
"""

from __future__ import annotations

from fuzz_base import SS2_CAPTURE, Target, apply_edits, mutate
from fuzz_lines import (
    ball_reader_seeds,
    check_ball_reader,
    check_framer,
    check_pointer,
    check_shoe,
    check_ss2,
    pointer_seeds,
    shoe_seeds,
    ss2_seeds,
)
from fuzz_wire import (
    ball_machine_seeds,
    check_ball_machine,
    check_client_frame,
    check_client_refusal,
    check_encoder,
    check_feed_handshake,
    check_frames,
    encoder_seeds,
    feed_seeds,
    frame_seeds,
)

__all__ = ["SS2_CAPTURE", "Target", "all_targets", "apply_edits", "mutate"]


# -- all of them -----------------------------------------------------------------------------------------------


def all_targets(capture: bytes) -> dict[str, Target]:
    feed = feed_seeds()
    ss2 = ss2_seeds(capture)
    targets = [
        Target("framer", check_framer, ss2[::4] + shoe_seeds()[:2]),
        Target("ss2", check_ss2, ss2),
        Target("shoe", check_shoe, shoe_seeds()),
        Target("ball_reader", check_ball_reader, ball_reader_seeds()),
        Target("pointer", check_pointer, pointer_seeds()),
        Target("ball_machine", check_ball_machine, ball_machine_seeds()),
        Target("encoder", check_encoder, encoder_seeds()),
        Target("frames", check_frames, frame_seeds()),
        Target("feed_handshake", check_feed_handshake, feed),
        Target("client_refusal", check_client_refusal, feed[3:]),
        Target("client_frame", check_client_frame, feed[:3]),
    ]
    return {t.name: t for t in targets}
