"""Measures of E6, Subspace DP (the projected Gaussian on §5.2's spatio-temporal query, and the statements checked
beside it), one module per concept; the registry names them ``e6.<function>``.

:mod:`.study_errors` (§5.2's study: the printed error statistic and its readings, the exact error of the projected
and extended Gaussian), :mod:`.transparency` (§4: unbiasedness, data independence, distributed privatization, the
invariants kept), :mod:`.conditioning` (§4 Thm 4.2: projection against conditioning), :mod:`.gaussian_laplace`
(§3.3: the Gaussian and Laplace mechanisms' privacy, exactly, and the Laplace tails), :mod:`.subspace_properties`
(§2.3 and Thms 3.1, 3.3 on exact laws), :mod:`.invariants_and_dp` (§1, §2, §3.1, §6: invariants against DP).
"""

# re-exports kept until the registry and tests name modules
from isdp.experiments.e6_spatiotemporal_gaussian.measures.conditioning import (
    conditioning_gap,
    conditioning_slab_ks,
    gaussian_projection_gap,
    slab_adjusted_min_p,
)
from isdp.experiments.e6_spatiotemporal_gaussian.measures.gaussian_laplace import (
    _extended_laplace,
    _projected_laplace_tail,
    extended_laplace_check,
    gaussian_corollaries_profile,
    laplace_product_level,
    laplace_tail_ratio,
    lemma34_profile,
    projected_laplace_level,
)
from isdp.experiments.e6_spatiotemporal_gaussian.measures.invariants_and_dp import (
    binary_invariant_additive_noise,
    example_24_ratio,
    exponential_not_additive,
    independent_rows_equivalence,
    invariant_dp_incompatibility,
    margins_linkage,
)
from isdp.experiments.e6_spatiotemporal_gaussian.measures.study_errors import (
    dimensions,
    exact_sd,
    extended_error_z,
    extended_over_projected_error,
    projected_sensitivity,
    reading_gap,
    reading_statistic,
    total_error_z,
)
from isdp.experiments.e6_spatiotemporal_gaussian.measures.subspace_properties import (
    composition_delta,
    consistent_release_delta,
    extension_converse_check,
    mixture_delta,
    nestedness_delta,
    post_processing_delta,
    projection_privacy_delta,
    subspace_dp_delta,
)
from isdp.experiments.e6_spatiotemporal_gaussian.measures.transparency import (
    data_independence,
    distributed_privatization_gap,
    extended_unbiased_z,
    invariant_residual,
    noise_data_independence,
    unbiased_z,
)

__all__ = [
    "_extended_laplace", "_projected_laplace_tail", "binary_invariant_additive_noise",
    "composition_delta", "conditioning_gap", "conditioning_slab_ks", "consistent_release_delta",
    "data_independence", "dimensions", "distributed_privatization_gap", "exact_sd", "example_24_ratio",
    "exponential_not_additive", "extended_error_z", "extended_laplace_check", "extended_over_projected_error",
    "extended_unbiased_z", "extension_converse_check", "gaussian_corollaries_profile",
    "gaussian_projection_gap", "independent_rows_equivalence", "invariant_dp_incompatibility",
    "invariant_residual", "laplace_product_level", "laplace_tail_ratio", "lemma34_profile", "margins_linkage",
    "mixture_delta", "nestedness_delta", "noise_data_independence", "post_processing_delta",
    "projected_laplace_level", "projected_sensitivity", "projection_privacy_delta", "reading_gap",
    "reading_statistic", "slab_adjusted_min_p", "subspace_dp_delta", "total_error_z", "unbiased_z",
]
