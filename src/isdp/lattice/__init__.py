"""Lattices and the laws on them.

Λ(A) of a set of counting invariants, bases chosen for mixing, and the generalized Laplace and Gaussian targets on Λ(A)
(docs/method.md §1–2).

Examples
--------
>>> import numpy as np
>>> from isdp.lattice import IntegerLattice, sum_constraint
>>> lattice = IntegerLattice.from_constraints(sum_constraint(3))
>>> lattice.n, lattice.dim, lattice.contains(np.array([2, -1, -1]))
(3, 2, True)
"""

from ._bases import MIXING_BASES, change_of_basis, default_basis, with_mixing_basis
from ._constraint_builders import sum_constraint, table_margins, venn_constraints
from ._integer_lattice import IntegerLattice, as_integer_matrix, check_release, integer_solution
from ._invariants import as_sparse, blocks, implied_by_partition, independent_rows, row_values
from ._targets import Target, generalized_gaussian, generalized_laplace

__all__ = [
    "as_integer_matrix",
    "as_sparse",
    "blocks",
    "change_of_basis",
    "check_release",
    "default_basis",
    "generalized_gaussian",
    "generalized_laplace",
    "implied_by_partition",
    "independent_rows",
    "integer_solution",
    "IntegerLattice",
    "MIXING_BASES",
    "row_values",
    "sum_constraint",
    "table_margins",
    "Target",
    "venn_constraints",
    "with_mixing_basis",
]
