"""Alternative couplings (benchmarks/coupling_designs.py): each margin moves by its design's exact kernel,
met chains stay together, and the meeting-time bookkeeping."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import ALPHA, chisquare_gof, rows_to_categories
from coupling_designs import (
    DESIGNS,
    Design,
    design_meeting_times,
    design_moves,
    disagreement,
    iteration_draws,
)

from isdp.exact import enumerate_target, sweep_transition_matrix
from isdp.lattice import IntegerLattice, generalized_laplace, sum_constraint, with_mixing_basis
from isdp.mcmc import DoubleGeometric, meeting_times

EPS_PROP, RADIUS = 0.5, 18


def _move_kernels(lattice, target, moves, eps_prop, radius):
    """Exact one-move Metropolis kernels on the lattice points of the box |w|_∞ ≤ radius.

    Mass of moves that leave the box is dropped (callers check it is small), as in
    :func:`isdp.exact.sweep_transition_matrix`. Returns (list of m × m kernels, points).
    """
    u, _, _ = enumerate_target(lattice, target, radius)
    logp = target.log_density(u)
    reach = 2 * radius + int(np.ceil(np.log(1e-18) / -eps_prop))
    jumps = np.array([z for z in range(-reach, reach + 1) if z != 0])
    q = np.exp(DoubleGeometric(eps_prop).logpmf(jumps))
    source = np.repeat(np.arange(len(u)), len(jumps))
    kernels = []
    for col in moves.T:
        dest = (u[:, None, :] + jumps[None, :, None] * col[None, None, :]).reshape(-1, u.shape[1])
        mass = q[None, :] * np.exp(np.minimum(0.0, target.log_density(dest).reshape(len(u), -1) - logp[:, None]))
        P = np.zeros((len(u), len(u)))
        to = rows_to_categories(dest, u)
        inside = to >= 0
        np.add.at(P, (source[inside], to[inside]), mass.ravel()[inside])
        P[np.arange(len(u)), np.arange(len(u))] += 1.0 - mass.sum(axis=1)
        kernels.append(P)
    return kernels, u


# (cells, target label, design) -> its one-iteration kernel, shared by the two starts of a design
_KERNELS = {}


def _iteration_kernel(lattice, target, design):
    key = (lattice.n, target.label, design)
    if key not in _KERNELS:
        moves, _ = design_moves(lattice, design.basis)
        kernels, u = _move_kernels(lattice, target, moves, EPS_PROP, RADIUS)
        if design.scan == "systematic":
            P = np.linalg.multi_dot([np.eye(len(u)), *kernels])
        else:
            P = np.linalg.matrix_power(sum(kernels) / len(kernels), lattice.dim)
        _KERNELS[key] = P, u
    return _KERNELS[key]


def test_exact_move_kernels_reproduce_the_sweep_matrix(sum3):
    target = generalized_laplace(0.5)
    P, u = _iteration_kernel(sum3, target, DESIGNS["smith-maximal"])
    ref, _, u_ref = sweep_transition_matrix(sum3, target, EPS_PROP, RADIUS)
    np.testing.assert_array_equal(u, u_ref)
    np.testing.assert_allclose(P, ref.toarray(), atol=1e-12)


NEAR = np.array([3, -2, -1])
FAR = np.array([-11, 6, 5])  # ‖x - y‖₁ = 22 > 20: the two-phase design starts with common jumps


@pytest.mark.parametrize("start_y", [NEAR, FAR], ids=["near", "far"])
@pytest.mark.parametrize("name", list(DESIGNS))
@pytest.mark.parametrize("target", [generalized_laplace(0.5, "l1"), generalized_laplace(0.4, "l2")], ids=["l1", "l2"])
def test_each_margin_moves_by_the_design_kernel(sum3, target, name, start_y):
    design = DESIGNS[name]
    P, u = _iteration_kernel(sum3, target, design)
    x = np.zeros(3, dtype=np.int64)
    out_x, out_y = iteration_draws(
        sum3, target, design, x, start_y, proposal_eps=EPS_PROP, n_rep=30_000, seed=list(DESIGNS).index(name)
    )
    single, _ = iteration_draws(sum3, target, design, x, x, proposal_eps=EPS_PROP, n_rep=30_000, seed=7, coupled=False)
    for what, start, out in (("X", x, out_x), ("Y", start_y, out_y), ("single", x, single)):
        row = P[int(rows_to_categories(start[None, :], u)[0])]
        # the box holds nearly all of the one-iteration law; the rest is tested as one category
        assert row.sum() > 0.999
        pval = chisquare_gof(rows_to_categories(out, u), row)
        assert pval > ALPHA, f"{name}, margin {what}: chi-square p = {pval:.2e}"
    assert np.mean(np.all(out_x == out_y, axis=1)) > 0  # and the pair does meet sometimes


@pytest.mark.parametrize("name", list(DESIGNS))
def test_met_chains_stay_together(name):
    lattice = IntegerLattice.from_constraints(sum_constraint(6))
    x = np.array([4, -3, 0, 7, -2, -6])
    out_x, out_y = iteration_draws(
        lattice, generalized_laplace(0.3), DESIGNS[name], x, x, proposal_eps=0.3, n_rep=3000, seed=5
    )
    np.testing.assert_array_equal(out_x, out_y)
    assert np.mean(np.any(out_x != x, axis=1)) > 0.5  # and they do move


@pytest.mark.parametrize("name", ["smith-maximal", "path-maximal"])
def test_coordinate_designs_are_the_library_coupling(name):
    """Same draws in the same order: identical meeting times to isdp.mcmc.meeting_times run
    on the design's lattice basis (so the path designs certify isdp.mcmc.sample on the path basis)."""
    lattice = IntegerLattice.from_constraints(sum_constraint(6))
    if name.startswith("path"):
        lattice = with_mixing_basis(lattice, "path")
        np.testing.assert_array_equal(lattice.basis, design_moves(lattice, "path")[0])
    target = generalized_laplace(0.5)
    far = np.array([20, -20, 5, 0, -3, -2])
    kw = {"lag": 4, "n_pairs": 200, "proposal_eps": 0.5, "seed": 3, "init": far}
    ours = design_meeting_times(lattice, target, DESIGNS[name], **kw)
    ref = meeting_times(lattice, target, **kw)
    assert ref.met.all()
    np.testing.assert_array_equal(ours.tau, ref.tau)


