"""Tests of :mod:`isdp_papers.e7_congenial_histogram.privacy_levels`: the numerical levels against App. A's closed
form (and M*'s and f_L2's ε), the worst log ratio search, the closed-form levels, and Example 5.1 / Theorem 1.3 (level ε
without a restricting invariant, posterior moved by at most ε)."""

from __future__ import annotations

import numpy as np
import pytest
from isdp_papers.e7_congenial_histogram import privacy_levels as pl
from scipy import stats


@pytest.mark.parametrize("beta", [0.0, 0.2, 0.5, 0.7, 1.0])
def test_numerical_privacy_level_matches_app_a(beta):
    eps = 0.8
    level, _ = pl.privacy_level("l1", eps, beta)
    assert abs(level - pl.l1_privacy_level(eps, beta)) < 1e-5 * eps
    # the level is a supremum approached in the tail: a short grid falls visibly short at β = 1/2
    short, _ = pl.privacy_level("l1", eps, beta, t_max=60.0)
    if beta == 0.5:
        assert pl.l1_privacy_level(eps, beta) - short > 1e-3 * eps


def test_privacy_level_of_the_conditional_mechanism_is_eps():
    for eps in (0.3, 2.0):
        level, _ = pl.privacy_level("conditional", eps)
        assert np.isclose(level, eps, rtol=1e-9)
        assert np.isclose(pl.privacy_level("l2", eps)[0], eps, rtol=1e-5)


def test_worst_log_ratio_finds_the_largest_ratio():
    logpdf = stats.norm.logpdf  # unbounded ratio: grows with t
    r, t = pl.worst_log_ratio(logpdf, np.linspace(-5, 5, 101))
    assert np.isclose(t, 5) and np.isclose(r, logpdf(5.0) - logpdf(6.0))


def test_closed_form_levels():
    assert pl.closed_form_level("conditional", 0.4) == 0.4
    assert pl.closed_form_level("l2", 0.4) == pytest.approx(0.4)
    assert pl.closed_form_level("l1", 0.4, 0.0) == pytest.approx(0.2)
    assert pl.closed_form_level("l1", 0.4, 0.25) == pl.closed_form_level("l1", 0.4, 0.75)


@pytest.mark.parametrize("eps", [0.5, 1.0, 3.0])
def test_unconstrained_release_has_level_eps_and_moves_a_posterior_by_at_most_eps(eps):
    """Example 5.1 (no restricting invariant: level ε) and Theorem 1.3 (posterior within e^±ε of
    the prior, approached as the prior of the other value goes to 1)."""
    assert pl.unconstrained_level(eps) == pytest.approx(eps, rel=1e-9)
    assert pl.posterior_shift(eps, [0.1, 0.5, 0.9]) < eps
    assert pl.posterior_shift(eps, [1e-6]) == pytest.approx(eps, rel=1e-5)
