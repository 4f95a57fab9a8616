"""Measures of E8, one module per document and topic; the registry names them ``e8.<function>``.

The Swapping slides: :mod:`.swapping_tables` (the swap rate → ε tables and figure, the 1940 county table, the 2020
what-if strata), :mod:`.swapping_privacy` (permutation swapping's DP statements, exactly on small strata; the
visualisation and the distances), :mod:`.swapping_perverse_guide` (lowering ε without more noise),
:mod:`.swapping_topdown` (TopDown's and SafeTab's zCDP budgets and invariants).

The TopDown talk: :mod:`.topdown_variances` (the noise-variance tables and δ), :mod:`.topdown_data` (counts and
problem sizes from the committed data), :mod:`.topdown_dorm` (the dormitory example), :mod:`.topdown_implied` (implied
constraints: region margins, GQ combinations), :mod:`.topdown_rounding` (the rounding LP, total unimodularity,
integer solutions), :mod:`.topdown_invariants` (invariants against privacy and accuracy; the failsafe).

Helpers both documents' modules use are in :mod:`._common`.
"""

# re-exports kept until the registry and tests name modules
from isdp.experiments.e8_privacy_accounting.measures.swapping_perverse_guide import (
    day_units,
    swap_approximate_budget,
    swap_more_invariants,
    swap_person_units,
)
from isdp.experiments.e8_privacy_accounting.measures.swapping_privacy import (
    hamming_extension,
    invariant_release,
    slides_distances,
    swap_derived_products,
    swap_invariant_support,
    swap_privacy_audit,
    swap_proof_sketch,
    swap_varies_needs_budget,
    swap_visualisation,
)
from isdp.experiments.e8_privacy_accounting.measures.swapping_tables import (
    census2020_largest_strata,
    census2020_strata,
    census2020_strata_nesting,
    larger_b,
    ma1940_invariants,
    ma1940_stratum,
    ma1940_swap_rate,
    ma1940_swapped_mape,
    min_epsilon,
    swap_range,
    swap_rate_gap,
    swap_table_gap,
    two_rates,
)
from isdp.experiments.e8_privacy_accounting.measures.swapping_topdown import (
    discrete_gaussian_zcdp,
    swap_finer_than_tda,
    tda_epsilon,
    tda_proper_subsets,
    tda_toy_invariants,
    zcdp_budget,
    zcdp_budget_epsilon,
    zcdp_composition_gap,
)
from isdp.experiments.e8_privacy_accounting.measures.topdown_data import (
    attribute_sizes,
    gq_type_count,
    histogram_cells,
    national_zero_cells,
    problem_sizes,
    state_units,
    us_population,
    workload_consistency,
    workload_queries,
)
from isdp.experiments.e8_privacy_accounting.measures.topdown_dorm import (
    dorm_constraints,
    dorm_flow,
    dorm_fractional_projection,
    dorm_point,
)
from isdp.experiments.e8_privacy_accounting.measures.topdown_implied import (
    gq_combinations,
    implied_fractional_extension,
    region_margins,
    two_marginals_integer_gap,
)
from isdp.experiments.e8_privacy_accounting.measures.topdown_invariants import (
    consistency_accuracy,
    tda_failsafe,
    tda_toy_pure_dp,
)
from isdp.experiments.e8_privacy_accounting.measures.topdown_rounding import (
    gq_integer_solution,
    rounding_lp,
    tum_integral_vertices,
    tum_statements,
)
from isdp.experiments.e8_privacy_accounting.measures.topdown_variances import (
    failure_probability,
    gaussian_outliers,
    gaussian_over_laplace,
    laplace_column_delta_free,
    privacy_loss_tail,
    random_record_delta,
    table_at_other_delta,
    variance_gap,
)

__all__ = [
    "attribute_sizes", "census2020_largest_strata", "census2020_strata", "census2020_strata_nesting",
    "consistency_accuracy", "day_units", "discrete_gaussian_zcdp", "dorm_constraints", "dorm_flow",
    "dorm_fractional_projection", "dorm_point", "failure_probability", "gaussian_outliers", "gaussian_over_laplace",
    "gq_combinations", "gq_integer_solution", "gq_type_count", "hamming_extension", "histogram_cells",
    "implied_fractional_extension", "invariant_release", "laplace_column_delta_free", "larger_b", "ma1940_invariants",
    "ma1940_stratum", "ma1940_swap_rate", "ma1940_swapped_mape", "min_epsilon", "national_zero_cells",
    "privacy_loss_tail", "problem_sizes", "random_record_delta", "region_margins", "rounding_lp", "slides_distances",
    "state_units", "swap_approximate_budget", "swap_derived_products", "swap_finer_than_tda", "swap_invariant_support",
    "swap_more_invariants", "swap_person_units", "swap_privacy_audit", "swap_proof_sketch", "swap_range",
    "swap_rate_gap", "swap_table_gap", "swap_varies_needs_budget", "swap_visualisation", "table_at_other_delta",
    "tda_epsilon", "tda_failsafe", "tda_proper_subsets", "tda_toy_invariants", "tda_toy_pure_dp",
    "tum_integral_vertices", "tum_statements", "two_marginals_integer_gap", "two_rates", "us_population",
    "variance_gap", "workload_consistency", "workload_queries", "zcdp_budget", "zcdp_budget_epsilon",
    "zcdp_composition_gap",
]
