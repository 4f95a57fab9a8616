"""The MIS's exact draws (rejection from the DG) and its coupled pairs' meeting times
(``isdp.mcmc._mis_coupling``): the exact law against enumeration, and the meeting times' bookkeeping."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from conftest import ALPHA, chisquare_gof, rows_to_categories

from isdp.mcmc import mis_exact_sample, mis_meeting_times

# A total and the first two cells' sum invariant, cells ≥ 0; I^c = {0, 2} is unimodular.
A5 = np.array([[1, 1, 1, 1, 1], [1, 1, 0, 0, 0]])
S5 = np.array([2, 1, 0, 3, 1])
I5 = [1, 3, 4]
NONNEGATIVE = {"B": np.eye(5), "b": np.zeros(5)}


def _enumerate(A, a, center, eps, box):
    """Every s ≥ 0 with s_i ≤ box and A s = a, with its probability ∝ exp(−eps ‖s − s*‖₁)."""
    pts = np.array([p for p in itertools.product(range(box + 1), repeat=A.shape[1]) if np.all(A @ np.array(p) == a)])
    w = np.exp(-eps * np.abs(pts - center).sum(axis=1))
    return pts, w / w.sum()


def test_exact_draws_follow_the_enumerated_law():
    a = A5 @ S5
    pts, probs = _enumerate(A5, a, S5, 0.5, int(a[0]))
    draws = mis_exact_sample(A5, a, S5, epsilon=0.5, index_set=I5, size=4000, seed=3, **NONNEGATIVE)
    assert draws.dtype == np.int64 and np.all(draws @ A5.T == a) and draws.min() >= 0
    cats = rows_to_categories(draws, pts)
    assert (cats >= 0).all()
    assert chisquare_gof(cats, probs) > ALPHA
    # the test can fail: the law at another ε is refused on the same number of draws
    other = mis_exact_sample(A5, a, S5, epsilon=1.5, index_set=I5, size=4000, seed=3, **NONNEGATIVE)
    assert chisquare_gof(rows_to_categories(other, pts), probs) < ALPHA


def test_exact_draws_are_seeded():
    a = A5 @ S5
    first = mis_exact_sample(A5, a, S5, epsilon=0.5, index_set=I5, size=50, seed=9, **NONNEGATIVE)
    again = mis_exact_sample(A5, a, S5, epsilon=0.5, index_set=I5, size=50, seed=9, **NONNEGATIVE)
    np.testing.assert_array_equal(first, again)


@pytest.mark.parametrize("lag", [1, 5])
def test_meeting_times_count_from_the_lag_and_are_seeded(lag):
    a = A5 @ S5
    start = np.array([3, 0, 4, 0, 0])
    kwargs = dict(
        epsilon=0.5,
        proposal_eps=0.6,
        index_set=I5,
        lag=lag,
        n_pairs=200,
        seed=4,
        init=start,
        max_iter=10_000,
        **NONNEGATIVE,
    )
    mt = mis_meeting_times(A5, a, S5, **kwargs)
    assert mt.met.all() and (mt.tau >= lag).all()
    np.testing.assert_array_equal(mt.tau, mis_meeting_times(A5, a, S5, **kwargs).tau)
    assert mt.tv_bound(np.array([0, 10 * int(mt.tau.max())]))[-1] == 0.0


def test_pairs_started_together_meet_at_once():
    a = A5 @ S5
    start = np.tile(S5, (20, 1))
    mt = mis_meeting_times(
        A5,
        a,
        S5,
        epsilon=0.5,
        proposal_eps=0.6,
        index_set=I5,
        lag=0,
        n_pairs=20,
        seed=1,
        init=start,
        init_y=start,
        **NONNEGATIVE,
    )
    assert (mt.tau == 0).all()
