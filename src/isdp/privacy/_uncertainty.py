"""An error bar with every released cell, from the mechanism alone (docs/release.md, "Uncertainty").

The noise u = release − x of a cell has a law fixed by the invariants, the route and ε (and δ),
never by the counts. For every cell this module gives the noise's standard deviation and the
integers q_lo ≤ q_hi with P(u < q_lo) ≤ (1 − L)/2 and P(u > q_hi) ≤ (1 − L)/2, so that
[release − q_hi, release − q_lo] holds the true count with probability at least L:

- **exact**, on the free-cell route: a free cell's noise is DG(ε), its quantiles in closed form; a
  solved cell's an integer combination of free cells' (its law from its characteristic function by
  one FFT, :func:`combination_law`: tails below 10⁻¹⁶ wrapped, rounding about 10⁻¹⁵);
- **by simulation** on the other exact routes (the ℓ1 rejection sampler, the Gaussian's, Klein's):
  M draws of each block shape from a fixed seed, pooled over the block's cells where the law
  treats them alike (one total or two margins: every cell has the same marginal law). The
  interval's probability under the simulated law is its Monte Carlo estimate, with standard
  error √(L(1 − L)/M) from the M independent draws (pooling only lowers it).

A level is served only where its tails are resolved (:func:`check_uncertainty`, before anything is
drawn): a simulation expects at least :data:`MIN_TAIL_DRAWS` draws beyond each end of the interval,
an exact law a tail of at least :data:`MIN_TAIL`; the work is bounded by :data:`MAX_SIMULATED_CELLS`
and :data:`MAX_LAW_POINTS`, and a request beyond either is refused rather than half computed.

Blocks of one shape have one law, so two tables with the same invariants get the same columns up
to the shift by their released counts, and a release made part by part gets the whole table's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .. import _validate as check
from .._rng import text_seed
from ..errors import UncertifiableError
from ..exact import IntegerL1Sampler, LatticeBlock, lattice_block, seeded_source
from ..mcmc import DoubleGeometric

#: the columns added to a released long table: the noise's standard deviation, the interval for the true count
UNCERTAINTY_COLUMNS = ("noise_sd", "lower", "upper")
#: simulated cell draws of a block shape: ceil(SIMULATED_CELLS / its cells) draws, within [MIN_DRAWS, MAX_DRAWS]
SIMULATED_CELLS = 20_000_000
MIN_DRAWS, MAX_DRAWS = 200, 20_000
#: a simulated law resolves a level L only when it expects this many draws beyond each end: (1 − L)/2 · M ≥ 10,
#: so a level beyond 1 − 2·10/MAX_DRAWS = 0.999 is refused on the simulated routes
MIN_TAIL_DRAWS = 10
#: the most cell draws (draws × cells) simulated for one block shape: more is refused, not attempted
MAX_SIMULATED_CELLS = 5 * 10**7
#: the smallest tail (1 − L)/2 an exact law states: its floating-point sums are good to about 10⁻¹²
MIN_TAIL = 1e-9
#: the most values of a solved cell's law found by one FFT (each costs about 64 bytes of work space)
MAX_LAW_POINTS = 2**22
#: the mass a solved cell's law leaves beyond its grid, per side (a Chernoff bound)
_GRID_TAIL = 1e-16


@dataclass(frozen=True)
class CellLaw:
    """The noise of each cell of a block shape: its standard deviation, its interval and the interval's probability.

    Parameters
    ----------
    sd : numpy.ndarray of float
        Per cell of the block, the noise's standard deviation.
    low, high : numpy.ndarray of int64
        Per cell, q_lo and q_hi: P(u < q_lo) and P(u > q_hi) at most (1 − L)/2 each.
    coverage : numpy.ndarray of float
        Per cell, P(q_lo ≤ u ≤ q_hi) under the law used.
    draws : int
        The simulated draws (0: the exact law).
    """

    sd: np.ndarray
    low: np.ndarray
    high: np.ndarray
    coverage: np.ndarray
    draws: int


def noise_interval(values: np.ndarray, pmf: np.ndarray, level: float) -> tuple[int, int, float]:
    """Return the shortest-tailed interval of a noise law: q_lo, q_hi and P(q_lo ≤ u ≤ q_hi).

    q_lo is the least value with P(u ≤ q_lo) > (1 − level)/2, q_hi the least with P(u ≤ q_hi) ≥
    (1 + level)/2, so P(u < q_lo) and P(u > q_hi) are at most (1 − level)/2 each (up to 10⁻¹², the
    rounding of the cumulative sums).

    Parameters
    ----------
    values : numpy.ndarray of int
        The law's support, ascending.
    pmf : numpy.ndarray of float
        The probability of each value (summing to 1).
    level : float
        In (0, 1).

    Returns
    -------
    tuple
        (q_lo, q_hi, P(q_lo ≤ u ≤ q_hi)).

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.privacy import noise_interval
    >>> low, high, p = noise_interval(np.arange(-2, 3), np.array([0.1, 0.2, 0.4, 0.2, 0.1]), 0.8)
    >>> low, high, round(p, 12)
    (-1, 1, 0.8)
    """
    cdf = np.cumsum(pmf)
    tail = (1 - level) / 2
    # the first value whose cdf exceeds the tail (ties within 1e-12, the rounding of a cumulative sum, count as
    # equal: the tails are then at most (1 - level)/2 + 1e-12)
    lo = int(np.searchsorted(cdf, tail + 1e-12, side="right"))
    hi = int(np.searchsorted(cdf, 1 - tail - 1e-12, side="left"))
    hi = min(hi, len(values) - 1)
    return int(values[lo]), int(values[hi]), float(cdf[hi] - (cdf[lo - 1] if lo else 0.0))


def combination_law(coefficients, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """Return the law of Σ_j c_j X_j for i.i.d. X_j ~ DG(ε).

    Its support and probabilities, from its characteristic function.

    The characteristic function Π_j (1 − q)² / ((1 − q)² + 4q sin²(c_j t/2)), q = e^−ε, is evaluated on a
    grid of N points and inverted by one FFT: exact but for the mass beyond ±H, which a Chernoff bound
    puts below 10⁻¹⁶ on each side (and which wraps onto the grid), and for the floating-point rounding
    of the transform (about 10⁻¹⁵ per value).

    Parameters
    ----------
    coefficients : sequence of int
        The c_j, not all zero.
    eps : float
        The double geometric's ε (per unit ℓ1 distance).

    Returns
    -------
    values : numpy.ndarray of int64
        −H … H.
    pmf : numpy.ndarray of float
        The probability of each value.

    Raises
    ------
    isdp.errors.UncertifiableError
        When the grid would exceed :data:`MAX_LAW_POINTS` values (a tiny ε or many large coefficients).

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.privacy._uncertainty import combination_law
    >>> values, pmf = combination_law([1, 1], 0.5)  # the sum of two DG(1/2): P(0) = Σ_k P(k)²
    >>> q = np.exp(-0.5)
    >>> bool(np.isclose(pmf[values == 0][0], ((1 - q) / (1 + q)) ** 2 * (1 + q * q) / (1 - q * q)))
    True
    """
    c, multiplicity = _coefficients(coefficients)
    half = _half_width(c, multiplicity, eps)
    n = _grid(half)
    if n > MAX_LAW_POINTS:
        raise UncertifiableError(_too_wide(half, eps))
    q, one_minus_q = math.exp(-eps), -math.expm1(-eps)
    t = math.pi * np.arange(n) / n  # half the angle: 1 − 2q cos θ + q² = (1 − q)² + 4q sin²(θ/2), without cancellation
    log_phi = np.zeros(n)
    for value, m in zip(c.tolist(), multiplicity.tolist(), strict=True):
        log_phi -= m * np.log1p(4 * q * np.sin(value * t) ** 2 / one_minus_q**2)
    pmf_all = np.fft.ifft(np.exp(log_phi)).real
    values = np.arange(-half, half + 1)
    pmf = np.clip(pmf_all[values % n], 0, None)
    return values, pmf / pmf.sum()


def _coefficients(coefficients) -> tuple[np.ndarray, np.ndarray]:
    """Return the distinct non-zero |c_j| and how often each occurs."""
    c, multiplicity = np.unique(np.abs(np.asarray(coefficients, dtype=np.int64)), return_counts=True)
    return c[c > 0], multiplicity[c > 0]


def _half_width(c: np.ndarray, multiplicity: np.ndarray, eps: float) -> int:
    """H with P(Σ c_j X_j > H) ≤ 10⁻¹⁶: the Chernoff bound min_λ E[e^(λ sum)] e^(−λH), over λ in (0, ε / max c)."""
    lam = eps / int(c.max()) * np.geomspace(1e-6, 0.999, 400)[:, None]  # a fixed λ was loose by 50× for long sums
    # log E e^(λcX) = 2 log(1 − q) − log(1 − q e^(λc)) − log(1 − q e^(−λc)), q = e^−ε, in expm1 for a small ε
    log_mgf = (
        multiplicity
        * (2 * math.log(-math.expm1(-eps)) - np.log(-np.expm1(-(eps - lam * c))) - np.log(-np.expm1(-(eps + lam * c))))
    ).sum(axis=1)
    return math.ceil(float(np.min((log_mgf - math.log(_GRID_TAIL)) / lam[:, 0])))


def _grid(half: int) -> int:
    """Return the FFT's points for the values −half … half: a power of two."""
    return 1 << (2 * half + 1).bit_length()


