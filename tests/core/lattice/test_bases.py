"""Mixing bases (isdp.lattice): each spans the same lattice as the Smith basis (unimodular change of
basis, proved by an integer transform with an integer inverse and checked against sympy's exact
determinant), and the sampler on each has the target law, tested against exact enumeration."""

from __future__ import annotations

import numpy as np
import pytest
import sympy
from conftest import ALPHA, chisquare_gof, rows_to_categories

from isdp.errors import InvariantError
from isdp.exact import enumerate_target
from isdp.lattice import (
    IntegerLattice,
    generalized_laplace,
    sum_constraint,
    table_margins,
    venn_constraints,
    with_mixing_basis,
)
from isdp.lattice._bases import change_of_basis, default_basis
from isdp.mcmc import sample

BLOCKS = np.array([[1, 1, 1, 0, 0], [0, 0, 0, 1, 1]])  # one sum per block: 3 + 2 cells
FAMILIES = {
    "sum3": (sum_constraint(3), "path"),
    "sum4": (sum_constraint(4), "path"),
    "sum102": (sum_constraint(102), "path"),
    "blocks": (BLOCKS, "path"),
    "table2x3": (table_margins(2, 3), "table"),
    "table4x4": (table_margins(4, 4), "table"),
    "venn3": (venn_constraints(3, 2), "lll"),
}


@pytest.mark.parametrize("family", FAMILIES)
def test_default_basis_per_family(family):
    A, expected = FAMILIES[family]
    assert default_basis(A) == expected


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("basis", ["auto", "path", "table", "lll"])
def test_every_mixing_basis_is_a_unimodular_change_of_the_smith_basis(family, basis):
    A, default = FAMILIES[family]
    smith = IntegerLattice.from_constraints(A, reduce=False)
    if basis not in ("auto", "lll", default):
        with pytest.raises(InvariantError, match=basis):
            with_mixing_basis(smith, basis)
        return
    mixed = with_mixing_basis(smith, basis)
    assert mixed.basis_name == (default if basis == "auto" else basis)
    assert mixed.basis.shape == smith.basis.shape and np.all(A @ mixed.basis == 0)
    T, T_inv = change_of_basis(smith.basis, mixed.basis)
    assert np.array_equal(smith.basis @ T, mixed.basis)
    if T.shape[0] <= 20:  # exact determinant, independent of the integer-inverse argument
        assert abs(sympy.Matrix(T.tolist()).det()) == 1


def test_path_and_table_bases_are_local():
    """Every path column touches two neighbouring cells; every table column a 2×2 block of cells."""
    path = with_mixing_basis(IntegerLattice.from_constraints(BLOCKS), "path").basis
    assert path.T.tolist() == [[1, -1, 0, 0, 0], [0, 1, -1, 0, 0], [0, 0, 0, 1, -1]]
    table = with_mixing_basis(IntegerLattice.from_constraints(table_margins(3, 4)), "table").basis
    assert np.all((table != 0).sum(axis=0) == 4) and np.all(table.sum(axis=0) == 0)
    cells = [np.flatnonzero(col) for col in table.T]
    assert all(c[1] == c[0] + 1 and c[2] == c[0] + 4 and c[3] == c[0] + 5 for c in cells)


def test_change_of_basis_rejects_a_sublattice_and_a_wrong_shape():
    smith = IntegerLattice.from_constraints(sum_constraint(3)).basis
    doubled = smith * np.array([2, 1])  # spans an index-2 sublattice
    with pytest.raises(InvariantError, match="not the same lattice"):
        change_of_basis(smith, doubled)
    with pytest.raises(InvariantError, match="shapes"):
        change_of_basis(smith, smith[:, :1])
    with pytest.raises(ValueError, match="basis must be one of"):
        with_mixing_basis(IntegerLattice.from_constraints(sum_constraint(3)), "star")


LAW_CASES = [
    ("sum3", "path", 0.4, 40),
    ("sum3", "lll", 0.4, 40),
    ("sum4", "path", 0.8, 20),
    ("blocks", "path", 0.8, 20),
    ("table2x3", "table", 0.4, 40),
    ("table2x3", "lll", 0.4, 40),
]


@pytest.mark.parametrize(("family", "basis", "eps", "radius"), LAW_CASES, ids=[f"{c[0]}-{c[1]}" for c in LAW_CASES])
def test_sampler_law_on_every_mixing_basis_against_enumeration(family, basis, eps, radius):
    """20,000 independent chains, one draw each after 200 iterations from 0, against the enumerated
    target (the box of ``radius`` in the Smith coordinates holds all but ~1e-12 of the mass)."""
    A, _ = FAMILIES[family]
    smith = IntegerLattice.from_constraints(A)
    target = generalized_laplace(eps, "l1")
    res = sample(
        with_mixing_basis(smith, basis),
        target,
        n_chains=20_000,
        n_draws=1,
        burn_in=200,
        proposal_eps=0.5,
        seed=31,
        progress=False,
    )
    u = res.draws[:, 0, :]
    assert np.all(u @ A.T == 0)
    points, probs, _ = enumerate_target(smith, target, radius=radius)
    pval = chisquare_gof(rows_to_categories(u, points), probs)
    assert pval > ALPHA, f"{family}/{basis}: chi-square p = {pval:.2e}"
