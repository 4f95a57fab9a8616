"""The exact TV curve of the component-wise sampler: at most 1, falling towards 0, its box part below its upper end."""

from __future__ import annotations

import numpy as np
import pytest
from isdp_papers.lattice_study.exact_tv import exact_tv_curve

from isdp.lattice import IntegerLattice, generalized_laplace, sum_constraint


def test_the_curve_starts_at_the_start_s_distance_and_falls_towards_zero():
    lattice = IntegerLattice.from_constraints(sum_constraint(3))
    tv_box, tv_upper = exact_tv_curve(
        lattice, generalized_laplace(1.0), 1.0, 4, [np.zeros(3, dtype=int)], [1.0], [40, 0, 5, 20]
    )
    assert np.all(tv_box <= tv_upper) and np.all(tv_upper <= 1)
    assert tv_upper[1] > tv_upper[2] > tv_upper[3] > tv_upper[0]
    assert tv_upper[[1, 2, 3]].round(3).tolist() == [0.521, 0.209, 0.022]


def test_a_start_outside_the_box_is_refused():
    lattice = IntegerLattice.from_constraints(sum_constraint(3))
    with pytest.raises(ValueError, match="outside the box"):
        exact_tv_curve(lattice, generalized_laplace(1.0), 1.0, 2, [np.array([5, -5, 0])], [1.0], [1])
