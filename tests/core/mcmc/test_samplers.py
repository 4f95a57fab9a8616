"""The Gibbs-within-Metropolis sampler against exact laws.

I.i.d. draws from the sampler come from many independent chains run past burn-in, keeping one
draw per chain; goodness of fit is then a plain chi-square test (conftest helpers).
"""

from __future__ import annotations

import numba
import numpy as np
import pytest
from conftest import (
    ALPHA,
    Z_TOL,
    assert_mean_zero,
    chisquare_gof,
    chisquare_gof_integers,
    chisquare_two_sample,
    ess_se,
    iid_se,
    rows_to_categories,
)

from isdp.errors import InvariantError
from isdp.exact import enumerate_target, sample_sum_constraint_l1
from isdp.lattice import (
    IntegerLattice,
    check_release,
    generalized_gaussian,
    generalized_laplace,
    sum_constraint,
    table_margins,
    venn_constraints,
)
from isdp.mcmc import DoubleGeometric, sample, tune_proposal

N_CHAINS = 20_000


def iid_draws(lattice, target, *, seed, n_chains=N_CHAINS, burn_in=200, proposal_eps=0.5, **kw):
    """One draw per independent chain after ``burn_in`` iterations: (n_chains, n)."""
    res = sample(
        lattice,
        target,
        n_chains=n_chains,
        n_draws=1,
        burn_in=burn_in,
        proposal_eps=proposal_eps,
        seed=seed,
        progress=False,
        **kw,
    )
    assert res.draws.shape == (n_chains, 1, lattice.n) and res.draws.dtype == np.int64
    return res.draws[:, 0, :]


# --------------------------------------------------------------------------- 1-D lattices, closed forms


@pytest.mark.parametrize("update", ["component", "joint"])
def test_2x2_table_l1_free_coordinate_is_double_geometric(table22, update):
    """Fixed margins of a 2×2 table: u = w·(1,-1,-1,1), π(w) ∝ e^{-4ε|w|}, i.e. w ~ DG(e^{-4ε})."""
    eps = 0.15
    u = iid_draws(table22, generalized_laplace(eps, "l1"), seed=1, update=update)
    pattern = np.array([1, -1, -1, 1])
    w = u[:, 0]
    np.testing.assert_array_equal(u, w[:, None] * pattern[None, :])  # the only free direction
    ks = np.arange(-100, 101)
    pval = chisquare_gof_integers(w, ks, DoubleGeometric(4 * eps).pmf(ks))
    assert pval > ALPHA, f"chi-square p = {pval:.2e}"


@pytest.mark.parametrize("eps", [0.2, 0.6])
def test_two_cells_l2_against_closed_form(sum2, eps):
    """Sum constraint on 2 cells: ‖w(1,-1)‖₂ = √2|w|, so w ~ DG(e^{-√2 ε}) exactly."""
    u = iid_draws(sum2, generalized_laplace(eps, "l2"), seed=2, proposal_eps=0.4)
    np.testing.assert_array_equal(u[:, 0], -u[:, 1])
    ks = np.arange(-200, 201)
    pval = chisquare_gof_integers(u[:, 0], ks, DoubleGeometric(np.sqrt(2) * eps).pmf(ks))
    assert pval > ALPHA, f"chi-square p = {pval:.2e}"


