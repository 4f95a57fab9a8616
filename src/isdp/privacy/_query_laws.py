"""An error bar for any integer linear query of a release, from the mechanism alone (docs/release.md, "Queries").

A query is an integer combination w·x of cells; its released value is w·r = w·x + w·u, and its noise w·u has a law
fixed by the invariants, the route and its parameter, never by the counts. Blocks of cells that share no invariant
draw independent noise, so the noise is a sum over blocks of w_b·u_b, whose laws are convolved (their characteristic
functions multiplied on one FFT grid). Each block's term is, by what the law allows:

- **fixed** (width 0): w_b·u_b = 0 for every noise the invariants admit (w_b is a combination of the block's
  invariants: a total's cells all alike, or a row effect plus a column effect under both margins);
- **exact**, on the free-cell route: u_b is i.i.d. DG(ε) on the free cells and their combination on the solved ones,
  so w_b·u_b = c·X for i.i.d. X ~ DG(ε), and the whole query's noise is one such combination
  (:func:`isdp.privacy.combination_law`);
- **exact**, under one total on the ℓ1 and Gaussian routes, where w_b takes at most two values over the block's cells
  (a group sum within a total): the law of u_b is ∝ Π f(u_i) on {Σ u_i = 0} (f = e^(−ε|·|) or e^(−u²/2σ²)), so
  the sum S_K over k of its n cells has P(S_K = s) ∝ f^{*k}(s) f^{*(n−k)}(s);
- **by simulation** otherwise: M draws of the block's shape from the stream its cells' intervals use (seeded by the
  shape alone), w_b·u_b computed on each, the law made symmetric (u and −u are equally likely on every route).

The interval [released − q_hi, released − q_lo] holds the true value with probability at least the level under the
law used (:func:`isdp.privacy.noise_interval`). Where a simulated law enters, that probability is a Monte Carlo
estimate; its standard error is the delta method's for a functional of the empirical laws (the variance over the
shape's draws of each draw's influence on the interval's probability, divided by M), which for one cell is
√(L(1 − L)/M), as the cells' intervals state. ``simultaneous`` gives each of J queries the level 1 − (1 − L)/J, so
that all hold at once with probability at least L (Bonferroni).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
from scipy import sparse

from .. import _validate as check
from .._first_seen import first_seen, mix64
from .._rng import text_seed
from ..errors import UncertifiableError, UsageError
from ..exact import ExactSampler, IntegerL1Sampler, LatticeBlock, seeded_source
from ..mcmc import DoubleGeometric
from ._uncertainty import (
    MAX_DRAWS,
    MAX_LAW_POINTS,
    MAX_SIMULATED_CELLS,
    MIN_TAIL,
    MIN_TAIL_DRAWS,
    _cells,
    _draw,
    _shape,
    _tail_draws,
    combination_law,
    noise_interval,
    simulated_draws,
)

#: the columns of a query's answer (:func:`query_uncertainty`), after its name and released value
QUERY_COLUMNS = ("noise_sd", "lower", "upper", "coverage", "coverage_se", "method")
#: the mass a convolved law may leave beyond its grid, per side (a Chernoff bound from the factors' laws)
_GRID_TAIL = 1e-16


@dataclass
class _Factor:
    """The law of one block's term w_b·u_b: its values and probabilities, and, when simulated, its draws."""

    values: np.ndarray  # int64, ascending
    pmf: np.ndarray
    variance: float
    shape: int = -1  # simulated: the index of the shape whose draws it was computed from, else -1
    draws: np.ndarray | None = None  # simulated: w_b·u_b on each of the shape's M draws
    coefficients: np.ndarray | None = None  # free-cell route: c with w_b·u_b = c·X, X i.i.d. DG(ε)


