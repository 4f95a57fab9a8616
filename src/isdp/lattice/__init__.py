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

from ._bases import with_mixing_basis
from ._constraint_builders import sum_constraint, table_margins, venn_constraints
from ._integer_lattice import COUNT_LIMIT, IntegerLattice, as_integer_matrix, check_release
from ._invariants import as_sparse, blocks, implied_by_partition, independent_rows, row_values
from ._targets import Target, generalized_gaussian, generalized_laplace

__all__ = [
    "as_integer_matrix",
    "as_sparse",
    "blocks",
    "check_release",
    "COUNT_LIMIT",
    "generalized_gaussian",
    "generalized_laplace",
    "implied_by_partition",
    "independent_rows",
    "IntegerLattice",
    "row_values",
    "sum_constraint",
    "table_margins",
    "Target",
    "venn_constraints",
    "with_mixing_basis",
]
