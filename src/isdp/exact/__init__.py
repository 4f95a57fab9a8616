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
from ._compiled_draws import WordSource, compiled_double_geometric
from ._discrete_gaussian import discrete_gaussian
from ._exact_draws import double_geometric_array
from ._exact_laws import (
    MAX_PROPOSALS,
    enumerate_target,
    exact_tv_curve,
    sample_conditioned_dg,
    sample_sum_constraint_l1,
    sum_constraint_acceptance,
    sum_constraint_l1_marginal,
    sweep_transition_matrix,
)
from ._exact_numbers import as_fraction
from ._gaussian_profile import MAX_SHIFT, SIGMA_GRID, calibrate_sigma, profile_epsilon
from ._integer_l1_sampler import PILOT_PROPOSALS, IntegerL1Sampler, norm_tables
from ._integer_sources import IntegerSource, seeded_source, system_source
from ._lattice_gaussian import LatticeBlock, lattice_block

__all__ = [
    "as_fraction",
    "calibrate_sigma",
    "compiled_double_geometric",
    "discrete_gaussian",
    "double_geometric_array",
    "enumerate_target",
    "exact_tv_curve",
    "ExactSampler",
    "IntegerL1Sampler",
    "IntegerSource",
    "lattice_block",
    "LatticeBlock",
    "MAX_PROPOSALS",
    "MAX_SHIFT",
    "norm_tables",
    "PILOT_PROPOSALS",
    "profile_epsilon",
    "sample_conditioned_dg",
    "sample_sum_constraint_l1",
    "seeded_source",
    "SIGMA_GRID",
    "sum_constraint_acceptance",
    "sum_constraint_l1_marginal",
    "sweep_transition_matrix",
    "system_source",
    "WordSource",
]