@dataclass
class _Laws:
    """The factors met so far, each once, and the simulated draws of each block shape."""

    exact: ExactSampler
    req: Any  # isdp.release.Request (its module imports this one's package)
    unit: Fraction
    draws: int  # the draws simulated per shape (0 until a shape needs them)
    factors: list[_Factor] = field(default_factory=list)
    index: dict = field(default_factory=dict)
    shapes: dict = field(default_factory=dict)  # id(sampler) -> (shape index, draws M × cells)

    def factor(self, key, make) -> int:
        if key not in self.index:
            self.index[key] = len(self.factors)
            self.factors.append(make())
        return self.index[key]

    def shape_draws(self, sub) -> tuple[int, np.ndarray]:
        if id(sub) not in self.shapes:
            rng = seeded_source(text_seed(repr((self.req.norm, str(self.unit), _shape(sub)))))
            self.shapes[id(sub)] = (len(self.shapes), _draw(sub, self.req, self.unit, self.draws, rng))
        return self.shapes[id(sub)]


def query_uncertainty(exact, req, unit: Fraction, W, level: float, *, simultaneous: bool = False) -> dict:
    r"""Each query's noise standard deviation, interval offsets and their probability, from the sampler alone.

    Parameters
    ----------
    exact : isdp.exact.ExactSampler
        The release's sampler (its blocks and their samplers), rebuilt from the invariants.
    req : isdp.release.Request
        The request (its route: ``norm``, ``free_cells``, ``max_attempts`` for a simulation).
    unit : fractions.Fraction
        The mechanism's parameter: ε per unit ℓ1 distance, or the Gaussian's σ.
    W : array_like or scipy.sparse array of int, shape (queries, cells)
        One integer combination of cells per row.
    level : float
        The intervals' probability, in (0, 1): each query's, or with ``simultaneous`` all at once.
    simultaneous : bool, default False
        Give every query the level 1 − (1 − level)/J (Bonferroni), so that all J intervals hold at once
        with probability at least ``level``.

    Returns
    -------
    dict
        Per query (arrays of length J): ``sd`` (float), ``low`` and ``high`` (int64: the true value lies in
        [released − high, released − low]), ``coverage`` (that probability under the law used; 1 for a query
        the invariants fix), ``coverage_se`` (its Monte Carlo standard error, 0 where the law is exact) and
        ``method`` (``fixed``, ``exact`` or ``simulated``); and ``level`` (each query's) and ``draws`` (the
        draws simulated per block shape, 0 where none was).

    Raises
    ------
    isdp.errors.UsageError
        ``W`` not a matrix of integers with one column per cell, or the certified chain's route (no sampler).
    isdp.errors.ArgumentError
        ``level`` outside (0, 1).
    isdp.errors.UncertifiableError
        A level whose tails the law cannot resolve (an exact law's below 10⁻⁹, a simulated one's with fewer than
        10 expected draws beyond an end at 20,000 draws), or a law beyond the work limits of the cells' intervals.

    Examples
    --------
    One total over four cells, free-cell route, ε = 1/2 per unit ℓ1 distance: the first cell alone, the first two,
    and all four (fixed by the total).

    >>> from fractions import Fraction
    >>> import numpy as np
    >>> from isdp.exact import ExactSampler
    >>> from isdp.release import Request
    >>> from isdp.privacy import query_uncertainty
    >>> exact = ExactSampler.build(np.array([[1, 1, 1, 1]]))
    >>> W = np.array([[1, 0, 0, 0], [1, 1, 0, 0], [1, 1, 1, 1]])
    >>> got = query_uncertainty(exact, Request(epsilon="1", free_cells=True), Fraction(1, 2), W, 0.9)
    >>> got["low"].tolist(), got["high"].tolist(), got["method"]
    ([-5, -6, 0], [5, 6, 0], ['exact', 'exact', 'fixed'])
    >>> [round(float(s), 3) for s in got["sd"]]
    [2.799, 3.959, 0.0]
    """
    if exact is None:
        raise UsageError(
            "query intervals are served on the exact routes (l1, gaussian, free cells): the certified "
            "chain's draw has a law only within its TV bound of the mechanism's"
        )
    level = check.level("level", level)
    try:
        W = sparse.csr_array(W)
    except (TypeError, ValueError) as err:
        raise UsageError(f"the queries must be a matrix of integers, one column per cell ({err})") from None
    if W.ndim != 2 or W.shape[1] != exact.n or not np.issubdtype(W.dtype, np.integer):
        raise UsageError(
            f"the queries must be a matrix of integers with one column per cell ({exact.n}); got "
            f"{W.dtype} of shape {W.shape}"
        )
    J = W.shape[0]
    each = 1 - (1 - level) / J if simultaneous and J > 0 else level
    terms = _terms(exact, W.astype(np.int64))
    simulated = _simulated_blocks(exact, req, terms)
    laws = _Laws(exact, req, unit, _draws_needed(simulated, each))
    out: dict = {
        "sd": np.zeros(J),
        "low": np.zeros(J, np.int64),
        "high": np.zeros(J, np.int64),
        "coverage": np.ones(J),
        "coverage_se": np.zeros(J),
        "method": ["fixed"] * J,
    }
    signatures: dict[tuple, list[int]] = {}
    for q, factors in enumerate(_query_factors(laws, terms, J)):
        if factors:
            signatures.setdefault(tuple(sorted(factors.items())), []).append(q)
    for signature, queries in signatures.items():
        sd, low, high, coverage, se, method = _signature_law(laws, signature, each)
        out["sd"][queries], out["low"][queries], out["high"][queries] = sd, low, high
        out["coverage"][queries], out["coverage_se"][queries] = coverage, se
        for q in queries:
            out["method"][q] = method
    return {**out, "level": each, "draws": laws.draws if laws.shapes else 0}


