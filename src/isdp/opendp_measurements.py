"""The release routes as OpenDP measurements, so that an agency that budgets with OpenDP composes
them with its own measurements under one budget (docs/release.md, "Inside OpenDP").

Needs the optional extra ``isdp[opendp]`` (OpenDP ≥ 0.16). OpenDP asks for two features to build
measurements from user code: ``contrib`` and ``honest-but-curious`` — the latter because OpenDP
cannot check a user's privacy map; this module's maps are the ones derived in docs/method.md §11
and audited exactly in ``tests/core/test_release_privacy.py``.

**The input metric counts persons.** Integer subspace DP compares only tables with the same
invariants, which no OpenDP metric expresses, so the input metric is a user-defined distance:
the number of persons whose records differ (each added, removed or moved between cells) between
two tables with the same invariants, and infinity between tables whose invariants differ. The
privacy maps are then per person: k ↦ k·ε for the ℓ1 route, k ↦ k²/σ² (zCDP) for the Gaussian.
To reach OpenDP's own measurements on the same counts, :func:`make_counts_as_l1` maps that metric
to OpenDP's ``l1_distance`` with stability k ↦ 2k (a person moving changes two cells by one).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from .exact_sampling import ExactSampler, as_fraction, system_source
from .lattice import as_integer_matrix
from .privacy import gaussian_rho, unit_epsilon

#: the input metric's descriptor (OpenDP compares metrics by it)
PERSONS = "isdp: persons whose records differ between two tables with the same invariants (inf otherwise)"
#: attempts of each block's exact sampler before the measurement raises (a data-independent event)
MAX_ATTEMPTS = 20_000


def _dp():
    import opendp.prelude as dp

    dp.enable_features("contrib", "honest-but-curious")
    return dp


def persons_metric():
    """The input metric: persons changed between tables with the same invariants (module docstring)."""
    return _dp().user_distance(PERSONS)


def counts_domain(n: int):
    """Vectors of ``n`` integer counts."""
    dp = _dp()
    return dp.vector_domain(dp.atom_domain(T=dp.i64), size=int(n))


def _release_function(A: np.ndarray, sampler: ExactSampler, eps: Fraction, sigma: Fraction | None,
                      accept: bool = True):
    def release(x):
        x = np.asarray(x, dtype=np.int64)
        noise, _ = sampler.draw(eps, system_source(), max_attempts=MAX_ATTEMPTS, sigma=sigma, accept=accept)
        if noise is None:  # the acceptance depends on A and ε only
            raise RuntimeError(f"the exact sampler accepted none of {MAX_ATTEMPTS} proposals in a block")
        out = x + noise
        if np.any(A @ out != A @ x):
            raise AssertionError("release left its invariants; this is a bug in isdp")
        return [int(v) for v in out]

    return release


def _sampler(A) -> tuple[np.ndarray, ExactSampler]:
    A = as_integer_matrix(A)
    sampler = ExactSampler.build(A)
    if sampler is None:
        raise ValueError("no set of cells can be solved for the others in integers: the exact route does not apply")
    return A, sampler


def make_isdp_laplace(A, epsilon, free_cells: bool = False):
    """The exact ℓ1 release under invariants ``A`` as an OpenDP measurement: ``epsilon`` per person
    (ε/2 per unit ℓ1 distance), output measure ``max_divergence``, privacy map k ↦ k·ε. With
    ``free_cells``, the free-cell route (the same map: docs/method.md §11)."""
    dp = _dp()
    A, sampler = _sampler(A)
    eps = as_fraction(epsilon)
    unit = unit_epsilon(eps, "l1")
    return dp.m.make_user_measurement(counts_domain(A.shape[1]), persons_metric(), dp.max_divergence(),
                                      function=_release_function(A, sampler, unit, None, accept=not free_cells),
                                      privacy_map=lambda k: float(eps) * k)


def make_isdp_gaussian(A, sigma):
    """The exact generalized Gaussian under invariants ``A`` (σ an exact fraction) as an OpenDP
    measurement: output measure ``zero_concentrated_divergence``, privacy map k ↦ k²/σ²."""
    dp = _dp()
    A, sampler = _sampler(A)
    sigma = as_fraction(sigma)
    return dp.m.make_user_measurement(counts_domain(A.shape[1]), persons_metric(),
                                      dp.zero_concentrated_divergence(),
                                      function=_release_function(A, sampler, 1 / sigma, sigma),
                                      privacy_map=lambda k: gaussian_rho(sigma, k))


def make_counts_as_l1(n: int):
    """The identity on ``n`` counts, from the persons metric to OpenDP's ``l1_distance``: k persons
    change the counts by at most 2k in ℓ1 (stability map k ↦ 2k), so OpenDP's own measurements on
    the counts chain after it."""
    dp = _dp()
    return dp.t.make_user_transformation(counts_domain(n), persons_metric(), counts_domain(n),
                                         dp.l1_distance(T=dp.i64), function=lambda x: x,
                                         stability_map=lambda k: 2 * k)

__all__ = [
    "MAX_ATTEMPTS",
    "PERSONS",
    "counts_domain",
    "make_counts_as_l1",
    "make_isdp_gaussian",
    "make_isdp_laplace",
    "persons_metric",
]
