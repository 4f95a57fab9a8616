"""ISDP-E1-coupling-finite (ISDP §4, App. D.2: the L-lag coupled chains couple in finite time with probability
one): the exact pair law is the sampler's, the row matches for Alg. 2, and it fails for a coupling that lets met
chains part (one uniform per Metropolis test)."""

from __future__ import annotations

import numpy as np
import pytest
import yaml
from conftest import ROOT, row_verdict
from scipy.stats import norm as normal

from isdp.coupling import meeting_times
from isdp.experiments.claims import Run
from isdp.experiments.lattice_study import measures
from isdp.experiments.lattice_study.coupling_law import apart_probabilities
from isdp.targets import generalized_laplace

ROW = "ISDP-E1-coupling-finite"
TIMES = np.arange(1, 41)


@pytest.fixture(scope="module")
def run():
    return Run(ROOT, config=yaml.safe_load((ROOT / "config" / "config.yaml").read_text()))


@pytest.mark.parametrize("norm", ["l1", "l2"])
def test_the_exact_pair_law_is_the_samplers(norm):
    lattice, target, n = measures._small_lattice("sum2"), generalized_laplace(1.0, norm), 200_000
    exact = apart_probabilities(lattice, target, proposal_eps=0.5, lag=5, horizon=TIMES[-1], radius=20)
    pairs = meeting_times(lattice, target, lag=5, n_pairs=n, proposal_eps=0.5, seed=3)
    observed = ((pairs.tau - pairs.lag)[:, None] > TIMES).mean(axis=0)
    z = (observed - exact) / np.sqrt(exact * (1 - exact) / n)
    assert np.abs(z).max() < normal.isf(0.01 / (2 * TIMES.size)), z  # Bonferroni over the 40 times


def test_the_row_matches_for_algorithm_2(run):
    status, m = row_verdict(ROW, run)
    assert status == "match" and m.value < 1e-9


def test_met_chains_that_part_again_fail_the_row(run):
    status, m = row_verdict(ROW, run, uniforms="independent", horizon=60)
    assert status == "differs" and m.value > 0.25


def test_only_rank_one_lattices_and_known_uniforms():
    target = generalized_laplace(1.0, "l1")
    with pytest.raises(ValueError, match="rank-1"):
        apart_probabilities(measures._small_lattice("margins2x3"), target, proposal_eps=0.5, lag=1, horizon=1,
                            radius=2)
    with pytest.raises(ValueError, match="uniforms"):
        apart_probabilities(measures._small_lattice("sum2"), target, proposal_eps=0.5, lag=1, horizon=1, radius=2,
                            uniforms="shared")
