"""Lattices and the laws on them: Λ(A) of a set of counting invariants, bases chosen for mixing, and the
generalized Laplace and Gaussian targets on Λ(A) (docs/method.md §1–2).
"""

from ._bases import MIXING_BASES, change_of_basis, default_basis, with_mixing_basis
from ._integer_lattice import (
    IntegerLattice,
    check_release,
    integer_solution,
    sum_constraint,
    table_margins,
    venn_constraints,
)
from ._invariants import as_sparse, blocks, implied_by_partition, independent_rows, row_values
from ._targets import Target, generalized_gaussian, generalized_laplace

__all__ = [
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


def __getattr__(name: str):
    from .._deprecated import moved_attribute  # a name this module held before 0.3

    return moved_attribute(__name__, name)
