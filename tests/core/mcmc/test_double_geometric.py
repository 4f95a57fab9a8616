"""The double geometric law, its two samplers and the maximal coupling of shifted copies."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import ALPHA, Z_TOL, chisquare_gof_integers, iid_se
from mcmc_support import dg_rvs_compiled

from isdp.mcmc import DoubleGeometric

A_VALUES = [0.2, 0.6, 0.92]
N_DRAWS = 60_000


def _eps(a: float) -> float:
    """The library's parameter ε of DG with a = exp(-ε): the closed forms below are written in a."""
    return float(-np.log(a))


def _support(a: float, tail: float = 1e-12) -> np.ndarray:
    """Integers carrying all but ``tail`` of the DG(a) mass (P(|K| > m) = 2 a^{m+1} / (1 + a))."""
    m = int(np.ceil(np.log(tail * (1 + a) / 2) / np.log(a)))
    return np.arange(-m, m + 1)


# --------------------------------------------------------------------------- exact law


@pytest.mark.parametrize("a", A_VALUES)
def test_pmf_is_the_double_geometric_law(a):
    ks = _support(a)
    p = DoubleGeometric(_eps(a)).pmf(ks)
    # closed form written out independently of the library
    expected = (1 - a) / (1 + a) * a ** np.abs(ks)
    np.testing.assert_allclose(p, expected, rtol=1e-12)
    np.testing.assert_allclose(np.exp(DoubleGeometric(_eps(a)).logpmf(ks)), p, rtol=1e-12)
    assert abs(p.sum() - 1) < 1e-11
    np.testing.assert_allclose(p, p[::-1])  # symmetric
    # mean 0 and the variance formula, from the (numerically complete) support
    assert abs((ks * p).sum()) < 1e-9
    np.testing.assert_allclose((ks**2 * p).sum(), DoubleGeometric(_eps(a)).variance(), rtol=1e-9)


@pytest.mark.parametrize("a", A_VALUES)
def test_cdf_matches_cumulative_pmf(a):
    ks = _support(a, tail=1e-14)
    cum = np.cumsum(DoubleGeometric(_eps(a)).pmf(ks))
    # P(K <= k) = P(K < -m) + cumsum, the left tail below the support being a^{m+1}/(1+a)
    left = a ** (-ks[0] + 1) / (1 + a)
    np.testing.assert_allclose(DoubleGeometric(_eps(a)).cdf(ks), left + cum, rtol=1e-10, atol=1e-14)
    # floor semantics on non-integers
    np.testing.assert_allclose(DoubleGeometric(_eps(a)).cdf(ks + 0.5), DoubleGeometric(_eps(a)).cdf(ks))
    np.testing.assert_allclose(DoubleGeometric(_eps(a)).cdf(ks - 0.25), DoubleGeometric(_eps(a)).cdf(ks - 1))
    assert np.all(np.diff(DoubleGeometric(_eps(a)).cdf(ks)) > 0)


@pytest.mark.parametrize("bad", [0.0, -0.1, np.inf, np.nan])
def test_eps_not_positive_and_finite_is_rejected(bad):
    for call in (
        lambda: DoubleGeometric(bad).pmf(0),
        lambda: DoubleGeometric(bad).cdf(0),
        lambda: DoubleGeometric(bad).rvs(3, np.random.default_rng(0)),
        lambda: dg_rvs_compiled(bad, 3, 0),
        lambda: DoubleGeometric(bad).maximal_coupling_rvs(0, 1, 3, 0),
    ):
        with pytest.raises(ValueError):
            call()


# --------------------------------------------------------------------------- samplers


def _dg_numpy(a, seed):
    return DoubleGeometric(_eps(a)).rvs(N_DRAWS, np.random.default_rng(seed))


def _dg_compiled(a, seed):
    return dg_rvs_compiled(_eps(a), N_DRAWS, seed)


@pytest.mark.parametrize("sampler", [_dg_numpy, _dg_compiled], ids=["numpy", "compiled"])
@pytest.mark.parametrize("a", A_VALUES)
def test_samplers_follow_dg_pmf(sampler, a):
    draws = sampler(a, seed=20230207)
    assert draws.dtype == np.int64 and draws.shape == (N_DRAWS,)
    ks = _support(a)
    p = chisquare_gof_integers(draws, ks, DoubleGeometric(_eps(a)).pmf(ks))
    assert p > ALPHA, f"chi-square p = {p:.2e}"
    # the sign is independent of the magnitude: P(K > 0 | K != 0) = 1/2
    nonzero = draws[draws != 0]
    frac_pos = (nonzero > 0).mean()
    assert abs(frac_pos - 0.5) < Z_TOL * 0.5 / np.sqrt(nonzero.size)
    # variance within Monte Carlo error (SE of the mean of K^2 from the draws themselves)
    sq = draws.astype(float) ** 2
    assert abs(sq.mean() - DoubleGeometric(_eps(a)).variance()) < Z_TOL * iid_se(sq)


# --------------------------------------------------------------------------- maximal coupling


def _tv_closed_form(d: int, a: float) -> float:
    """TV(DG(a), d + DG(a)) = P(K < d/2) - P(K < -d/2):  1 - a^m (d = 2m), 1 - 2a^{m+1}/(1+a) (d = 2m+1)."""
    d = abs(d)
    m = d // 2
    return 1 - a**m if d % 2 == 0 else 1 - 2 * a ** (m + 1) / (1 + a)


@pytest.mark.parametrize(("mean_x", "mean_y", "a"), [(0, 1, 0.6), (2, -1, 0.6), (0, 4, 0.92), (3, 3, 0.6), (0, 2, 0.2)])
def test_maximal_coupling_margins_and_meeting_probability(mean_x, mean_y, a):
    n = 40_000
    pairs = DoubleGeometric(_eps(a)).maximal_coupling_rvs(mean_x, mean_y, n, seed=11)
    assert pairs.shape == (n, 2) and pairs.dtype == np.int64
    ks = _support(a)
    for col, mean in ((0, mean_x), (1, mean_y)):
        p = chisquare_gof_integers(pairs[:, col], mean + ks, DoubleGeometric(_eps(a)).pmf(ks))
        assert p > ALPHA, f"margin {col}: chi-square p = {p:.2e}"
    equal = (pairs[:, 0] == pairs[:, 1]).astype(float)
    target = 1 - _tv_closed_form(mean_y - mean_x, a)
    se = np.sqrt(max(target * (1 - target), 1e-12) / n)  # binomial SE under the claimed law
    if mean_x == mean_y:
        assert equal.all()
    else:
        assert abs(equal.mean() - target) < Z_TOL * se, (equal.mean(), target)


def test_cdf_far_tails_without_overflow_warnings():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        values = DoubleGeometric(_eps(0.5)).cdf(np.array([-5000, 5000]))
    np.testing.assert_allclose(values, [0.0, 1.0])
