"""Property-based tests of the public API (Hypothesis): random constraint matrices, starts and
parameters, degenerate ones included. Each call either raises a documented exception
(InvariantError, ValueError) or returns a result that meets its invariants exactly."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from isdp._runner import DG_EPS_RANGE
from isdp.errors import InvariantError
from isdp.exact import sample_sum_constraint_l1
from isdp.exact._exact_laws import sample_conditioned_dg
from isdp.lattice import IntegerLattice, check_release, generalized_laplace
from isdp.mcmc import MeetingTimes, meeting_times, mis_sample, sample


def _usable(v) -> bool:
    """A double geometric ε the samplers accept (see isdp._runner.DG_EPS_RANGE)."""
    return isinstance(v, float) and math.isfinite(v) and DG_EPS_RANGE[0] <= v <= DG_EPS_RANGE[1]


SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

small_matrices = st.integers(1, 3).flatmap(
    lambda m: st.integers(1, 6).flatmap(lambda n: arrays(np.int64, (m, n), elements=st.integers(-2, 2)))
)
any_float = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.floats(1e-3, 5.0))


@SETTINGS
@given(A=small_matrices)
def test_lattice_basis_spans_the_kernel_or_is_refused(A):
    try:
        lattice = IntegerLattice.from_constraints(A)
    except InvariantError as err:  # documented: full column rank leaves no room for noise
        assert "full column rank" in str(err)
        assert np.linalg.matrix_rank(A) == A.shape[1]
        return
    assert lattice.basis.dtype == np.int64
    assert not np.any(A @ lattice.basis)
    assert lattice.rank + lattice.dim == A.shape[1]
    assert np.linalg.matrix_rank(lattice.basis) == lattice.dim


@SETTINGS
@given(
    A=small_matrices,
    eps=any_float,
    proposal=any_float,
    seed=st.integers(0, 2**32),
    norm=st.sampled_from(["l1", "l2"]),
    x=arrays(np.int64, 6, elements=st.integers(0, 1000)),
)
def test_sample_meets_the_invariants_or_raises_a_documented_error(A, eps, proposal, seed, norm, x):
    try:
        lattice = IntegerLattice.from_constraints(A)
        target = generalized_laplace(eps, norm)
        res = sample(lattice, target, n_chains=2, n_draws=5, proposal_eps=proposal, seed=seed, thin=2, progress=False)
    except (InvariantError, ValueError):
        valid = isinstance(eps, float) and math.isfinite(eps) and eps > 0 and _usable(proposal)
        assume(not valid or np.linalg.matrix_rank(A) == A.shape[1])  # only the documented refusals
        return
    assert res.draws.dtype == np.int64 and res.draws.shape == (2, 5, A.shape[1])
    xs = x[: A.shape[1]]
    check_release(xs + res.draws, A, A @ xs)  # every release keeps every invariant exactly


@SETTINGS
@given(lag=st.one_of(st.integers(-3, 40), st.floats(allow_nan=True)), pairs=st.integers(-2, 6), proposal=any_float)
def test_meeting_times_arguments(lag, pairs, proposal):
    lattice = IntegerLattice.from_constraints(np.ones((1, 4), dtype=np.int64))
    whole = isinstance(lag, int) or (math.isfinite(lag) and float(lag).is_integer())
    ok = whole and 1 <= lag <= 200_000 and pairs >= 1 and _usable(proposal)
    if not ok:
        with pytest.raises(ValueError):
            meeting_times(
                lattice,
                generalized_laplace(1.0),
                lag=lag,
                n_pairs=pairs,
                proposal_eps=proposal,
                seed=1,
                max_iter=200_000,
            )
        return
    mt = meeting_times(
        lattice, generalized_laplace(1.0), lag=lag, n_pairs=pairs, proposal_eps=proposal, seed=1, max_iter=200_000
    )
    assert mt.met.all() and (mt.tau > lag).all()


@SETTINGS
@given(
    x=arrays(np.int64, 5, elements=st.integers(0, 20)), eps=any_float, proposal=any_float, seed=st.integers(0, 2**32)
)
def test_mis_keeps_equalities_and_non_negativity_or_raises(x, eps, proposal, seed):
    A = np.array([[1, 1, 1, 1, 1], [1, 1, 0, 0, 0]])
    try:
        res = mis_sample(
            A,
            A @ x,
            x,
            epsilon=eps,
            proposal_eps=proposal,
            index_set=[1, 2, 3],
            n_draws=20,
            seed=seed,
            B=np.eye(5),
            b=np.zeros(5),
            progress=False,
        )
    except ValueError:
        assert not (_usable(eps) and _usable(proposal))
        return
    flat = res.draws.reshape(-1, 5)
    check_release(flat, A, A @ x)
    assert flat.min() >= 0


# ---------------------------------------------------------------- degenerate parameters, named errors

BAD_EPS = [math.inf, -math.inf, math.nan, 0.0, -1.0, 1e-12, 800.0, "x"]


@pytest.mark.parametrize("eps", BAD_EPS)
def test_exact_samplers_refuse_a_degenerate_eps(eps):
    """Before: inf, nan and 800 looped for ever, 0 returned ±2**63, -1 returned zeros, 1e-12 ~1e11."""
    with pytest.raises(ValueError, match="eps"):
        sample_sum_constraint_l1(4, eps, 3, seed=1)
    with pytest.raises(ValueError, match="eps"):
        sample_conditioned_dg(np.ones((1, 4), dtype=np.int64), eps, 3, seed=1)


@pytest.mark.parametrize("n, size", [(2.5, 3), (4, 2.5), (1, 3), (4, -1), (4, math.nan), (True, 3)])
def test_exact_sampler_sizes_are_whole_numbers(n, size):
    with pytest.raises(ValueError, match="n must|size must"):
        sample_sum_constraint_l1(n, 1.0, size, seed=1)


@pytest.mark.parametrize("seed", [math.nan, -1, 1.5, "seed", None])
def test_a_bad_seed_is_named(seed):
    lattice = IntegerLattice.from_constraints(np.ones((1, 4), dtype=np.int64))
    with pytest.raises(ValueError, match="seed must be a non-negative integer"):
        sample(lattice, generalized_laplace(1.0), n_chains=1, n_draws=2, proposal_eps=0.5, seed=seed, progress=False)


@SETTINGS
@given(n=st.integers(2, 6), eps=any_float, seed=st.integers(0, 2**32))
def test_exact_sum_constraint_sampler_keeps_the_sum_or_raises(n, eps, seed):
    try:
        u = sample_sum_constraint_l1(n, eps, 4, seed=seed)
    except ValueError:
        assert not _usable(eps)
        return
    assert u.dtype == np.int64 and u.shape == (4, n) and not u.sum(axis=1).any()


@pytest.mark.parametrize(
    "release, invariants",
    [
        (np.array([1e19, -1e19, 0, 0]), [0]),  # float beyond int64: the cast wrapped and passed
        (np.array([2**62, 2**62, 0, 0]), [2**63]),  # A·x overflowed int64 and matched the wrapped target
        (np.array([2**62, 2**62, 0, 0]), [-(2**63)]),
        (np.array([0, 0, 0, 0]), [1e19]),
    ],
)
def test_check_release_refuses_counts_it_cannot_check_exactly(release, invariants):
    with pytest.raises(InvariantError, match="too large"):
        check_release(release, np.ones((1, 4), dtype=np.int64), invariants)


def _pairs(lag) -> MeetingTimes:
    return MeetingTimes(tau=np.array([5, 6, 7]), met=np.ones(3, dtype=bool), lag=lag, seconds=0.0)


@pytest.mark.parametrize(
    "call",
    [
        lambda: _pairs(2).tv_bound([math.inf]),
        lambda: _pairs(2).tv_bound([1.5]),
        lambda: _pairs(2).tv_bound([-1]),
        lambda: _pairs(0).tv_bound([1]),
        lambda: _pairs(2).convergence_iteration(math.nan),
        lambda: _pairs(2).convergence_iteration(0.0),
        lambda: _pairs(1.5).convergence_iteration(0.01),
    ],
)
def test_tv_bound_arguments_are_checked(call):
    with pytest.raises(ValueError, match="t must|lag must|threshold must"):
        call()
