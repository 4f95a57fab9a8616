"""Hostile values through the public library API: integer arithmetic at the edges (membership,
norms, LLL), the exact sampler on near-dependent invariants with coefficients up to 2**31 and its
cost, and the input checks of the exact transition matrix, the coupled-kernel draw helpers and the
proposal tuner. Each case asserts the exact error type."""

from __future__ import annotations

import math

import numpy as np
import pytest
from coupling_designs import DESIGNS, iteration_draws
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from isdp.errors import InvariantError
from isdp.exact import enumerate_target, sample_sum_constraint_l1, seeded_source, sweep_transition_matrix
from isdp.exact._exact_laws import sum_constraint_acceptance
from isdp.lattice import IntegerLattice, generalized_laplace, sum_constraint, venn_constraints
from isdp.mcmc import DoubleGeometric, sample, tune_proposal
from isdp.mcmc._coupling import coupled_kernel_draws
from isdp.mcmc._kernels import SUMSQ_LIMIT, squared_norm
from isdp.mcmc._meeting_times import tv_upper_bound

SUM3 = IntegerLattice.from_constraints([[1, 1, 1]])
L1 = generalized_laplace(1.0)
int64s = st.integers(-(2**63), 2**63 - 1)

# --------------------------------------------------------------------------- membership and norms


def test_membership_does_not_wrap_around():
    """The issue's example: 2·(2**63 − 1) + 2 wraps to 0 in int64; the true sum is 2**64."""
    assert not SUM3.contains(np.array([2**63 - 1, 2**63 - 1, 2]))
    assert SUM3.contains(np.array([2**62, -(2**62), 0]))


@pytest.mark.parametrize(
    "u, member",
    [
        (np.array([2.0**70, -(2.0**70), 0.0]), True),  # exact integers beyond 2**53, as floats
        (np.array([2**70, -(2**70), 0], dtype=object), True),  # Python integers beyond int64
        (np.array([2**70, -(2**70), 1], dtype=object), False),
        (np.array([1.0, math.nan, -1.0]), False),
        (np.array([math.inf, -math.inf, 0.0]), False),
        (np.array([0.5, -0.5, 0.0]), False),
        (np.array(["1", "-1", "0"]), False),
    ],
)
def test_membership_is_exact_for_any_numeric_input(u, member):
    assert SUM3.contains(u) is member


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.lists(int64s, min_size=3, max_size=3), min_size=1, max_size=4),
    st.lists(st.integers(-(2**31), 2**31), min_size=3, max_size=3),
)
def test_membership_agrees_with_python_integers(rows, coeffs):
    if not any(coeffs):
        coeffs[0] = 1
    lattice = IntegerLattice.from_constraints([coeffs], reduce=False)
    u = np.array(rows, dtype=np.int64)
    exact = all(sum(c * int(x) for c, x in zip(coeffs, row, strict=True)) == 0 for row in rows)
    assert lattice.contains(u) is exact


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(-(2**40), 2**40), min_size=1, max_size=6))
def test_squared_norm_is_exact_or_refused(values):
    u = np.array(values, dtype=np.int64)
    exact = sum(v * v for v in values)
    if exact < SUMSQ_LIMIT:
        assert int(squared_norm(u)) == exact
    else:
        with pytest.raises(ValueError, match="2\\*\\*62"):
            squared_norm(u)


def test_squared_norm_refuses_where_int64_would_wrap():
    with pytest.raises(ValueError, match="beyond the exact int64 range"):
        squared_norm(np.array([2**62, -(2**62), 0]))
    with pytest.raises(ValueError, match="integer"):
        squared_norm(np.array([1.5, 2.0]))


def test_a_sampler_start_with_a_huge_norm_is_refused():
    with pytest.raises(InvariantError, match="init: .*2\\*\\*62"):
        sample(
            SUM3,
            generalized_laplace(1.0, "l2"),
            n_chains=1,
            n_draws=2,
            proposal_eps=1.0,
            seed=1,
            init=np.array([2**62, -(2**62), 0]),
        )


