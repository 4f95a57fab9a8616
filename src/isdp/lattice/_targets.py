"""Target laws on Λ(A) (ISDP Definitions 9 and 13; docs/method.md §2), known up to a constant.

- generalized Laplace, ℓ1 or ℓ2: π(u) ∝ exp(-ε ‖u‖)
- generalized Gaussian: π(u) ∝ exp(-‖u‖₂² / (2σ²))

The compiled kernels see a target as an integer ``code`` and a float ``param``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import _validate as check
from ..errors import ArgumentError

LAPLACE_L1 = 0
LAPLACE_L2 = 1
GAUSSIAN = 2


@dataclass(frozen=True)
class Target:
    """A target law of integer noise on Λ(A), known by its unnormalised log-density.

    Build one with :func:`generalized_laplace` or :func:`generalized_gaussian`; the samplers
    (:func:`isdp.mcmc.sample`, the certificates, the exact laws) take it as their ``target``. The law
    itself is π(u) ∝ exp(log_density(u)) restricted to the lattice Λ(A) the sampler is given.

    Parameters
    ----------
    family : {"laplace", "gaussian"}
        ``"laplace"``: π(u) ∝ exp(−ε‖u‖); ``"gaussian"``: π(u) ∝ exp(−‖u‖₂²/(2σ²)).
    norm : {"l1", "l2"}
        The norm of the Laplace family; the Gaussian takes ``"l2"`` only.
    scale : float
        ε for the Laplace family (per unit of the norm), σ for the Gaussian; positive and finite.

    Attributes
    ----------
    code : int
        The compiled kernels' code of the target (0 ℓ1 Laplace, 1 ℓ2 Laplace, 2 Gaussian).
    param : float
        The compiled kernels' parameter: ε for Laplace targets, 1/(2σ²) for the Gaussian.
    label : str
        A short human label, e.g. ``Laplace ℓ1 (ε=0.2)``.

    Raises
    ------
    isdp.errors.ArgumentError
        A ValueError, for an unknown family, a norm the family does not support, or a scale that is
        not a positive finite number (a bool or text that is not a number is not one).

    See Also
    --------
    generalized_laplace, generalized_gaussian : The constructors.

    Examples
    --------
    >>> from isdp.lattice import Target, generalized_laplace
    >>> target = generalized_laplace(0.5)
    >>> target == Target("laplace", "l1", 0.5)
    True
    >>> target.label, target.code, target.param
    ('Laplace ℓ1 (ε=0.5)', 0, 0.5)
    >>> target.log_density([[1, -1, 0], [2, 0, -2]]).tolist()  # −ε‖u‖₁ per vector
    [-1.0, -2.0]
    """

    family: str  # "laplace" or "gaussian"
    norm: str  # "l1" or "l2"
    scale: float  # ε for the Laplace family, σ for the Gaussian

    def __post_init__(self):
        if self.family not in ("laplace", "gaussian"):
            raise ArgumentError(f"unknown target family {self.family!r}", "family")
        if self.norm not in ("l1", "l2") or (self.family == "gaussian" and self.norm != "l2"):
            raise ArgumentError(f"unsupported norm {self.norm!r} for the {self.family} target", "norm")
        object.__setattr__(self, "scale", float(check.positive("scale", self.scale)))  # True or "1" is no scale

    @property
    def code(self) -> int:
        """The compiled kernels' code of this target: 0 ℓ1 Laplace, 1 ℓ2 Laplace, 2 Gaussian."""
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
        """Return the unnormalised log π(u): −ε‖u‖₁, −ε‖u‖₂ or −‖u‖₂²/(2σ²).

        Parameters
        ----------
        u : array_like
            One noise vector of shape (n,) or a stack of them, cells on the last axis.

        Returns
        -------
        numpy.ndarray
            Floats, the shape of ``u`` without its last axis (a 0-d value for one vector).
        """
        u = np.asarray(u, dtype=float)
        if self.code == LAPLACE_L1:
            return -self.scale * np.abs(u).sum(axis=-1)
        sq = (u * u).sum(axis=-1)
        if self.code == LAPLACE_L2:
            return -self.scale * np.sqrt(sq)
        return -sq * self.param


def generalized_laplace(epsilon: float, norm: str = "l1") -> Target:
    """Return the generalized Laplace target π(u) ∝ exp(−ε‖u‖) on the lattice (ISDP Definition 9).

    Parameters
    ----------
    epsilon : float
        ε per unit of ``norm`` distance; positive and finite.
    norm : {"l1", "l2"}, default "l1"
        The norm in the exponent, and the metric of the privacy guarantee.

    Returns
    -------
    Target
        ``Target("laplace", norm, epsilon)``.

    Raises
    ------
    isdp.errors.ArgumentError
        A ValueError, if ``norm`` is not ``"l1"`` or ``"l2"`` or ``epsilon`` is not a positive finite number.

    Notes
    -----
    The mechanism x ↦ x + u, u ~ π on Λ(A), is ε-integer-subspace-DP with the same norm as the
    data metric, and unbiased (ISDP Theorem 10): tables x, x' with equal invariants give outputs
    whose probabilities differ by at most a factor exp(ε‖x − x'‖). One person added, removed or
    moved changes a table by ‖x − x'‖₁ ≤ 2 (‖x − x'‖₂ ≤ √2), so the loss per person is at most
    2ε for ℓ1 (√2·ε for ℓ2). Without invariants the ℓ1 target is i.i.d. double geometric noise
    DG(ε) per cell (:class:`isdp.mcmc.DoubleGeometric`); with them it is that noise conditioned on A u = 0.

    Examples
    --------
    >>> from isdp.lattice import generalized_laplace
    >>> target = generalized_laplace(0.5)
    >>> print(target.label)
    Laplace ℓ1 (ε=0.5)
    >>> print(target.log_density([1, -1, 0]))  # −0.5 · ‖u‖₁
    -1.0
    >>> print(round(float(generalized_laplace(0.5, norm="l2").log_density([1, -1, 0])), 3))
    -0.707
    """
    return Target("laplace", norm, float(check.positive("epsilon", epsilon)))


def generalized_gaussian(sigma: float) -> Target:
    """Return the generalized Gaussian target π(u) ∝ exp(−‖u‖₂²/(2σ²)) on the lattice (ISDP Eq. 8).

    Parameters
    ----------
    sigma : float
        The scale σ (in counts); positive and finite.

    Returns
    -------
    Target
        ``Target("gaussian", "l2", sigma)``.

    Raises
    ------
    isdp.errors.ArgumentError
        A ValueError, if ``sigma`` is not a positive finite number.

    Notes
    -----
    The mechanism x ↦ x + u is ρ-zCDP with ρ = ‖x − x'‖₂²/(2σ²) for tables with equal
    invariants: 1/σ² per person (‖x − x'‖₂ ≤ √2), 4/σ² for two. The kernels' parameter
    (:attr:`Target.param`) is 1/(2σ²).

    Examples
    --------
    >>> from isdp.lattice import generalized_gaussian
    >>> target = generalized_gaussian(2.0)
    >>> print(target.label, target.param)
    Gaussian (σ=2) 0.125
    >>> print(target.log_density([1, -1, 0]))  # −‖u‖₂² / (2σ²) = −2 / 8
    -0.25
    """
    return Target("gaussian", "l2", float(check.positive("sigma", sigma)))
