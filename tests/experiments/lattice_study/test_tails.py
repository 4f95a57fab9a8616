"""Tests of :mod:`isdp_papers.lattice_study.tails`: the tail-rate fit behind ISDP-E1/E2-l1-tail-rate (Thm 12 (7)),
on laws where its family is exact — the rate within its error, calibrated errors, the ESS fraction widening the error,
a tail at half the rate failing the claims criterion, and tails without two distinct norms refused."""

from __future__ import annotations

import numpy as np
import pytest
from criteria_support import judge
from isdp_papers.evidence import Measurement
from isdp_papers.lattice_study.tails import tail_rate

CRITERION = {"kind": "within_se", "k": 3}


def _abs_dg(eps: float, size: int, seed: int) -> np.ndarray:
    """|X| for X ~ DG(ε): P(|X| = k) ∝ e^{−εk} for k ≥ 1, the family at rank 1 exactly."""
    rng = np.random.default_rng(seed)
    p = -np.expm1(-eps)
    return np.abs(rng.geometric(p, size) - rng.geometric(p, size))


def _gamma_norms(rank: int, eps: float, step: int, size: int, seed: int) -> np.ndarray:
    """Norms drawn from P(k) ∝ k^{rank−1} e^{−εk} on the multiples of ``step``: the family exactly."""
    k = step * np.arange(1, 20_000)
    w = (rank - 1) * np.log(k) - eps * k
    p = np.exp(w - w.max())
    return np.random.default_rng(seed).choice(k, size=size, p=p / p.sum())


@pytest.mark.parametrize("seed", range(4))
def test_the_rate_of_a_double_geometric_tail_is_eps_within_its_error(seed):
    fit = tail_rate(_abs_dg(0.3, 20_000, seed), rank=1, threshold=3)
    assert fit.step == 1 and fit.threshold == 3
    assert abs(fit.rate - 0.3) <= 3 * fit.se  # SE about 0.005


@pytest.mark.parametrize(("rank", "step"), [(9, 2), (11, 1)])
def test_the_rate_on_a_lattice_family_is_eps_and_the_errors_are_calibrated(rank, step):
    """Over 100 fits the z-scores have SD near 1 (the Fisher SE is right) and mean near 0."""
    z = []
    for seed in range(100):
        norms = _gamma_norms(rank, 0.2, step, 1000, seed)
        fit = tail_rate(norms, rank, int(np.quantile(norms, 0.75)))
        assert fit.step == step
        z.append((fit.rate - 0.2) / fit.se)
    z = np.array(z)
    # 100 z-scores: the mean's SE is 0.1 and the SD's about 0.07; 4 of them apart fails
    assert abs(z.mean()) < 0.4 and 0.72 < z.std(ddof=1) < 1.28


def test_a_tail_at_half_the_rate_fails_the_claims_criterion():
    for eps, status in ((0.2, "match"), (0.1, "differs")):
        norms = _gamma_norms(9, eps, 2, 1000, seed=7)
        fit = tail_rate(norms, 9, int(np.quantile(norms, 0.75)))
        assert judge(CRITERION, 1, Measurement(fit.rate / 0.2, "", se=fit.se / 0.2)) == status


def test_the_ess_fraction_widens_the_error():
    norms = _abs_dg(0.3, 5000, 1)
    assert tail_rate(norms, 1, 3, ess_fraction=0.25).se == pytest.approx(2 * tail_rate(norms, 1, 3).se)


@pytest.mark.parametrize("norms", [[5, 5, 5, 1], [0, 0, 0]])
def test_a_tail_without_two_distinct_norms_is_refused(norms):
    with pytest.raises(ValueError, match="distinct norms"):
        tail_rate(norms, 3, 5)
