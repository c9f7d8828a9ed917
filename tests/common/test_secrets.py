"""Random credentials: the length asked for, base62 only, every character equally likely."""

from collections import Counter

import pytest

from common.secrets import BASE62, new_secret, random_base62


@pytest.mark.parametrize("length", [0, 1, 5, 24, 43, 64, 300])
def test_random_base62_has_the_length_and_alphabet_asked_for(length):
    value = random_base62(length)
    assert len(value) == length
    assert set(value) <= set(BASE62)


def test_every_character_is_equally_likely():
    """Bytes taken modulo 62 without dropping 248-255 would make the first eight characters a
    quarter likelier (5/256 against 4/256): far outside this bound over 620,000 draws."""
    counts = Counter("".join(random_base62(62) for _ in range(10_000)))
    expected = 10_000
    assert set(counts) == set(BASE62)
    assert max(abs(n - expected) for n in counts.values()) < 600  # 6 standard deviations


def test_secrets_differ_and_carry_their_prefix():
    values = {new_secret("evt_", 24) for _ in range(1000)}
    assert len(values) == 1000
    assert all(value.startswith("evt_") and len(value) == 28 for value in values)
