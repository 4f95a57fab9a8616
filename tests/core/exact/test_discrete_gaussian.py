"""The one-dimensional discrete Gaussian and the exact decisions against U read 63 bits at a time
(``isdp.exact._discrete_gaussian``): the decision is U < p whichever bounds make it, and its law is exact."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from conftest import ALPHA, ByteStream, chisquare_gof_integers
from scipy import stats

import isdp.exact._discrete_gaussian as dg
from isdp.exact import WordSource, discrete_gaussian


@pytest.mark.parametrize("gamma", [Fraction(0), Fraction(1, 3), Fraction(5, 2), Fraction(40)])
def test_bernoulli_exp_real_has_probability_exp_minus_gamma(gamma):
    rng, n = WordSource(ByteStream(1)), 100_000
    kept = sum(dg.bernoulli_exp_real(gamma, rng) for _ in range(n))
    p = math.exp(-gamma)
    assert stats.binomtest(kept, n, p).pvalue > ALPHA or (p == 1 and kept == n)
    if 0.01 < p < 1:  # the test can fail: a probability 10 % off is refused on the same draws
        assert stats.binomtest(kept, n, min(1.0, 1.1 * p)).pvalue < ALPHA


def test_a_decision_is_the_same_whether_double_bounds_or_interval_arithmetic_make_it(monkeypatch):
    """With bounds that never decide, every decision goes to mpmath's intervals, reading more words where needed:
    the same draws on the same words, because each decision is U < p."""
    centres = [Fraction(1, 3), Fraction(-7, 2), Fraction(5, 11)]
    fast = [discrete_gaussian(c, Fraction(9, 4), WordSource(ByteStream(2))) for c in centres for _ in range(40)]
    monkeypatch.setattr(dg, "exp_bounds", lambda gamma, err: (0.0, 2.0))
    slow = [discrete_gaussian(c, Fraction(9, 4), WordSource(ByteStream(2))) for c in centres for _ in range(40)]
    assert fast == slow


def test_undecided_words_read_more_bits():
    """U's first word equal to p's first 63 bits: the decision needs the next word, and follows it."""
    p = Fraction(1, 3)
    top = (1 << 63) // 3  # U in [top, top + 1)/2**63 straddles 1/3
    assert dg.decided(top, float(p) * (1 - 1e-15), float(p) * (1 + 1e-15)) is None

    class Words:
        def __init__(self, nxt):
            self.nxt = nxt

        def randbelow(self, m):
            return self.nxt

    interval = lambda prec: dg.iv.mpf(1) / 3  # noqa: E731
    assert dg.below(top, interval, Words(0)) is True  # U = top/2**63 + 0: below 1/3
    assert dg.below(top, interval, Words((1 << 63) - 1)) is False


@pytest.mark.parametrize("scale", [None, 3, 9])  # any t ≥ 1; a small t is slow (σ²/2t² in γ)
def test_any_scale_gives_the_discrete_gaussian(scale):
    centre, sigma2 = Fraction(5, 2), Fraction(30)
    rng = WordSource(ByteStream(3))
    draws = np.array([discrete_gaussian(centre, sigma2, rng, scale=scale) for _ in range(6000)])
    support = np.arange(-40, 46)
    pmf = np.exp(-((support - 2.5) ** 2) / 60)
    assert chisquare_gof_integers(draws, support, pmf / pmf.sum()) > ALPHA
    wider = np.exp(-((support - 2.5) ** 2) / 72)  # σ² 20 % larger: refused on the same draws
    assert chisquare_gof_integers(draws, support, wider / wider.sum()) < ALPHA


def test_the_scale_is_the_compiled_pass_s():
    assert dg.klein_scale(36.0, 1, 1) == 7 and dg.klein_scale(36.0, 1, 2) == 5 and dg.klein_scale(0.01, 1, 2) == 1
