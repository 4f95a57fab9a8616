"""Measures of E7, Congenial DP (the two-bin histogram of Example 4.1 and the statements around it), one module
per concept; the registry names them ``e7.<function>``.

:mod:`.table2` (Example 4.1's Table 2: expectations, variances, their order), :mod:`.noise_laws` (the noise laws
(4.6), (4.7), (A.1) and App. A's Remarks), :mod:`.privacy_vs_beta` (the attained levels against β, Theorem A.1),
:mod:`.postprocessing` (§4's L2 and L1 projections and the post-processing theorem), :mod:`.conditioning`
(Theorem 2.1's γ on §5.1's examples, Example 5.2, conditioning on null sets and vacuous models, §5.3),
:mod:`.sections1_3` (§1.3–1.4's definitions and noise laws, App. B's Double Geometric, §3's negative binomial).
"""

# re-exports kept until the registry and tests name modules
from isdp.experiments.e7_congenial_histogram.measures.conditioning import (
    example41_nearest_distance,
    gamma_example41,
    gamma_one_slack,
    null_set_conditioning_level,
    rounding_neighbours,
    rounding_secrecy,
    rounding_sensitivity,
    theorem21_bound,
    trivial_invariant_gamma,
    vacuous_conditioning,
)
from isdp.experiments.e7_congenial_histogram.measures.noise_laws import (
    a1_region_integrals,
    conditioning_ks,
    l1_law_ks,
    l2_mixture_ks,
    mixture_over_laplace_variance,
    remark1_weights,
    signed_gamma_is_laplace_sum,
)
from isdp.experiments.e7_congenial_histogram.measures.postprocessing import (
    l1_interval_law_ks,
    l1_printed_point,
    l1_solution_set,
    l2_printed_formula_gap,
    post_processing_one_to_one,
    postprocessing_outside_theorem,
)
from isdp.experiments.e7_congenial_histogram.measures.privacy_vs_beta import (
    a1_g_ratio_gap,
    l1_privacy_gap,
    privacy_levels,
    theorem_a1,
)
from isdp.experiments.e7_congenial_histogram.measures.sections1_3 import (
    NOISE_VARIANCE,
    binary_sensitivity,
    dg_cdf_printed_gap,
    dg_level,
    dg_pmf_printed_checks,
    dg_quantile_exact,
    negbin_moments,
    negbin_printed_moments,
    noise_mass_vanishes,
    noise_variance_in_eps,
    posterior_bound,
    posterior_shift_limit,
)
from isdp.experiments.e7_congenial_histogram.measures.table2 import (
    example41_density_gap,
    expectation,
    simulation_zscores,
    variance_coefficient,
    variance_order,
)

__all__ = [
    "NOISE_VARIANCE", "a1_g_ratio_gap", "a1_region_integrals", "binary_sensitivity", "conditioning_ks",
    "dg_cdf_printed_gap", "dg_level", "dg_pmf_printed_checks", "dg_quantile_exact", "example41_density_gap",
    "example41_nearest_distance", "expectation", "gamma_example41", "gamma_one_slack", "l1_interval_law_ks",
    "l1_law_ks", "l1_printed_point", "l1_privacy_gap", "l1_solution_set", "l2_mixture_ks", "l2_printed_formula_gap",
    "mixture_over_laplace_variance", "negbin_moments", "negbin_printed_moments", "noise_mass_vanishes",
    "noise_variance_in_eps", "null_set_conditioning_level", "post_processing_one_to_one", "posterior_bound",
    "posterior_shift_limit", "postprocessing_outside_theorem", "privacy_levels", "remark1_weights",
    "rounding_neighbours", "rounding_secrecy", "rounding_sensitivity", "signed_gamma_is_laplace_sum",
    "simulation_zscores", "theorem21_bound", "theorem_a1", "trivial_invariant_gamma", "vacuous_conditioning",
    "variance_coefficient", "variance_order",
]
