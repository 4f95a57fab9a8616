"""The papers' comparisons.

The post-processing mechanisms the experiments set beside isdp: continuous noise projected onto null(A), double
geometric noise projected in ℓ1 (whose integer projections the release's non-negative post-processing uses), and
Congenial DP's non-negative ℓ2 projection.

Examples
--------
>>> import numpy as np
>>> from isdp.baselines import projected_laplace
>>> noisy = projected_laplace(np.array([5, 3, 2]), [[1, 1, 1]], epsilon=1.0, size=2, rng=np.random.default_rng(1))
>>> noisy.shape, bool(np.allclose(noisy.sum(axis=-1), 10))  # real-valued, the total kept
((2, 3), True)
"""

from ._l1_projection import dg_l1_projection
from ._nnl2 import nnl2_projection, nonnegative_total_projection
from ._nonnegative import L1Projector, l1_total_projection
from ._projected_noise import projected_gaussian, projected_laplace, row_space_basis

__all__ = [  # noqa: RUF022 (by topic: the projected noise, the ℓ1 projections, the ℓ2 ones)
    "projected_laplace",
    "projected_gaussian",
    "row_space_basis",
    "dg_l1_projection",
    "L1Projector",
    "l1_total_projection",
    "nnl2_projection",
    "nonnegative_total_projection",
]