def _too_wide(half: int, eps: float) -> str:
    return (
        f"--uncertainty: a solved cell's noise at epsilon {eps:.3g} per unit l1 distance spreads over about "
        f"{2 * half + 1:,} values, beyond the {MAX_LAW_POINTS:,} its exact law is computed on: give a larger "
        "--epsilon, or release without --uncertainty (the statement's route.noise_variance gives each cell's "
        "noise variance)"
    )


def _dg_interval(eps: float, level: float) -> tuple[int, int, float]:
    """DG(ε)'s interval in closed form.

    P(u > h) = q^(h+1)/(1 + q) for h ≥ 0, so h is the least with that at most the tail; no array over the law's range,
    which is about 35/ε wide.
    """
    tail = (1 - level) / 2
    log_1q = math.log1p(math.exp(-eps))

    def beyond(h: int) -> float:  # log P(u > h)
        return -eps * (h + 1) - log_1q

    h = max(0, math.ceil((-math.log(tail) - log_1q) / eps) - 1)
    while h > 0 and beyond(h - 1) <= math.log(tail):  # float rounding: step to the least such h
        h -= 1
    while beyond(h) > math.log(tail):
        h += 1
    return -h, h, -math.expm1(math.log(2) + beyond(h))


def _solved_sums(sub: IntegerL1Sampler) -> dict[bytes, tuple[np.ndarray, list[int]]]:
    """Return the solved cells grouped by the |coefficients| they sum (sorted): cells that sum the same have one law."""
    out: dict[bytes, tuple[np.ndarray, list[int]]] = {}
    for i, cell in enumerate(sub.solved.tolist()):
        coefficients = np.sort(np.abs(sub.solve[i][sub.solve[i] != 0]))
        out.setdefault(coefficients.tobytes(), (coefficients, []))[1].append(cell)
    return out


