"""The compiled building blocks of the samplers (isdp.mcmc._kernels): the acceptance ratio against the target."""

from __future__ import annotations

import numpy as np
import pytest

from isdp.lattice import IntegerLattice, generalized_gaussian, generalized_laplace, table_margins
from isdp.mcmc._kernels import acceptance_ratio, basis_csr, exp_table, norm_change


@pytest.mark.parametrize(
    "target",
    [
        generalized_laplace(0.3, "l1"),
        generalized_laplace(0.005, "l1"),
        generalized_laplace(0.2, "l2"),
        generalized_gaussian(3.0),
    ],
    ids=["l1", "l1-small-eps", "l2", "gaussian"],
)
def test_acceptance_ratio_is_the_target_ratio(target):
    """The kernels' table/exp acceptance ratio equals min(1, π(u')/π(u)) for random moves."""
    rng = np.random.default_rng(12)
    basis = IntegerLattice.from_constraints(table_margins(3, 3)).basis
    ptr, idx, val = basis_csr(basis)
    exp_l1 = exp_table(target.code, target.param)
    for _ in range(300):
        u = basis @ rng.integers(-60, 61, basis.shape[1])
        j, z = rng.integers(basis.shape[1]), int(rng.integers(-2000, 2001))  # beyond the ℓ1 table too
        sumsq = int((u * u).sum())
        change = norm_change(u, idx, val, ptr[j], ptr[j + 1], z, target.code)
        ratio = acceptance_ratio(change, np.sqrt(sumsq), np.sqrt(sumsq + change), target.code, target.param, exp_l1)
        log_ratio = target.log_density(u + z * basis[:, j]) - target.log_density(u)
        assert ratio == pytest.approx(np.exp(min(0.0, log_ratio)), rel=1e-9, abs=1e-300)
