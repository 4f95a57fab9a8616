"""The release routes as OpenDP measurements.

An agency that budgets with OpenDP composes them with its own measurements under one budget (docs/release.md,
"Inside OpenDP").

Needs the optional extra ``isdp[opendp]`` (OpenDP ≥ 0.16). OpenDP asks for two features to build
measurements from user code: ``contrib`` and ``honest-but-curious`` — the latter because OpenDP
cannot check a user's privacy map; this module's maps are the ones derived in docs/method.md §11
and audited exactly in ``tests/core/release/test_release_privacy.py``.

**No global side effect.** Importing this module imports nothing from OpenDP and changes nothing.
OpenDP checks its features when a measurement is built, never when one is invoked, mapped,
chained or composed; so each function here enables the features it lacks only while it builds its
own measurement or metric, and then gives OpenDP's feature set back as it found it. Calling this
module is the user's consent to trust its maps, and to nothing else: afterwards OpenDP accepts no
other user-defined measurement it did not accept before. (While one of these functions builds —
milliseconds, one at a time in this module — another thread that builds OpenDP objects at that
instant would see the two features enabled.) OpenDP's own constructors, chaining (``>>``) and
``make_composition`` need ``contrib``, which the user enables as OpenDP asks:
``opendp.prelude.enable_features("contrib")``.

**The input metric counts persons.** Integer subspace DP compares only tables with the same
invariants, which no OpenDP metric expresses, so the input metric is a user-defined distance:
the number of persons whose records differ (each added, removed or moved between cells) between
two tables with the same invariants, and infinity between tables whose invariants differ. The
privacy maps are then per person: k ↦ k·ε for the ℓ1 route, k ↦ k²/σ² (zCDP) for the Gaussian.
To reach OpenDP's own measurements on the same counts, :func:`make_counts_as_l1` maps that metric
to OpenDP's ``l1_distance`` with stability k ↦ 2k (a person moving changes two cells by one).
Persons are counted in whole numbers: every map refuses a distance that is negative, not a whole
number or not finite (``ValueError``, which OpenDP reports as an ``OpenDPException`` carrying its
message), and states the loss rounded up to the next float, as OpenDP's own maps do (a map never
understates the loss).
"""

from __future__ import annotations

import math
import numbers
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction

import numpy as np

from . import _validate as check
from .exact import ExactSampler, system_source
from .privacy import unit_epsilon

#: The input metric's descriptor (OpenDP compares metrics by it): the number of persons whose
#: records differ between two tables with the same invariants, infinite between tables whose
#: invariants differ. :func:`persons_metric` is the metric.
PERSONS = "isdp: persons whose records differ between two tables with the same invariants (inf otherwise)"
#: Proposals of each block's exact sampler before a measurement raises ``RuntimeError``; the
#: acceptance depends on the invariants and ε only, so raising is a data-independent event.
MAX_ATTEMPTS = 20_000


#: OpenDP's features that building a measurement from user code asks for
FEATURES = ("contrib", "honest-but-curious")
_building = threading.RLock()  # one build at a time in this module: none gives back a feature another still uses


@contextmanager
def _features() -> Iterator:
    """``opendp.prelude`` with :data:`FEATURES` enabled for the block only.

    The features the user had not enabled are disabled again on the way out, whatever happens inside.
    """
    try:  # here: OpenDP is the optional extra isdp[opendp], loaded only when a measurement is built
        import opendp.prelude as dp
        from opendp.mod import GLOBAL_FEATURES
    except ImportError as err:
        raise ImportError(f"isdp.opendp_measurements needs OpenDP: pip install 'isdp[opendp]' ({err})") from err
    with _building:
        lacking = [f for f in FEATURES if f not in GLOBAL_FEATURES]
        dp.enable_features(*lacking)
        try:
            yield dp
        finally:
            dp.disable_features(*lacking)


def _persons(d_in) -> int:
    """Return a distance in persons as an int: a whole number ≥ 0, else ValueError (with its message)."""
    whole = (isinstance(d_in, numbers.Integral) and not isinstance(d_in, bool)) or (
        isinstance(d_in, float) and math.isfinite(d_in) and d_in.is_integer()
    )
    if not whole or d_in < 0:
        raise ValueError(
            f"a distance in persons is a whole number >= 0 (persons are counted in integers), got {d_in!r}"
        )
    return int(d_in)


def _up(value: Fraction) -> float:
    """Return the least float ≥ ``value``: a stated loss is rounded up, never down."""
    try:
        out = float(value)
    except OverflowError:  # a loss beyond the largest float (10**200 persons): stated as infinite
        return math.inf
    return out if Fraction(out) >= value else math.nextafter(out, math.inf)


def persons_metric():
    """Return the input metric: persons changed between tables with the same invariants.

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
    OpenDP's ``user_distance`` asks for the ``honest-but-curious`` feature; it is enabled while the
    metric is built only, and OpenDP's feature set is as it was afterwards (module docstring).

    Examples
    --------
    >>> from opendp.mod import GLOBAL_FEATURES
    >>> from isdp.opendp_measurements import PERSONS, persons_metric
    >>> before = set(GLOBAL_FEATURES)
    >>> metric = persons_metric()
    >>> str(metric) == PERSONS
    True
    >>> set(GLOBAL_FEATURES) == before  # no feature left enabled
    True
    """
    with _features() as dp:
        return dp.user_distance(PERSONS)


