"""An error bar with every released cell, from the mechanism alone (docs/release.md, "Uncertainty").

The noise u = release − x of a cell has a law fixed by the invariants, the route and ε (and δ),
never by the counts. For every cell this module gives the noise's standard deviation and the
integers q_lo ≤ q_hi with P(u < q_lo) ≤ (1 − L)/2 and P(u > q_hi) ≤ (1 − L)/2, so that
[release − q_hi, release − q_lo] holds the true count with probability at least L:

- **exact**, on the free-cell route: a free cell's noise is DG(ε) (closed form), a solved cell's an
  integer combination of free cells' (its law from its characteristic function by one FFT,
  :func:`combination_law`: tails below 10⁻¹⁶ wrapped, rounding about 10⁻¹⁵);
- **by simulation** on the other exact routes (the ℓ1 rejection sampler, the Gaussian's, Klein's):
  M draws of each block shape from a fixed seed, pooled over the block's cells where the law
  treats them alike (one total or two margins: every cell has the same marginal law). The
  interval's probability under the simulated law is its Monte Carlo estimate, with standard
  error √(L(1 − L)/M) from the M independent draws (pooling only lowers it).

Blocks of one shape have one law, so two tables with the same invariants get the same columns up
to the shift by their released counts, and a release made part by part gets the whole table's.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..exact._integer_l1_sampler import IntegerL1Sampler
from ..exact._integer_sources import seeded_source
from ..exact._lattice_gaussian import LatticeBlock, lattice_block

#: the columns added to a released long table: the noise's standard deviation, the interval for the true count
COLUMNS = ("noise_sd", "lower", "upper")
#: simulated cell draws of a block shape: ceil(SIMULATED_CELLS / its cells) draws, within [MIN_DRAWS, MAX_DRAWS]
SIMULATED_CELLS = 20_000_000
MIN_DRAWS, MAX_DRAWS = 200, 20_000
#: the DG tail mass left out of a convolution, per free cell
_TAIL = 1e-15


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
    """The shortest-tailed interval of a noise law: q_lo, q_hi and P(q_lo ≤ u ≤ q_hi).

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
    >>> from isdp.release._uncertainty import noise_interval
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
    """The law of Σ_j c_j X_j for i.i.d. X_j ~ DG(ε): its support and probabilities, from its characteristic function.

    The characteristic function Π_j (1 − q)² / (1 − 2q cos(c_j t) + q²), q = e^−ε, is evaluated on a
    grid of N points and inverted by one FFT: exact but for the mass beyond ±H, which the Chernoff bound
    at λ = ε / (2 max|c_j|) puts below 10⁻¹⁶ on each side (and which wraps onto the grid), and for the
    floating-point rounding of the transform (about 10⁻¹⁵ per value).

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

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.release._uncertainty import combination_law
    >>> values, pmf = combination_law([1, 1], 0.5)  # the sum of two DG(1/2): P(0) = Σ_k P(k)²
    >>> q = np.exp(-0.5)
    >>> bool(np.isclose(pmf[values == 0][0], ((1 - q) / (1 + q)) ** 2 * (1 + q * q) / (1 - q * q)))
    True
    """
    q = math.exp(-eps)
    c, multiplicity = np.unique(np.abs(np.asarray(coefficients, dtype=np.int64)), return_counts=True)
    multiplicity, c = multiplicity[c > 0], c[c > 0]
    lam = eps / (2 * int(c.max()))
    log_mgf = float(np.sum(multiplicity * (2 * math.log(1 - q) - np.log(1 - q * np.exp(lam * c))
                                             - np.log(1 - q * np.exp(-lam * c)))))
    half = math.ceil((log_mgf + 16 * math.log(10)) / lam)  # P(sum > half) <= E[e^(λ sum)] e^(-λ half) <= 1e-16
    n = 1 << (2 * half + 1).bit_length()
    t = 2 * math.pi * np.arange(n) / n
    log_phi = np.zeros(n)
    for value, m in zip(c.tolist(), multiplicity.tolist(), strict=True):
        log_phi += m * (2 * math.log(1 - q) - np.log(1 - 2 * q * np.cos(value * t) + q * q))
    pmf_all = np.fft.ifft(np.exp(log_phi)).real
    values = np.arange(-half, half + 1)
    pmf = np.clip(pmf_all[values % n], 0, None)
    return values, pmf / pmf.sum()


