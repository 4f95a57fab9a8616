"""The compiled Markov chains on Λ(A).

Gibbs-within-Metropolis, the Metropolized independence sampler, the data-augmentation and heat-bath samplers, their
couplings and meeting times, and the double geometric law their proposals draw from (docs/method.md §3–6).

Examples
--------
>>> from isdp.lattice import IntegerLattice, generalized_laplace, sum_constraint
>>> from isdp.mcmc import sample
>>> lattice = IntegerLattice.from_constraints(sum_constraint(3))
>>> result = sample(lattice, generalized_laplace(1.0), n_chains=2, n_draws=3, proposal_eps=1.0, seed=1)
>>> result.draws.shape, bool((result.draws.sum(axis=-1) == 0).all())
((2, 3, 3), True)
"""

from .._rng import derive_seed
from ._augmented import augmented_meeting_times, augmented_sample
from ._coupling import meeting_times
from ._double_geometric import DoubleGeometric
from ._heat_bath import heat_bath_meeting_times, heat_bath_sweeps
from ._meeting_times import MeetingTimes
from ._mis import MISResult, mis_sample
from ._mis_coupling import mis_exact_sample, mis_meeting_times
from ._samplers import SamplerResult, sample, tune_proposal

__all__ = [
    "augmented_meeting_times",
    "augmented_sample",
    "derive_seed",
    "DoubleGeometric",
    "heat_bath_meeting_times",
    "heat_bath_sweeps",
    "meeting_times",
    "MeetingTimes",
    "mis_exact_sample",
    "mis_meeting_times",
    "mis_sample",
    "MISResult",
    "sample",
    "SamplerResult",
    "tune_proposal",
]
