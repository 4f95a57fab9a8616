"""Target laws on Λ(A) (ISDP Definitions 9 and 13; docs/method.md §2), known up to a constant.

- generalized Laplace, ℓ1 or ℓ2: π(u) ∝ exp(-ε ‖u‖)
- generalized Gaussian: π(u) ∝ exp(-‖u‖₂² / (2σ²))

The compiled kernels see a target as an integer ``code`` and a float ``param``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

LAPLACE_L1 = 0
LAPLACE_L2 = 1
GAUSSIAN = 2
#: the samplers keep ‖u‖₂² as an exact int64; a state must leave a factor-2 margin below 2**63
SUMSQ_LIMIT = 2**62


def squared_norm(u) -> np.ndarray:
    """Exact ‖u‖₂² of integer vectors (last axis = cells) as int64, or a ValueError naming the limit
    when it would exceed :data:`SUMSQ_LIMIT` (int64 arithmetic would wrap around silently)."""
    u = np.asarray(u)
    if u.dtype == object or not np.issubdtype(u.dtype, np.integer):
        raise ValueError(f"squared_norm needs integer vectors, got dtype {u.dtype}")
    if u.size and float(np.square(u.astype(float)).sum(axis=-1).max()) >= SUMSQ_LIMIT / 2:
        exact = max(sum(int(x) ** 2 for x in row) for row in u.reshape(-1, u.shape[-1]))
        if exact >= SUMSQ_LIMIT:
            raise ValueError(f"‖u‖₂² = {exact} is beyond the exact int64 range the samplers use "
                             f"(< 2**62): entries this large are not supported")
    return (u.astype(np.int64) ** 2).sum(axis=-1)


@dataclass(frozen=True)
class Target:
    """An unnormalised log-density on integer noise vectors."""

    family: str  # "laplace" or "gaussian"
    norm: str  # "l1" or "l2"
    scale: float  # ε for the Laplace family, σ for the Gaussian

    def __post_init__(self):
        if self.family not in ("laplace", "gaussian"):
            raise ValueError(f"unknown target family {self.family!r}")
        if self.norm not in ("l1", "l2") or (self.family == "gaussian" and self.norm != "l2"):
            raise ValueError(f"unsupported norm {self.norm!r} for the {self.family} target")
        if not (np.isfinite(self.scale) and self.scale > 0):
            raise ValueError(f"target scale must be a positive number, got {self.scale}")

    @property
    def code(self) -> int:
        """Kernel code of this target."""
        if self.family == "gaussian":
            return GAUSSIAN
        return LAPLACE_L1 if self.norm == "l1" else LAPLACE_L2

    @property
    def param(self) -> float:
        """Kernel parameter: ε for Laplace targets, 1/(2σ²) for the Gaussian."""
        return self.scale if self.family == "laplace" else 1.0 / (2.0 * self.scale**2)

    @property
    def label(self) -> str:
        """Short human label, e.g. ``Laplace ℓ1 (ε=0.2)``."""
        if self.family == "gaussian":
            return f"Gaussian (σ={self.scale:g})"
        return f"Laplace {'ℓ1' if self.norm == 'l1' else 'ℓ2'} (ε={self.scale:g})"

    def log_density(self, u) -> np.ndarray:
        """Unnormalised log π(u); ``u`` may be one vector or a stack of them (last axis = cells)."""
        u = np.asarray(u, dtype=float)
        if self.code == LAPLACE_L1:
            return -self.scale * np.abs(u).sum(axis=-1)
        sq = (u * u).sum(axis=-1)
        if self.code == LAPLACE_L2:
            return -self.scale * np.sqrt(sq)
        return -sq * self.param


def generalized_laplace(eps: float, norm: str = "l1") -> Target:
    """π(u) ∝ exp(-ε‖u‖) on the lattice; ε-integer-subspace-DP w.r.t. the same norm (ISDP Thm 10)."""
    return Target("laplace", norm, float(eps))


def generalized_gaussian(sigma: float) -> Target:
    """π(u) ∝ exp(-‖u‖₂²/(2σ²)) on the lattice (ISDP Eq. 8)."""
    return Target("gaussian", "l2", float(sigma))
