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
from ._integer_lattice import IntegerLattice, check_release
from ._invariants import blocks, implied_by_partition
from ._targets import Target, generalized_gaussian, generalized_laplace

__all__ = [
    "blocks",
    "check_release",
    "generalized_gaussian",
    "generalized_laplace",
    "implied_by_partition",
    "IntegerLattice",
    "sum_constraint",
    "table_margins",
    "Target",
    "venn_constraints",
    "with_mixing_basis",
]