def counts_domain(n: int):
    """Return the OpenDP domain of vectors of ``n`` integer counts: the tables the measurements take.

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

    Examples
    --------
    >>> from isdp.opendp_measurements import counts_domain
    >>> domain = counts_domain(3)
    >>> print(domain)
    VectorDomain(AtomDomain(T=i64), size=3)
    >>> domain.member([5, 0, 7]), domain.member([5, 0])
    (True, False)
    """
    with _features() as dp:
        return dp.vector_domain(dp.atom_domain(T=dp.i64), size=int(n))


def _release_function(A: np.ndarray, sampler: ExactSampler, eps: Fraction, sigma: Fraction | None, accept: bool = True):
    n = A.shape[1]

    def release(x):
        if len(x) != n:
            raise ValueError(
                f"the table has {len(x)} cell{'' if len(x) == 1 else 's'}; this measurement's "
                f"invariants have {n} (one count per column of A, in its order)"
            )
        x = [int(v) for v in x]
        noise, _ = sampler.draw(eps, system_source(), max_attempts=MAX_ATTEMPTS, sigma=sigma, accept=accept)
        if noise is None:  # the acceptance depends on A and ε only
            raise RuntimeError(
                f"the exact sampler accepted none of {MAX_ATTEMPTS:,} proposals in a block (a "
                "function of the invariants and ε only, never of the table): fewer cells per "
                "invariant, or the ℓ1 route, draw faster"
            )
        out = [v + int(u) for v, u in zip(x, noise.tolist(), strict=True)]
        if any(abs(v) >= 2**63 for v in out):
            raise ValueError(
                "a released count is beyond the 64-bit integers OpenDP carries: the table's counts "
                "are too large for this ε"
            )
        exact = A.astype(object)
        if any(exact @ np.array(out, dtype=object) != exact @ np.array(x, dtype=object)):
            raise AssertionError("release left its invariants; this is a bug in isdp")
        return out

    return release


def _sampler(A, gaussian: bool = False) -> tuple[np.ndarray, ExactSampler]:
    A = check.integer_matrix("A", A)
    sampler = ExactSampler.build(A, gaussian=gaussian)  # the Gaussian: Klein's sampler on totals and margins
    if sampler is None:
        raise ValueError("no set of cells can be solved for the others in integers: the exact route does not apply")
    return A, sampler


def _drawable(eps: Fraction, what: str) -> None:
    """Refuse, when the measurement is built, an ε per unit distance the exact sampler cannot draw from."""
    if not eps.denominator < 2**31 or not eps.numerator < 2**31:
        raise ValueError(
            f"{what}: the exact sampler draws with ε per unit ℓ1 distance a fraction p/q with p and q "
            f"below 2**31, here {eps}; ε per person from 1e-9 to 1000 always works"
        )


def make_isdp_laplace(A, epsilon, free_cells: bool = False):
    """Return the exact ℓ1 release under invariants ``A`` as an OpenDP measurement.

    Adds exact ℓ1 generalized Laplace noise on Λ(A) to a table of counts, so the release keeps
    every invariant exactly, and states ε per person to OpenDP.

    Parameters
    ----------
    A : array_like of int, shape (m, n)
        The invariants: one row per invariant, one column per cell.
    epsilon : fractions.Fraction, int, float or str
        ε per person (> 0), read exactly (as ``isdp release`` reads ``--epsilon``: ``"0.1"`` is
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
        When ``epsilon`` is not a positive number or too far from 1 for the exact sampler (its half
        must be a fraction p/q with p, q < 2**31: 1e-9 to 1000 per person always is), or no set of
        cells can be solved for the others in integers (the exact route does not apply).
    ImportError
        When OpenDP is not installed.

    See Also
    --------
    make_isdp_gaussian : The generalized Gaussian, with a zCDP map.
    isdp.exact.ExactSampler : The sampler the measurement draws from.

    Notes
    -----
    One person changes a table by at most 2 in ℓ1, and the generalized Laplace exp(−ε‖u‖₁) on
    Λ(A) has privacy loss at most ε‖v‖₁ between tables x, x + v with the same invariants (ISDP
    Thm 10); so ε/2 per unit ℓ1 distance is ε per person and k·ε for k persons. The free-cell
    route's loss is at most ε‖v_free‖₁ ≤ ε‖v‖₁, the same bound (docs/method.md §11). The noise
    comes from operating-system entropy through integer-arithmetic samplers
    (:mod:`isdp.exact`), so the law is exact. The map computes k·ε exactly and rounds it
    up to the next float; it refuses a distance that is negative or not a whole number.

    OpenDP's ``contrib`` and ``honest-but-curious`` features are enabled while the measurement is
    built only; OpenDP's feature set is as it was afterwards (module docstring).

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
    >>> make_isdp_laplace([[1, 1, 1]], epsilon="1/3").map(1)  # 1/3 rounded up, never down
    0.33333333333333337

    Persons are counted in whole numbers; OpenDP reports the map's refusal as an
    ``OpenDPException`` that carries its message:

    >>> try:
    ...     meas.map(-1)
    ... except Exception as err:
    ...     print(type(err).__name__, next(ln for ln in str(err).splitlines() if ln.startswith("ValueError:")))
    OpenDPException ValueError: a distance in persons is a whole number >= 0 (persons are counted in integers), got -1

    Composed with OpenDP's own Laplace on the same counts, under one budget (OpenDP's own
    constructors and its composition need its ``contrib`` feature, which the user enables):

    >>> import opendp.prelude as dp
    >>> from isdp.opendp_measurements import counts_domain, make_counts_as_l1
    >>> dp.enable_features("contrib")
    >>> theirs = make_counts_as_l1(3) >> dp.m.make_laplace(counts_domain(3), dp.l1_distance(T=dp.i64), scale=4.0)
    >>> dp.c.make_composition([meas, theirs]).map(1)  # 1 + 2/4
    1.5
    """
    eps = check.positive("epsilon", epsilon)
    unit = unit_epsilon(eps, "l1")
    _drawable(unit, f"ε = {epsilon} per person")
    A, sampler = _sampler(A)
    with _features() as dp:
        return dp.m.make_user_measurement(
            counts_domain(A.shape[1]),
            persons_metric(),
            dp.max_divergence(),
            function=_release_function(A, sampler, unit, None, accept=not free_cells),
            privacy_map=lambda k: _up(eps * _persons(k)),
        )