def _free_cell_law(sub: IntegerL1Sampler, unit: Fraction, level: float) -> CellLaw:
    """The exact law of each cell on the free-cell route: DG(ε), or a solved cell's combination of them."""
    eps = float(unit)
    q = math.exp(-eps)
    k = math.ceil(math.log(_TAIL * (1 + q) / (2 * q)) / math.log(q))
    n = sub.A.shape[1]
    sd, low, high, cov = np.zeros(n), np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n)
    base = np.arange(-k, k + 1)
    pmf = (1 - q) / (1 + q) * q ** np.abs(base)
    lo, hi, c = noise_interval(base, pmf, level)
    variance = 2 * q / (1 - q) ** 2
    sd[sub.free], low[sub.free], high[sub.free], cov[sub.free] = math.sqrt(variance), lo, hi, c
    laws: dict[bytes, tuple[int, int, float]] = {}  # solved cells that sum the same coefficients share a law
    for i, cell in enumerate(sub.solved):
        coefficients = np.sort(np.abs(sub.solve[i][sub.solve[i] != 0]))
        key = coefficients.tobytes()
        if key not in laws:
            laws[key] = noise_interval(*combination_law(coefficients, eps), level)
        sd[cell] = math.sqrt(variance * float((coefficients.astype(float) ** 2).sum()))
        low[cell], high[cell], cov[cell] = laws[key]
    return CellLaw(sd, low, high, cov, 0)


def _shape(sub) -> tuple:
    """A block sampler's shape: Klein's kind and grid, or the invariants' matrix."""
    return (sub.kind, sub.grid.shape) if isinstance(sub, LatticeBlock) else (sub.A.shape, sub.A.tobytes())


def _simulated_law(sub, req, unit: Fraction, level: float) -> CellLaw:
    """The law of each cell of ``sub``'s blocks from M draws, seeded by the block's shape alone."""
    n = sub.grid.size if isinstance(sub, LatticeBlock) else sub.A.shape[1]
    shape = _shape(sub)
    draws = int(np.clip(math.ceil(SIMULATED_CELLS / n), MIN_DRAWS, MAX_DRAWS))
    rng = seeded_source(int.from_bytes(hashlib.sha256(repr((req.norm, str(unit), shape)).encode()).digest()[:8],
                                       "big"))
    if isinstance(sub, LatticeBlock):
        u, _ = sub.draw_blocks(unit * unit, draws, rng)
        pooled = True
    else:
        sigma = unit if req.norm == "gaussian" else None
        u, _ = sub.draw_blocks(1 / sigma if sigma is not None else unit, draws, rng, max_attempts=req.max_attempts,
                               sigma=sigma)
        if u is None:
            raise AssertionError("the uncertainty's simulation accepted nothing; this is a bug in isdp")
        pooled = bool(sub.in_norm.all()) and lattice_block(np.asarray(sub.A)) is not None
    columns = [u.ravel()] if pooled else [u[:, j] for j in range(n)]
    laws = []
    for column in columns:
        values, counts = np.unique(column, return_counts=True)
        laws.append((*noise_interval(values, counts / counts.sum(), level), float(column.astype(float).std())))
    if pooled:
        laws = laws * n
    lo, hi, cov, sd = (np.array(x) for x in zip(*laws, strict=True))
    return CellLaw(sd, lo.astype(np.int64), hi.astype(np.int64), cov, draws)


#: the laws of the block shapes met so far in this process (a release in parts meets one shape in every part)
_LAWS: dict[tuple, CellLaw] = {}