def test_acceptance_rate_at_stationarity(table22):
    """Chains started in π stay in π; the reported acceptance is the stationary rate
    Σ_w π(w) Σ_z q(z) min(1, π(w+z)/π(w)) (a z = 0 proposal counts as accepted)."""
    eps, eps_prop, n_chains, n_iter = 0.15, 0.3, 4000, 25
    a_t = np.exp(-4 * eps)
    rng = np.random.default_rng(3)
    w0 = rng.geometric(1 - a_t, n_chains) - rng.geometric(1 - a_t, n_chains)  # exact DG(a_t)
    pattern = np.array([1, -1, -1, 1])
    res = sample(
        table22,
        generalized_laplace(eps),
        n_chains=n_chains,
        n_draws=n_iter,
        proposal_eps=eps_prop,
        seed=4,
        init=w0[:, None] * pattern,
        progress=False,
    )
    ws = np.arange(-150, 151)
    zs = np.arange(-300, 301)
    pi = DoubleGeometric(4 * eps).pmf(ws)
    ratio = np.minimum(1.0, a_t ** (np.abs(ws[:, None] + zs[None, :]) - np.abs(ws[:, None])))
    expected = float(pi @ (ratio @ DoubleGeometric(eps_prop).pmf(zs)))
    assert abs(res.acceptance.mean() - expected) < Z_TOL * iid_se(res.acceptance)
    # stationarity is preserved: the last draw of every chain is still DG(a_t)
    pval = chisquare_gof_integers(res.draws[:, -1, 0], ws, pi)
    assert pval > ALPHA


# --------------------------------------------------------------------------- 2-D lattice, enumeration

TARGETS_3 = [
    ("l1", "component", generalized_laplace(0.4, "l1")),
    ("l2", "component", generalized_laplace(0.4, "l2")),
    ("gaussian", "component", generalized_gaussian(2.0)),
    ("l1", "joint", generalized_laplace(0.4, "l1")),
    ("l2", "joint", generalized_laplace(0.4, "l2")),
    ("gaussian", "joint", generalized_gaussian(2.0)),
]


@pytest.mark.parametrize(("name", "update", "target"), TARGETS_3, ids=[f"{t[0]}-{t[1]}" for t in TARGETS_3])
def test_three_cell_sum_joint_law_against_enumeration(sum3, name, update, target):
    u = iid_draws(sum3, target, seed=5, update=update)
    assert np.all(u.sum(axis=1) == 0)
    points, probs, _ = enumerate_target(sum3, target, radius=45)
    pval = chisquare_gof(rows_to_categories(u, points), probs)
    assert pval > ALPHA, f"{name}/{update}: chi-square p = {pval:.2e}"


# --------------------------------------------------------------------------- larger lattice vs exact sampler


def test_mcmc_marginals_match_exact_sampler_n30():
    n, eps, n_draws = 30, 0.2, 4000
    lattice = IntegerLattice.from_constraints(sum_constraint(n))
    mcmc = iid_draws(lattice, generalized_laplace(eps), seed=6, n_chains=n_draws, burn_in=300, proposal_eps=0.3)
    exact = sample_sum_constraint_l1(n, eps, n_draws, seed=7)
    assert np.all(mcmc.sum(axis=1) == 0)
    # cell 0 is touched by every basis vector of the Smith basis, cell n-1 by one only
    for what, x, y in (
        ("u_1", mcmc[:, 0], exact[:, 0]),
        ("u_n", mcmc[:, -1], exact[:, -1]),
        ("sum |u_i|", np.abs(mcmc).sum(1), np.abs(exact).sum(1)),
    ):
        pval = chisquare_two_sample(x, y)
        assert pval > ALPHA, f"{what}: two-sample chi-square p = {pval:.2e}"


# --------------------------------------------------------------------------- invariants, unbiasedness


@pytest.mark.parametrize(
    ("A", "target"),
    [
        (venn_constraints(3, 2), generalized_laplace(0.2, "l1")),
        (venn_constraints(3, 2), generalized_laplace(0.2, "l2")),
        (table_margins(4, 4), generalized_laplace(0.2, "l1")),
    ],
    ids=["E1-l1", "E1-l2", "E2-l1"],
)
def test_draws_are_integer_keep_invariants_and_are_unbiased(A, target):
    lattice = IntegerLattice.from_constraints(A)
    x = np.arange(A.shape[1]) % 7 + 3
    u = iid_draws(lattice, target, seed=8, n_chains=3000, burn_in=300, proposal_eps=0.2)
    assert u.dtype == np.int64
    assert np.all(u @ A.T == 0)
    check_release(x + u, A, A @ x)
    assert np.all(u.std(axis=0) > 1)  # every cell really is noised
    assert_mean_zero(u, iid_se(u), "independent chains")


