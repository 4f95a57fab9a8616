"""The release chain's certificate (isdp.release._chain): its bound meets the target it is asked for, and a
budget too small or a target below what the pairs resolve is refused before any chain runs."""

from __future__ import annotations

import pytest

from isdp.convergence._certificate import clopper_pearson_upper
from isdp.errors import UncertifiableError
from isdp.lattice import IntegerLattice, generalized_gaussian, generalized_laplace, table_margins
from isdp.release._chain import certify_chain


def test_certificate_meets_its_target_and_delta_follows_the_derivation():
    lattice = IntegerLattice.from_constraints(table_margins(2, 3))
    _, cert = certify_chain(
        lattice, generalized_laplace(1.0, "l2"), threshold=0.05, n_pairs=200, max_iter=10_000, seed=3
    )
    # η is the exact 95 % bound at the run length: one term, the pairs not met by then out of 200
    iterations = cert.burn_in(floor=1)
    eta = float(cert.bound(iterations)[0])
    unmet = int((cert.tau - cert.lag > iterations).sum())
    assert iterations >= 1 and eta == pytest.approx(float(clopper_pearson_upper(unmet, 200, 0.05)))
    assert 1 - 0.05 ** (1 / 200) <= eta <= 0.05 < cert.bound(iterations - 1)[0]
    assert cert.level == 0.95


def test_certificate_refuses_a_budget_too_small_and_a_target_below_resolution():
    lattice = IntegerLattice.from_constraints(table_margins(2, 3))
    with pytest.raises(UncertifiableError, match="did not meet within"):
        certify_chain(lattice, generalized_gaussian(3.0), threshold=0.1, n_pairs=50, max_iter=2, seed=1)
    with pytest.raises(UncertifiableError, match="299 are needed.*raise --pairs"):
        certify_chain(lattice, generalized_gaussian(3.0), threshold=0.01, n_pairs=298, max_iter=1000, seed=1)