@pytest.mark.parametrize("name", list(DESIGNS))
def test_meeting_times_bookkeeping(sum3, name):
    target = generalized_laplace(0.5)
    kw = {"lag": 5, "n_pairs": 200, "proposal_eps": 0.5}
    mt = design_meeting_times(sum3, target, DESIGNS[name], seed=1, **kw)
    again = design_meeting_times(sum3, target, DESIGNS[name], seed=1, **kw)
    np.testing.assert_array_equal(mt.tau, again.tau)
    assert mt.met.all() and np.all(mt.tau > 5) and mt.lag == 5
    assert mt.tv_bound([0])[0] > 0 and mt.tv_bound([mt.tau.max()])[0] == 0
    cut = design_meeting_times(
        sum3, target, DESIGNS[name], seed=2, max_iter=7, init=sum3.basis @ np.array([30, -30]), **kw
    )
    assert not cut.met.all() and np.all(cut.tau[~cut.met] == 7)  # censoring is reported


@pytest.mark.parametrize("name", ["smith-maximal", "path-reflection", "pairs-random"])
def test_disagreement_follows_the_same_pairs_as_meeting_times(name):
    """Same seed, same draws: a pair's disagreement is 0 at a checkpoint exactly when it has met by then."""
    lattice = IntegerLattice.from_constraints(sum_constraint(8))
    target = generalized_laplace(0.3, "l2")
    kw = {"lag": 5, "n_pairs": 40, "proposal_eps": 0.3, "seed": 3}
    checkpoints = np.array([0, 3, 10, 30, 100, 300, 1000, 3000])
    mt = design_meeting_times(lattice, target, DESIGNS[name], max_iter=5 + 3000, **kw)
    gaps = disagreement(lattice, target, DESIGNS[name], checkpoints=checkpoints, **kw)
    met_by = np.where(mt.met, mt.tau - 5, np.iinfo(np.int64).max)[:, None] <= checkpoints[None, :]
    np.testing.assert_array_equal(gaps == 0, met_by)
    assert np.all((gaps >= 0) & (gaps <= 8)) and gaps[:, 0].max() > 0
    with pytest.raises(ValueError, match="increasing"):
        disagreement(lattice, target, DESIGNS[name], checkpoints=[5, 5], **kw)


def test_design_validation(sum3, table22):
    with pytest.raises(ValueError):
        Design("x", basis="other")
    with pytest.raises(ValueError):
        Design("x", basis="pairs", scan="systematic", anchor="cell")
    with pytest.raises(ValueError):
        Design("x", basis="pairs", scan="random")  # not a basis: no coordinates to anchor on
    with pytest.raises(ValueError, match="single sum constraint"):
        design_moves(table22, "path")
    moves, anchors = design_moves(sum3, "smith")
    assert np.all(sum3.A @ moves == 0) and np.all(np.abs(moves[anchors, range(moves.shape[1])]) == 1)
    for basis in ("path", "pairs"):
        moves, _ = design_moves(sum3, basis)
        assert np.all(moves.sum(axis=0) == 0)