# --------------------------------------------------------------------------- lattice construction


@pytest.mark.parametrize(
    "A, message",
    [
        ([[2**62, 2**62 - 1, 5]], "beyond the supported ±2\\*\\*31"),
        ([[-(2**63), 1, 5]], "beyond the supported ±2\\*\\*31"),  # abs(int64 min) wraps to itself
        ([[10**15, 10**15 + 1, 7]], "beyond the supported ±2\\*\\*31"),
    ],
)
def test_constraints_with_huge_entries_get_a_clear_error(A, message):
    with pytest.raises(InvariantError, match=message):
        IntegerLattice.from_constraints(A)


def test_constraints_at_the_limit_give_an_exact_basis():
    A = [[2**31 - 1, 2**31 - 3, 2**30 + 7], [5, 2**31, 1]]
    lattice = IntegerLattice.from_constraints(A)
    basis = [[int(v) for v in col] for col in lattice.basis.T]
    assert all(sum(a * b for a, b in zip(row, col, strict=True)) == 0 for row in A for col in basis)


# --------------------------------------------------------------------------- the exact sampler's cost


def test_acceptance_has_a_closed_form_at_n_2():
    """n = 2: accept with a^|u_1|, u_1 ~ DG(a): E a^|K| = p0 (1 + a²)/(1 − a²), p0 = (1 − a)/(1 + a)."""
    for eps in (0.05, 0.7, 3.0):
        a = math.exp(-eps)
        p0 = (1 - a) / (1 + a)
        assert sum_constraint_acceptance(2, eps) == pytest.approx(p0 * (1 + a * a) / (1 - a * a), rel=1e-9)


def test_acceptance_tends_to_its_floor_as_eps_falls():
    """The rejection rate does not explode as ε → 0: acceptance → 1/sqrt(π n) (docs/method.md §7)."""
    for n in (10, 1000):
        assert sum_constraint_acceptance(n, 1e-9) == pytest.approx(1 / math.sqrt(math.pi * n), rel=1e-6)
        assert sum_constraint_acceptance(n, 1e-2) > sum_constraint_acceptance(n, 1e-9)


def test_acceptance_matches_monte_carlo():
    """acceptance = P(S_n = 0)/P(DG = 0): P(S_n = 0) estimated from 200,000 sums of n i.i.d. DG
    (SciPy's dlaplace), within 4 binomial standard errors."""
    from scipy import stats

    n, eps, reps = 20, 0.3, 200_000
    sums = stats.dlaplace.rvs(eps, size=(reps, n), random_state=np.random.default_rng(11)).sum(axis=1)
    p_hat = float(np.mean(sums == 0))
    p0 = math.tanh(eps / 2)  # (1 − a)/(1 + a)
    se = math.sqrt(p_hat * (1 - p_hat) / reps)
    assert abs(sum_constraint_acceptance(n, eps) * p0 - p_hat) < 4 * se


@pytest.mark.parametrize("n, eps, size", [(10**6, 1.0, 100), (5000, 1e-9, 10**4)])
def test_the_exact_sampler_refuses_past_its_budget_with_the_cost(n, eps, size):
    with pytest.raises(ValueError, match="double geometric draws, more than max_proposals"):
        sample_sum_constraint_l1(n, eps, size, 1)


def test_the_budget_can_be_raised_or_lowered():
    with pytest.raises(ValueError, match="max_proposals"):
        sample_sum_constraint_l1(5, 1.0, 10, 1, max_proposals=10)
    with pytest.raises(ValueError, match="max_proposals must be an integer"):
        sample_sum_constraint_l1(5, 1.0, 10, 1, max_proposals=0)
    assert sample_sum_constraint_l1(5, 1.0, 10, 1, max_proposals=10**6).shape == (10, 5)


