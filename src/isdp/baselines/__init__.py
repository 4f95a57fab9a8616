"""The papers' comparisons.

The projection mechanisms and the privacy accounting (swapping budget, zCDP conversions) the experiments set beside
isdp.

Examples
--------
>>> import numpy as np
>>> from isdp.baselines import projected_laplace
>>> noisy = projected_laplace(np.array([5, 3, 2]), [[1, 1, 1]], epsilon=1.0, size=2, rng=np.random.default_rng(1))
>>> noisy.shape, bool(np.allclose(noisy.sum(axis=-1), 10))  # real-valued, the total kept
((2, 3), True)
"""

from ._accounting import (
    CONVERSIONS,
    dp_to_zcdp,
    gaussian_delta,
    swapping_epsilon,
    swapping_epsilon_from_log_odds,
    swapping_min_epsilon,
    zcdp_to_dp,
)
from ._l1_projection import dg_l1_projection, double_geometric_noise
from ._nnl2 import nnl2_projection, nonnegative_total_projection
from ._nonnegative import L1Projector, l1_total_projection
from ._projected_noise import (
    extended_gaussian,
    null_space_blocks,
    projected_gaussian,
    projected_laplace,
    projection_sd,
    row_space_basis,
)

__all__ = [  # noqa: RUF022 (by topic: the projection mechanisms, then the accounting)
    "projected_laplace",
    "projected_gaussian",
    "projection_sd",
    "row_space_basis",
    "null_space_blocks",
    "extended_gaussian",
    "double_geometric_noise",
    "dg_l1_projection",
    "L1Projector",
    "l1_total_projection",
    "nnl2_projection",
    "nonnegative_total_projection",
    "swapping_epsilon",
    "swapping_epsilon_from_log_odds",
    "swapping_min_epsilon",
    "gaussian_delta",
    "zcdp_to_dp",
    "dp_to_zcdp",
    "CONVERSIONS",
]
