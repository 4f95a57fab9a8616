"""The one-dimensional discrete Gaussian and the exact decisions against U read 63 bits at a time
(``isdp.exact._discrete_gaussian``): the decision is U < p whichever bounds make it, and its law is exact."""

from __future__ import annotations

import math
import subprocess
import sys
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from conftest import ALPHA, ByteStream, chisquare_gof_integers
from exact_support import finishes
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import isdp.exact._discrete_gaussian as dg
from isdp.errors import ArgumentError
from isdp.exact import discrete_gaussian
from isdp.exact._compiled_draws import WordSource


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

    interval = lambda prec: mpmath.iv.mpf(1) / 3  # noqa: E731
    assert dg.below(top, interval, Words(0)) is True  # U = top/2**63 + 0: below 1/3
    assert dg.below(top, interval, Words((1 << 63) - 1)) is False


@pytest.mark.parametrize("t", [1, 3, 40])
def test_the_inverse_geometric_has_its_law(t):
    """50,000 draws of ⌊−t ln U⌋ against P(G = g) = (1 − q) q**g, q = exp(−1/t); the test can fail: the law of
    1.1 t is refused on the same draws."""
    rng = WordSource(ByteStream(11 + t))
    draws = np.array([dg.inverse_geometric(t, rng) for _ in range(50_000)])
    support = np.arange(0, 60 * t)
    for scale, expect in ((t, True), (1.1 * t, False)):
        q = math.exp(-1 / scale)
        assert (chisquare_gof_integers(draws, support, (1 - q) * q**support) > ALPHA) == expect


@pytest.mark.parametrize("t", [1, 4])
def test_the_inverse_double_geometric_has_its_law(t):
    """P(y) ∝ exp(−|y|/t): the sign and the redrawn (negative, 0) included; a third more mass at 0 is refused."""
    rng = WordSource(ByteStream(21 + t))
    draws = np.array([dg.inverse_double_geometric(t, rng) for _ in range(50_000)])
    support = np.arange(-40 * t, 40 * t + 1)
    pmf = np.exp(-np.abs(support) / t)
    assert chisquare_gof_integers(draws, support, pmf / pmf.sum()) > ALPHA
    heavier = pmf * np.where(support == 0, 4 / 3, 1)
    assert chisquare_gof_integers(draws, support, heavier / heavier.sum()) < ALPHA


def _integer_part(numerator: int, bits: int, t: int) -> set[int]:
    """⌊−t ln U⌋ at both ends of U's interval [numerator, numerator + 1)/2**bits, in 400-digit arithmetic (−1 for
    the end U = 0, where it is unbounded)."""
    with mpmath.workdps(400):
        ends = (mpmath.mpf(numerator) / 2**bits, mpmath.mpf(numerator + 1) / 2**bits)
        return {int(mpmath.floor(-t * mpmath.log(u))) if 0 < u < 1 else (0 if u else -1) for u in ends}


@settings(max_examples=400, deadline=None)
@given(
    t=st.one_of(st.integers(1, 50), st.integers(1, 2**45)),
    g=st.integers(0, 200),
    offset=st.integers(-3, 3),
    spread=st.integers(0, 2**62),
)
def test_the_doubles_decide_the_integer_part_only_where_it_is_sure(t, g, offset, spread):
    """Words next to exp(−g/t)·2**63 (where the integer part changes) and anywhere: a decided integer part is the
    one of every U in the word's interval, checked in 400-digit arithmetic."""
    with mpmath.workdps(60):
        edge = int(mpmath.floor(mpmath.exp(mpmath.mpf(-g) / t) * 2**63))
    for word in (edge + offset, spread):
        if 0 <= word < 2**63:
            decided = dg.geometric_in_doubles(word, t)
            if decided >= 0:
                assert _integer_part(word, 63, t) == {decided}


def test_the_doubles_decide_nearly_every_word():
    words = np.random.default_rng(3).integers(0, 2**63, 20_000).tolist()
    assert sum(dg.geometric_in_doubles(w, 7) < 0 for w in words) == 0


def test_the_integer_part_is_the_same_whether_doubles_or_intervals_decide_it(monkeypatch):
    """With doubles that never decide, every integer part goes to mpmath's intervals: the same draws from the same
    bits, ending at the same bit, because the integer part is a function of U."""

    def draws():
        reader = WordSource(ByteStream(9))
        return [dg.inverse_double_geometric(t, reader) for t in (1, 5, 300) for _ in range(300)], reader.pos

    fast = draws()
    monkeypatch.setattr(dg, "geometric_in_doubles", lambda word, t: -1)
    assert draws() == fast


@pytest.mark.parametrize("first", [0, 5, 2**12 - 1])
def test_a_small_first_word_is_decided_on_more_bits(first):
    """U's first 63 bits 0 or a few: −t ln U is near 44 t or beyond, left to the intervals, which read on."""

    class Words:
        def __init__(self, words):
            self.words = list(words)

        def randbelow(self, m):
            assert m == 2**63
            return self.words.pop(0)

    later = [0, 12345, 2**62 + 7]
    drawn = dg.inverse_geometric(3, Words([first, *later]))
    for k in range(1, 4):
        numerator = (first << (63 * k)) | sum(w << (63 * (k - 1 - i)) for i, w in enumerate(later[:k]))
        ends = _integer_part(numerator, 63 * (k + 1), 3)
        if len(ends) == 1:
            assert ends == {drawn}
            break
    else:
        pytest.fail("U's interval did not decide the integer part in four words")


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


