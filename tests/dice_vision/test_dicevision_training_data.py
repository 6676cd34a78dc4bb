"""The learned reader's training data list: the split, the real boxes and what each network was trained on
never name a validation photo (the repository's files only: the photos themselves are not read)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path

from recognition.dice.classifier import MODEL as CLASSIFIER
from recognition.dice.detector import MODEL as DETECTOR
from recognition.dice.learned import POLICY
from training.dice.data import BOXES, RECORD, SPLIT, part_of, tuning

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "dice-photos"


def test_the_split_is_the_rule_it_states_and_its_parts_do_not_meet() -> None:
    split = json.loads(SPLIT.read_text())
    fit, validate = set(split["fit"]), set(split["validate"])
    assert not fit & validate and len(fit) > 2 * len(validate) > 0
    assert all(part_of(n) == "fit" for n in fit) and all(part_of(n) == "validate" for n in validate)
    # the fixture photos the tests call validation photos are validation photos
    roles = json.loads((FIXTURES / "roles.json").read_text())
    assert set(roles["validate"]) <= validate and set(roles["regression"]) <= fit


def test_the_real_boxes_are_of_fit_photos_only_and_give_their_labels() -> None:
    split = json.loads(SPLIT.read_text())
    doc = json.loads(BOXES.read_text())
    assert set(doc["photos"]) <= set(split["fit"])
    assert "MIT" in doc["sources"]["wood-white"] and "BSD-3-Clause" in doc["sources"]["tray-colour"]
    for entry in doc["photos"].values():
        assert all(1 <= b[0] <= 6 and all(0 < v < 1.0001 for v in b[1:]) for b in entry["boxes"])


def test_each_network_was_trained_on_fit_photos_only_and_not_on_the_tuning_ones() -> None:
    split = json.loads(SPLIT.read_text())
    record = json.loads(RECORD.read_text())
    tune = set(record["tuning_photos"])
    assert tune and tune <= set(split["fit"]) and all(tuning(n) for n in tune)
    for network, path in (("detector", DETECTOR), ("classifier", CLASSIFIER)):
        trained = set(record[network]["photos"])
        assert trained <= set(split["fit"]) - tune, network
        assert len(trained) >= 200 and isinstance(record[network]["seed"], int)
        assert path.stat().st_size < 4_000_000
        # the weights committed are the ones the record describes
        assert hashlib.sha256(path.read_bytes()).hexdigest() == record[network]["onnx_sha256"], network


def test_the_record_is_the_rebuilds_own_and_describes_the_committed_files() -> None:
    """training.json is written by the training and tuning runs, not by hand: the classifier's hard
    negatives came from the committed detector, and the policy's figures were measured with the
    committed networks and are the committed thresholds'."""
    record = json.loads(RECORD.read_text())
    detector_sha = hashlib.sha256(DETECTOR.read_bytes()).hexdigest()
    assert record["classifier"]["hard_negatives_from"] == {"file": DETECTOR.name, "sha256": detector_sha}
    assert record["classifier"]["cocked_renders"] > 0
    policy = record["policy"]
    assert policy["thresholds"] == dataclasses.asdict(POLICY)
    assert policy["models_sha256"] == {
        DETECTOR.name: detector_sha,
        CLASSIFIER.name: hashlib.sha256(CLASSIFIER.read_bytes()).hexdigest(),
    }
    # on the tuning set nothing is certified wrong, cocked dice of any look included
    assert policy["tally"]["cocked, any look"].get("WRONG", 0) == 0
    assert all(v.get("WRONG", 0) == 0 for v in policy["tally"].values())