def test_unbiased_from_a_far_start_with_ess_standard_errors():
    """Long chains from a far-off lattice point: burn-in forgets the start, and the per-cell
    mean is 0 within 4 ESS-based standard errors."""
    A = table_margins(4, 4)
    lattice = IntegerLattice.from_constraints(A)
    start = np.zeros((4, 4), dtype=np.int64)
    start[0, 0] = start[3, 3] = 40
    start[0, 3] = start[3, 0] = -40
    res = sample(
        lattice,
        generalized_laplace(0.2),
        n_chains=4,
        n_draws=5000,
        burn_in=1000,
        proposal_eps=0.2,
        seed=9,
        init=start.ravel(),
        progress=False,
    )
    assert np.all(res.draws @ A.T == 0)
    assert_mean_zero(res.draws, ess_se(res.draws), "ESS-based")


# --------------------------------------------------------------------------- determinism, bookkeeping


def _run(lattice, seed, **kw):
    args = dict(n_chains=6, n_draws=40, proposal_eps=0.3, burn_in=5, thin=2, progress=False)
    args.update(kw)
    return sample(lattice, generalized_laplace(0.3, "l2"), seed=seed, **args)


def test_same_seed_same_draws_any_thread_count():
    lattice = IntegerLattice.from_constraints(venn_constraints(3, 2))
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("needs at least 2 numba threads")
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = _run(lattice, seed=11)
        numba.set_num_threads(2)
        two = _run(lattice, seed=11)
    finally:
        numba.set_num_threads(before)
    np.testing.assert_array_equal(one.draws, two.draws)
    np.testing.assert_array_equal(one.final_state, two.final_state)
    np.testing.assert_array_equal(one.acceptance, two.acceptance)
    other = _run(lattice, seed=12)
    assert not np.array_equal(one.draws, other.draws)
    # chains are not copies of each other
    assert not np.array_equal(one.draws[0], one.draws[1])


@pytest.mark.parametrize("update", ["component", "joint"])
def test_burn_in_and_thin_bookkeeping(sum3, update):
    burn_in, thin, n_draws = 7, 3, 12
    short = _run(sum3, seed=13, burn_in=burn_in, thin=thin, n_draws=n_draws, update=update)
    assert short.draws.shape == (6, n_draws, 3)
    assert short.n_iterations == burn_in + n_draws * thin
    assert (short.burn_in, short.thin, short.update) == (burn_in, thin, update)
    full = _run(sum3, seed=13, burn_in=0, thin=1, n_draws=burn_in + n_draws * thin, update=update)
    # draw d is the state after burn_in + (d + 1)·thin iterations, i.e. full index that minus 1
    idx = burn_in + (np.arange(n_draws) + 1) * thin - 1
    np.testing.assert_array_equal(short.draws, full.draws[:, idx])
    np.testing.assert_array_equal(short.final_state, full.draws[:, -1])
    assert len(np.unique(full.draws.reshape(-1, 3), axis=0)) > 10  # chains actually move
    assert np.all((short.acceptance >= 0) & (short.acceptance <= 1))


def test_starts_and_coordinates_reach_the_kernels_in_one_layout(sum3):
    """The compiled kernels are cached per array layout: a Fortran-ordered start (a transposed matrix)
    must reach them C-ordered, with the same values and the same draws, not as a second compilation."""
    from isdp.mcmc._samplers import starting_states

    starts = np.array([[1, -1, 0], [2, 0, -2], [0, 3, -3], [1, 1, -2], [0, 0, 0], [-4, 2, 2]])
    fortran = np.asfortranarray(starts)
    converted = starting_states(sum3, fortran, 6)
    assert converted.flags.c_contiguous and np.array_equal(converted, starts)
    w = sum3.coordinates(fortran)
    assert w.flags.c_contiguous and np.array_equal(sum3.basis @ w.T, starts.T)
    a, b = (_run(sum3, seed=5, n_draws=20, init=init) for init in (starts, fortran))
    np.testing.assert_array_equal(a.draws, b.draws)