# --------------------------------------------------------------------------- helpers' input checks


@pytest.mark.parametrize("radius", [0, -1, 1.5, math.nan, "2", None, 10**6])
def test_exact_box_radius_is_checked(radius):
    with pytest.raises(ValueError, match="radius"):
        sweep_transition_matrix(SUM3, L1, 0.5, radius)
    with pytest.raises(ValueError, match="radius"):
        enumerate_target(SUM3, L1, radius)


@pytest.mark.parametrize("eps", [0, -0.5, math.nan, math.inf, 1e-12])
def test_transition_matrix_proposal_eps_is_checked(eps):
    with pytest.raises(ValueError, match="proposal_eps"):
        sweep_transition_matrix(SUM3, L1, eps, 2)


def test_transition_matrix_checks_its_objects():
    with pytest.raises(TypeError, match="IntegerLattice"):
        sweep_transition_matrix(np.ones((1, 3)), L1, 0.5, 2)
    with pytest.raises(TypeError, match="Target"):
        sweep_transition_matrix(SUM3, "l1", 0.5, 2)


X = np.array([1, -1, 0])


@pytest.mark.parametrize(
    "draw",
    [
        lambda **kw: coupled_kernel_draws(SUM3, L1, **kw),
        lambda **kw: iteration_draws(SUM3, L1, DESIGNS[next(iter(DESIGNS))], **kw),
    ],
    ids=["coupled_kernel_draws", "iteration_draws"],
)
@pytest.mark.parametrize(
    "change, error, message",
    [
        ({"x": np.array([1, -1])}, InvariantError, "shape"),
        ({"y": np.array([[1, -1, 0]])}, InvariantError, "shape"),
        ({"x": np.array([1, 1, 0])}, InvariantError, "Λ\\(A\\)"),
        ({"x": np.array([0.5, -0.5, 0.0])}, InvariantError, "Λ\\(A\\)"),
        ({"y": np.array([2**62, -(2**62), 0])}, InvariantError, "2\\*\\*62"),
        ({"n_rep": 0}, ValueError, "n_rep"),
        ({"n_rep": -5}, ValueError, "n_rep"),
        ({"proposal_eps": 0.0}, ValueError, "proposal_eps"),
        ({"proposal_eps": math.nan}, ValueError, "proposal_eps"),
        ({"seed": -1}, ValueError, "seed"),
    ],
)
def test_coupled_draw_helpers_check_their_inputs(draw, change, error, message):
    kwargs = {"x": X, "y": -X, "proposal_eps": 0.5, "n_rep": 10, "seed": 1, **change}
    with pytest.raises(error, match=message):
        draw(**kwargs)


def test_coupled_draw_helpers_work_on_good_input():
    out_x, out_y = coupled_kernel_draws(SUM3, L1, X, -X, proposal_eps=0.5, n_rep=10, seed=1)
    assert SUM3.contains(out_x) and SUM3.contains(out_y)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"grid": []}, "non-empty"),
        ({"grid": [0.1, -1.0]}, "grid\\[1\\]"),
        ({"grid": [math.nan]}, "grid\\[0\\]"),
        ({"grid": [math.inf]}, "grid\\[0\\]"),
        ({"grid": [[0.1, 0.2]]}, "non-empty list"),
        ({"grid": "abc"}, "grid"),
        ({"n_iter": 1}, "n_iter"),
        ({"n_chains": 0}, "n_chains"),
        ({"acceptance_range": (0.5, 0.2)}, "acceptance_range"),
        ({"acceptance_range": (0.2, math.nan)}, "acceptance_range"),
        ({"acceptance_range": (0.2,)}, "acceptance_range"),
    ],
)
def test_tune_proposal_checks_its_inputs(change, message):
    kwargs = {"grid": [0.1, 0.5], "n_chains": 2, "n_iter": 50, "seed": 1, **change}
    with pytest.raises(ValueError, match=message):
        tune_proposal(SUM3, L1, **kwargs)


