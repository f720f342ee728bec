"""Philox-4x32-10 against the Random123 known-answer vectors (kat_vectors, philox4x32_10).

The vectors come from Random123's own test suite, not from this code.
"""

import pytest

from bootmark.reference import philox

KNOWN_ANSWERS = [
    (
        (0x00000000, 0x00000000, 0x00000000, 0x00000000),
        (0x00000000, 0x00000000),
        (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8),
    ),
    (
        (0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF),
        (0xFFFFFFFF, 0xFFFFFFFF),
        (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD),
    ),
    (
        (0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344),
        (0xA4093822, 0x299F31D0),
        (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1),
    ),
]


def known_answer_mismatches(function):
    """Indices of the known-answer vectors that ``function`` gets wrong."""
    return [i for i, (counter, key, expected) in enumerate(KNOWN_ANSWERS) if tuple(function(counter, key)) != expected]


def test_reference_philox_matches_random123_vectors():
    assert known_answer_mismatches(philox.philox4x32_10) == []


@pytest.mark.parametrize("constant", ["PHILOX_M0", "PHILOX_M1", "PHILOX_W0", "PHILOX_W1"])
def test_negative_control_one_wrong_constant_fails(monkeypatch, constant):
    monkeypatch.setattr(philox, constant, getattr(philox, constant) ^ 0x10)
    assert known_answer_mismatches(philox.philox4x32_10) != []


def test_negative_control_nine_rounds_fails(monkeypatch):
    monkeypatch.setattr(philox, "PHILOX_ROUNDS", 9)
    assert known_answer_mismatches(philox.philox4x32_10) == [0, 1, 2]
