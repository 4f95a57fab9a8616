"""Tests of :mod:`isdp.coupled_laws`: each exact law is the sampler's, by Monte Carlo of :mod:`isdp.coupling` — the
L-lag pair's apart probabilities (:func:`apart_probabilities`) against :func:`isdp.coupling.meeting_times`, one
coupled sweep (:func:`coupled_sweep_exact`) against :func:`isdp.coupling.coupled_kernel_draws`, Eq. 11's jump
(:func:`jump_law`) against simulated B z — and the pair law refuses what it is not written for."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import chisquare_gof
from scipy.stats import norm as normal

from isdp.coupled_laws import apart_probabilities, coupled_sweep_exact, jump_law
from isdp.coupling import coupled_kernel_draws, meeting_times
from isdp.lattice import IntegerLattice, sum_constraint, table_margins
from isdp.targets import generalized_laplace

TIMES = np.arange(1, 41)
CASES = [("l1", 0.15, [[0, 0], [1, 1]]), ("l2", 0.05, [[0, 0], [0, 1]]), ("l1", 0.1, [[10, -5], [12, -5]])]
ALPHA = 0.01 / (3 * len(CASES))  # Bonferroni: meeting rate and two margins per case


def _sum2():
    """The rank-1 lattice of a total of two cells (spanned by (1, −1))."""
    return IntegerLattice.from_constraints(sum_constraint(2))


def _margins2x3():
    """The rank-2 lattice of a 2 × 3 table's margins."""
    return IntegerLattice.from_constraints(table_margins(2, 3))


# --------------------------------------------------------------------------- the L-lag pair (apart_probabilities)


@pytest.mark.parametrize("norm", ["l1", "l2"])
def test_the_exact_pair_law_is_the_samplers(norm):
    lattice, target, n = _sum2(), generalized_laplace(1.0, norm), 200_000
    exact = apart_probabilities(lattice, target, proposal_eps=0.5, lag=5, horizon=TIMES[-1], radius=20)
    pairs = meeting_times(lattice, target, lag=5, n_pairs=n, proposal_eps=0.5, seed=3)
    observed = ((pairs.tau - pairs.lag)[:, None] > TIMES).mean(axis=0)
    z = (observed - exact) / np.sqrt(exact * (1 - exact) / n)
    assert np.abs(z).max() < normal.isf(0.01 / (2 * TIMES.size)), z  # Bonferroni over the 40 times


def test_only_rank_one_lattices_and_known_uniforms():
    target = generalized_laplace(1.0, "l1")
    with pytest.raises(ValueError, match="rank-1"):
        apart_probabilities(_margins2x3(), target, proposal_eps=0.5, lag=1, horizon=1, radius=2)
    with pytest.raises(ValueError, match="uniforms"):
        apart_probabilities(_sum2(), target, proposal_eps=0.5, lag=1, horizon=1, radius=2, uniforms="shared")


# --------------------------------------------------------------------------- one coupled sweep (coupled_sweep_exact)


def _categories(lattice, draws, w, T):
    """Each draw's index in the one-sweep law's box w + [-T, T]² (row-major), -1 outside it."""
    off = lattice.coordinates(draws) - np.asarray(w) + T
    inside = np.all((off >= 0) & (off <= 2 * T), axis=1)
    return np.where(inside, off[:, 0] * (2 * T + 1) + off[:, 1], -1)


@pytest.mark.parametrize(("norm", "proposal_eps", "pair"), CASES)
def test_the_exact_coupled_sweep_is_the_samplers(norm, proposal_eps, pair):
    lattice, target = _margins2x3(), generalized_laplace(0.2, norm)
    (wx, wy), n = np.asarray(pair), 200_000
    exact = coupled_sweep_exact(lattice, target, proposal_eps, [pair])[0]
    out_x, out_y = coupled_kernel_draws(
        lattice, target, lattice.basis @ wx, lattice.basis @ wy, proposal_eps=proposal_eps, n_rep=n, seed=28
    )
    meet = float(np.all(out_x == out_y, axis=1).mean())
    z = (meet - exact["meet"]) / np.sqrt(exact["meet"] * (1 - exact["meet"]) / n)
    assert abs(z) < normal.isf(ALPHA / 2), (meet, exact["meet"])
    for draws, w, law in ((out_x, wx, exact["law_x"]), (out_y, wy, exact["law_y"])):
        assert chisquare_gof(_categories(lattice, draws, w, exact["T"]), law.ravel()) > ALPHA


# --------------------------------------------------------------------------- Eq. 11's jump (jump_law)


def test_jump_law_is_the_law_of_basis_times_z():
    """Against simulation: B z for i.i.d. z from the three-point law, frequencies within binomial error."""
    lattice = _margins2x3()
    law = jump_law(lattice, {-1: 0.25, 0: 0.5, 1: 0.25})
    rng = np.random.default_rng(5)
    z = rng.choice([-1, 0, 1], p=[0.25, 0.5, 0.25], size=(20_000, lattice.dim))
    jumps, counts = np.unique(z @ lattice.basis.T, axis=0, return_counts=True)
    for v, k in zip(jumps, counts, strict=True):
        p = law[tuple(int(c) for c in v)]
        assert abs(k / 20_000 - p) <= 5 * np.sqrt(p * (1 - p) / 20_000)
    assert sum(law.values()) == pytest.approx(1.0)
