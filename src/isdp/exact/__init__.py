"""Exact laws and exact samplers: enumeration and transition matrices on small lattices, the exact law of
coupled pairs, the integer-arithmetic samplers of release mode, the lattice Gaussian and its privacy profile
(docs/method.md §7).
"""

from ._coupled_laws import UNIFORMS, apart_probabilities, coupled_sweep_exact, jump_law
from ._exact_laws import enumerate_target, exact_tv_curve, sample_sum_constraint_l1, sweep_transition_matrix
from ._exact_sampling import (
    EXACT_SOLVE_LIMIT,
    PILOT_PROPOSALS,
    ExactL1Sampler,
    ExactSampler,
    IntegerSource,
    as_fraction,
    bernoulli_exp,
    double_geometric,
    double_geometric_array,
    integral_solve,
    norm_tables,
    seeded_source,
    system_source,
)
from ._gaussian_profile import (
    MAX_SHIFT,
    SIGMA_GRID,
    calibrate_sigma,
    profile_delta,
    profile_epsilon,
    residue_profiles,
)
from ._lattice_gaussian import KINDS, LatticeBlock, discrete_gaussian, lattice_block

__all__ = [
    "apart_probabilities",
    "as_fraction",
    "bernoulli_exp",
    "calibrate_sigma",
    "coupled_sweep_exact",
    "discrete_gaussian",
    "double_geometric",
    "double_geometric_array",
    "enumerate_target",
    "EXACT_SOLVE_LIMIT",
    "exact_tv_curve",
    "ExactL1Sampler",
    "ExactSampler",
    "IntegerSource",
    "integral_solve",
    "jump_law",
    "KINDS",
    "lattice_block",
    "LatticeBlock",
    "MAX_SHIFT",
    "norm_tables",
    "PILOT_PROPOSALS",
    "profile_delta",
    "profile_epsilon",
    "residue_profiles",
    "sample_sum_constraint_l1",
    "seeded_source",
    "SIGMA_GRID",
    "sweep_transition_matrix",
    "system_source",
    "UNIFORMS",
]