def _free_cell_law(sub: IntegerL1Sampler, unit: Fraction, level: float) -> CellLaw:
    """Return the exact law of each cell on the free-cell route: DG(ε), or a solved cell's combination of them."""
    eps = float(unit)
    n = sub.A.shape[1]
    sd, low, high, cov = np.zeros(n), np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n)
    variance = DoubleGeometric(eps).variance()
    sd[sub.free] = math.sqrt(variance)
    low[sub.free], high[sub.free], cov[sub.free] = _dg_interval(eps, level)
    for coefficients, cells in _solved_sums(sub).values():
        sd[cells] = math.sqrt(variance * float((coefficients.astype(float) ** 2).sum()))
        low[cells], high[cells], cov[cells] = noise_interval(*combination_law(coefficients, eps), level)
    return CellLaw(sd, low, high, cov, 0)


def _shape(sub) -> tuple:
    """Return a block sampler's shape: Klein's kind and grid, or the invariants' matrix."""
    return (sub.kind, sub.grid.shape) if isinstance(sub, LatticeBlock) else (sub.A.shape, sub.A.tobytes())


def _cells(sub) -> int:
    return sub.grid.size if isinstance(sub, LatticeBlock) else sub.A.shape[1]


def simulated_draws(cells: int, level: float) -> int:
    """Return the draws simulated of a block shape of ``cells`` cells at ``level``.

    ⌈SIMULATED_CELLS / cells⌉ within [MIN_DRAWS, MAX_DRAWS], raised to the ⌈2·MIN_TAIL_DRAWS / (1 − level)⌉ that resolve
    the level's tails.

    Examples
    --------
    >>> from isdp.privacy._uncertainty import simulated_draws
    >>> simulated_draws(1000, 0.9), simulated_draws(10**6, 0.9), simulated_draws(10**6, 0.99)
    (20000, 200, 2000)
    """
    return max(int(np.clip(math.ceil(SIMULATED_CELLS / cells), MIN_DRAWS, MAX_DRAWS)), _tail_draws(level))


