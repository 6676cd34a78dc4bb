"""Vendor tables: the shipped default, lookups both ways, check digits, and the errors a technician sees."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from devices.shoe.vendor_table import (
    CARD_CODE_RE,
    STANDARD_CARDS,
    VendorTableError,
    default_vendor_table,
    load_vendor_table,
    luhn_digit,
    parse_vendor_table,
    vendor_table_from_option,
)

DEFAULT_FILE = Path(__file__).resolve().parents[2] / "devices" / "shoe" / "default_vendor_table.toml"


def minimal(**over):
    data = {
        "vendor": "t",
        "template": "{code:2}",
        "codes": {f"{i + 1:02d}": c for i, c in enumerate(STANDARD_CARDS)},
    }
    data.update(over)
    return data


def test_the_shipped_table_covers_every_card_once_and_two_jokers():
    t = default_vendor_table()
    assert t.vendor == "studio-default" and t.symbology == "code128" and t.check == "luhn"
    assert sorted(c for c in t.cards if c != "JK") == sorted(STANDARD_CARDS)
    assert t.cards.count("JK") == 2
    assert all(CARD_CODE_RE.fullmatch(c) for c in t.cards)
    assert t.special_payload("cut_card") == "CUT"
    # the same file, loaded by path, is the same table
    assert load_vendor_table(DEFAULT_FILE) == t
    assert vendor_table_from_option(None) is t and vendor_table_from_option("default") is t


def test_luhn_digit_matches_published_examples():
    assert luhn_digit("7992739871") == "3"  # the classic example: 79927398713
    assert luhn_digit("0") == "0"
    assert luhn_digit("4539578763621486"[:-1]) == "6"  # a valid test card number


@pytest.mark.parametrize("pack", [0, 3, 9])
def test_every_card_round_trips_through_its_payload(pack):
    t = default_vendor_table()
    payloads = set()
    for copy, card in enumerate(t.cards):
        payload = t.encode(card, deck="104729", pack=pack, copy=copy)
        assert len(payload) == 10 and payload.isdigit()
        assert payload.startswith(f"104729{pack}")
        info = t.lookup(payload)
        assert (info.status, info.card, info.deck, info.special) == ("card", card, "104729", None)
        payloads.add(payload)
    assert len(payloads) == 54  # one payload names one physical card (the two jokers differ)


def test_payload_of_the_issue_example_and_its_fields():
    t = default_vendor_table()
    info = t.lookup("1047293012")
    assert info.card == "AS" and info.fields == {"deck": "104729", "pack": "3", "code": "01", "check": "2"}


def test_every_single_digit_error_is_caught_by_the_check_digit():
    t = default_vendor_table()
    payload = t.encode("TD", deck=555123, pack=4)
    for i in range(len(payload)):
        for d in "0123456789":
            if d == payload[i]:
                continue
            wrong = payload[:i] + d + payload[i + 1 :]
            assert t.lookup(wrong).status == "bad_check", wrong


def test_adjacent_transpositions_are_caught_except_09_90():
    t = default_vendor_table()
    rng = random.Random(4)
    for _ in range(200):
        payload = t.encode(rng.choice(STANDARD_CARDS), deck=rng.randrange(10**6), pack=rng.randrange(8))
        i = rng.randrange(len(payload) - 1)
        a, b = payload[i], payload[i + 1]
        if a == b or {a, b} == {"0", "9"}:
            continue
        swapped = payload[:i] + b + a + payload[i + 2 :]
        assert t.lookup(swapped).status == "bad_check", (payload, swapped)


def test_unknown_payloads_are_never_cards():
    t = default_vendor_table()
    for payload in ("", "HELLO", "104729301", "10472930122", "1047293012 ", "ABCDEFGHIJ", "cut", "CUT0"):
        info = t.lookup(payload)
        assert info.status == "unknown" and info.card is None, payload
    # fits the scheme, valid check digit, but code 99 is not in the table: unknown, with its deck
    p = t.encode_code("99", deck=104729, pack=1)
    info = t.lookup(p)
    assert (info.status, info.card, info.deck) == ("unknown", None, "104729")
    assert t.lookup("CUT").status == "special" and t.lookup("CUT").special == "cut_card"


def test_a_card_of_another_set_has_another_deck():
    t = default_vendor_table()
    a, b = t.lookup(t.encode("QH", deck=104729)), t.lookup(t.encode("QH", deck=104730))
    assert a.card == b.card == "QH" and (a.deck, b.deck) == ("104729", "104730")


def test_alphanumeric_scheme_with_literals_deck_id_and_no_check():
    t = parse_vendor_table(
        {
            "vendor": "acme",
            "template": "AC-{deck:4}/{pack:1}-{code:2}",
            "charset": "alnum",
            "deck_id": "{deck}.{pack}",
            "codes": {f"{c}": c for c in STANDARD_CARDS} | {"J1": "JK"},
            "specials": {"AC-CUT": "cut_card"},
        }
    )
    p = t.encode("9C", deck="X7Q2", pack=2)
    assert p == "AC-X7Q2/2-9C"
    assert t.lookup(p).card == "9C" and t.lookup(p).deck == "X7Q2.2"
    assert t.lookup("AC-x7q2/2-9C").status == "unknown"  # lower case is not in the charset
    assert t.lookup("AC-CUT").special == "cut_card"


def test_a_table_without_deck_field_reports_no_deck():
    t = parse_vendor_table(minimal())
    assert t.lookup("01").card == "AS" and t.lookup("01").deck is None


@pytest.mark.parametrize(
    "over, message",
    [
        ({"template": "{deck:6}{pack:1}"}, "needs a {code:N} field"),
        ({"template": "{code:2}{colour:1}"}, "{colour} is unknown"),
        ({"template": "{code:2}{code:2}"}, "appears twice"),
        ({"template": "{code:2}{check:1}"}, "set check = 'luhn'"),
        ({"template": "{check:1}{code:2}", "check": "luhn"}, "end with {check:1}"),
        ({"template": "X{code:2}{check:1}", "check": "luhn"}, "all-digit payload"),
        ({"template": "{code:2"}, "written {name:width}"),
        ({"codes": {"01": "AS", "02": "AS"}, "require_full_deck": False}, "AS is given by two codes"),
        ({"codes": {"01": "1S"}, "require_full_deck": False}, "'1S' is not a card"),
        ({"codes": {"1": "AS"}, "require_full_deck": False}, "not a 2-character digits code"),
        ({"codes": {"01": "AS"}}, "51 standard card(s) missing"),
        ({"specials": {"07": "cut_card"}}, "also fits the template"),
        ({"specials": {"CUT": "burn_card"}}, "specials.CUT"),
        ({"deck_id": "{deck}"}, "deck_id"),
        ({"symbology": "ean13"}, "symbology"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_table_errors_name_the_key_and_the_problem(over, message):
    with pytest.raises(VendorTableError) as exc:
        parse_vendor_table(minimal(**over), "shoe.toml")
    assert message in str(exc.value) and str(exc.value).startswith("shoe.toml: ")


def test_files_toml_and_json_and_their_errors(tmp_path):
    toml = tmp_path / "vendor.toml"
    toml.write_text(DEFAULT_FILE.read_text().replace('"studio-default"', '"copy"'))
    assert load_vendor_table(toml).vendor == "copy"
    js = tmp_path / "vendor.json"
    js.write_text(json.dumps(minimal(vendor="j")))
    assert load_vendor_table(js).lookup("13").card == "KS"
    assert vendor_table_from_option(str(js)).vendor == "j"
    bad = tmp_path / "bad.toml"
    bad.write_text("vendor = \n")
    with pytest.raises(VendorTableError, match=r"bad.toml: not valid TOML"):
        load_vendor_table(bad)
    with pytest.raises(VendorTableError, match=r"missing.toml: cannot read"):
        load_vendor_table(tmp_path / "missing.toml")
    wrong = tmp_path / "wrong.toml"
    wrong.write_text('vendor = "w"\ntemplate = "{code:2}"\n[codes]\n"01" = "ZZ"\n')
    with pytest.raises(VendorTableError, match=r"wrong.toml: .*'ZZ' is not a card"):
        load_vendor_table(wrong)


def test_encoding_refuses_what_the_scheme_cannot_print():
    t = default_vendor_table()
    with pytest.raises(KeyError):
        t.encode("ZZ")
    with pytest.raises(ValueError, match="deck"):
        t.encode("AS", deck="1234567")
    with pytest.raises(ValueError, match="pack"):
        t.encode("AS", pack=10)


def test_the_technicians_check_tool(tmp_path, capsys):
    from devices.shoe.vendor_table import main

    assert main(["1047293012", "1047293013", "CUT", "--print", "QH", "--deck", "104729", "--pack", "3"]) == 0
    out = capsys.readouterr().out
    assert "OK - vendor 'studio-default'" in out and "'1047293012': card card=AS" in out
    assert "'1047293013': bad_check" in out and "special=cut_card" in out
    assert default_vendor_table().lookup(out.splitlines()[1]).card == "QH"
    bad = tmp_path / "bad.toml"
    bad.write_text('vendor = "b"\ntemplate = "{code:2}"\n[codes]\n"01" = "AS"\n')
    assert main(["--table", str(bad)]) == 1
    assert "standard card(s) missing" in capsys.readouterr().out
