"""The one set of argument checks: exact numbers, integers, sizes, seeds, levels and integer matrices.

Property-based: for generated valid values the reading is exact (a decimal's fraction, an integer's value);
for generated invalid ones the only outcome is an :class:`ArgumentError` that names the argument.
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import sparse

from isdp import _validate as check
from isdp.errors import ArgumentError, InvariantError, UsageError


@given(st.integers(0, 10**30), st.integers(0, 10**12), st.integers(-30, 30))
def test_a_decimal_is_read_as_its_exact_fraction(whole, frac, exponent):
    text = f"{whole}.{frac}e{exponent}"
    assert check.read_number(text) == Fraction(f"{whole}.{frac}") * Fraction(10) ** exponent


@given(st.fractions(min_value=Fraction(1, 10**12), max_value=10**12))
def test_every_kind_of_number_reads_the_same_fraction(f):
    as_text = check.positive("x", f"{f.numerator}/{f.denominator}")
    assert as_text == f == check.positive("x", f)
    assert check.positive("x", float(f)) == Fraction(repr(float(f)))  # a float as it prints
    assert check.positive("x", Decimal(f.numerator) / Decimal(f.denominator)) > 0


@pytest.mark.parametrize(
    "value",
    [
        "1_0",
        "nan",
        "inf",
        "-inf",
        " 1",
        "1 ",
        "١",
        "１",
        "0x10",
        "1/0",
        "",
        "--1",
        "1e99999",
        "+1",
        True,
        np.bool_(False),
        float("nan"),
        float("inf"),
        None,
        [1],
        complex(1, 0),
        "1" * 101,
    ],
)
def test_a_number_in_another_form_is_refused_naming_the_argument(value):
    with pytest.raises(ArgumentError, match=r"^--epsilon must be a positive number") as err:
        check.positive("--epsilon", value)
    assert err.value.argument == "--epsilon"


@given(st.fractions(max_value=0) | st.integers(max_value=0) | st.floats(max_value=0, allow_nan=False))
def test_positive_refuses_zero_and_below(value):
    with pytest.raises(ArgumentError, match="must be a positive number, got"):
        check.positive("eps", value)


@given(st.floats(allow_nan=True, allow_infinity=True) | st.fractions() | st.integers())
def test_a_level_is_in_the_open_unit_interval_or_refused(value):
    try:
        got = check.level("level", value)
    except ArgumentError as err:
        assert "level must lie in (0, 1)" in str(err)
        assert not (isinstance(value, float) and 0 < value < 1)
    else:
        assert 0 < got < 1 and got == float(Fraction(value) if not isinstance(value, float) else Fraction(repr(value)))


@given(st.integers(-(10**30), 10**30), st.integers(-5, 5), st.integers(0, 5))
def test_an_integer_within_its_bounds_or_the_bounds_named(value, low, span):
    high = low + span
    if low <= value <= high:
        assert check.integer("n", value, low, high) == value
    else:
        with pytest.raises(ArgumentError, match=rf"^n must be an integer in \[{low}, {high}\], got"):
            check.integer("n", value, low, high)


@pytest.mark.parametrize("value", [2.5, True, "3", float("nan"), float("inf"), None, Fraction(3, 1), Decimal(3)])
def test_an_integer_is_never_truncated_or_read_from_text(value):
    with pytest.raises(ArgumentError, match="^max_attempts must be an integer"):
        check.integer("max_attempts", value)


def test_a_whole_float_is_an_integer_but_not_a_seed():
    assert check.integer("n", 3.0) == 3 and check.size("n", np.int32(7)) == 7
    with pytest.raises(ArgumentError, match="^seed must be a non-negative integer, got float 3.0"):
        check.seed(3.0)
    with pytest.raises(ArgumentError, match="^n must be an integer in"):
        check.size("n", check.MAX_SIZE + 1)


@pytest.mark.parametrize("value", [-1, "1", b"1", 1.5, True, None])
def test_a_seed_is_a_non_negative_integer(value):
    with pytest.raises(ArgumentError, match="^seed must be a non-negative integer"):
        check.seed(value)
    assert check.seed(2**200) == 2**200


def test_the_callers_error_kind_is_raised():
    with pytest.raises(UsageError, match=r"^--delta must lie in \(0, 1\), got '1'"):
        check.probability("--delta", "1", error=UsageError)
    assert issubclass(UsageError, ArgumentError)


@given(st.lists(st.lists(st.integers(-(2**40), 2**40), min_size=3, max_size=3), min_size=1, max_size=4))
def test_an_integer_matrix_is_read_exactly_dense_or_sparse(rows):
    A = np.array(rows)
    assert np.array_equal(check.integer_matrix("A", A.astype(float) if np.abs(A).max() < 2**52 else A), A)
    assert np.array_equal(check.integer_matrix("A", A.astype(object)), A)
    S = check.integer_matrix("A", sparse.csr_array(A))
    assert sparse.issparse(S) and S.dtype == np.int64 and np.array_equal(S.toarray(), A)


@pytest.mark.parametrize(
    "A, where",
    [
        ([[1, 1, 1.5]], "entry (0, 2) is 1.5"),
        ([[1, np.nan]], "entry (0, 1) is nan"),
        (np.array([[1, 2**64 - 1]], dtype=np.uint64), "beyond the int64 range"),
        (np.array([[1, 2**70]], dtype=object), "entry (0, 1) is"),
        ([[True, False]], "not booleans"),
        ([["1", "2"]], "numeric"),
        (sparse.csr_array(np.array([[0, 0.5]])), "entry (0, 1) is 0.5"),
        ([[1, 2], [3]], "rectangular"),
        ([1, 2], "2-D"),
    ],
)
def test_a_non_integer_matrix_is_refused_at_its_first_bad_entry(A, where):
    with pytest.raises(InvariantError, match=f"^A .*{__import__('re').escape(where)}"):
        check.integer_matrix("A", A)


def test_the_reading_is_fast_for_any_text():
    assert check.read_number("9" * 100) == 10**100 - 1
    assert math.isclose(float(check.read_number("1e-9999")), 0.0)


# privacy parameters: exact positive fractions, read as ``isdp release`` reads ``--epsilon``
@pytest.mark.parametrize("bad", ["0", "-1", "abc", "nan"])
def test_a_positive_number_refuses_non_positive_or_non_numbers(bad):
    with pytest.raises(ValueError):
        check.positive("value", bad)


def test_a_positive_number_reads_decimals_exactly():
    assert check.positive("value", "0.1") == Fraction(1, 10)


@pytest.mark.parametrize("bad", ["1_0", "١", "１", " 1", "+1", "inf", "1/0", "1e12345", "1" * 101, True])
def test_only_the_stated_number_forms_are_read(bad):
    """Forms Python would read but a privacy parameter should not be typed in are refused (read_number)."""
    with pytest.raises(ValueError):
        check.positive("value", bad)


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
    assert check.positive("value", text) == value


def test_a_matrix_of_integer_valued_floats_reads_as_int64():
    np.testing.assert_array_equal(check.integer_matrix("A", [[1.0, 2.0]]), [[1, 2]])
    assert check.integer_matrix("A", [[1.0, 2.0]]).dtype == np.int64