edge_floats = st.one_of(
    st.sampled_from([0.0, -0.0, -1.0, math.nan, math.inf, -math.inf, 1e-300, 1e300]), st.floats(max_value=0.0)
)


@settings(max_examples=100, deadline=None)
@given(shape=hnp.array_shapes(min_dims=0, max_dims=3, max_side=4).filter(lambda s: s != (3,)))
def test_a_state_of_any_other_shape_is_refused(shape):
    with pytest.raises(InvariantError, match="shape"):
        coupled_kernel_draws(SUM3, L1, np.zeros(shape, dtype=np.int64), -X, proposal_eps=0.5, n_rep=2, seed=1)


@settings(max_examples=100, deadline=None)
@given(good=st.lists(st.floats(0.01, 5.0), max_size=3), bad=edge_floats, at=st.integers(0, 3))
def test_a_grid_with_any_unusable_value_is_refused(good, bad, at):
    grid = [*good[:at], bad, *good[at:]]
    with pytest.raises(ValueError, match=r"grid\[\d+\]"):
        tune_proposal(SUM3, L1, grid, n_chains=1, n_iter=10, seed=1)


def test_blank_evidence_is_an_error_not_a_match():
    from criteria_support import judge
    from isdp_papers.claims import Measurement

    for value in ("", "   "):
        assert judge({"kind": "equal"}, "", Measurement(value, "nothing")) == "error"


def test_membership_of_a_vector_of_the_wrong_length_is_false():
    from isdp.lattice import IntegerLattice, sum_constraint

    lattice = IntegerLattice.from_constraints(sum_constraint(3))
    assert not lattice.contains(np.array([1, -1])) and not lattice.contains(np.zeros((2, 4), dtype=np.int64))
    assert lattice.contains(np.array([1, -1, 0]))


def test_mis_refuses_a_start_of_the_wrong_length():
    from isdp.errors import InvariantError
    from isdp.mcmc import mis_sample

    A = np.array([[1, 1, 1, 1]])
    with pytest.raises(InvariantError, match="init has shape"):
        mis_sample(
            A,
            np.array([8]),
            np.array([2.0, 2, 2, 2]),
            epsilon=1.0,
            proposal_eps=1.0,
            index_set=[0, 1, 2],
            n_draws=2,
            seed=1,
            init=np.array([2, 2, 4]),
            progress=False,
        )


# --------------------------------------------------------------------------- near-dependent invariants


def _kernel_rank(A: np.ndarray) -> int:
    import sympy

    return len(sympy.Matrix(A.tolist()).nullspace())


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 3), st.integers(3, 5), st.integers(20, 31), st.data())
def test_the_exact_sampler_is_exact_on_near_dependent_big_coefficients(m, n, bits, data):
    """Rows of 2**20–2**31 that differ by a little fooled the floating-point rank and raised
    `AssertionError: the exact sampler's solve does not span Λ(A)`. Now every such A is either served —
    a sampler whose free cells are as many as Λ(A)'s dimension (sympy, exact) and whose draws keep
    every row exactly, in Python integers — or refused by None (no integral solve), never an error."""
    from fractions import Fraction

    from isdp.exact import ExactSampler, seeded_source

    base = np.array(data.draw(st.lists(st.integers(2**bits - 2**10, 2**bits - 1), min_size=n, max_size=n)))
    steps = data.draw(hnp.arrays(np.int64, (m, n), elements=st.integers(0, 2)))
    A = base - steps
    A[:, -1] = data.draw(hnp.arrays(np.int64, m, elements=st.integers(-2, 2)))
    sampler = ExactSampler.build(A)
    if sampler is None:
        return
    assert sampler.n_free == _kernel_rank(A)
    exact = A.astype(object)
    for seed in range(3):
        noise, _ = sampler.draw(Fraction(1, 2), seeded_source(seed), max_attempts=10**6)
        assert noise is not None and not any(exact @ noise.astype(object))


