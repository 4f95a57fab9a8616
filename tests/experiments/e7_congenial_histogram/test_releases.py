"""Tests of :mod:`isdp_papers.e7_congenial_histogram.releases`: Example 4.1's three releases keep the total and the
L1/L2 projections are optimal, the simulated moments are the exact ones, f_L1's variance range over β is attained where
stated, conditioning the base noise on a thin slab gives M*'s law, and bad arguments are refused."""

from __future__ import annotations

import numpy as np
import pytest
from closed_form_support import CASES, N, X, draws
from conftest import ALPHA, Z_TOL
from isdp_papers.e7_congenial_histogram import noise_laws as nl
from isdp_papers.e7_congenial_histogram import releases as rel
from scipy import stats


def test_every_release_keeps_the_total_and_the_projections_are_optimal():
    eps, n = 0.8, X.sum()
    m = rel.unconstrained(X, eps, 5000, np.random.default_rng(1))
    l2 = rel.project_l2(m, n)
    # L2: the residual m − f is orthogonal to the line (parallel to (1, 1))
    np.testing.assert_allclose((m - l2) @ np.array([1.0, -1.0]), 0, atol=1e-9)
    for beta in (0.0, 0.3, 1.0):
        l1 = rel.project_l1(m, n, beta)
        np.testing.assert_allclose(np.abs(m - l1).sum(axis=1), np.abs(m.sum(axis=1) - n), atol=1e-9)
    # a point off the segment is farther in L1: the optimality check above can fail
    off = rel.project_l1(m, n, 1.5)
    assert np.any(np.abs(m - off).sum(axis=1) > np.abs(m.sum(axis=1) - n) + 1e-6)
    for mech, beta in CASES:
        r = draws(mech, beta, eps, 2, 1000)
        np.testing.assert_allclose(r.sum(axis=1), n, rtol=0, atol=1e-9)


@pytest.mark.parametrize(("mechanism", "beta"), CASES)
def test_simulated_moments_match_the_exact_formulas(mechanism, beta):
    eps = 0.6
    r = draws(mechanism, beta, eps, 3)
    m1 = r[:, 0]
    mean, var = rel.exact_mean(mechanism, X, eps, beta), rel.exact_variance(mechanism, eps, beta)
    se_mean = np.sqrt(var / N)
    c = m1 - m1.mean()
    se_var = np.sqrt((np.mean(c**4) - np.mean(c**2) ** 2) / N)
    assert abs(m1.mean() - mean[0]) < Z_TOL * se_mean
    assert abs(m1.var(ddof=1) - var) < Z_TOL * se_var
    # the bins of the post-processed releases are not unbiased for the average (s1 + s2) / 2
    assert abs(m1.mean() - X.mean()) > 20 * se_mean


def test_variance_range_of_f_l1_is_attained_at_the_midpoint_and_the_ends():
    eps = 0.9
    betas = np.linspace(0, 1, 1001)
    v = np.array([rel.exact_variance("l1", eps, b) for b in betas])
    lo, hi = rel.l1_variance_range(eps)
    assert np.isclose(v.min(), lo) and np.isclose(v.max(), hi)
    assert betas[v.argmin()] == 0.5 and v.argmax() in (0, len(betas) - 1)
    assert np.isclose(rel.exact_variance("l2", eps), lo)
    assert rel.exact_variance("conditional", eps) < lo


def test_conditioning_on_a_thin_slab_gives_the_conditional_law():
    eps = 0.5
    u1 = rel.condition_on_zero_sum(eps, 0.05, 20000, np.random.default_rng(6), chunk=400_000)
    assert len(u1) == 20000
    assert stats.kstest(u1, lambda t: nl.noise_cdf(t, "conditional", eps)).pvalue > ALPHA
    assert stats.kstest(u1, stats.laplace(scale=rel.base_scale(eps)).cdf).pvalue < ALPHA  # not the base law


def test_bad_arguments_are_rejected():
    with pytest.raises(ValueError, match="unknown mechanism"):
        rel.exact_variance("l3", 1.0)
    with pytest.raises(ValueError, match="weight β"):
        rel.exact_variance("l1", 1.0, 1.2)
    with pytest.raises(ValueError, match="positive finite"):
        rel.release("conditional", X, 0.0, 10, np.random.default_rng(0))