def _tail_draws(level: float) -> int:
    """Return the fewest draws that expect MIN_TAIL_DRAWS beyond each end at ``level``.

    ``level`` is read as printed: 0.9 is 9/10.
    """
    return math.ceil(2 * MIN_TAIL_DRAWS / (1 - Fraction(repr(float(level)))))


def _simulated_law(sub, req, unit: Fraction, level: float) -> CellLaw:
    """Return the law of each cell of ``sub``'s blocks from M draws, seeded by the block's shape alone."""
    n = _cells(sub)
    draws = simulated_draws(n, level)
    rng = seeded_source(text_seed(repr((req.norm, str(unit), _shape(sub)))))
    pooled = isinstance(sub, LatticeBlock) or (bool(sub.in_norm.all()) and lattice_block(np.asarray(sub.A)) is not None)
    if pooled:  # one law for every cell: counted chunk by chunk, so the memory is a chunk's whatever the draws
        chunk = math.ceil(SIMULATED_CELLS / n)
        found = [
            np.unique(_draw(sub, req, unit, min(chunk, draws - start), rng), return_counts=True)
            for start in range(0, draws, chunk)
        ]
        values, inverse = np.unique(np.concatenate([v for v, _ in found]), return_inverse=True)
        laws = [_empirical(values, np.bincount(inverse, weights=np.concatenate([c for _, c in found])), level)] * n
    else:
        u = _draw(sub, req, unit, draws, rng)
        laws = [_empirical(*np.unique(u[:, j], return_counts=True), level) for j in range(n)]
    lo, hi, cov, sd = (np.array(x) for x in zip(*laws, strict=True))
    return CellLaw(sd, lo.astype(np.int64), hi.astype(np.int64), cov, draws)


def _draw(sub, req, unit: Fraction, count: int, rng) -> np.ndarray:
    """``count`` draws of the block's noise under the release's route."""
    if isinstance(sub, LatticeBlock):
        return sub.draw_blocks(unit * unit, count, rng)[0]
    sigma = unit if req.norm == "gaussian" else None
    u, _ = sub.draw_blocks(
        1 / sigma if sigma is not None else unit, count, rng, max_attempts=req.max_attempts, sigma=sigma
    )
    if u is None:
        raise UncertifiableError(
            f"--uncertainty: the simulation of the noise law accepted none of --max-attempts "
            f"{req.max_attempts:,} proposals for a block of {_cells(sub):,} cells: raise "
            "--max-attempts, or release without --uncertainty"
        )
    return u


def _empirical(values: np.ndarray, counts: np.ndarray, level: float) -> tuple[int, int, float, float]:
    """Return the interval and its probability under the simulated law, and the law's standard deviation."""
    pmf = counts / counts.sum()
    mean = float(pmf @ values)
    return (*noise_interval(values, pmf, level), math.sqrt(float(pmf @ (values - mean) ** 2)))


#: the laws of the block shapes met so far in this process (a release in parts meets one shape in every part)
_LAWS: dict[tuple, CellLaw] = {}


def _law(sub, req, unit: Fraction, level: float) -> CellLaw:
    """Return the law of ``sub``'s cells, computed once per shape, route and level in a process."""
    in_norm = None if isinstance(sub, LatticeBlock) else sub.in_norm.tobytes()
    key = (req.norm, req.free_cells, req.max_attempts, str(unit), level, _shape(sub), in_norm)
    if key not in _LAWS:
        if len(_LAWS) > 256:  # many shapes: keep the memory bounded
            _LAWS.clear()
        exact_law = req.free_cells and isinstance(sub, IntegerL1Sampler)
        _LAWS[key] = _free_cell_law(sub, unit, level) if exact_law else _simulated_law(sub, req, unit, level)
    return _LAWS[key]