def test_no_draws_is_allowed(sum3):
    res = _run(sum3, seed=1, n_draws=0, burn_in=10)
    assert res.draws.shape == (6, 0, 3)
    assert sum3.contains(res.final_state)


def test_invalid_arguments(sum3):
    ok = dict(n_chains=2, n_draws=3, proposal_eps=0.5, seed=0, progress=False)
    target = generalized_laplace(0.5)
    with pytest.raises(InvariantError):
        sample(sum3, target, init=[1, 0, 0], **ok)  # outside Λ
    with pytest.raises(InvariantError):
        sample(sum3, target, init=[0.5, -0.5, 0], **ok)  # not integer
    with pytest.raises(InvariantError):
        sample(sum3, target, init=np.zeros((3, 3), dtype=int), **ok)  # wrong number of chains
    with pytest.raises(ValueError):
        sample(sum3, target, update="gibbs", **ok)
    for bad in (0.0, -1.0, np.nan):
        with pytest.raises(ValueError):
            sample(sum3, target, **{**ok, "proposal_eps": bad})
    for name, bad in (
        ("n_chains", 0),
        ("n_draws", -1),
        ("thin", 0),
        ("burn_in", -1),
        ("thin", 1.5),
    ):
        with pytest.raises(ValueError):
            sample(sum3, target, **{**ok, name: bad})
    # a valid per-chain init is used as the start
    init = np.array([[1, -1, 0], [5, 0, -5]])
    res = sample(sum3, target, init=init, **{**ok, "n_draws": 0})
    assert res.final_state.shape == (2, 3)


# --------------------------------------------------------------------------- tuning


def test_tune_proposal():
    lattice = IntegerLattice.from_constraints(table_margins(4, 4))
    grid = [0.02, 0.1, 0.3, 1.0, 3.0]
    table, chosen = tune_proposal(lattice, generalized_laplace(0.2), grid, n_chains=4, n_iter=600, seed=1)
    assert list(table["proposal_eps"]) == grid
    # a wider proposal (smaller ε_prop) is accepted less often
    assert np.all(np.diff(table["acceptance"].to_numpy()) > 0)
    assert table["acceptance"].between(0, 1).all() and (table["msjd"] > 0).all()
    assert chosen in grid and table["chosen"].sum() == 1
    assert table.loc[table["chosen"], "proposal_eps"].item() == chosen
    in_range = table[table["in_range"]]
    assert len(in_range) > 0, "the grid brackets the 0.2–0.5 acceptance window"
    assert np.all(in_range["acceptance"].between(0.2, 0.5))
    assert chosen in set(in_range["proposal_eps"])
    assert in_range.loc[in_range["msjd"].idxmax(), "proposal_eps"] == chosen


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"proposal_eps": float("inf")}, "proposal_eps"),
        ({"proposal_eps": float("nan")}, "proposal_eps"),
        ({"proposal_eps": "0.1"}, None),  # a numeric string is accepted as the number it spells
        ({"proposal_eps": -1.0}, "proposal_eps"),
        ({"n_draws": 2.5}, "n_draws"),
        ({"thin": 0}, "thin"),
        ({"n_chains": None}, "n_chains"),
    ],
)
def test_sample_rejects_bad_arguments_by_name(kwargs, message):
    lattice = IntegerLattice.from_constraints(sum_constraint(3))
    args = {"n_chains": 2, "n_draws": 5, "proposal_eps": 0.5, "seed": 1, **kwargs}
    if message is None:
        assert sample(lattice, generalized_laplace(0.5), **args).draws.shape == (2, 5, 3)
    else:
        with pytest.raises(ValueError, match=message):
            sample(lattice, generalized_laplace(0.5), **args)