@pytest.mark.parametrize("centre", [Fraction(1, 2), Fraction(-7, 2), Fraction(1, 3), Fraction(0)])
@pytest.mark.parametrize("sigma2", [Fraction(1, 10**6), Fraction(1, 10), Fraction(1, 2**64)])
def test_a_narrow_gaussian_is_drawn_with_its_law_without_waiting(centre, sigma2):
    """σ² = 10⁻⁶ at a centre halfway between integers: the simple rejection bound accepted with probability
    exp(−1/8σ²) = e^−125000, a hang; with the least bound, 2,000 draws take well under a second."""
    rng = WordSource(ByteStream(5))
    draws = finishes(lambda: np.array([discrete_gaussian(centre, sigma2, rng) for _ in range(2000)]))
    support = np.arange(-8, 6)
    nearest = min((k - centre) ** 2 for k in support.tolist())
    pmf = [math.exp(-float(((k - centre) ** 2 - nearest) / (2 * sigma2))) for k in support.tolist()]
    assert chisquare_gof_integers(draws, support, np.array(pmf) / sum(pmf)) > ALPHA
    if centre.denominator == 2:  # both neighbours, half each: the test can fail (a third to one is refused)
        low = int(centre - Fraction(1, 2))
        assert stats.binomtest(int((draws == low).sum()), draws.size, 1 / 3).pvalue < ALPHA


def test_the_least_bound_is_the_maximum_over_the_integers():
    for d, sigma2, t in [
        (Fraction(1, 2), Fraction(1, 9), 1),
        (Fraction(-1, 3), Fraction(1, 20), 2),
        (Fraction(0), Fraction(1, 8), 1),
        (Fraction(2, 5), Fraction(7, 64), 3),
    ]:
        values = [Fraction(abs(y), t) - (y - d) ** 2 / (2 * sigma2) for y in range(-50, 51)]
        assert dg._least_bound(d, sigma2, t) == max(values)


def test_a_decision_against_a_vanishing_probability_is_made():
    """γ far beyond a double (an outlying proposal at σ² = 2**-64): U < exp(−γ) is False unless U's first 63
    bits are all zero, where interval arithmetic decides."""
    gamma = Fraction(10**400, 3)
    assert dg.bernoulli_exp_real(gamma, WordSource(ByteStream(6))) is False


@pytest.mark.parametrize(
    ("kw", "name", "message"),
    [
        ({"sigma2": 0}, "sigma2", "positive"),
        ({"sigma2": -1}, "sigma2", "positive"),
        ({"sigma2": Fraction(1, 10**400)}, "sigma2", r"\[2\*\*-64, 2\*\*100\]"),
        ({"sigma2": 10**400}, "sigma2", r"\[2\*\*-64, 2\*\*100\]"),
        ({"sigma2": float("nan")}, "sigma2", ""),
        ({"sigma2": True}, "sigma2", ""),
        ({"sigma2": "1_0"}, "sigma2", ""),
        ({"centre": float("inf")}, "centre", ""),
        ({"centre": "½"}, "centre", ""),
        ({"scale": 2**31}, "scale", r"\[1, 6\]"),
        ({"scale": 0}, "scale", ""),
        ({"scale": 2.5}, "scale", ""),
        ({"scale": True}, "scale", ""),
    ],
)
def test_arguments_outside_what_the_sampler_serves_are_refused_by_name(kw, name, message):
    """σ² 0, −1, 10⁻⁴⁰⁰ and 10⁴⁰⁰ gave ZeroDivision, domain and Overflow errors; ``scale = 2**31`` a message about
    an ε the caller never gave. The scale is held within a factor 2 of ⌊σ⌋ + 1, where the rejection keeps a
    fair share of its proposals (at 2**31 it would keep one in a billion)."""
    args = {"centre": Fraction(1, 3), "sigma2": Fraction(4), **kw}
    scale = args.pop("scale", None)
    with pytest.raises(ArgumentError, match=f"^{name} .*{message}") as refused:
        finishes(lambda: discrete_gaussian(args["centre"], args["sigma2"], WordSource(ByteStream(1)), scale=scale))
    assert refused.value.argument == name


def test_the_largest_variance_is_served():
    draw = finishes(lambda: discrete_gaussian(Fraction(1, 3), 2**100, WordSource(ByteStream(7))))
    assert isinstance(draw, int) and abs(draw) < 2**57


def test_mpmath_is_loaded_by_the_rare_undecided_draws_only():
    """Loading it took 30 ms of every release's start-up; only the draws double precision cannot decide need it."""
    code = "import sys, isdp.exact, isdp.release, isdp.tables\nprint('mpmath' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False"], done.stdout + done.stderr
