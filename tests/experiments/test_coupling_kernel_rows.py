"""ISDP-E1-maximal-coupling-kernel (ISDP §4, App. D.2: Alg. 2's joint kernel as a maximal coupling of the one-sweep
kernels): the exact computation models the sampler (Monte Carlo of :func:`isdp.coupling.coupled_kernel_draws`),
the row differs on the real targets, and matches where the kernel is maximal."""

from __future__ import annotations

import numpy as np
import pytest
import yaml
from conftest import REGISTRY, ROOT, chisquare_gof, row_verdict
from scipy.stats import norm as normal

from isdp.coupling import coupled_kernel_draws
from isdp.experiments import claims
from isdp.experiments.claims import Run
from isdp.experiments.lattice_study import measures
from isdp.targets import generalized_laplace

ROW = "ISDP-E1-maximal-coupling-kernel"
CASES = [("l1", 0.15, [[0, 0], [1, 1]]), ("l2", 0.05, [[0, 0], [0, 1]]), ("l1", 0.1, [[10, -5], [12, -5]])]
ALPHA = 0.01 / (3 * len(CASES))  # Bonferroni: meeting rate and two margins per case


@pytest.fixture(scope="module")
def run():
    return Run(ROOT, config=yaml.safe_load((ROOT / "config" / "config.yaml").read_text()))


def _categories(lattice, draws, w, T):
    """Each draw's index in the one-sweep law's box w + [-T, T]² (row-major), -1 outside it."""
    off = lattice.coordinates(draws) - np.asarray(w) + T
    inside = np.all((off >= 0) & (off <= 2 * T), axis=1)
    return np.where(inside, off[:, 0] * (2 * T + 1) + off[:, 1], -1)


@pytest.mark.parametrize(("norm", "proposal_eps", "pair"), CASES)
def test_the_exact_coupled_sweep_is_the_samplers(norm, proposal_eps, pair):
    lattice, target = measures._small_lattice("margins2x3"), generalized_laplace(0.2, norm)
    (wx, wy), n = np.asarray(pair), 200_000
    exact = measures.coupled_sweep_exact(lattice, target, proposal_eps, [pair])[0]
    out_x, out_y = coupled_kernel_draws(
        lattice, target, lattice.basis @ wx, lattice.basis @ wy, proposal_eps=proposal_eps, n_rep=n, seed=28
    )
    meet = float(np.all(out_x == out_y, axis=1).mean())
    z = (meet - exact["meet"]) / np.sqrt(exact["meet"] * (1 - exact["meet"]) / n)
    assert abs(z) < normal.isf(ALPHA / 2), (meet, exact["meet"])
    for draws, w, law in ((out_x, wx, exact["law_x"]), (out_y, wy, exact["law_y"])):
        assert chisquare_gof(_categories(lattice, draws, w, exact["T"]), law.ravel()) > ALPHA


def test_the_row_differs_on_the_configured_targets(run):
    status, m = row_verdict(ROW, run)
    assert status == "differs" and m.value < 0.1 and m.n == 15
    assert claims.claim(ROW, REGISTRY)["cause"] == "reading"


def test_the_row_matches_where_the_sweep_is_maximal(run):
    # a flat target accepts every proposal: one coordinate apart the sweep is the maximal proposal coupling
    status, m = row_verdict(ROW, run, target_eps=1e-12, pairs=[[[0, 0], [1, 0]], [[0, 0], [0, 3]]])
    assert status == "match" and abs(m.value - 1) < 1e-9
    status, m = row_verdict(ROW, run, pairs=[[[0, 0], [0, 0]], [[7, -3], [7, -3]]])  # equal chains
    assert status == "match"
    # two coordinates apart even the flat target's sweep is not maximal: a product of maximal couplings is not
    status, m = row_verdict(ROW, run, target_eps=1e-12, pairs=[[[0, 0], [1, 1]]])
    assert status == "differs" and m.value < 0.99
