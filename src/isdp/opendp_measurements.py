"""The release routes as OpenDP measurements, so that an agency that budgets with OpenDP composes
them with its own measurements under one budget (docs/release.md, "Inside OpenDP").

Needs the optional extra ``isdp[opendp]`` (OpenDP ≥ 0.16). OpenDP asks for two features to build
measurements from user code: ``contrib`` and ``honest-but-curious`` — the latter because OpenDP
cannot check a user's privacy map; this module's maps are the ones derived in docs/method.md §11
and audited exactly in ``tests/core/test_release_privacy.py``.

**A global side effect.** Importing this module imports nothing from OpenDP and changes nothing.
Calling any of its functions imports ``opendp.prelude`` and calls
``opendp.prelude.enable_features("contrib", "honest-but-curious")``, which enables both features
for the whole process: from then on OpenDP also accepts other user-defined measurements and
transformations, whose privacy maps it cannot check either.

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

#: The input metric's descriptor (OpenDP compares metrics by it): the number of persons whose
#: records differ between two tables with the same invariants, infinite between tables whose
#: invariants differ. :func:`persons_metric` is the metric.
PERSONS = "isdp: persons whose records differ between two tables with the same invariants (inf otherwise)"
#: Proposals of each block's exact sampler before a measurement raises ``RuntimeError``; the
#: acceptance depends on the invariants and ε only, so raising is a data-independent event.
MAX_ATTEMPTS = 20_000


def _dp():
    import opendp.prelude as dp

    dp.enable_features("contrib", "honest-but-curious")
    return dp


def persons_metric():
    """The input metric: persons changed between tables with the same invariants.

    An OpenDP user-defined distance named :data:`PERSONS`: the number of persons whose records
    differ (each added, removed, or moved between cells) between two tables with the same
    invariants, and infinity between tables whose invariants differ. Integer subspace DP compares
    only tables with the same invariants, which no OpenDP metric expresses.

    Returns
    -------
    opendp.mod.ExtrinsicDistance
        ``opendp.prelude.user_distance(PERSONS)``.

    Raises
    ------
    ImportError
        When OpenDP is not installed (``pip install 'isdp[opendp]'``).

    See Also
    --------
    make_counts_as_l1 : From this metric to OpenDP's ``l1_distance``.

    Notes
    -----
    Calling this function enables OpenDP's ``contrib`` and ``honest-but-curious`` features for the
    whole process (``opendp.prelude.enable_features``; module docstring).

    Examples
    --------
    >>> from opendp.mod import GLOBAL_FEATURES
    >>> from isdp.opendp_measurements import PERSONS, persons_metric
    >>> metric = persons_metric()
    >>> str(metric) == PERSONS
    True
    >>> {"contrib", "honest-but-curious"} <= GLOBAL_FEATURES  # enabled by the call
    True
    """
    return _dp().user_distance(PERSONS)


def counts_domain(n: int):
    """The OpenDP domain of vectors of ``n`` integer counts: the tables the measurements take.

    Parameters
    ----------
    n : int
        The number of cells.

    Returns
    -------
    opendp.mod.VectorDomain
        ``vector_domain(atom_domain(T=i64), size=n)``.

    Raises
    ------
    ImportError
        When OpenDP is not installed.

    Notes
    -----
    Calling this function enables OpenDP's ``contrib`` and ``honest-but-curious`` features for the
    whole process (``opendp.prelude.enable_features``; module docstring).

    Examples
    --------
    >>> from isdp.opendp_measurements import counts_domain
    >>> domain = counts_domain(3)
    >>> print(domain)
    VectorDomain(AtomDomain(T=i64), size=3)
    >>> domain.member([5, 0, 7]), domain.member([5, 0])
    (True, False)
    """
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
    """The exact ℓ1 release under invariants ``A`` as an OpenDP measurement.

    Adds exact ℓ1 generalized Laplace noise on Λ(A) to a table of counts, so the release keeps
    every invariant exactly, and states ε per person to OpenDP.

    Parameters
    ----------
    A : array_like of int, shape (m, n)
        The invariants: one row per invariant, one column per cell.
    epsilon : fractions.Fraction, int, float or str
        ε per person (> 0), read exactly (:func:`isdp.exact_sampling.as_fraction`: ``"0.1"`` is
        1/10); the mechanism's own ε is ε/2 per unit ℓ1 distance.
    free_cells : bool, default False
        The free-cell route instead: i.i.d. double geometric noise on the free cells, the solved
        cells computed from the invariants, no rejection; the same map.

    Returns
    -------
    opendp.mod.Measurement
        Input domain :func:`counts_domain` (n cells), input metric :func:`persons_metric`, output
        measure ``max_divergence``, privacy map k ↦ k·ε. Invoked on a table ``x`` it returns the
        release as a list of n ints with A·release = A·x; it raises ``RuntimeError`` when a block's
        exact sampler accepts none of :data:`MAX_ATTEMPTS` proposals.

    Raises
    ------
    ValueError
        When ``epsilon`` is not a positive number, or no set of cells can be solved for the others
        in integers (the exact route does not apply).
    ImportError
        When OpenDP is not installed.

    See Also
    --------
    make_isdp_gaussian : The generalized Gaussian, with a zCDP map.
    isdp.exact_sampling.ExactSampler : The sampler the measurement draws from.

    Notes
    -----
    One person changes a table by at most 2 in ℓ1, and the generalized Laplace exp(−ε‖u‖₁) on
    Λ(A) has privacy loss at most ε‖v‖₁ between tables x, x + v with the same invariants (ISDP
    Thm 10); so ε/2 per unit ℓ1 distance is ε per person and k·ε for k persons. The free-cell
    route's loss is at most ε‖v_free‖₁ ≤ ε‖v‖₁, the same bound (docs/method.md §11). The noise
    comes from operating-system entropy through integer-arithmetic samplers
    (:mod:`isdp.exact_sampling`), so the law is exact.

    Calling this function enables OpenDP's ``contrib`` and ``honest-but-curious`` features for the
    whole process (``opendp.prelude.enable_features``; module docstring).

    Examples
    --------
    A total over three cells, ε = 1 per person:

    >>> from isdp.opendp_measurements import make_isdp_laplace
    >>> meas = make_isdp_laplace([[1, 1, 1]], epsilon=1)
    >>> meas.map(1), meas.map(2)  # ε per person, and for two persons
    (1.0, 2.0)
    >>> released = meas([5, 0, 7])  # random (operating-system entropy)
    >>> len(released), sum(released)  # the total is kept exactly
    (3, 12)
    >>> make_isdp_laplace([[1, 1, 1]], epsilon="1/2", free_cells=True).map(1)
    0.5

    Composed with OpenDP's own Laplace on the same counts, under one budget:

    >>> import opendp.prelude as dp
    >>> from isdp.opendp_measurements import counts_domain, make_counts_as_l1
    >>> theirs = make_counts_as_l1(3) >> dp.m.make_laplace(counts_domain(3), dp.l1_distance(T=dp.i64), scale=4.0)
    >>> dp.c.make_composition([meas, theirs]).map(1)  # 1 + 2/4
    1.5
    """
    dp = _dp()
    A, sampler = _sampler(A)
    eps = as_fraction(epsilon)
    unit = unit_epsilon(eps, "l1")
    return dp.m.make_user_measurement(counts_domain(A.shape[1]), persons_metric(), dp.max_divergence(),
                                      function=_release_function(A, sampler, unit, None, accept=not free_cells),
                                      privacy_map=lambda k: float(eps) * k)


def make_isdp_gaussian(A, sigma):
    """The exact generalized Gaussian under invariants ``A`` as an OpenDP measurement.

    Adds exact generalized Gaussian noise exp(−‖u‖₂²/2σ²) on Λ(A) to a table of counts, so the
    release keeps every invariant exactly, and states ρ-zCDP per person to OpenDP.

    Parameters
    ----------
    A : array_like of int, shape (m, n)
        The invariants: one row per invariant, one column per cell.
    sigma : fractions.Fraction, int, float or str
        σ (> 0), read exactly (:func:`isdp.exact_sampling.as_fraction`);
        :func:`isdp.privacy.gaussian_sigma` gives the σ of a requested (ε, δ) per person.

    Returns
    -------
    opendp.mod.Measurement
        Input domain :func:`counts_domain` (n cells), input metric :func:`persons_metric`, output
        measure ``zero_concentrated_divergence``, privacy map k ↦ k²/σ² (ρ per group of k
        persons). Invoked on a table ``x`` it returns the release as a list of n ints with
        A·release = A·x; it raises ``RuntimeError`` when a block's exact sampler accepts none of
        :data:`MAX_ATTEMPTS` proposals.

    Raises
    ------
    ValueError
        When ``sigma`` is not a positive number, or no set of cells can be solved for the others in
        integers (the exact route does not apply).
    ImportError
        When OpenDP is not installed.

    See Also
    --------
    make_isdp_laplace : The ℓ1 route, with a pure ε map.
    isdp.privacy.gaussian_rho : The map, as a function.

    Notes
    -----
    The generalized Gaussian on Λ(A) (ISDP Eq. 8) is ρ-zCDP with ρ = ‖v‖₂²/2σ² between tables
    x, x + v with the same invariants, and k persons have ‖v‖₂ ≤ √2·k: ρ = k²/σ²
    (docs/method.md §11). It is drawn exactly by rejection from the ℓ1 law with ε = 1/σ; the
    acceptance falls geometrically with the number of cells, so the measurement suits small
    tables.

    Calling this function enables OpenDP's ``contrib`` and ``honest-but-curious`` features for the
    whole process (``opendp.prelude.enable_features``; module docstring).

    Examples
    --------
    >>> from isdp.opendp_measurements import make_isdp_gaussian
    >>> meas = make_isdp_gaussian([[1, 1, 1]], sigma=2)
    >>> round(meas.map(1), 6), round(meas.map(2), 6)  # ρ per person (1/σ²), and for two persons
    (0.25, 1.0)
    >>> released = meas([5, 0, 7])  # random (operating-system entropy)
    >>> len(released), sum(released)
    (3, 12)
    """
    dp = _dp()
    A, sampler = _sampler(A)
    sigma = as_fraction(sigma)
    return dp.m.make_user_measurement(counts_domain(A.shape[1]), persons_metric(),
                                      dp.zero_concentrated_divergence(),
                                      function=_release_function(A, sampler, 1 / sigma, sigma),
                                      privacy_map=lambda k: gaussian_rho(sigma, k))


def make_counts_as_l1(n: int):
    """The identity on ``n`` counts, from the persons metric to OpenDP's ``l1_distance``.

    k persons change the counts by at most 2k in ℓ1 (a person moving changes two cells by one), so
    OpenDP's own measurements on the counts chain after it and compose with this module's
    measurements under one budget.

    Parameters
    ----------
    n : int
        The number of cells.

    Returns
    -------
    opendp.mod.Transformation
        From :func:`counts_domain` with :func:`persons_metric` to the same domain with
        ``l1_distance(T=i64)``; the identity function, stability map k ↦ 2k.

    Raises
    ------
    ImportError
        When OpenDP is not installed.

    Notes
    -----
    Calling this function enables OpenDP's ``contrib`` and ``honest-but-curious`` features for the
    whole process (``opendp.prelude.enable_features``; module docstring).

    Examples
    --------
    >>> import opendp.prelude as dp
    >>> from isdp.opendp_measurements import counts_domain, make_counts_as_l1
    >>> to_l1 = make_counts_as_l1(3)
    >>> to_l1([5, 0, 7]), to_l1.map(1)
    ([5, 0, 7], 2)
    >>> laplace = to_l1 >> dp.m.make_laplace(counts_domain(3), dp.l1_distance(T=dp.i64), scale=4.0)
    >>> laplace.map(1)  # ε per person of OpenDP's Laplace of scale 4: 2/4
    0.5
    """
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
