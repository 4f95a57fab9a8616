"""The compiled Markov chains on Λ(A).

Gibbs-within-Metropolis, the Metropolized independence sampler, the data-augmentation and heat-bath samplers, their
couplings and meeting times, and the building blocks of new kernels (docs/method.md §3–6).

Examples
--------
>>> from isdp.lattice import IntegerLattice, generalized_laplace, sum_constraint
>>> from isdp.mcmc import sample
>>> lattice = IntegerLattice.from_constraints(sum_constraint(3))
>>> result = sample(lattice, generalized_laplace(1.0), n_chains=2, n_draws=3, proposal_eps=1.0, seed=1)
>>> result.draws.shape, bool((result.draws.sum(axis=-1) == 0).all())
((2, 3, 3), True)
"""

from .._rng import derive_seed, next_u64, seed_states
from .._runner import over_streams
from ._augmented import augmented_meeting_times, augmented_sample
from ._coupling import meeting_times
from ._double_geometric import (
    dg_cdf,
    dg_logpmf,
    dg_pmf,
    dg_rvs,
    dg_tv_shift,
    dg_variance,
    maximal_coupling_dg,
    maximal_coupling_rvs,
)
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
from ._meeting_times import MeetingTimes, convergence_iteration, tv_bound_terms, tv_upper_bound
from ._mis import MISResult, mis_log_weight, mis_sample
from ._mis_coupling import mis_exact_sample, mis_meeting_times
from ._samplers import SamplerResult, sample, starting_states, tune_proposal

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
    "dg_tv_shift",
    "dg_variance",
    "exp_table",
    "heat_bath_meeting_times",
    "heat_bath_sweeps",
    "joint_sweep",
    "maximal_coupling_dg",
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
    "starting_states",
    "sweep_law",
    "tune_proposal",
    "tv_bound_terms",
    "tv_upper_bound",
    "uniform_pos",
]
