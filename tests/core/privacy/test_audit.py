"""The exact laws of the routes' noise on a box (``isdp.privacy._audit``): the chain's law at each t
is the one-step computation's, and it approaches the target in total variation."""

from __future__ import annotations

import numpy as np

from isdp.exact import enumerate_target
from isdp.lattice import IntegerLattice, generalized_laplace, with_mixing_basis
from isdp.privacy import TruncatedLaw, chain_noise_path
from isdp.privacy._audit import chain_noise


def test_chain_noise_path_is_chain_noise_at_each_t_and_its_tv_shrinks():
    lattice = with_mixing_basis(IntegerLattice.from_constraints(np.ones((1, 3), dtype=np.int64)))
    target = generalized_laplace(1.0)
    path = chain_noise_path(lattice, target, 1.0, [4, 1, 8], radius=15)
    one = chain_noise(lattice, target, 1.0, 4, radius=15)
    np.testing.assert_array_equal(path[0].probs, one.probs)
    points, probs, _ = enumerate_target(lattice, target, 15)
    pi = TruncatedLaw(np.asarray(points, dtype=np.int64), probs, 0.0)
    tv = [path[i].total_variation(pi) for i in (1, 0, 2)]  # t = 1, 4, 8
    assert tv[0] > tv[1] > tv[2] > 0
    assert pi.total_variation(pi) == 0.0
