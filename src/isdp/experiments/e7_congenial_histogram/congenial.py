"""Temporary: the names the tests and the E7 notebook still import from ``congenial``, the module that held
Example 4.1's exact computations before they were split by concept. Import from the modules themselves:

:mod:`.releases` (the three releases, their exact moments), :mod:`.noise_laws` (the noise m1 − s1: exact and as
printed), :mod:`.privacy_levels` (attained levels, posterior shift), :mod:`.printed_dg` (the Double Geometric as
printed, App. B), :mod:`.rounding` (Example 5.2) and :mod:`.neighbours` (§1.3 neighbours, Def 1.1).

A monkeypatch of a name here changes nothing that those modules call: patch it in its own module.
"""

# re-exports kept until the tests and the notebook name modules
from isdp.experiments.e7_congenial_histogram.neighbours import (
    binary_databases,
    example41_nearest,
    sensitivity,
)
from isdp.experiments.e7_congenial_histogram.noise_laws import (
    a1_g_log_ratio,
    a1_g_log_ratio_closed,
    a1_joint_density,
    a1_printed_dg,
    a1_region_integrals,
    a1_tau,
    a1_weights,
    laplace_sum_pdf,
    mixture,
    mixture_variance,
    noise_cdf,
    noise_logpdf,
    noise_pdf,
    signed_weights,
)
from isdp.experiments.e7_congenial_histogram.printed_dg import (
    dg_cdf_printed,
    dg_chisquare,
    dg_inverse_check,
    dg_logpmf_printed,
    dg_quantile,
)
from isdp.experiments.e7_congenial_histogram.privacy_levels import (
    closed_form_level,
    l1_privacy_level,
    posterior_shift,
    privacy_level,
    unconstrained_level,
    worst_log_ratio,
)
from isdp.experiments.e7_congenial_histogram.releases import (
    MECHANISMS,
    base_scale,
    condition_on_zero_sum,
    exact_mean,
    exact_variance,
    l1_variance_range,
    laplace_quantile_grid,
    project_l1,
    project_l2,
    release,
    unconstrained,
)
from isdp.experiments.e7_congenial_histogram.rounding import (
    invariant_block,
    invariant_pairs,
    projected_rounding_pmf,
    rounding_secrecy,
    rounding_sensitivity,
)

__all__ = ["MECHANISMS", "a1_g_log_ratio", "a1_g_log_ratio_closed", "a1_joint_density", "a1_printed_dg",
           "a1_region_integrals", "a1_tau", "a1_weights", "base_scale", "binary_databases", "closed_form_level",
           "condition_on_zero_sum", "dg_cdf_printed", "dg_chisquare", "dg_inverse_check", "dg_logpmf_printed",
           "dg_quantile", "exact_mean", "exact_variance", "example41_nearest", "invariant_block", "invariant_pairs",
           "l1_privacy_level", "l1_variance_range", "laplace_quantile_grid", "laplace_sum_pdf", "mixture",
           "mixture_variance", "noise_cdf", "noise_logpdf", "noise_pdf", "posterior_shift", "privacy_level",
           "project_l1", "project_l2", "projected_rounding_pmf", "release", "rounding_secrecy",
           "rounding_sensitivity", "sensitivity", "signed_weights", "unconstrained", "unconstrained_level",
           "worst_log_ratio"]
