"""The compiled Markov chains on Λ(A): Gibbs-within-Metropolis, the Metropolized independence sampler, the
data-augmentation and heat-bath samplers, their couplings and meeting times, and the building blocks of new
kernels (docs/method.md §3–6).
"""

from .._rng import derive_seed, next_u64, seed_states
from .._runner import over_streams
from ._augmented import augmented_meeting_times, augmented_sample
from ._coupling import MeetingTimes, convergence_iteration, meeting_times, tv_upper_bound
from ._double_geometric import dg_cdf, dg_logpmf, dg_pmf, dg_rvs, maximal_coupling_rvs
from ._heat_bath import heat_bath_meeting_times, heat_bath_sweeps
from ._kernels import (
    acceptance_ratio,
    apply_move,
    basis_csr,
    component_sweep,
    copy_into,
    dg_draw,
    dg_table,
    exp_table,
    joint_sweep,
    norm_change,
    sweep_law,
    uniform_pos,
)
from ._mis import MISResult, mis_exact_sample, mis_log_weight, mis_meeting_times, mis_sample
from ._samplers import SamplerResult, sample, tune_proposal

__all__ = [
    "acceptance_ratio",
    "apply_move",
    "augmented_meeting_times",
    "augmented_sample",
    "basis_csr",
    "component_sweep",
    "convergence_iteration",
    "copy_into",
    "derive_seed",
    "dg_cdf",
    "dg_draw",
    "dg_logpmf",
    "dg_pmf",
    "dg_rvs",
    "dg_table",
    "exp_table",
    "heat_bath_meeting_times",
    "heat_bath_sweeps",
    "joint_sweep",
    "maximal_coupling_rvs",
    "meeting_times",
    "MeetingTimes",
    "mis_exact_sample",
    "mis_log_weight",
    "mis_meeting_times",
    "mis_sample",
    "MISResult",
    "next_u64",
    "norm_change",
    "over_streams",
    "sample",
    "SamplerResult",
    "seed_states",
    "sweep_law",
    "tune_proposal",
    "tv_upper_bound",
    "uniform_pos",
]