def check_uncertainty(exact, req, unit: Fraction, level: float) -> None:
    """Refuse a level the laws cannot state, or whose laws would cost more than the limits, before anything is drawn.

    On the free-cell route the tails (1 − L)/2 must be at least :data:`MIN_TAIL` and every solved cell's law fit in
    :data:`MAX_LAW_POINTS` values; on the simulated routes the level must be resolved by at most
    :data:`MAX_DRAWS` draws (:data:`MIN_TAIL_DRAWS` expected beyond each end) and each block shape's
    draws × cells stay within :data:`MAX_SIMULATED_CELLS`. Depends on the invariants, the route and the level,
    never on the counts.

    Parameters
    ----------
    exact : isdp.exact.ExactSampler
        The release's sampler.
    req : isdp.release.Request
        The request (its route).
    unit : fractions.Fraction
        The mechanism's parameter.
    level : float
        The intervals' probability, in (0, 1).

    Raises
    ------
    isdp.errors.UncertifiableError
        The level or the work is beyond what the route's laws can serve; the message says what would work.

    Examples
    --------
    >>> from fractions import Fraction
    >>> import numpy as np
    >>> from isdp.errors import UncertifiableError
    >>> from isdp.exact import ExactSampler
    >>> from isdp.release import Request
    >>> from isdp.privacy import check_uncertainty
    >>> total = ExactSampler.build(np.array([[1, 1, 1]]))
    >>> check_uncertainty(total, Request(epsilon="1"), Fraction(1, 2), 0.999)  # 20,000 draws resolve it
    >>> try:
    ...     check_uncertainty(total, Request(epsilon="1"), Fraction(1, 2), 0.9999)
    ... except UncertifiableError as err:
    ...     print(str(err).split(":")[0])
    --uncertainty 0.9999 is beyond what a simulated law resolves
    """
    level = check.level("level", level)
    tail = (1 - level) / 2
    for _, sub in exact.parts:
        if req.free_cells and isinstance(sub, IntegerL1Sampler):
            if tail < MIN_TAIL:
                raise UncertifiableError(
                    f"--uncertainty {level}: tails of {tail:.2g} are below the {MIN_TAIL:g} "
                    "the exact laws are computed to (their floating-point sums are good to "
                    f"about 1e-12): give a level of at most {1 - 2 * MIN_TAIL}"
                )
            for coefficients, _ in _solved_sums(sub).values():
                half = _half_width(*_coefficients(coefficients), float(unit))
                if _grid(half) > MAX_LAW_POINTS:
                    raise UncertifiableError(_too_wide(half, float(unit)))
            continue
        need = _tail_draws(level)
        if need > MAX_DRAWS:
            raise UncertifiableError(
                f"--uncertainty {level} is beyond what a simulated law resolves: {need:,} draws would be needed to "
                f"expect {MIN_TAIL_DRAWS} beyond each end of the interval, and at most {MAX_DRAWS:,} are made, so "
                f"the level is at most {1 - 2 * MIN_TAIL_DRAWS / MAX_DRAWS:g} on this route"
                + (" (--free-cells computes its laws exactly)" if req.norm == "l1" else "")
            )
        cells = _cells(sub)
        if cells * simulated_draws(cells, level) > MAX_SIMULATED_CELLS:
            raise UncertifiableError(
                f"--uncertainty {level}: a block of {cells:,} cells would need {simulated_draws(cells, level):,} "
                f"simulated draws, {cells * simulated_draws(cells, level):,} cell draws, beyond the "
                f"{MAX_SIMULATED_CELLS:,} the simulation is limited to: give a lower level, split the block with "
                "more invariants, or release without --uncertainty"
                + (" (--free-cells computes its laws exactly)" if req.norm == "l1" else "")
            )


