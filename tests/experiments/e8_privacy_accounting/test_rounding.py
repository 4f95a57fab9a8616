"""Tests of :mod:`isdp_papers.e8_privacy_accounting.rounding`: TopDown's rounding step — the printed LP against
brute force over the integer roundings, the programs keep their equalities, and the two-level solve (with and
without the failsafe) keeps the totals it is given."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from isdp_papers.e8_privacy_accounting import rounding


def brute_force(children, parent):
    """The smallest Σ |H̃ − H*| over integer H̃ within 1 of H*, ≥ 0, with the children's totals and the parent kept."""
    H = np.asarray(children, float)
    choices = [range(max(0, int(np.ceil(v - 1))), int(np.floor(v + 1)) + 1) for v in H.ravel()]
    best = np.inf
    for cand in itertools.product(*choices):
        T = np.array(cand, float).reshape(H.shape)
        if np.allclose(T.sum(axis=0), parent) and np.allclose(T.sum(axis=1), H.sum(axis=1)):
            best = min(best, np.abs(T - H).sum())
    return best


@pytest.mark.parametrize("seed", range(4))
def test_printed_lp_returns_the_fractional_point_and_the_offset_lp_the_integer_optimum(seed):
    rng = np.random.default_rng(seed)
    # two children with integer totals, fractional cells: random splits of integer column sums
    parent = rng.integers(2, 6, 3).astype(float)
    share = rng.uniform(0.2, 0.8, 3)
    first = parent * share
    first[-1] += np.ceil(first.sum()) - first.sum()  # an integer total for the first child (so for the second)
    children = np.vstack([first, parent - first])
    assume_fractional = not rounding.is_integral(children)
    lp, obj = rounding.printed_lp(children, parent)
    np.testing.assert_allclose(lp, children, atol=1e-9)
    assert obj == pytest.approx(0.0, abs=1e-9) and rounding.is_integral(lp) is not assume_fractional
    best = brute_force(children, parent)
    ip, ip_obj = rounding.printed_lp(children, parent, integer=True)
    off, off_obj = rounding.offset_lp(children, parent)
    assert rounding.is_integral(ip) and rounding.is_integral(off)
    assert ip_obj == pytest.approx(best) and off_obj == pytest.approx(best)
    np.testing.assert_allclose(off.sum(axis=0), parent)
    np.testing.assert_allclose(off.sum(axis=1), children.sum(axis=1))


def test_rounding_rejects_children_that_do_not_add_up():
    with pytest.raises(ValueError, match="add up"):
        rounding.printed_lp([[1.5, 1.5], [1.0, 1.0]], [3, 3])


def test_rounding_programs_keep_their_equalities():
    h = [[0.4, 1.7, 2.2, 0.7]]
    national, obj = rounding.printed_lp(h, None, integer=True)
    assert national.sum() == 5 and rounding.is_integral(national)
    assert np.allclose(rounding.offset_lp(h, None)[0], national) and obj == pytest.approx(1.2)
    children = [[1.4, 2.5, 1.3], [1.6, 1.5, 3.7]]
    free, _ = rounding.offset_lp(children, [3, 4, 5], child_totals=False)
    assert np.allclose(free.sum(axis=0), [3, 4, 5]) and rounding.is_integral(free)
    with pytest.raises(ValueError, match="integers"):  # the child totals 5.2, 6.8 cannot be kept
        rounding.printed_lp(children, [3, 4, 5])


@pytest.mark.parametrize("weaker", [None, "total"])
def test_two_level_solve_keeps_its_equalities(weaker):
    rng = np.random.default_rng(0)
    children = np.array([[30, 15, 5, 0], [100, 50, 17, 0], [60, 30, 10, 0]])
    parent, total = children.sum(axis=0), int(children.sum())
    parent_noisy = parent + rng.integers(-3, 4, (20, 4))
    children_noisy = children + rng.integers(-3, 4, (20, 3, 4))
    p, ch = rounding.two_level_solve(parent_noisy, children_noisy, total, weaker)
    assert rounding.is_integral(ch) and (ch >= 0).all()
    assert np.array_equal(p, ch.sum(axis=1)) and (p.sum(axis=1) == total).all()
    if weaker is None:  # the regular parent is the parent's own solve, whatever the children measured
        alone, _ = rounding.two_level_solve(parent_noisy, children_noisy + 50, total)
        assert np.array_equal(p, alone)