@dataclass
class _Terms:
    """The queries' non-zeros grouped by (query, block): each group one block's term w_b·u_b of one query."""

    query: np.ndarray  # per group
    part: np.ndarray  # per group: the block's index in exact.parts
    start: np.ndarray  # per group: its first entry in pos/weight
    stop: np.ndarray
    pos: np.ndarray  # per entry: the cell's position in its block
    weight: np.ndarray
    pattern: np.ndarray  # per group: the index of its (sampler, positions, weights) among the distinct ones
    first: np.ndarray  # per distinct pattern: its first group


def _terms(exact, W: sparse.csr_array) -> _Terms:
    """Group the queries' non-zeros by (query, block) and find the distinct terms, in C-speed passes."""
    n, parts = exact.n, exact.parts
    sizes = np.array([len(cells) for cells, _ in parts], dtype=np.int64)
    every = np.concatenate([cells for cells, _ in parts]) if parts else np.zeros(0, np.int64)
    part_of, local = np.empty(n, np.int64), np.empty(n, np.int64)
    part_of[every] = np.repeat(np.arange(len(parts)), sizes)
    local[every] = np.arange(len(every)) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    samplers: dict[int, int] = {}
    sampler_of = [samplers.setdefault(id(sub), len(samplers)) for _, sub in parts]
    W = W.copy()
    W.eliminate_zeros()
    W.sort_indices()
    q = np.repeat(np.arange(W.shape[0], dtype=np.int64), np.diff(W.indptr))
    cell, w = W.indices.astype(np.int64, copy=False), W.data
    part, pos = part_of[cell], local[cell]
    # a row's cells come sorted; where each block is a run of cells (a table's blocks usually are), so are their
    # blocks and positions, and no sort is needed
    if len(q) > 1 and not _sorted(q, part, pos):
        order = np.lexsort((pos, part, q))
        q, part, pos, w = q[order], part[order], pos[order], w[order]
    new = np.ones(len(q), dtype=bool)
    new[1:] = (q[1:] != q[:-1]) | (part[1:] != part[:-1])
    start = np.flatnonzero(new)
    stop = np.append(start[1:], len(q))
    # a term's pattern, hashed: its sampler, its length and the sum of a 64-bit mix of each (position, weight);
    # equal patterns hash alike, and every group is compared with its pattern's first below, so a collision is caught
    mixed = mix64(pos.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15) ^ w.astype(np.uint64))
    summed = np.add.reduceat(mixed, start) if len(start) else np.zeros(0, np.uint64)
    sampler = np.asarray(sampler_of, dtype=np.uint64)[part[start]] if len(start) else np.zeros(0, np.uint64)
    length = (stop - start).astype(np.uint64)
    with np.errstate(over="ignore"):
        key = summed ^ mix64(sampler * np.uint64(0x100000001B3) + length)
    pattern, first = first_seen(key)  # first: each pattern's first group
    lead = first[pattern]  # each group's pattern's first group
    if not ((length[lead] == length) & (sampler[lead] == sampler)).all():
        raise RuntimeError("two different query terms hashed alike; please report this")
    offsets = np.arange(len(q)) - np.repeat(start, stop - start)
    twin = np.repeat(start[lead], stop - start) + offsets
    if not ((pos == pos[twin]) & (w == w[twin])).all():  # never seen, but a wrong law must not pass silently
        raise RuntimeError("two different query terms hashed alike; please report this")
    return _Terms(q[start], part[start], start, stop, pos, w, pattern, first)


