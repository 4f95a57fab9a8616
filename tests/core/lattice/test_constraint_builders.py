"""The papers' constraint matrices (``isdp.lattice._constraint_builders``): a table's margins, one total,
the counts of every union of intersecting sets, and their size checks."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from isdp.lattice import sum_constraint, table_margins, venn_constraints
from isdp.lattice._constraint_builders import MATRIX_LIMIT


def test_constraint_builders():
    table = np.arange(12).reshape(3, 4)
    A = table_margins(3, 4)
    np.testing.assert_array_equal(A @ table.ravel(), np.concatenate([table.sum(1), table.sum(0)]))
    np.testing.assert_array_equal(sum_constraint(4), [[1, 1, 1, 1]])
    V = venn_constraints(3, 2)
    assert V.shape == (3, 14) and set(np.unique(V)) == {0, 1}
    # regions in order {1},{2},{3},{1,2},{1,3},{2,3},{1,2,3}, two records each
    regions = [{0}, {1}, {2}, {0, 1}, {0, 2}, {1, 2}, {0, 1, 2}]
    for r, members in enumerate(regions):
        for col in (2 * r, 2 * r + 1):
            assert set(np.flatnonzero(V[:, col])) == members
    # every intersection of constraints is non-empty
    for i, j in itertools.combinations(range(3), 2):
        assert np.any(V[i] & V[j])
    assert np.any(V[0] & V[1] & V[2])


@pytest.mark.parametrize(
    ("build", "args"),
    [(sum_constraint, (0,)), (sum_constraint, (2.5,)), (table_margins, (0, 3)), (venn_constraints, (-1, 1))],
)
def test_sizes_must_be_positive_integers(build, args):
    with pytest.raises(ValueError):
        build(*args)


def test_a_matrix_beyond_the_limit_is_refused_before_it_is_built():
    with pytest.raises(ValueError, match="entries"):
        sum_constraint(MATRIX_LIMIT + 1)
    with pytest.raises(ValueError, match="entries"):
        venn_constraints(30, 1)
