"""The papers' comparisons.

The projection mechanisms and the privacy accounting (swapping budget, zCDP conversions) the experiments set beside
isdp.

Examples
--------
>>> import numpy as np
>>> from isdp.baselines import projected_laplace
>>> noisy = projected_laplace(np.array([5, 3, 2]), [[1, 1, 1]], eps=1.0, size=2, rng=np.random.default_rng(1))
>>> noisy.shape, bool(np.allclose(noisy.sum(axis=-1), 10))  # real-valued, the total kept
((2, 3), True)
"""

from ..release._nonnegative import L1Projector, l1_projection_milp, l1_total_projection
from ._accounting import (
    CONVERSIONS,
    dp_to_zcdp,
    gaussian_delta,
    swap_rates_for_epsilon,
    swapping_epsilon,
    swapping_epsilon_from_log_odds,
    swapping_min_epsilon,
    zcdp_to_dp,
)
from ._l1_projection import (
    LP_METHODS,
    dg_l1_projection,
    discrepancy_concentration,
    double_geometric_noise,
    l1_projection_lp,
)
from ._nnl2 import nnl2_projection, nonnegative_total_projection
from ._projected_noise import (
    extended_gaussian,
    null_space_blocks,
    projected_gaussian,
    projected_laplace,
    projection_sd,
    row_space_basis,
)

__all__ = [
    "CONVERSIONS",
    "dg_l1_projection",
    "discrepancy_concentration",
    "double_geometric_noise",
    "dp_to_zcdp",
    "extended_gaussian",
    "gaussian_delta",
    "l1_projection_lp",
    "l1_projection_milp",
    "l1_total_projection",
    "L1Projector",
    "LP_METHODS",
    "nnl2_projection",
    "nonnegative_total_projection",
    "null_space_blocks",
    "projected_gaussian",
    "projected_laplace",
    "projection_sd",
    "row_space_basis",
    "swap_rates_for_epsilon",
    "swapping_epsilon",
    "swapping_epsilon_from_log_odds",
    "swapping_min_epsilon",
    "zcdp_to_dp",
]