def _sorted(q: np.ndarray, part: np.ndarray, pos: np.ndarray) -> bool:
    """Return whether the entries are in (query, block, position) order."""
    same_q = q[1:] == q[:-1]
    up = part[1:] - part[:-1]
    return bool(((~same_q) | (up > 0) | ((up == 0) & (pos[1:] > pos[:-1]))).all())


def _weights(terms: _Terms, pattern: int) -> tuple[np.ndarray, np.ndarray]:
    """Return the positions and weights of a distinct pattern."""
    g = terms.first[pattern]
    return terms.pos[terms.start[g] : terms.stop[g]], terms.weight[terms.start[g] : terms.stop[g]]


def _one_total(sub) -> bool:
    """Whether a block's invariants are one total over all its cells, every cell in the norm."""
    if isinstance(sub, LatticeBlock):
        return sub.kind == "total"
    A = np.asarray(sub.A)
    return A.shape[0] == 1 and bool((A == 1).all()) and bool(sub.in_norm.all())


def _two_values(sub, pos: np.ndarray, weight: np.ndarray) -> tuple[int, int] | None:
    """Under one total: (k, d) when w_b is d on k cells and 0 elsewhere, up to a constant; else None."""
    n = _cells(sub)
    values = np.unique(weight)
    if len(pos) == n and len(values) <= 2:  # every cell weighted: a constant plus d on the cells of one value
        if len(values) == 1:
            return 0, 0
        return int((weight == values[1]).sum()), int(values[1] - values[0])
    if len(values) == 1:
        return len(pos), int(values[0])
    return None


def _fixed(sub, pos: np.ndarray, weight: np.ndarray) -> bool:
    """Whether w_b·u = 0 for every u in the block's lattice (w_b a combination of its invariants)."""
    n = _cells(sub)
    w = np.zeros(n, np.int64)
    w[pos] = weight
    if isinstance(sub, LatticeBlock):
        if sub.kind == "total":
            return bool((w == w[0]).all())
        g = w[sub.grid]
        return bool((g - g[:, :1] - g[:1, :] + g[0, 0] == 0).all())
    return not _free_coefficients(sub, w).any()


def _free_coefficients(sub: IntegerL1Sampler, w: np.ndarray) -> np.ndarray:
    """Return c over the block's free cells with w·u = c·X, the free cells' noise X (the solved cells' is solve·X)."""
    return w[sub.free] + w[sub.solved] @ sub.solve


def _simulated_blocks(exact, req, terms: _Terms) -> list:
    """Return the samplers whose terms some query needs by simulation (not fixed, not exact)."""
    out: dict[int, object] = {}
    for p in range(len(terms.first)):
        sub = exact.parts[terms.part[terms.first[p]]][1]
        pos, weight = _weights(terms, p)
        if _route(req, sub, pos, weight) == "simulated":
            out[id(sub)] = sub
    return list(out.values())


