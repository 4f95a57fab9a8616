"""Measures of the two lattice experiments, E1 (intersecting constraints) and E2 (4×4 margins), and the exact
checks of ISDP's statements on small lattices, one module per concept:

- :mod:`.run_tables`: readers of the run's outputs (convergence, unbiasedness, ESS, validation tables, draws files,
  coupling certificates, meeting times, config values);
- :mod:`.printed_draws`: the paper's printed noise tables as draws of the run's laws (§5 Table 1, App. E.3 Table 3);
- :mod:`.tail_rates`: the ℓ1 noise's sub-exponential tail (Thm 12 (7)), fitted to draws and exact;
- :mod:`.stopped_chain`: the chain stopped after finitely many iterations, its TV absorbed as δ (§4);
- :mod:`.privacy_theorems`: the generalized Laplace mechanism's privacy (Thm 10, §3.2–3.3, Example 3, §2 footnote 1,
  App. E.4);
- :mod:`.gaussian_mechanism`: the generalized Gaussian (Thm 15 / Prop 18; not pure DP, §4; smooth δ, §2);
- :mod:`.composition`: composition and post-processing (Props 6–7, §2 after Prop 7);
- :mod:`.lattice_structure`: the lattice of the invariants (Prop 8, Lemma 11 / App. B, §3.1, §1–2, §5);
- :mod:`.sampler_kernel`: the small lattices of the exact rows and the single chain's kernel (Eq. 11, Alg. 1,
  App. D.1);
- :mod:`.coupling_bounds`: Alg. 2's L-lag coupling and its TV bound (§4, App. D.2).

The exact laws of coupled chains these rows compare with are :mod:`isdp.coupled_laws`. Both experiments share one
set of outputs: ``results/<exp>/...`` and ``results/tables/<exp>_*.csv``; the ``exp`` argument ("e1" or "e2")
picks the experiment.
"""

# re-exports kept until the registry and tests name modules
from isdp.coupled_laws import coupled_sweep_exact, jump_law

from .composition import (
    composition_post_processing,
    composition_relations,
    joint_invariant_inference,
    post_processing_randomized,
)
from .coupling_bounds import (
    coupled_kernel_maximal,
    coupling_finite_exact,
    lag_tradeoff,
    maximal_coupling_z,
    tv_bound_not_sharp,
    tv_bound_valid,
)
from .gaussian_mechanism import gaussian_not_pure, gaussian_subgaussian, gaussian_unbiased, smooth_delta_grows
from .lattice_structure import (
    _experiment_problem,
    constraint_structure,
    doubling_exponent,
    lattice_complete,
    lattice_point_volume,
    lattice_proposal_efficiency,
    neighbour_invariant_kinds,
    sparser,
)
from .printed_draws import printed_draw_margins, printed_draw_quantile, printed_draw_shape, printed_draws_same_eps
from .privacy_theorems import (
    no_invariant_reduction,
    nonnegative_unbiased_lp,
    privacy_theorem,
    privacy_theorem_l2,
    projection_privacy,
    release_data_independence,
    singleton_bounded_dp,
    smooth_dp_equivalence,
)
from .run_tables import (
    configured_value,
    coupling_censored,
    design_counts,
    invariants_exact,
    lag_spread,
    lag_tau_ks,
    margins_from_cells,
    min_ess,
    retained_share,
    tv_bound_crossing_iteration,
    unbiased_z,
    validation_p,
)
from .sampler_kernel import _small_lattice, joint_update_stationary, jump_symmetric, kernel_stationary
from .stopped_chain import _stopped_chain, iterations_delta_tradeoff, stopped_chain_loss, tv_absorption
from .tail_rates import l1_tail_exact, l1_tail_rate, l1_tail_rate_floor

__all__ = [
    "composition_post_processing",
    "composition_relations",
    "configured_value",
    "constraint_structure",
    "coupled_kernel_maximal",
    "coupled_sweep_exact",
    "coupling_censored",
    "coupling_finite_exact",
    "design_counts",
    "doubling_exponent",
    "_experiment_problem",
    "gaussian_not_pure",
    "gaussian_subgaussian",
    "gaussian_unbiased",
    "invariants_exact",
    "iterations_delta_tradeoff",
    "joint_invariant_inference",
    "joint_update_stationary",
    "jump_law",
    "jump_symmetric",
    "kernel_stationary",
    "l1_tail_exact",
    "l1_tail_rate",
    "l1_tail_rate_floor",
    "lag_spread",
    "lag_tau_ks",
    "lag_tradeoff",
    "lattice_complete",
    "lattice_point_volume",
    "lattice_proposal_efficiency",
    "margins_from_cells",
    "maximal_coupling_z",
    "min_ess",
    "neighbour_invariant_kinds",
    "no_invariant_reduction",
    "nonnegative_unbiased_lp",
    "post_processing_randomized",
    "printed_draw_margins",
    "printed_draw_quantile",
    "printed_draw_shape",
    "printed_draws_same_eps",
    "privacy_theorem",
    "privacy_theorem_l2",
    "projection_privacy",
    "release_data_independence",
    "retained_share",
    "singleton_bounded_dp",
    "_small_lattice",
    "smooth_delta_grows",
    "smooth_dp_equivalence",
    "sparser",
    "_stopped_chain",
    "stopped_chain_loss",
    "tv_absorption",
    "tv_bound_crossing_iteration",
    "tv_bound_not_sharp",
    "tv_bound_valid",
    "unbiased_z",
    "validation_p",
]
