"""Tests of :mod:`isdp_papers.e7_congenial_histogram.printed_dg`: App. B's quantile is the generalized inverse of
the Double Geometric CDF (against a brute-force search), and the chi-square check accepts the law and rejects a
shift."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import ALPHA
from isdp_papers.e7_congenial_histogram import printed_dg as pdg

from isdp.mcmc import DoubleGeometric


@pytest.mark.parametrize("eps", [-np.log(0.1), 0.5, -np.log(0.97)])
def test_app_b_quantile_is_the_generalized_inverse(eps):
    v = np.random.default_rng(7).uniform(size=50_000)
    assert pdg.dg_inverse_check(v, eps).all()
    # against a brute-force search on the support
    ks = np.arange(-400, 401)
    brute = ks[np.searchsorted(DoubleGeometric(eps).cdf(ks), v[:2000])]
    np.testing.assert_array_equal(pdg.dg_quantile(v[:2000], eps), brute)
    # the check is not vacuous: shifted quantiles fail it
    q = pdg.dg_quantile(v[:2000], eps)
    assert not ((DoubleGeometric(eps).cdf(q) < v[:2000]) & (v[:2000] <= DoubleGeometric(eps).cdf(q + 1))).any()


@pytest.mark.parametrize("eps", [-np.log(0.1), -np.log(0.6), -np.log(0.95)])
def test_dg_chisquare_accepts_the_law_and_rejects_a_shift(eps):
    d = pdg.dg_quantile(np.random.default_rng(8).uniform(size=100_000), eps)
    stat, dof, p = pdg.dg_chisquare(d, eps)
    assert p > ALPHA and dof >= 2
    assert pdg.dg_chisquare(d + 1, eps)[2] < ALPHA
