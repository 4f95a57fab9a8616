"""The law of a linear query's noise against the law enumerated on the lattice: exact routes to rounding, simulated
ones within their stated Monte Carlo error; fixed queries; simultaneous levels; what is refused."""

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from isdp.errors import ArgumentError, UncertifiableError, UsageError
from isdp.exact import ExactSampler
from isdp.privacy import noise_interval, query_uncertainty
from isdp.release import Request

R = 40  # enumeration reach: the weights beyond are below e^-40


def _enumerated(weights, lattice, w) -> tuple[np.ndarray, np.ndarray]:
    """The law of w·u over the lattice points u (rows of ``lattice``) with unnormalised weights."""
    q = lattice @ np.asarray(w)
    values, inverse = np.unique(q, return_inverse=True)
    pmf = np.bincount(inverse.ravel(), weights=weights)
    return values, pmf / pmf.sum()


def _total_lattice(n: int) -> np.ndarray:
    """Every u in [-R, R]^(n-1) with the last cell solved: Σ u = 0."""
    grid = np.stack(np.meshgrid(*[np.arange(-R, R + 1)] * (n - 1), indexing="ij"), -1).reshape(-1, n - 1)
    return np.hstack([grid, -grid.sum(axis=1, keepdims=True)])


@pytest.mark.parametrize("norm", ["l1", "gaussian"])
@pytest.mark.parametrize("w", [[1, 0, 0], [1, 1, 0], [2, 2, 0], [3, 1, 1], [0, -1, 0]])
def test_sums_within_one_total_have_the_enumerated_law(norm, w):
    lattice = _total_lattice(3)
    if norm == "l1":
        req, unit = Request(epsilon="1"), Fraction(1, 2)
        weights = np.exp(-float(unit) * np.abs(lattice).sum(axis=1))
    else:
        req, unit = Request(norm="gaussian", epsilon="1", delta=1e-6), Fraction(3, 2)
        weights = np.exp(-(lattice.astype(float) ** 2).sum(axis=1) / (2 * float(unit) ** 2))
    values, pmf = _enumerated(weights, lattice, w)
    exact = ExactSampler.build(np.ones((1, 3), np.int64), gaussian=norm == "gaussian")
    for level in (0.5, 0.9, 0.99):
        got = query_uncertainty(exact, req, unit, np.array([w]), level)
        assert got["method"] == ["exact"]
        low, high, coverage = noise_interval(values, pmf, level)
        assert (got["low"][0], got["high"][0]) == (low, high)
        assert got["coverage"][0] == pytest.approx(coverage, abs=1e-9)
        assert got["sd"][0] == pytest.approx(math.sqrt(pmf @ values.astype(float) ** 2), rel=1e-9)
        assert got["coverage_se"][0] == 0


def test_the_free_cell_route_has_the_enumerated_law_across_blocks():
    """Two totals of three cells, the last of each solved: any query is a combination of the four free cells."""
    A = np.array([[1, 1, 1, 0, 0, 0], [0, 0, 0, 1, 1, 1]])
    exact = ExactSampler.build(A)
    req, unit = Request(epsilon="1", free_cells=True), Fraction(1, 2)
    reach = 2 * R  # the free cells' weights are e^(-|x|/2): e^-40 at twice R
    free = np.stack(np.meshgrid(*[np.arange(-reach, reach + 1)] * 2, indexing="ij"), -1).reshape(-1, 2)
    block = np.hstack([free, -free.sum(axis=1, keepdims=True)])  # this route's noise: no rejection
    weights_block = np.exp(-float(unit) * np.abs(free).sum(axis=1))
    for w in ([1, 0, 0, 1, 0, 0], [0, 0, 1, 0, 0, -2], [1, 1, 1, 0, 0, 0], [2, -1, 0, 0, 1, 1]):
        v1, p1 = _enumerated(weights_block, block, w[:3])
        v2, p2 = _enumerated(weights_block, block, w[3:])
        values = np.arange(v1[0] + v2[0], v1[-1] + v2[-1] + 1)
        pmf = np.convolve(np.bincount(v1 - v1[0], p1), np.bincount(v2 - v2[0], p2))
        got = query_uncertainty(exact, req, unit, np.array([w]), 0.9)
        if not pmf[values != 0].any():
            assert got["method"] == ["fixed"] and got["low"][0] == got["high"][0] == 0
            continue
        low, high, coverage = noise_interval(values, pmf, 0.9)
        assert (got["low"][0], got["high"][0], got["method"]) == (low, high, ["exact"])
        assert got["coverage"][0] == pytest.approx(coverage, abs=1e-9)


def _margins_law(sigma: float, w) -> tuple[np.ndarray, np.ndarray]:
    """Both margins of a 2 × 2 table: the lattice is k·(1, −1, −1, 1), weight e^(−4k²/2σ²)."""
    k = np.arange(-R, R + 1)
    lattice = k[:, None] * np.array([1, -1, -1, 1])
    return _enumerated(np.exp(-4 * k.astype(float) ** 2 / (2 * sigma**2)), lattice, w)