def test_the_issue_57_rows_are_served_and_their_lattice_is_the_exact_one():
    from fractions import Fraction

    from isdp.exact import ExactSampler, seeded_source

    a = 2**31 - 1
    A = np.array([[a, a - 1, 1], [a - 1, a - 2, 1]])
    sampler = ExactSampler.build(A)
    assert sampler.n_free == 1 and sampler.solved.tolist() == [1, 2]  # u = z·(1, −1, −1)
    draws = np.array([sampler.draw(Fraction(1, 2), seeded_source(s), max_attempts=1000)[0] for s in range(20)])
    assert np.array_equal(draws[:, 1], -draws[:, 0]) and np.array_equal(draws[:, 2], -draws[:, 0])


# =========================================================================== arguments outside their ranges


def _refused(call, message):
    with pytest.raises(ValueError, match=message):
        call()


LIBRARY_PROBES = {  # name: (call, the refusal's message); the comment says what it did before
    "a centre beyond int64's reach": (
        lambda: DoubleGeometric(1.0).maximal_coupling_rvs(2**62, -(2**62), 3, 0),
        "mean_x must be an integer within ±2\\*\\*53",
    ),  # wrapped in int64
    "a fractional centre": (
        lambda: DoubleGeometric(1.0).maximal_coupling_rvs(2.5, 0, 3, 0),
        "mean_x must be an integer",
    ),
    "DG draws below 1e-9": (
        lambda: DoubleGeometric(1e-10).rvs(3, np.random.default_rng(0)),
        "outside \\[1e-09, 700\\]",
    ),
    "DG draws above 700": (lambda: DoubleGeometric(701.0).rvs(3, np.random.default_rng(0)), "outside \\[1e-09, 700\\]"),
    "2.5 cells": (lambda: sum_constraint(2.5), "n must be a positive integer, not 2.5"),  # gave 2 cells
    "30 sets of one record": (lambda: venn_constraints(30, 1), "more than 10,000,000 entries"),  # hung
    "a float seed": (lambda: seeded_source(2.5), "seed must be a non-negative integer"),  # truncated to 2
    "meeting times at their lag": (
        lambda: tv_upper_bound([1, 2, 3], 100, [0]),
        "a meeting time of 1 is impossible at lag 100",
    ),  # perfect convergence
    "fractional meeting times": (lambda: tv_upper_bound([101.5, 102], 100, [0]), "whole numbers"),
}


@pytest.mark.parametrize("name", list(LIBRARY_PROBES))
def test_the_librarys_inputs_outside_their_ranges_are_refused(name):
    _refused(*LIBRARY_PROBES[name])


def test_a_block_total_must_cover_every_cell():
    from isdp.exact import lattice_block

    assert lattice_block(np.array([[2, 0, 2]])) is None and lattice_block(np.array([[1, 1, 0]])) is None


@pytest.mark.parametrize("text", ["1_0", "٤", "nan", "inf", " 1", "True"])
def test_opendp_constructors_read_epsilon_as_the_cli_does(text):
    """make_isdp_laplace accepted '1_0' as 10, which the CLI refuses; both read one set of forms."""
    from isdp.opendp_measurements import make_isdp_laplace

    _refused(
        lambda: make_isdp_laplace(np.array([[1, 1, 1]]), True if text == "True" else text),
        "^epsilon must be a positive number",
    )


def test_a_privacy_map_beyond_the_largest_float_is_infinite():
    """map(10**200) failed with an OverflowError wrapped by OpenDP; the loss is stated as infinite (rounded up)."""
    from isdp.opendp_measurements import make_isdp_gaussian

    assert make_isdp_gaussian(np.array([[1, 1, 1]]), 3).map(10**200) == math.inf