def cell_uncertainty(exact, n: int, req, unit: Fraction, level: float) -> dict:
    """Each cell's noise standard deviation and interval offsets at ``level``, from the sampler alone.

    Parameters
    ----------
    exact : isdp.exact.ExactSampler
        The release's sampler (its blocks and their samplers).
    n : int
        The cells.
    req : isdp.release.Request
        The request (its route).
    unit : fractions.Fraction
        The mechanism's parameter.
    level : float
        The intervals' probability, in (0, 1).

    Returns
    -------
    dict
        ``sd`` (float), ``low`` and ``high`` (int64: the true count lies in [release − high, release − low]
        with probability at least ``level``), ``coverage`` (that probability under the law used), each of
        shape (n,), and ``draws`` (the fewest and the most simulated draws of a block shape; (0, 0) where every
        law is exact).

    Raises
    ------
    isdp.errors.ArgumentError
        ``level`` outside (0, 1), or not a number.
    isdp.errors.UncertifiableError
        As :func:`check_uncertainty`, before anything is drawn.

    Examples
    --------
    One total over three cells, free-cell route, ε = 1/2 per unit ℓ1 distance: the free cells' noise
    is DG(1/2), the solved cell's the sum of two.

    >>> from fractions import Fraction
    >>> import numpy as np
    >>> from isdp.exact import ExactSampler
    >>> from isdp.release import Request
    >>> from isdp.privacy import cell_uncertainty
    >>> req = Request(epsilon="1", free_cells=True)
    >>> got = cell_uncertainty(ExactSampler.build(np.array([[1, 1, 1]])), 3, req, Fraction(1, 2), 0.9)
    >>> got["low"].tolist(), got["high"].tolist(), [round(float(s), 3) for s in got["sd"]], got["draws"]
    ([-5, -5, -6], [5, 5, 6], [2.799, 2.799, 3.959], (0, 0))
    >>> bool(got["coverage"].min() >= 0.9)
    True
    """
    level = check.level("level", level)
    check_uncertainty(exact, req, unit, level)
    columns = {"sd": np.zeros(n), "low": np.zeros(n, np.int64), "high": np.zeros(n, np.int64), "coverage": np.zeros(n)}
    draws = (0, 0)
    for cells, sub in exact.parts:
        law = _law(sub, req, unit, level)
        for key, column in columns.items():
            column[cells] = getattr(law, key)
        draws = _join_draws(draws, (law.draws, law.draws))
    return {**columns, "draws": draws}


def _join_draws(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
    """Return the fewest and the most simulated draws of two sets of block shapes ((0, 0): every law exact)."""
    if a == (0, 0) or b == (0, 0):
        return a if b == (0, 0) else b
    return min(a[0], b[0]), max(a[1], b[1])


def uncertainty_record(level: float, *draws: tuple[int, int]) -> dict:
    """Return what the statement says of the uncertainty columns: their level, how they were computed, their error.

    Parameters
    ----------
    level : float
        The intervals' probability, in (0, 1).
    *draws : tuple of int
        The fewest and the most simulated draws of a block shape ((0, 0): every law exact), as
        :func:`cell_uncertainty` returns them: one pair per part of a table released in parts, joined here.

    Returns
    -------
    dict
        ``level``, ``columns`` (:data:`UNCERTAINTY_COLUMNS`), ``meaning``, ``method`` and
        ``monte_carlo_standard_error`` (0 where every law is exact).

    Examples
    --------
    >>> from isdp.privacy import uncertainty_record
    >>> record = uncertainty_record(0.9, (0, 0))
    >>> record["columns"], record["method"].split(":")[0], record["monte_carlo_standard_error"]
    (['noise_sd', 'lower', 'upper'], 'exact', 0.0)
    >>> uncertainty_record(0.9, (400, 400))["monte_carlo_standard_error"]  # sqrt(0.9 · 0.1 / 400)
    0.015
    >>> uncertainty_record(0.9, (0, 0), (900, 1600), (400, 800))["method"].split("(")[0]  # two parts simulated
    'simulation: 400 to 1,600 draws of each block shape '
    """
    fewest, most = 0, 0
    for pair in draws:
        fewest, most = _join_draws((fewest, most), pair)
    counted = f"{fewest:,}" if fewest == most else f"{fewest:,} to {most:,}"
    return {
        "level": level,
        "columns": list(UNCERTAINTY_COLUMNS),
        "meaning": (
            f"[lower, upper] holds the true count with probability at least {level} under the "
            "mechanism's noise law; noise_sd is the noise's standard deviation. Computed from the "
            "mechanism alone (the invariants, the route and its parameter), never from the counts"
        ),
        "method": (
            "exact: the free cells' double geometric law and, for a solved cell, the law of the "
            "combination of free cells it sums, from its characteristic function (tails below 1e-16 "
            "and rounding of about 1e-15 aside)"
            if most == 0
            else f"simulation: {counted} draws of each block shape (ceil({SIMULATED_CELLS:.0e} / its "
            f"cells), within [{MIN_DRAWS}, {MAX_DRAWS}], and at least {MIN_TAIL_DRAWS} expected beyond "
            "each end of the interval), from a seed fixed by the shape, pooled over a "
            "block's cells when its invariants are one total or two margins; each interval's probability "
            "is a Monte Carlo estimate, its standard error at most sqrt(L(1-L)/M) for the fewest draws M"
        ),
        "monte_carlo_standard_error": 0.0 if most == 0 else round(math.sqrt(level * (1 - level) / fewest), 6),
    }
