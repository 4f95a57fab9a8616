"""Tests of :mod:`isdp_papers.lattice_study.measures.gaussian_mechanism`: the generalized Gaussian mechanism
(ISDP Thm 15 / Prop 18, §4, §2) on exact laws. Each row can fail: the Gaussian route is unbiased (a shifted route is
not), sub-Gaussian (ISDP-E1-gaussian-subgaussian; a Laplace law of its second moment is not), not pure DP
(ISDP-E1-gaussian-not-pure; a Laplace loss does not grow with the box) and its smooth δ grows with the distance
(ISDP-E1-smooth-delta-grows; a Laplace δ stays 0)."""

from __future__ import annotations

import numpy as np
from criteria_support import judge
from isdp_papers.evidence import Run
from isdp_papers.lattice_study.measures import gaussian_mechanism
from lattice_support import registry_row, row_status

import isdp.privacy

CRITERION = {"kind": "interval", "max": 1.0e-9}


def _laplace_instead_of_gaussian(monkeypatch, eps_of=None):
    """Replace the Gaussian route by the ℓ1 generalized Laplace route on the same box (ε = 1/σ, or
    ``eps_of(sampler)``)."""
    real = isdp.privacy.exact_route_noise

    def laplace(sampler, eps, radius, sigma=None, accept=True):
        return real(sampler, eps if eps_of is None else eps_of(sampler), radius, accept=accept)

    monkeypatch.setattr(isdp.privacy, "exact_route_noise", laplace)


def test_the_gaussian_route_is_unbiased_and_a_shifted_route_fails(monkeypatch):
    run = Run(".", {})
    assert judge(CRITERION, 0, gaussian_mechanism.gaussian_unbiased(run, None, sigma=3.0, radius=30)) == "match"
    real = isdp.privacy.exact_route_noise

    def shifted(sampler, *args, **kwargs):  # the law moved by a lattice vector: invariants kept, mean not 0
        step = np.zeros(sampler.A.shape[1], dtype=np.int64)
        step[sampler.free[0]] = 1
        step[sampler.solved] = sampler.solve[:, 0]
        return real(sampler, *args, **kwargs).shifted(step)

    monkeypatch.setattr(isdp.privacy, "exact_route_noise", shifted)
    m = gaussian_mechanism.gaussian_unbiased(run, None, sigma=3.0, radius=30)
    assert m.value > 0.3 and judge(CRITERION, 0, m) == "differs"


def test_the_lattice_gaussian_is_sub_gaussian_and_a_laplace_law_of_its_second_moment_is_not(monkeypatch):
    from scipy.optimize import brentq

    c = registry_row("ISDP-E1-gaussian-subgaussian")
    m = gaussian_mechanism.gaussian_subgaussian(Run(".", {}), c["paper_value"], **c["args"])
    assert row_status(c, m) == "match" and abs(m.value) < 1e-12  # the bound is attained: the value sits at 0
    sigma, real = c["args"]["sigma"], isdp.privacy.exact_route_noise

    matched = {}

    def matched_eps(sampler):  # the ℓ1 law with E‖u‖² = r σ², the Gaussian's (r = 2 on both lattices)
        def excess(eps):
            law = real(sampler, eps, 100)  # DG tail beyond the box below e^-25 for ε ≥ 0.25
            return law.probs @ (law.points**2).sum(axis=1) - 2 * sigma**2

        key = sampler.A.tobytes()
        if key not in matched:
            matched[key] = brentq(excess, 0.25, 1.0, xtol=1e-4)
        return matched[key]

    _laplace_instead_of_gaussian(monkeypatch, matched_eps)
    for reach in (c["args"]["max_lambda_sigma"], 0.5):  # 0.5: λ below ε, where the Laplace MGF is finite
        heavy = gaussian_mechanism.gaussian_subgaussian(Run(".", {}), None, **{**c["args"], "max_lambda_sigma": reach})
        assert heavy.value > 1e-3 and row_status(c, heavy) == "differs"


def test_the_gaussian_privacy_loss_grows_with_the_box_and_a_laplace_loss_does_not(monkeypatch):
    c = registry_row("ISDP-E1-gaussian-not-pure")
    m = gaussian_mechanism.gaussian_not_pure(Run(".", {}), c["paper_value"], **c["args"])
    assert row_status(c, m) == "match"
    _laplace_instead_of_gaussian(monkeypatch)
    pure = gaussian_mechanism.gaussian_not_pure(Run(".", {}), c["paper_value"], **c["args"])
    assert len(set(pure.value.values())) == 1 and row_status(c, pure) == "differs"  # 2ε at every R


def test_the_gaussian_smooth_delta_grows_with_the_distance_and_a_laplace_delta_stays_zero(monkeypatch):
    c = registry_row("ISDP-E1-smooth-delta-grows")
    m = gaussian_mechanism.smooth_delta_grows(Run(".", {}), c["paper_value"], **c["args"])
    assert row_status(c, m) == "match"
    _laplace_instead_of_gaussian(monkeypatch, lambda sampler: c["args"]["eps"])  # the double geometric at ε
    pure = gaussian_mechanism.smooth_delta_grows(Run(".", {}), c["paper_value"], **c["args"])
    assert set(pure.value.values()) == {0.0} and row_status(c, pure) == "differs"