def _route(req, sub, pos: np.ndarray, weight: np.ndarray) -> str:
    """How a term's law is found: fixed, free (the free-cell route), total (exact under one total) or simulated."""
    if _fixed(sub, pos, weight):
        return "fixed"
    if req.free_cells and isinstance(sub, IntegerL1Sampler):
        return "free"
    if _one_total(sub) and _two_values(sub, pos, weight) is not None:
        return "total"
    return "simulated"


def _draws_needed(simulated: list, level: float) -> int:
    """Return the draws each simulated shape gets at ``level``: the most any needs, refused past the limits."""
    if not simulated:
        return 0
    need = _tail_draws(level)
    if need > MAX_DRAWS:
        raise UncertifiableError(
            f"a query's interval at level {level:.10g} is beyond what a simulated law resolves: {need:,} draws "
            f"would be needed to expect {MIN_TAIL_DRAWS} beyond each end, and at most {MAX_DRAWS:,} are made "
            f"(give a lower level, or fewer simultaneous queries: each gets 1 - (1 - L)/J)"
        )
    draws = max(simulated_draws(_cells(sub), level) for sub in simulated)
    for sub in simulated:
        if draws * _cells(sub) > MAX_SIMULATED_CELLS:
            raise UncertifiableError(
                f"a query's law needs {draws:,} simulated draws of a block of {_cells(sub):,} cells, beyond the "
                f"{MAX_SIMULATED_CELLS:,} cell draws the simulation is limited to: give a lower level"
            )
    return draws


