"""Tests of :mod:`isdp_papers.lattice_study.theory`: the index of a kernel basis (:func:`kernel_index`: 1 for a
basis of the whole integer kernel, its index for a sublattice, 0 for vectors outside the kernel or dependent ones)
and the exact probability that i.i.d. noise keeps the invariants (:func:`iid_invariant_probability`), against a sum's
closed form and against brute-force enumeration for three overlapping counts."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from isdp_papers.lattice_study.theory import iid_invariant_probability, kernel_index

from isdp.exact._exact_laws import sum_constraint_acceptance
from isdp.mcmc import DoubleGeometric


def test_kernel_index_is_one_for_a_whole_kernel_basis_only():
    A = np.array([[2, 4, 6]])
    assert kernel_index(A, np.array([[1, 1, -1], [2, -1, 0]]).T) == 1
    assert kernel_index(A, np.array([[3, 0, -1], [0, 3, -2]]).T) == 3  # the rational null space scaled to integers
    assert kernel_index(A, np.array([[1, 0, 0], [2, -1, 0]]).T) == 0  # leaves the kernel
    assert kernel_index(A, np.array([[1, 1, -1], [2, 2, -2]]).T) == 0  # dependent columns


@pytest.mark.parametrize("n", [2, 5, 40])
def test_iid_invariant_probability_of_a_sum_is_the_closed_form(n):
    eps = 0.3
    k = np.arange(-200, 201)
    a = np.exp(-eps)
    p, bound, _ = iid_invariant_probability(np.ones((1, n)), DoubleGeometric(eps).pmf(k))
    assert bound <= 1e-12
    assert p == pytest.approx(sum_constraint_acceptance(n, eps) * (1 - a) / (1 + a), rel=1e-10)


def test_iid_invariant_probability_of_three_overlapping_counts_is_the_enumerated_one():
    """Three counts sharing cells (one with weight 2), against brute-force enumeration of i.i.d. DG on a box."""
    A = np.array([[1, 1, 0, 0, 1], [0, 1, 1, 0, 1], [0, 0, 2, 1, 1]])
    eps, radius = 2.0, 10  # DG mass beyond the box: below 1e-8 per cell
    k = np.arange(-radius, radius + 1)
    pmf = DoubleGeometric(eps).pmf(k)
    u = np.array(list(itertools.product(k, repeat=A.shape[1])))
    weight = np.prod(pmf[u + radius], axis=1)
    enumerated = weight[np.all(u @ A.T == 0, axis=1)].sum()
    p, bound, _ = iid_invariant_probability(A, DoubleGeometric(eps).pmf(np.arange(-40, 41)))
    assert bound <= 1e-12
    assert p == pytest.approx(enumerated, rel=1e-6)
