"""Exact laws and exact samplers.

Enumeration and transition matrices on small lattices, the integer-arithmetic samplers of release mode, the lattice
Gaussian and its privacy profile (docs/method.md §7).

Examples
--------
>>> from fractions import Fraction
>>> from isdp.exact import double_geometric_array, seeded_source
>>> double_geometric_array(Fraction(1), 5, seeded_source(1)).tolist()  # exact DG(1): integer arithmetic only
[0, 0, 2, 0, -1]
"""

from ._block_sampler import ExactSampler
from ._compiled_draws import compiled_double_geometric
from ._discrete_gaussian import discrete_gaussian
from ._exact_draws import double_geometric_array
from ._exact_laws import (
    enumerate_target,
    sample_conditioned_dg,
    sample_sum_constraint_l1,
    sum_constraint_acceptance,
    sweep_transition_matrix,
)
from ._integer_l1_sampler import IntegerL1Sampler
from ._integer_sources import seeded_source, system_source
from ._lattice_blocks import lattice_block
from ._lattice_gaussian import LatticeBlock

__all__ = [
    "compiled_double_geometric",
    "discrete_gaussian",
    "double_geometric_array",
    "enumerate_target",
    "ExactSampler",
    "IntegerL1Sampler",
    "lattice_block",
    "LatticeBlock",
    "sample_conditioned_dg",
    "sample_sum_constraint_l1",
    "seeded_source",
    "sum_constraint_acceptance",
    "sweep_transition_matrix",
    "system_source",
]
