"""Privacy parameters read as exact fractions (isdp.exact.as_fraction and the forms ``isdp release`` reads)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from isdp.exact import as_fraction


@pytest.mark.parametrize("bad", ["0", "-1", "abc", "nan"])
def test_as_fraction_refuses_non_positive_or_non_numbers(bad):
    with pytest.raises(ValueError):
        as_fraction(bad)


def test_as_fraction_reads_decimals_exactly():
    assert as_fraction("0.1") == Fraction(1, 10)


@pytest.mark.parametrize("bad", ["1_0", "١", "１", " 1", "+1", "inf", "1/0", "1e12345", "1" * 101, True])
def test_only_the_stated_number_forms_are_read(bad):
    """Forms Python would read but a privacy parameter should not be typed in are refused (_read_number)."""
    with pytest.raises(ValueError):
        as_fraction(bad)


@pytest.mark.parametrize(
    "text, value",
    [
        ("3", 3),
        ("0.5", Fraction(1, 2)),
        (".25", Fraction(1, 4)),
        ("1e-6", Fraction(1, 10**6)),
        ("2E+2", 200),
        ("1/3", Fraction(1, 3)),
    ],
)
def test_each_stated_number_form_is_read_exactly(text, value):
    assert as_fraction(text) == value
