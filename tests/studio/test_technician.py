"""The technician's studio services ask a driver what it declares (devices/abilities.py), never its kind; the
journal of what people did refuses clearly when it cannot write."""

import inspect
import sqlite3

import pytest

from devices import abilities
from devices.registry import all_drivers
from studio import technician
from studio.action_journal import ActionJournal, JournalUnavailable
from studio.journal import JOURNAL_FILE, Journal
from studio.keys import load_or_create_key
from studio.table import DeviceSlot

ABILITIES = [
    abilities.ReadsCards,
    abilities.DecodesImages,
    abilities.LocatesWheel,
    abilities.KeepsFrames,
    abilities.SelfTests,
    abilities.ReadsBalls,
    abilities.ReadsWheelPosition,
    abilities.ReadsWheelPointer,
]


def _slot(kind: str) -> DeviceSlot:
    return DeviceSlot(device_id=f"t/{kind}", kind=kind, role="device", serial_number="SN-1")


@pytest.mark.parametrize("kind", sorted(all_drivers()))
def test_every_driver_can_be_made_with_the_abilities_it_declares(kind: str) -> None:
    """An ability is a promise: a driver declaring one implements all of it (no abstract member left)."""
    cls = all_drivers()[kind]
    assert not inspect.isabstract(cls), f"{kind}: {sorted(getattr(cls, '__abstractmethods__', ()))}"
    if issubclass(cls, abilities.SelfTests):
        assert isinstance(cls.self_test_command, str) and cls.self_test_command.strip()


def test_some_driver_declares_each_ability() -> None:
    drivers = all_drivers().values()
    unused = [a.__name__ for a in ABILITIES if not any(issubclass(cls, a) for cls in drivers)]
    assert not unused, f"abilities no driver declares: {unused}"


def test_the_self_test_is_the_one_its_driver_declares_even_before_the_device_starts() -> None:
    assert technician.self_test_command(_slot("cammegh-ss2")) == "*F"
    assert technician.self_test_command(_slot("serial-shoe")) is None
    assert technician.self_test_command(_slot("not-a-kind")) is None


def test_a_driver_that_keeps_no_frame_gives_none() -> None:
    assert technician.last_frame(_slot("roulette-camera")) is None  # not started: no driver, no frame
    assert technician.last_frame(_slot("serial-shoe")) is None


def test_decoding_needs_a_driver_that_decodes_pictures() -> None:
    with pytest.raises(LookupError, match="camera shoe"):
        technician.decode_image(_slot("serial-shoe"), b"not a picture")


def test_what_people_did_is_journaled_and_a_closed_journal_refuses_in_words(tmp_path) -> None:
    journal = Journal(tmp_path, load_or_create_key(tmp_path))
    actions = ActionJournal(journal)
    actions.record("console_action", {"action": "open_round", "by": "dana"}, table_id="t1")
    journal.close()
    with pytest.raises(JournalUnavailable, match="Stop and call a technician"):
        actions.record("console_action", {"action": "void", "by": "dana"}, table_id="t1")
    with sqlite3.connect(tmp_path / JOURNAL_FILE) as db:
        kinds = [row[0] for row in db.execute("SELECT kind FROM records")]
    assert kinds.count("console_action") == 1