def test_simulated_laws_are_within_their_stated_monte_carlo_error():
    """Klein's blocks under both margins are simulated: one block's cell, and a sum across two blocks (their laws
    convolved), against the enumerated law."""
    one = np.array([[1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 0], [0, 1, 0, 1]])
    A = np.block([[one, np.zeros_like(one)], [np.zeros_like(one), one]])
    exact = ExactSampler.build(A, gaussian=True)
    req, unit = Request(norm="gaussian", epsilon="1", delta=1e-6), Fraction(5, 2)
    values, pmf = _margins_law(2.5, [1, 0, 0, 0])
    two = np.convolve(pmf, pmf)
    two_values = np.arange(2 * values[0], 2 * values[-1] + 1)
    for level in (0.5, 0.9):
        got = query_uncertainty(exact, req, unit, np.array([[1, 0, 0, 0, 0, 0, 0, 0], [1, 0, 0, 0, 1, 0, 0, 0]]), level)
        assert got["method"] == ["simulated", "simulated"] and got["draws"] >= 200
        for q, (v, p) in enumerate([(values, pmf), (two_values, two)]):
            inside = (v >= got["low"][q]) & (v <= got["high"][q])
            truth = p[inside].sum()
            assert got["coverage_se"][q] > 0
            assert abs(got["coverage"][q] - truth) <= 4 * got["coverage_se"][q], (level, q)
    one_cell = query_uncertainty(exact, req, unit, np.array([[1, 0, 0, 0, 0, 0, 0, 0]]), 0.9)
    c, m = one_cell["coverage"][0], one_cell["draws"]
    assert one_cell["coverage_se"][0] == pytest.approx(math.sqrt(c * (1 - c) / m), rel=0.05)  # a cell's, as stated


def test_queries_the_invariants_fix_have_width_zero():
    A = np.array([[1, 1, 1, 0, 0, 0], [0, 0, 0, 1, 1, 1]])
    for norm, extra in (("l1", {}), ("gaussian", {"delta": 1e-6})):
        exact = ExactSampler.build(A, gaussian=norm == "gaussian")
        W = np.array([[1, 1, 1, 0, 0, 0], [2, 2, 2, -1, -1, -1], [0, 0, 0, 0, 0, 0]])
        got = query_uncertainty(exact, Request(norm=norm, epsilon="1", **extra), Fraction(1, 2), W, 0.9)
        assert got["method"] == ["fixed"] * 3
        assert got["low"].tolist() == got["high"].tolist() == [0, 0, 0] and got["sd"].tolist() == [0, 0, 0]


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=2, max_size=2), st.lists(st.integers(-2, 2), min_size=6, max_size=6))
def test_a_combination_of_invariants_plus_any_query_has_that_query_s_law(mix, w):
    """Adding rows of A to a query changes its value by invariants only: its interval offsets stay the same."""
    A = np.array([[1, 1, 1, 0, 0, 0], [0, 0, 0, 1, 1, 1]])
    exact = ExactSampler.build(A)
    req = Request(epsilon="1")
    shifted = np.asarray(w) + np.asarray(mix) @ A
    got = query_uncertainty(exact, req, Fraction(1, 2), np.array([w, shifted]), 0.8)
    assert got["low"][0] == got["low"][1] and got["high"][0] == got["high"][1]
    assert got["sd"][0] == pytest.approx(got["sd"][1])
    assert got["low"][0] <= 0 <= got["high"][0]


def test_simultaneous_intervals_take_the_bonferroni_level():
    exact = ExactSampler.build(np.ones((1, 5), np.int64))
    W = np.eye(5, dtype=np.int64)
    each = query_uncertainty(exact, Request(epsilon="1"), Fraction(1, 2), W, 0.9)
    joint = query_uncertainty(exact, Request(epsilon="1"), Fraction(1, 2), W, 0.9, simultaneous=True)
    assert joint["level"] == pytest.approx(0.98) and each["level"] == 0.9
    assert (joint["coverage"] >= 0.98 - 1e-12).all()
    assert (joint["high"] - joint["low"] > each["high"] - each["low"]).all()


def test_what_cannot_be_answered_is_refused():
    exact = ExactSampler.build(np.ones((1, 3), np.int64))
    req, unit = Request(epsilon="1"), Fraction(1, 2)
    with pytest.raises(UsageError, match="certified chain"):
        query_uncertainty(None, req, unit, np.eye(3, dtype=np.int64), 0.9)
    with pytest.raises(UsageError, match="one column per cell"):
        query_uncertainty(exact, req, unit, np.eye(4, dtype=np.int64), 0.9)
    with pytest.raises(UsageError, match="integers"):
        query_uncertainty(exact, req, unit, np.eye(3) / 2, 0.9)
    with pytest.raises(ArgumentError):
        query_uncertainty(exact, req, unit, np.eye(3, dtype=np.int64), 1.5)
    with pytest.raises(UncertifiableError, match="below the 1e-09"):
        query_uncertainty(exact, req, unit, np.eye(3, dtype=np.int64), 1 - 1e-12)
    margins = ExactSampler.build(np.array([[1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 0], [0, 1, 0, 1]]), gaussian=True)
    gaussian = Request(norm="gaussian", epsilon="1", delta=1e-6)
    with pytest.raises(UncertifiableError, match="beyond what a simulated law resolves"):
        query_uncertainty(margins, gaussian, Fraction(5, 2), np.eye(4, dtype=np.int64), 0.9999)
