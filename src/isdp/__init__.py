"""isdp — integer subspace differential privacy.

Reference implementation of the mechanisms of *Integer Subspace Differential Privacy*
(Dharangutte, Gao, Gong, Yu; AAAI-23) and the papers around it. The public API:

- lattice: :class:`IntegerLattice` (Λ(A) via Smith normal form), :func:`integer_solution`,
  :func:`check_release`, constraint builders (:func:`sum_constraint`, :func:`table_margins`,
  :func:`venn_constraints`)
- targets: :func:`generalized_laplace`, :func:`generalized_gaussian`
- samplers: :func:`sample` (compiled Gibbs-within-Metropolis), :func:`tune_proposal`
- mis: :func:`mis_sample` (compiled Metropolized independence sampler, FODS-20 Algorithm 1)
- augmented: :func:`augmented_sample` (data-augmentation Gibbs sampler for the ℓ2 Laplace on sum
  constraints, exact inner draws), :func:`augmented_meeting_times`, :func:`certify_augmented`
- bases: :func:`with_mixing_basis` (the same Λ(A) on a basis chosen for mixing: path, adjacent
  table moves, LLL), :func:`default_basis`, :func:`change_of_basis` (the unimodular check)
- coupling: :func:`meeting_times`, :func:`tv_upper_bound`, :func:`convergence_iteration`;
  :func:`certify` → :class:`Certificate` (t* from the chains' own starting law), :func:`certify_mis`
- exact: :func:`sample_sum_constraint_l1`, :func:`enumerate_target`, :func:`sweep_transition_matrix`,
  :func:`exact_tv_curve`
- distributions: double geometric pmf/cdf/sampler and maximal coupling
- diagnostics: R-hat/ESS via ArviZ, netCDF storage of draws
- :func:`derive_seed`: an independent, stable seed per named step from one base seed

The experiment layer (the papers' problems, data loaders, studies, figures and the claims
registry) lives in :mod:`isdp.experiments` and needs the ``workflow`` extra.
"""

from ._rng import derive_seed
from .augmented import augmented_meeting_times, augmented_sample, certify_augmented
from .bases import MIXING_BASES, change_of_basis, default_basis, with_mixing_basis
from .certify import Certificate, CertificationError, certify, certify_mis
from .coupling import MeetingTimes, convergence_iteration, meeting_times, tv_upper_bound
from .diagnostics import convergence_table, load_draws, save_draws, summarize_convergence
from .distributions import dg_cdf, dg_logpmf, dg_pmf, dg_rvs, maximal_coupling_rvs
from .exact import (
    enumerate_target,
    exact_tv_curve,
    sample_sum_constraint_l1,
    sweep_transition_matrix,
)
from .lattice import (
    IntegerLattice,
    InvariantError,
    check_release,
    integer_solution,
    sum_constraint,
    table_margins,
    venn_constraints,
)
from .mis import MISResult, mis_sample
from .samplers import SamplerResult, sample, tune_proposal
from .targets import Target, generalized_gaussian, generalized_laplace

__version__ = "0.1.0"

__all__ = [
    "MIXING_BASES",
    "Certificate",
    "CertificationError",
    "IntegerLattice",
    "InvariantError",
    "MISResult",
    "MeetingTimes",
    "SamplerResult",
    "Target",
    "augmented_meeting_times",
    "augmented_sample",
    "certify",
    "certify_augmented",
    "certify_mis",
    "change_of_basis",
    "check_release",
    "convergence_iteration",
    "convergence_table",
    "default_basis",
    "derive_seed",
    "dg_cdf",
    "dg_logpmf",
    "dg_pmf",
    "dg_rvs",
    "enumerate_target",
    "exact_tv_curve",
    "generalized_gaussian",
    "generalized_laplace",
    "integer_solution",
    "load_draws",
    "maximal_coupling_rvs",
    "meeting_times",
    "mis_sample",
    "sample",
    "sample_sum_constraint_l1",
    "save_draws",
    "sum_constraint",
    "summarize_convergence",
    "sweep_transition_matrix",
    "table_margins",
    "tune_proposal",
    "tv_upper_bound",
    "venn_constraints",
    "with_mixing_basis",
]