def make_isdp_gaussian(A, sigma):
    """Return the exact generalized Gaussian under invariants ``A`` as an OpenDP measurement.

    Adds exact generalized Gaussian noise exp(−‖u‖₂²/2σ²) on Λ(A) to a table of counts, so the
    release keeps every invariant exactly, and states ρ-zCDP per person to OpenDP.

    Parameters
    ----------
    A : array_like of int, shape (m, n)
        The invariants: one row per invariant, one column per cell.
    sigma : fractions.Fraction, int, float or str
        σ (> 0), read exactly (as ``isdp release`` reads ``--epsilon``);
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
        When ``sigma`` is not a positive number or not a fraction p/q with p, q < 2**31, or no set
        of cells can be solved for the others in integers (the exact route does not apply).
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
    tables. The map computes k²/σ² exactly and rounds it up to the next float; it refuses a
    distance that is negative or not a whole number.

    OpenDP's ``contrib`` and ``honest-but-curious`` features are enabled while the measurement is
    built only; OpenDP's feature set is as it was afterwards (module docstring).

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
    sigma = check.positive("sigma", sigma)
    _drawable(1 / sigma, f"σ = {sigma}")
    A, sampler = _sampler(A, gaussian=True)
    with _features() as dp:
        # ρ = (√2·k)²/(2σ²) = k²/σ² (isdp.privacy.gaussian_rho), exactly
        return dp.m.make_user_measurement(
            counts_domain(A.shape[1]),
            persons_metric(),
            dp.zero_concentrated_divergence(),
            function=_release_function(A, sampler, 1 / sigma, sigma),
            privacy_map=lambda k: _up(Fraction(_persons(k)) ** 2 / sigma**2),
        )


def make_counts_as_l1(n: int):
    """Return the identity on ``n`` counts, from the persons metric to OpenDP's ``l1_distance``.

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
    The stability map refuses a distance that is negative or not a whole number. OpenDP's
    ``contrib`` and ``honest-but-curious`` features are enabled while the transformation is built
    only; OpenDP's feature set is as it was afterwards (module docstring).

    Examples
    --------
    >>> import opendp.prelude as dp
    >>> from isdp.opendp_measurements import counts_domain, make_counts_as_l1
    >>> to_l1 = make_counts_as_l1(3)
    >>> to_l1([5, 0, 7]), to_l1.map(1)
    ([5, 0, 7], 2)

    Chained to OpenDP's own Laplace (its constructors and ``>>`` need its ``contrib`` feature,
    which the user enables):

    >>> dp.enable_features("contrib")
    >>> laplace = to_l1 >> dp.m.make_laplace(counts_domain(3), dp.l1_distance(T=dp.i64), scale=4.0)
    >>> laplace.map(1)  # ε per person of OpenDP's Laplace of scale 4: 2/4
    0.5
    """
    with _features() as dp:
        return dp.t.make_user_transformation(
            counts_domain(n),
            persons_metric(),
            counts_domain(n),
            dp.l1_distance(T=dp.i64),
            function=lambda x: x,
            stability_map=lambda k: 2 * _persons(k),
        )


__all__ = [  # PERSONS (the metric's name), MAX_ATTEMPTS and FEATURES are documented, not exported
    "counts_domain",
    "make_counts_as_l1",
    "make_isdp_gaussian",
    "make_isdp_laplace",
    "persons_metric",
]