def _law(sub, req, unit: Fraction, level: float) -> CellLaw:
    """The law of ``sub``'s cells, computed once per shape, route and level in a process."""
    in_norm = None if isinstance(sub, LatticeBlock) else sub.in_norm.tobytes()
    key = (req.norm, req.free_cells, req.max_attempts, str(unit), level, _shape(sub), in_norm)
    if key not in _LAWS:
        if len(_LAWS) > 256:  # many shapes: keep the memory bounded
            _LAWS.clear()
        exact_law = req.free_cells and isinstance(sub, IntegerL1Sampler)
        _LAWS[key] = _free_cell_law(sub, unit, level) if exact_law else _simulated_law(sub, req, unit, level)
    return _LAWS[key]


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

    Examples
    --------
    One total over three cells, free-cell route, ε = 1/2 per unit ℓ1 distance: the free cells' noise
    is DG(1/2), the solved cell's the sum of two.

    >>> from fractions import Fraction
    >>> import numpy as np
    >>> from isdp.exact import ExactSampler
    >>> from isdp.release import Request
    >>> from isdp.release._uncertainty import cell_uncertainty
    >>> req = Request(epsilon="1", free_cells=True)
    >>> got = cell_uncertainty(ExactSampler.build(np.array([[1, 1, 1]])), 3, req, Fraction(1, 2), 0.9)
    >>> got["low"].tolist(), got["high"].tolist(), [round(float(s), 3) for s in got["sd"]], got["draws"]
    ([-5, -5, -6], [5, 5, 6], [2.799, 2.799, 3.959], (0, 0))
    >>> bool(got["coverage"].min() >= 0.9)
    True
    """
    out = {"sd": np.zeros(n), "low": np.zeros(n, np.int64), "high": np.zeros(n, np.int64),
           "coverage": np.zeros(n), "draws": (0, 0)}
    for cells, sub in exact.parts:
        law = _law(sub, req, unit, level)
        for key in ("sd", "low", "high", "coverage"):
            out[key][cells] = getattr(law, key)
        out["draws"] = join_draws(out["draws"], (law.draws, law.draws))
    return out


def join_draws(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
    """The fewest and the most simulated draws of two sets of block shapes ((0, 0): every law exact)."""
    if a == (0, 0) or b == (0, 0):
        return a if b == (0, 0) else b
    return min(a[0], b[0]), max(a[1], b[1])


def uncertainty_record(level: float, draws: tuple[int, int]) -> dict:
    """What the statement says of the uncertainty columns: their level, how they were computed, their error.

    ``draws`` is the fewest and the most simulated draws of a block shape ((0, 0): every law exact)."""
    fewest, most = draws
    return {"level": level, "columns": list(COLUMNS),
            "meaning": (f"[lower, upper] holds the true count with probability at least {level} under the "
                        "mechanism's noise law; noise_sd is the noise's standard deviation. Computed from the "
                        "mechanism alone (the invariants, the route and its parameter), never from the counts"),
            "method": ("exact: the free cells' double geometric law and, for a solved cell, the law of the "
                       "combination of free cells it sums, from its characteristic function (tails below 1e-16 "
                       "and rounding of about 1e-15 aside)" if most == 0 else
                       f"simulation: {fewest} to {most} draws of each block shape (ceil({SIMULATED_CELLS:.0e} / its "
                       f"cells), within [{MIN_DRAWS}, {MAX_DRAWS}]), from a seed fixed by the shape, pooled over a "
                       "block's cells when its invariants are one total or two margins; each interval's probability "
                       "is a Monte Carlo estimate, its standard error at most sqrt(L(1-L)/M) for the fewest draws M"),
            "monte_carlo_standard_error": 0.0 if most == 0 else round(math.sqrt(level * (1 - level) / fewest), 6)}


def uncertainty_columns(values: np.ndarray, got: dict) -> dict[str, np.ndarray]:
    """The columns added to the released table: each cell's noise sd, and its interval's ends for the true count.

    Parameters
    ----------
    values : numpy.ndarray of int64
        The released counts.
    got : dict
        :func:`cell_uncertainty`'s result for the same cells.

    Returns
    -------
    dict
        ``noise_sd`` (float), ``lower`` = values − high and ``upper`` = values − low (int64).
    """
    return {"noise_sd": got["sd"], "lower": values - got["high"], "upper": values - got["low"]}