def _query_factors(laws: _Laws, terms: _Terms, J: int) -> list[dict]:
    """Per query, its factors: {factor index: how many of its blocks have that law}."""
    exact = laws.exact
    factor_of = np.full(len(terms.first), -2, dtype=np.int64)  # -1: fixed
    for p in range(len(terms.first)):
        sub = exact.parts[terms.part[terms.first[p]]][1]
        pos, weight = _weights(terms, p)
        factor_of[p] = _factor(laws, sub, pos, weight)
    out: list[dict] = [{} for _ in range(J)]
    per_group = factor_of[terms.pattern]
    live = per_group >= 0
    factors = max(len(laws.factors), 1)
    pairs, counts = np.unique(terms.query[live] * factors + per_group[live], return_counts=True)
    for pair, c in zip(pairs.tolist(), counts.tolist(), strict=True):
        out[pair // factors][pair % factors] = c
    return out


def _factor(laws: _Laws, sub, pos: np.ndarray, weight: np.ndarray) -> int:
    """Return the index of the term's law among the factors (computed once per law), or -1 for a fixed term."""
    route, unit = _route(laws.req, sub, pos, weight), laws.unit
    if route == "fixed":
        return -1
    if route == "free":
        w = np.zeros(_cells(sub), np.int64)
        w[pos] = weight
        c = _free_coefficients(sub, w)
        c = np.sort(np.abs(c[c != 0]))
        variance = DoubleGeometric(float(unit)).variance() * float((c.astype(float) ** 2).sum())
        empty = np.zeros(0, np.int64)
        return laws.factor(("free", c.tobytes()), lambda: _Factor(empty, np.zeros(0), variance, coefficients=c))
    if route == "total":
        found = _two_values(sub, pos, weight)
        assert found is not None  # the route says so
        k, d = found
        n = _cells(sub)
        k = min(k, n - k)  # S over K is −S over the others, and the law is symmetric
        return laws.factor(("total", laws.req.norm, n, k, abs(d)), lambda: _total_law(laws, n, k, abs(d)))
    s, draws = laws.shape_draws(sub)
    q = draws[:, pos] @ weight
    key = ("simulated", s, pos.tobytes(), weight.tobytes())
    return laws.factor(key, lambda: _simulated_factor(q, s))


def _simulated_factor(q: np.ndarray, shape: int) -> _Factor:
    """Return the symmetric empirical law of a term from its values on the shape's draws."""
    values, counts = np.unique(np.concatenate([q, -q]), return_counts=True)
    pmf = counts / counts.sum()
    return _Factor(values, pmf, float(pmf @ values.astype(float) ** 2), shape, q)


def _total_law(laws: _Laws, n: int, k: int, d: int) -> _Factor:
    """Return the exact law of d·S_K, S_K the noise's sum over k of a total's n cells: ∝ f^{*k}(s) f^{*(n−k)}(s)."""
    if laws.req.norm == "gaussian":
        a_values, a_pmf = _gaussian_sum_law(k, laws.unit)
        b_values, b_pmf = _gaussian_sum_law(n - k, laws.unit)
    else:
        a_values, a_pmf = combination_law(np.ones(k, np.int64), float(laws.unit))
        b_values, b_pmf = combination_law(np.ones(n - k, np.int64), float(laws.unit))
    half = min(int(a_values[-1]), int(b_values[-1]))
    values = np.arange(-half, half + 1)
    pmf = a_pmf[values - a_values[0]] * b_pmf[values - b_values[0]]  # f symmetric: f^{*(n-k)}(-s) = f^{*(n-k)}(s)
    pmf = pmf / pmf.sum()
    return _Factor(values * d, pmf, float(pmf @ (values * d).astype(float) ** 2))


def _gaussian_sum_law(m: int, sigma: Fraction) -> tuple[np.ndarray, np.ndarray]:
    """Return the law of a sum of m i.i.d. discrete Gaussians N_Z(0, σ²), by one FFT of their characteristic function.

    Each is truncated at ±(10σ + 1) (mass beyond below 10⁻²²) and the sum's grid reaches 10σ√m + 10.
    """
    s = float(sigma)
    base_half = math.ceil(10 * s) + 1
    half = math.ceil(10 * s * math.sqrt(m)) + 10
    n = 1 << (2 * max(half, base_half) + 1).bit_length()
    if n > MAX_LAW_POINTS:
        raise UncertifiableError(
            f"a query's noise at sigma {s:.3g} over a total of {m:,} cells spreads over about {2 * half + 1:,} values, "
            f"beyond the {MAX_LAW_POINTS:,} its exact law is computed on"
        )
    x = np.arange(-base_half, base_half + 1)
    base = np.zeros(n)
    base[x % n] = np.exp(-(x.astype(float) ** 2) / (2 * s * s))
    base /= base.sum()
    pmf_all = np.fft.ifft(np.fft.fft(base) ** m).real
    values = np.arange(-half, half + 1)
    pmf = np.clip(pmf_all[values % n], 0, None)
    return values, pmf / pmf.sum()


def _signature_law(laws: _Laws, signature: tuple, level: float) -> tuple[float, int, int, float, float, str]:
    """Return the law of a query whose noise is the sum of ``count`` terms of each factor: sd, interval, error."""
    factors = [(laws.factors[f], c) for f, c in signature]
    variance = sum(f.variance * c for f, c in factors)
    tail = (1 - level) / 2
    free = [(f, c) for f, c in factors if f.coefficients is not None]
    if free:  # the free-cell route: every term a combination of i.i.d. DG(ε), so one combination
        if tail < MIN_TAIL:
            raise UncertifiableError(_exact_tail(level))
        c = np.concatenate([np.tile(f.coefficients, count) for f, count in free])
        low, high, coverage = noise_interval(*combination_law(c, float(laws.unit)), level)
        return math.sqrt(variance), low, high, coverage, 0.0, "exact"
    simulated = any(f.draws is not None for f, _ in factors)
    if not simulated and tail < MIN_TAIL:
        raise UncertifiableError(_exact_tail(level))
    half = _half_width(factors)
    n = 1 << (2 * half + 1).bit_length()
    if n > MAX_LAW_POINTS:
        raise UncertifiableError(
            f"a query's noise spreads over about {2 * half + 1:,} values, beyond the {MAX_LAW_POINTS:,} its law is "
            "computed on: split it into smaller queries"
        )
    spectra = [np.fft.fft(_on_grid(f, n)) for f, _ in factors]
    total = np.ones(n, dtype=complex)
    for spectrum, (_, c) in zip(spectra, factors, strict=True):
        total *= spectrum**c
    values, pmf = _from_spectrum(total, half, n)
    low, high, coverage = noise_interval(values, pmf, level)
    if not simulated:
        return math.sqrt(variance), low, high, coverage, 0.0, "exact"
    return math.sqrt(variance), low, high, coverage, _coverage_se(laws, factors, spectra, n, low, high), "simulated"


def _exact_tail(level: float) -> str:
    return (
        f"a query's interval at level {level:.10g} has tails below the {MIN_TAIL:g} an exact law is computed to "
        "(give a lower level, or fewer simultaneous queries)"
    )


def _on_grid(f: _Factor, n: int) -> np.ndarray:
    grid = np.zeros(n)
    np.add.at(grid, f.values % n, f.pmf)
    return grid


def _from_spectrum(spectrum: np.ndarray, half: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    pmf_all = np.fft.ifft(spectrum).real
    values = np.arange(-half, half + 1)
    pmf = np.clip(pmf_all[values % n], 0, None)
    return values, pmf / pmf.sum()


def _half_width(factors: list[tuple[_Factor, int]]) -> int:
    """H with P(|noise| > H) ≤ 10⁻¹⁶ by Chernoff's bound, from each factor's moment generating function.

    Every factor is symmetric with finite support here, so its MGF is finite for every λ > 0; H is at most the
    sum of the supports' reaches.
    """
    reach = sum(int(np.abs(f.values).max()) * c for f, c in factors)
    sd = math.sqrt(sum(f.variance * c for f, c in factors)) or 1.0
    lam = np.geomspace(1e-3, 50, 200) / sd
    log_mgf = np.zeros(len(lam))
    for f, c in factors:
        x = f.values.astype(float)
        top = lam[:, None] * x[None, :]
        peak = top.max(axis=1)
        log_mgf += c * (peak + np.log(np.exp(top - peak[:, None]) @ f.pmf))
    bound = np.ceil((log_mgf - math.log(_GRID_TAIL)) / lam)
    return int(min(reach, max(1, int(bound.min()))))


def _coverage_se(laws: _Laws, factors, spectra, n: int, low: int, high: int) -> float:
    """Return the delta method's standard error of the interval's probability under the simulated factors' laws.

    A draw of a shape moves each simulated factor's empirical law built on it; its influence on P(low ≤ noise ≤
    high) is Σ_p c_p·G_p, with G_p(x) = P(low ≤ x + R_p ≤ high) averaged over ±x (the law is symmetrised) and
    R_p the noise without one of the factor's terms. The variance over a shape's M draws of that influence, over
    M, summed over the shapes.
    """
    by_shape: dict[int, np.ndarray] = {}
    half = n // 2 - 1
    for i, (f, c) in enumerate(factors):
        if f.draws is None:
            continue
        rest = np.ones(n, dtype=complex)
        for j, (spectrum, (_, cj)) in enumerate(zip(spectra, factors, strict=True)):
            rest *= spectrum ** (cj - 1 if j == i else cj)
        values, pmf = _from_spectrum(rest, half, n)
        cdf = np.concatenate([[0.0], np.cumsum(pmf)])

        def below(t: np.ndarray, values=values, cdf=cdf) -> np.ndarray:  # P(R ≤ t)
            return cdf[np.clip(t - values[0] + 1, 0, len(values))]

        x = f.draws.astype(np.int64)
        influence = c * ((below(high - x) - below(low - 1 - x)) + (below(high + x) - below(low - 1 + x))) / 2
        by_shape[f.shape] = by_shape.get(f.shape, 0) + influence
    return math.sqrt(sum(float(np.var(v)) / len(v) for v in by_shape.values()))
