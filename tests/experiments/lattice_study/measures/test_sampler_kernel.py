"""Tests of :mod:`isdp_papers.lattice_study.measures.sampler_kernel`: the single chain's kernel on small
lattices (ISDP Eq. 11, Alg. 1, App. D.1). Each row matches on the right law and differs on a plausibly wrong one:
ISDP-E1-kernel-stationary (fails for an asymmetric proposal), ISDP-E1-jump-symmetric (fails for a skewed mean-zero z)
and ISDP-E1-joint-update-stationary (fails for an asymmetric joint proposal)."""

from __future__ import annotations

import numpy as np
import pytest
from isdp_papers.evidence import Run
from isdp_papers.lattice_study.measures import sampler_kernel
from lattice_support import assert_row_flips, registry_row, row_status

import isdp.mcmc


def test_the_sweep_leaves_the_target_invariant_and_an_asymmetric_proposal_does_not(monkeypatch):
    c = registry_row("ISDP-E1-kernel-stationary")
    m = sampler_kernel.kernel_stationary(Run(".", {}), c["paper_value"], **c["args"])
    assert row_status(c, m) == "match"
    real, tilt = isdp.mcmc.DoubleGeometric.logpmf, 0.1

    def tilted(law, z):  # DG jumps tilted towards +: a proper pmf, but Metropolis without Hastings is then wrong
        a = np.exp(-law.epsilon)
        log_mgf = 2 * np.log1p(-a) - np.log1p(-a * np.exp(tilt)) - np.log1p(-a * np.exp(-tilt))
        return real(law, z) + tilt * np.asarray(z) - log_mgf

    monkeypatch.setattr(isdp.mcmc.DoubleGeometric, "logpmf", tilted)
    args = {**c["args"], "cases": c["args"]["cases"][:1]}  # the 2 × 3 case suffices and keeps the test short
    skew = sampler_kernel.kernel_stationary(Run(".", {}), c["paper_value"], **args)
    assert skew.value > 1e-3 and row_status(c, skew) == "differs"


def test_the_jump_is_symmetric_and_unbiased_and_a_skewed_mean_zero_z_is_not():
    c = registry_row("ISDP-E1-jump-symmetric")
    m = sampler_kernel.jump_symmetric(Run(".", {}), c["paper_value"], **c["args"])
    assert row_status(c, m) == "match", m.text
    skewed = {"skewed, mean 0": {-2: 0.25, 0: 0.25, 1: 0.5}}
    m = sampler_kernel.jump_symmetric(Run(".", {}), c["paper_value"], **{**c["args"], "laws": skewed})
    assert row_status(c, m) == "differs" and m.value > 0.1, m.text


FLIPS = {"ISDP-E1-joint-update-stationary": {"tilt": 0.2}}  # an asymmetric joint proposal


@pytest.mark.parametrize("row", FLIPS)
def test_row_matches_and_differs_under_a_plausibly_wrong_law(run, row):
    """ISDP-E1-joint-update-stationary matches for the symmetric joint proposal and differs for a tilted one."""
    assert_row_flips(row, run, FLIPS[row])
