"""K's law behind a one-total block (isdp.exact._one_total_law): the bounds of e^{−y}, and the inversion thresholds
against the distribution function computed in 120-digit decimals: K decided exactly, or not at all."""

from __future__ import annotations

from decimal import Decimal, localcontext
from fractions import Fraction
from functools import cache
from math import comb

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from isdp.exact._one_total_law import _exp_minus, one_total_law

DIGITS = 120


def _exp(y: Fraction) -> Decimal:
    with localcontext() as ctx:
        ctx.prec = DIGITS
        return (-Decimal(y.numerator) / Decimal(y.denominator)).exp()


@cache
def _cdf(n: int, eps: Fraction) -> list[Decimal]:
    """F(K) for K = 0, 1, …: P(K) ∝ C(K + n − 1, n − 1)² e^{−2εK}, summed until the rest is below 10^−60."""
    with localcontext() as ctx:
        ctx.prec = DIGITS
        q2, weights, k, total = _exp(2 * eps), [Decimal(1)], 0, Decimal(1)
        while True:  # w(0) = 1, w(K + 1) = w(K)·((K + n)/(K + 1))² e^{−2ε}
            r = Decimal((k + n) ** 2) / Decimal((k + 1) ** 2) * q2
            # past the mode the ratio of neighbours falls: the rest is below w·r/(1 − r)
            if r < 1 and weights[-1] * r / (1 - r) < total * Decimal(10) ** -60:
                break
            weights.append(weights[-1] * r)
            total += weights[-1]
            k += 1
        assert weights[1 if n > 1 else 0] == Decimal(comb(n, n - 1) ** 2) * q2  # the recurrence's first step
        cdf, cum = [], Decimal(0)
        for w in weights:
            cum += w
            cdf.append(cum / total)
        return cdf


@pytest.mark.parametrize(
    "y", [Fraction(1, 10**6), Fraction(1, 3), Fraction(1), Fraction(7, 2), Fraction(100), Fraction(2**31 - 1, 3)]
)
def test_the_bounds_of_e_to_the_minus_y_hold_within_two_units(y):
    lo, hi = _exp_minus(y, 100)
    with localcontext() as ctx:
        ctx.prec = DIGITS
        exact = _exp(y) * 2**100
        assert lo <= exact <= hi and hi - lo <= 2


@pytest.mark.parametrize(("n", "eps"), [(2, Fraction(1)), (5, Fraction(1, 2)), (20, Fraction(1, 10)), (3, Fraction(9))])
def test_the_thresholds_bound_the_distribution_function_within_three_units(n, eps):
    bits = 62
    law, cdf = one_total_law(n, eps, bits), _cdf(n, eps)
    with localcontext() as ctx:
        ctx.prec = DIGITS
        for i, (lower, upper) in enumerate(zip(law.lower, law.upper_before, strict=True)):
            k = law.k_lo + i
            f = (cdf[k] if k < len(cdf) else Decimal(1)) * 2**bits
            before = (cdf[k - 1] if k > 0 else Decimal(0)) * 2**bits
            assert lower <= f < lower + 3 and upper - 3 < before <= upper
        # the window holds all but 2^-(bits + 20) of the mass on each side
        assert (cdf[law.k_lo - 1] if law.k_lo else 0) < Decimal(2) ** -(bits + 20)
        last = law.k_lo + len(law.lower) - 1
        assert last >= len(cdf) - 1 or 1 - cdf[last] < Decimal(2) ** -(bits + 20)


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(2, 30),
    eps=st.fractions(Fraction(1, 20), Fraction(3)).filter(lambda e: e.denominator < 1000),
    a=st.integers(0, 2**62 - 1),
    more=st.integers(0, 2**64 - 1),
)
def test_a_decided_count_is_the_inverse_of_the_distribution_function_for_every_uniform_with_those_bits(n, eps, a, more):
    """At 62 bits and at 126 (the undecided case read on): F(K − 1) ≤ a/2^b and (a + 1)/2^b ≤ F(K). Undecided
    values (a gap between bounds, or the tails outside the window) are counted in the next test."""
    cdf = _cdf(n, eps)
    with localcontext() as ctx:
        ctx.prec = DIGITS
        for bits, value in ((62, a), (126, (a << 64) | more)):
            k = one_total_law(n, eps, bits).decide(value)
            if k is not None:
                f = cdf[k] if k < len(cdf) else Decimal(1)
                assert (cdf[k - 1] if k else 0) * 2**bits <= value and value + 1 <= f * 2**bits


def test_a_uniform_in_a_gap_is_undecided_and_more_bits_decide_it():
    law = one_total_law(100, Fraction(1, 2), 62)
    gaps = [i for i in range(len(law.lower) - 1) if law.lower[i] < law.upper_before[i + 1]]
    assert gaps and len(gaps) == len(law.lower) - 1  # the bounds are 1 apart at most K: a gap of one value each
    i = gaps[len(gaps) // 2]
    a = int(law.lower[i])
    assert law.decide(a) is None
    assert law.decide(a - 1) == law.k_lo + i and law.decide(int(law.upper_before[i + 1])) == law.k_lo + i + 1
    finer = one_total_law(100, Fraction(1, 2), 126)
    assert finer.decide(a << 64) in (law.k_lo + i, law.k_lo + i + 1)
