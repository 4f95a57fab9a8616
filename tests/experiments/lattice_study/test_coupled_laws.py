"""Tests of :mod:`isdp_papers.lattice_study.coupled_laws`: each exact law is the sampler's, by Monte Carlo of
:mod:`isdp.mcmc` — the
L-lag pair's apart probabilities (:func:`apart_probabilities`) against :func:`isdp.mcmc.meeting_times`, one
coupled sweep (:func:`coupled_sweep_exact`) against :func:`isdp.mcmc._coupling.coupled_kernel_draws`, Eq. 11's jump
(:func:`jump_law`) against simulated B z — the compiled pair step is the plain double loop over states and proposals
to the last bit, and the pair law refuses what it is not written for."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import chisquare_gof
from isdp_papers.lattice_study.coupled_laws import _pair_step, apart_probabilities, coupled_sweep_exact, jump_law
from scipy.stats import norm as normal

from isdp.lattice import IntegerLattice, generalized_laplace, sum_constraint, table_margins
from isdp.mcmc import meeting_times
from isdp.mcmc._coupling import coupled_kernel_draws

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


def _pair_step_plain(P, logpi, pmf, common):
    """One coupled iteration of the pair law ``P`` as the plain loop over every state (i, j), its common proposals
    q and its pairs (q, r) of residual proposals, in Python: the reference :func:`_pair_step`
    (arranged for speed) must equal. Moves out of the box are dropped."""
    n, T = P.shape[0], (len(pmf) - 1) // 2
    P, logpi, pmf = P.tolist(), logpi.tolist(), pmf.tolist()
    out = [[0.0] * n for _ in range(n)]

    def tests(ax, ay):  # P(both accept), P(only X), P(only Y)
        if common:
            return min(ax, ay), max(0.0, ax - ay), max(0.0, ay - ax)
        return ax * ay, ax * (1.0 - ay), (1.0 - ax) * ay

    def put(q, r, w):
        if 0 <= q < n and 0 <= r < n:
            out[q][r] += w

    for i in range(n):
        for j in range(n):
            mass = P[i][j]
            if mass == 0.0:
                continue
            li, lj = logpi[i + T], logpi[j + T]
            overlap = 0.0
            for q in range(max(i, j) - T, min(i, j) + T + 1):  # both propose q (maximal coupling)
                c = min(pmf[q - i + T], pmf[q - j + T])
                overlap += c
                both, x_only, y_only = tests(
                    min(1.0, math.exp(logpi[q + T] - li)), min(1.0, math.exp(logpi[q + T] - lj))
                )
                put(q, q, mass * c * both)
                put(q, j, mass * c * x_only)
                put(i, q, mass * c * y_only)
                out[i][j] += mass * c * (1.0 - both - x_only - y_only)
            rest = 1.0 - overlap
            if rest <= 1e-300:
                continue
            for q in range(i - T, i + T + 1):  # unequal proposals: independent draws from the residuals
                rx = pmf[q - i + T] - (min(pmf[q - i + T], pmf[q - j + T]) if abs(q - j) <= T else 0.0)
                if rx <= 0.0:
                    continue
                ax = min(1.0, math.exp(logpi[q + T] - li))
                for r in range(j - T, j + T + 1):
                    ry = pmf[r - j + T] - (min(pmf[r - i + T], pmf[r - j + T]) if abs(r - i) <= T else 0.0)
                    if ry <= 0.0:
                        continue
                    both, x_only, y_only = tests(ax, min(1.0, math.exp(logpi[r + T] - lj)))
                    w = mass * rx * ry / rest
                    put(q, r, w * both)
                    put(q, j, w * x_only)
                    put(i, r, w * y_only)
                    out[i][j] += w * (1.0 - both - x_only - y_only)
    return np.array(out)


def test_the_compiled_pair_step_is_the_plain_loop_to_the_last_bit():
    """Random pair laws (zeros and the diagonal included), random log targets (with ties, a flat one, and a
    Laplace-like one with T ≥ 2·radius as :func:`apart_probabilities` uses), proposals cut at T below and above
    the box's width, both uniforms: :func:`_pair_step` adds the same terms to every cell in the
    same order as the plain loop, so the laws are equal bit for bit (and so are the rows computed from them)."""
    rng = np.random.default_rng(41)
    cases = [(7, 8, -0.7 * np.abs(np.arange(-11, 12)))]  # a Laplace-like target, T = 8 ≥ 2 · 3
    for n, T in [(1, 3), (2, 1), (5, 2), (6, 6), (8, 3), (9, 12)]:
        logpi = rng.normal(size=n + 2 * T) * rng.choice([0.3, 3.0])
        cases += [(n, T, logpi), (n, T, np.round(logpi)), (n, T, np.zeros(n + 2 * T))]
    for n, T, logpi in cases:
        pmf = rng.random(2 * T + 1) + 0.05
        pmf = (pmf + pmf[::-1]) / (2.01 * pmf.sum())  # symmetric, like the DG, and 0.5 % of its mass cut
        P = rng.random((n, n)) * (rng.random((n, n)) < 0.7)
        P[0, 0] = 0.3
        P /= P.sum()
        for common in (True, False):
            assert np.array_equal(_pair_step(P, logpi, pmf, common), _pair_step_plain(P, logpi, pmf, common)), (
                n,
                T,
                common,
            )


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
