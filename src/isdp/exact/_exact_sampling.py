"""Exact discrete samplers in integer arithmetic, for releases (Canonne, Kamath & Steinke 2020, §5).

The compiled double geometric of the MCMC kernels (:func:`isdp._rng.dg_table`) is a Walker alias
table whose probabilities are rounded to multiples of 2**-52, with a floating-point logarithm in
its tail: its law differs from DG(ε) by rounding, and which outputs are possible or how often can
depend on the rounding — harmless for studying a sampler, not what a published release should
rest on. Here every draw is a function of uniformly random *integers* only: ε is a fraction p/q,
Bernoulli(exp(-γ)) for rational γ is drawn by comparisons of random integers (CKS Algorithm 1),
and the double geometric by CKS Algorithm 2, so the sampled law is DG(ε) exactly.

The random source is any object with ``randbelow(n)`` returning a uniform integer in [0, n):
:class:`secrets.SystemRandom` (operating-system entropy, for publication) or
:func:`seeded_source` (reproducible, not for publication).

On these draws rests the release's exact sampler (docs/release.md, docs/method.md §11): noise from
the ℓ1 generalized Laplace on Λ(A) by rejection — the free cells i.i.d. DG(ε), the invariants
solved for the other cells (:func:`integral_solve`), the proposal kept with probability
exp(-ε Σ_{i solved} |u_i|) — and the generalized Gaussian by a second rejection from it
(:class:`ExactL1Sampler`), block by block (:class:`ExactSampler`, :func:`isdp.lattice.blocks`).
Tables the others determine stay outside the norm (:func:`norm_tables`).
"""

from __future__ import annotations

import itertools
import math
import numbers
import random
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol

import numpy as np
from scipy import sparse

from .._rng import check_seed
from ..errors import InputError, UncertifiableError
from ..lattice._invariants import as_sparse, blocks, independent_rows
from ..mcmc._double_geometric import dg_variance


class IntegerSource(Protocol):  # numpydoc ignore=PR01
    """A source of uniform random integers, the only randomness the exact samplers use.

    Any object with these two methods serves: :func:`system_source` (operating-system entropy, for
    publication) and :func:`seeded_source` (reproducible, not for publication) are the two the
    package provides. A typing protocol only: it is not checked at run time.

    See Also
    --------
    system_source : Operating-system entropy.
    seeded_source : A reproducible source from a seed.

    Examples
    --------
    >>> from isdp.exact import seeded_source
    >>> rng = seeded_source(2024)
    >>> [rng.randbelow(6) for _ in range(5)]
    [3, 1, 5, 4, 2]
    >>> len(rng.randbytes(8))
    8
    """

    def randbelow(self, n: int) -> int:
        """A uniform integer on {0, …, n − 1}, exactly (no modulo bias).

        Parameters
        ----------
        n : int
            The number of outcomes, ≥ 1.

        Returns
        -------
        int
            The draw.
        """
        ...

    def randbytes(self, n: int) -> bytes:
        """``n`` uniformly random bytes (for the array samplers).

        Parameters
        ----------
        n : int
            The number of bytes.

        Returns
        -------
        bytes
            The draw.
        """
        ...


class _Seeded(random.Random):
    """Python's Mersenne Twister; ``randbelow`` draws integers by rejection from random bits (exact)."""

    def randbelow(self, n: int) -> int:
        return self._randbelow(n)


class _System(secrets.SystemRandom):
    """Operating-system entropy (``os.urandom``); ``randbelow`` by rejection from random bits (exact)."""

    def randbelow(self, n: int) -> int:
        return self._randbelow(n)


def system_source() -> IntegerSource:
    """Operating-system entropy: the default source of a release.

    Returns
    -------
    IntegerSource
        A :class:`secrets.SystemRandom` (``os.urandom``) whose ``randbelow`` draws by rejection
        from random bits, exactly.

    See Also
    --------
    seeded_source : A reproducible source, for tests and reproductions.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from isdp.exact import double_geometric, system_source
    >>> rng = system_source()
    >>> 0 <= rng.randbelow(6) < 6
    True
    >>> isinstance(double_geometric(Fraction(1, 2), rng), int)
    True
    """
    return _System()


def seeded_source(seed: int) -> IntegerSource:
    """A reproducible source from ``seed``: for tests and reproductions, not for publication.

    Parameters
    ----------
    seed : int
        The seed of Python's Mersenne Twister.

    Returns
    -------
    IntegerSource
        A :class:`random.Random` whose ``randbelow`` draws by rejection from random bits, exactly.
        Its stream is predictable from the seed, so a release drawn from it protects nobody.

    Raises
    ------
    ValueError
        If ``seed`` is not a non-negative integer (a float would be truncated).

    See Also
    --------
    system_source : The source of a release for publication.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from isdp.exact import double_geometric_array, seeded_source
    >>> double_geometric_array(Fraction(1, 2), 6, seeded_source(2024)).tolist()
    [-5, 0, -1, -5, -1, -5]
    >>> double_geometric_array(Fraction(1, 2), 6, seeded_source(2024)).tolist()  # the same seed, the same draws
    [-5, 0, -1, -5, -1, -5]
    """
    return _Seeded(check_seed(seed))


#: the forms in which a privacy parameter is written as text: ``--epsilon``, ``--delta`` and :func:`as_fraction`
NUMBER_FORMS = ("an integer, a decimal, a decimal with an exponent or a fraction of two integers, in ASCII digits "
                "(1, 0.5, 1e-6, 1/3)")
_NUMBER = re.compile(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,4})?|[0-9]+/[0-9]+")


def _read_number(text: str) -> Fraction:
    """``text`` as an exact fraction, in one of :data:`NUMBER_FORMS` only (ValueError otherwise).

    Python's ``Fraction`` and ``float`` also read ``1_0`` as 10, digits of other scripts (Arabic-Indic,
    full-width), signs, spaces, ``nan`` and ``inf``; a privacy parameter typed in one of those is
    more likely a mistake than meant, so it is refused. The form is checked before any arithmetic,
    and the exponent has at most four digits, so no text makes the reading slow.
    """
    text = str(text)
    if len(text) > 100 or not _NUMBER.fullmatch(text):
        raise ValueError(f"{text!r} is not written as {NUMBER_FORMS}")
    try:
        return Fraction(text)
    except ZeroDivisionError:  # 1/0
        raise ValueError(f"{text!r} divides by zero") from None


def as_fraction(value) -> Fraction:
    """``value`` as an exact positive fraction; strings are read exactly (``"0.1"`` is 1/10).

    Parameters
    ----------
    value : fractions.Fraction, int, float or str
        A positive number. A ``Fraction`` is returned as it is, an int as itself; anything else is
        read from its ``str`` in one of :data:`NUMBER_FORMS` (as ``isdp release`` reads
        ``--epsilon``), so a float is read as it prints (``0.1`` is 1/10, not the binary double
        nearest to it) and strings such as ``"1/3"`` or ``"1e-2"`` are exact.

    Returns
    -------
    fractions.Fraction
        The value, > 0.

    Raises
    ------
    ValueError
        When ``value`` is not written in one of :data:`NUMBER_FORMS` (``"1_0"``, ``"nan"``,
        digits of other scripts, a bool), or is not positive.

    Examples
    --------
    >>> from isdp.exact import as_fraction
    >>> as_fraction("0.1"), as_fraction(0.1), as_fraction("1/3"), as_fraction(2)
    (Fraction(1, 10), Fraction(1, 10), Fraction(1, 3), Fraction(2, 1))
    >>> as_fraction(0)
    Traceback (most recent call last):
    ...
    ValueError: 0 must be positive
    """
    if isinstance(value, Fraction):
        f = value
    elif isinstance(value, numbers.Integral) and not isinstance(value, bool):
        f = Fraction(int(value))
    else:
        text = str(value)
        f = _read_number(text[1:]) * -1 if text.startswith("-") else _read_number(text)
    if f <= 0:
        raise ValueError(f"{value!r} must be positive")
    return f


def bernoulli_exp(num: int, den: int, rng: IntegerSource) -> bool:
    """Bernoulli(exp(-γ)) for a rational γ = num/den ≥ 0 (CKS Algorithm 1), exactly.

    Parameters
    ----------
    num : int
        γ's numerator, ≥ 0.
    den : int
        γ's denominator, > 0.
    rng : IntegerSource
        The random source.

    Returns
    -------
    bool
        True with probability exactly exp(−num/den).

    Raises
    ------
    ValueError
        When ``num`` < 0 or ``den`` ≤ 0.

    Notes
    -----
    Canonne, Kamath & Steinke (2020), *The Discrete Gaussian for Differential Privacy*,
    Algorithm 1. For γ ≤ 1: draw Bernoulli(γ/k) for k = 1, 2, … until the first failure at K
    (each a comparison of a uniform integer below den·k with num); P(K odd) = exp(-γ). For γ > 1:
    exp(-γ) = exp(-1)^⌊γ⌋ · exp(-(γ - ⌊γ⌋)), stopping at the first failure. No floating-point
    number is involved.

    Examples
    --------
    >>> from isdp.exact import bernoulli_exp, seeded_source
    >>> rng = seeded_source(2024)
    >>> [bernoulli_exp(1, 2, rng) for _ in range(6)]  # exp(-1/2) ≈ 0.61
    [True, False, False, True, False, True]
    >>> bernoulli_exp(0, 1, rng)  # exp(0) = 1
    True
    """
    if num < 0 or den <= 0:
        raise ValueError(f"gamma must be a non-negative fraction, got {num}/{den}")
    while num > den:
        if not bernoulli_exp(1, 1, rng):
            return False
        num -= den
    k = 1
    while rng.randbelow(den * k) < num:  # Bernoulli(γ/k)
        k += 1
    return k % 2 == 1


def double_geometric(eps: Fraction, rng: IntegerSource) -> int:
    """One draw of DG(ε), P(k) ∝ exp(-ε|k|), ε = s/t rational (:func:`double_geometric_array`).

    Parameters
    ----------
    eps : fractions.Fraction
        ε > 0, with a denominator below 2**31.
    rng : IntegerSource
        The random source.

    Returns
    -------
    int
        The draw.

    Raises
    ------
    ValueError
        When ``eps`` is not positive or its denominator is 2**31 or more.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from isdp.exact import double_geometric, seeded_source
    >>> double_geometric(Fraction(1, 2), seeded_source(2024))
    -2
    """
    # CKS Algorithm 2 one draw at a time in Python integers (the array version's numpy overhead
    # dominates a single draw): P(y) ∝ exp(−|y| s/t)
    s, t = eps.numerator, eps.denominator
    if not 0 < t < 2**31 or s <= 0:
        raise ValueError(f"ε = {eps} must be a positive fraction with a denominator below 2**31")
    while True:
        u = rng.randbelow(t)
        if not bernoulli_exp(u, t, rng):
            continue
        v = 0
        while bernoulli_exp(1, 1, rng):  # V: successes of Bernoulli(exp(-1)) before the first failure
            v += 1
        y = (u + t * v) // s
        negative = rng.randbelow(2) == 1
        if negative and y == 0:
            continue
        return -y if negative else y


def _uniform_below(m: np.ndarray, rng: IntegerSource) -> np.ndarray:
    """Uniform integers on [0, m_i) for each m_i < 2**62, exactly: 63-bit words from ``rng.randbytes``,
    those at or above the largest multiple of m_i below 2**63 drawn again (rejection, no modulo bias)."""
    m = np.asarray(m, dtype=np.uint64)
    limit = (np.uint64(1 << 63) // m) * m
    words = np.frombuffer(rng.randbytes(8 * m.size), dtype="<u8") >> np.uint64(1)
    out = words % m
    todo = np.flatnonzero(words >= limit)  # almost always none (P < m_i / 2**63): the arrays stay whole
    while todo.size:
        words = np.frombuffer(rng.randbytes(8 * todo.size), dtype="<u8") >> np.uint64(1)
        ok = words < limit[todo]
        out[todo[ok]] = words[ok] % m[todo[ok]]
        todo = todo[~ok]
    return out


def _bernoulli_exp_array(num: np.ndarray, den: np.ndarray, rng: IntegerSource) -> np.ndarray:
    """Bernoulli(exp(-num_i/den_i)) for 0 ≤ num_i ≤ den_i, elementwise (CKS Algorithm 1 for γ ≤ 1):
    K_i is the first k at which Bernoulli(γ_i/k) fails, and the draw is K_i odd."""
    num, den = np.asarray(num, dtype=np.uint64), np.asarray(den, dtype=np.uint64)
    odd = np.zeros(num.shape, dtype=bool)
    active = np.arange(num.size)
    k = 1  # the same for every element still drawing: all start at 1 and step together
    while active.size:
        carry_on = _uniform_below(den * np.uint64(k), rng) < num
        odd[active[~carry_on]] = k % 2 == 1
        active, num, den = active[carry_on], num[carry_on], den[carry_on]
        k += 1
    return odd


def double_geometric_array(eps: Fraction, size: int, rng: IntegerSource) -> np.ndarray:
    """``size`` independent draws of the double geometric DG(ε), P(k) ∝ exp(-ε|k|), exactly.

    CKS Algorithm 2 (the discrete Laplace of scale t/s = 1/ε for ε = s/t) run on whole arrays: far
    fewer calls to the random source than one draw at a time, and the same law.

    Parameters
    ----------
    eps : fractions.Fraction
        ε > 0 (per unit ℓ1 distance), with a denominator below 2**31.
    size : int
        The number of draws.
    rng : IntegerSource
        The random source (its ``randbytes`` is used).

    Returns
    -------
    numpy.ndarray of int64, shape (size,)
        The draws, independent.

    Raises
    ------
    ValueError
        When ``eps`` is not positive or its denominator is 2**31 or more.

    See Also
    --------
    double_geometric : One draw.

    Notes
    -----
    Canonne, Kamath & Steinke (2020), *The Discrete Gaussian for Differential Privacy*,
    Algorithm 2. X = U + tV with P(X) ∝ exp(-X/t) (U uniform on 0..t-1 kept with probability
    exp(-U/t), V geometric), so Y = ⌊X/s⌋ has P(Y = y) ∝ exp(-ys/t); a random sign (Y = 0 counted
    once) makes it DG. Every step draws uniform integers only (:func:`bernoulli_exp`), so the law
    is DG(ε) exactly, with variance 2r/(1 − r)², r = e^−ε.

    Examples
    --------
    >>> from fractions import Fraction
    >>> import numpy as np
    >>> from isdp.exact import double_geometric_array, seeded_source
    >>> draws = double_geometric_array(Fraction(1), 20000, seeded_source(2024))
    >>> draws.dtype, draws.shape
    (dtype('int64'), (20000,))
    >>> round(float(np.mean(draws == 0)), 3)  # P(0) = (1 - e^-1)/(1 + e^-1) ≈ 0.462
    0.464
    """
    s, t = eps.numerator, eps.denominator
    if not 0 < t < 2**31 or s <= 0:
        raise ValueError(f"ε = {eps} must be a positive fraction with a denominator below 2**31")
    out = np.empty(size, dtype=np.int64)
    todo = np.arange(size)
    while todo.size:
        n = todo.size
        u = _uniform_below(np.full(n, t), rng)
        kept = _bernoulli_exp_array(u, np.full(n, t), rng)
        v = np.zeros(n, dtype=np.int64)
        active = np.flatnonzero(kept)
        while active.size:  # V: successes of Bernoulli(exp(-1)) before the first failure
            success = _bernoulli_exp_array(np.ones(active.size), np.ones(active.size), rng)
            v[active[success]] += 1
            active = active[success]
        y = (u.astype(np.int64) + t * v) // s
        negative = _uniform_below(np.full(n, 2), rng) == 1
        good = kept & ~(negative & (y == 0))
        out[todo[good]] = np.where(negative, -y, y)[good]
        todo = todo[~good]
    return out


# --------------------------------------------------------------------------- exact noise on Λ(A)


def _greedy_independent(columns: np.ndarray, order) -> list[int]:
    """Positions (in ``order``) of a maximal linearly independent set of ``columns``' columns, taken
    greedily: one Gram-Schmidt step per column (O(m² n) in all, where the rank-per-column search it
    replaces was O(m³ n)). Float decisions on integer matrices; the sampler verifies its solve
    exactly in integers (:meth:`ExactL1Sampler.build`), so a wrong call cannot pass unnoticed."""
    M = np.asarray(columns, dtype=float)
    norms = np.sqrt(np.einsum("ij,ij->j", M, M))
    Q = np.zeros((min(M.shape), M.shape[0]))  # the orthonormal basis so far, one row per vector
    keep: list[int] = []
    order = np.array([j for j in order if norms[j] > 0], dtype=np.int64)
    for start in range(0, len(order), 128):
        # a chunk at once: residuals against the basis so far, updated by one rank-one step per
        # vector the chunk adds (a column inside the span stays inside as the basis grows)
        chunk = order[start : start + 128]
        q = Q[: len(keep)]
        R = M[:, chunk] - q.T @ (q @ M[:, chunk])
        tol = 1e-9 * norms[chunk]
        pos = 0
        while True:
            lengths = np.sqrt(np.einsum("ij,ij->j", R[:, pos:], R[:, pos:]))
            outside = np.flatnonzero(lengths > tol[pos:])
            if not outside.size:
                break
            pos += outside[0]
            q = Q[: len(keep)]
            r = R[:, pos] - q.T @ (q @ R[:, pos])  # re-orthogonalised: twice is enough (Kahan-Parlett)
            length = math.sqrt(r @ r)
            pos += 1
            if length <= tol[pos - 1]:
                continue
            Q[len(keep)] = r / length
            keep.append(int(chunk[pos - 1]))
            if len(keep) == Q.shape[0]:
                return keep
            R[:, pos:] -= np.outer(Q[len(keep) - 1], Q[len(keep) - 1] @ R[:, pos:])
    return keep


def integral_solve(A: np.ndarray, first=()) -> tuple[np.ndarray, np.ndarray] | None:
    """The solved cells S and the integral solve X = -A[:, S]⁻¹ A[:, F] of invariants A.

    With A[:, S] square and invertible and X integral (F the other cells, the free ones),
    z ↦ (u_F = z, u_S = X z) is a bijection from Z^F onto Λ(A) = {u integer : A u = 0}: the free
    cells are the lattice's coordinates, and the exact sampler draws them freely.

    Parameters
    ----------
    A : numpy.ndarray of int, shape (m, n)
        The invariants, with linearly independent rows (pass ``A[independent_rows(A)]``).
    first : sequence of int, default ()
        Cells to solve for first (a derived table's, :func:`norm_tables`); the others follow from
        the last column backwards.

    Returns
    -------
    tuple of (numpy.ndarray, numpy.ndarray) or None
        ``(S, X)``: the m solved cells (sorted int64) and X (int64, shape (m, n − m)), row i the
        coefficients of solved cell S[i] on the free cells in increasing order; or None when the
        greedy S gives a non-integral X (or entries of 2**52 or more) in both orders tried.

    Raises
    ------
    AssertionError
        When A's rows are not independent.

    Notes
    -----
    An integer u in ker A is fixed by u_F, and every integer z gives an integer u. S is taken
    greedily from the cells ``first``, then from the last column, so the solved cells are the
    table's last ones; where that gives no integral X, the cells with a coefficient ±1 are tried
    first; for totally unimodular A (margins of two-way tables, nested totals) X is
    always integral. The solve is checked exactly in integers (A_S X = −A_F) before it is returned
    (docs/method.md §11).

    Examples
    --------
    A total over three cells: the last cell is solved, u_2 = −u_0 − u_1.

    >>> import numpy as np
    >>> from isdp.exact import integral_solve
    >>> solved, X = integral_solve(np.array([[1, 1, 1]]))
    >>> solved.tolist(), X.tolist()
    ([2], [[-1, -1]])
    >>> integral_solve(np.array([[2, 4, 6]])) is None  # every cell's coefficient is even: no integral solve
    True
    """
    m, n = A.shape
    for order in _orders(A, first):
        solved = np.array(sorted(_greedy_independent(A, order)), dtype=np.int64)
        if len(solved) != m:
            raise AssertionError("A's rows are not independent; pass A[independent_rows(A)]")
        free = np.setdiff1d(np.arange(n), solved)
        X = np.rint(-np.linalg.solve(A[:, solved].astype(float), A[:, free].astype(float)))
        if not np.all(np.abs(X) < 2**52):  # integers exact in floats
            continue
        X = X.astype(np.int64)
        if np.array_equal(_exact_product(A[:, solved], X), -A[:, free]):  # A_S X = -A_F: X is the solve
            return solved, X
    return None


def _orders(A: np.ndarray, first) -> list[list[int]]:
    """The orders in which the solves try cells: ``first``, then from the last column backwards; failing that, the
    cells with a coefficient ±1 before the others (``w,1,3`` on two cells solves the first: u₀ = −3u₁, where the
    last column's 3 gave no integral solve and the invariants were refused while ``w,3,1`` was served)."""
    first = [int(j) for j in first]
    rest = [j for j in reversed(range(A.shape[1])) if j not in set(first)]
    unit = [j for j in rest if (np.abs(A[:, j]) == 1).any()]
    other = first + unit + [j for j in rest if j not in set(unit)]
    return [first + rest] + ([other] if other != first + rest else [])


#: the largest block, counted as rows² × cells, whose independent rows and solve are found again in exact
#: integer arithmetic when the floating-point ones fail their exact check (:meth:`ExactL1Sampler.build`)
EXACT_SOLVE_LIMIT = 4_000_000


def _exact_solve(A: np.ndarray, first=()) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """:func:`integral_solve` in exact integer arithmetic, dependent rows allowed: ``(rows, S, X)``.

    Gauss-Jordan elimination without fractions (each row kept integral and divided by the gcd of
    its entries) over the cells in :func:`integral_solve`'s order of preference, so S is the same
    greedy choice that floating point makes when it decides right. ``rows`` are the original rows
    that became pivots: independent, and every other row is a combination of them. X is
    −A[rows, S]⁻¹ A[rows, F], exact; None when it is not integral (or has entries of 2**52 or
    more). Python integers: O(m² n) operations, for blocks within :data:`EXACT_SOLVE_LIMIT`.
    """
    for order in _orders(A, first):
        found = _exact_solve_in(A, order)
        if found is not None:
            return found
    return None


def _exact_solve_in(A: np.ndarray, order: list[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """:func:`_exact_solve` with the cells tried in ``order``."""
    m, n = A.shape
    M = [[int(v) for v in row] for row in A.tolist()]
    origin = list(range(m))
    pivots: list[int] = []
    for col in order:
        r = len(pivots)
        if r == m:
            break
        k = next((i for i in range(r, m) if M[i][col]), None)
        if k is None:
            continue
        M[r], M[k], origin[r], origin[k] = M[k], M[r], origin[k], origin[r]
        p = M[r][col]
        for i in range(m):
            c = M[i][col]
            if i != r and c:
                row = [p * a - c * b for a, b in zip(M[i], M[r], strict=True)]
                g = math.gcd(*row)
                M[i] = [a // g for a in row] if g > 1 else row
        pivots.append(col)
    solved = np.array(sorted(pivots), dtype=np.int64)
    free = np.setdiff1d(np.arange(n), solved)
    X = np.zeros((len(pivots), len(free)), dtype=np.int64)
    where = {col: k for k, col in enumerate(pivots)}
    for i, s_col in enumerate(solved.tolist()):
        row = M[where[s_col]]
        p = row[s_col]
        for j, f in enumerate(free.tolist()):
            q, rem = divmod(-row[f], p)
            if rem or abs(q) >= 2**52:
                return None
            X[i, j] = q
    return np.array(sorted(origin[: len(pivots)]), dtype=np.int64), solved, X


def _exact_product(M: np.ndarray, X: np.ndarray) -> np.ndarray:
    """M @ X exactly: in floats (BLAS) when no partial sum can reach 2**53, else in Python integers."""
    bound = float(np.abs(M).max(initial=0)) * float(np.abs(X).max(initial=0)) * max(M.shape[1], 1)
    if bound < 2.0**53:
        return (M.astype(float) @ X.astype(float)).astype(np.int64)
    return M.astype(object) @ X.astype(object)


#: proposals in the plan's estimate of the exact sampler's acceptance (fixed seed: the estimate,
#: and so any refusal it leads to, depends on the invariants and ε only)
PILOT_PROPOSALS = 1000
_PILOT_SEED = 20261124


@dataclass(frozen=True)
class ExactL1Sampler:
    """Exact ℓ1 generalized Laplace noise on Λ(A) by rejection, and the generalized Gaussian from it.

    The free cells are drawn i.i.d. DG(ε), the solved cells follow from the invariants, and the
    proposal is kept with probability exp(−ε Σ_{solved cells in the norm} |u_i|). Build one with
    :meth:`build`; :class:`ExactSampler` serves a matrix of several blocks.

    Parameters
    ----------
    A : numpy.ndarray of int, shape (m, n)
        The independent rows of the invariants.
    free : numpy.ndarray of int64, shape (n − m,)
        The free cells, sorted: the lattice's coordinates.
    solved : numpy.ndarray of int64, shape (m,)
        The solved cells, sorted.
    solve : numpy.ndarray of int64, shape (m, n − m)
        The integral map from the free cells' noise to the solved cells' (:func:`integral_solve`).
    in_norm : numpy.ndarray of bool, shape (m,)
        Per solved cell, whether its |u| enters the law (False for a derived table's cells).

    See Also
    --------
    ExactSampler : The sampler of a matrix of several blocks.
    isdp.release.exact_route_noise : This sampler's exact law on a box.

    Notes
    -----
    ``solve`` maps the free cells' noise to the solved cells' (integral: :func:`integral_solve`).
    Cells outside the norm (``derived``: a table the others determine, :func:`norm_tables`) are
    always solved and never enter the acceptance: the law is ∝ exp(-ε Σ_{i not derived} |u_i|)
    on Λ(A), the generalized Laplace of ISDP Def. 9 in ℓ1, because the accepted law is
    ∏_{free} e^{−ε|u_i|} · ∏_{solved} e^{−ε|u_i|} (docs/method.md §11). The generalized Gaussian
    (ISDP Eq. 8) is a second rejection from the ℓ1 law with ε = 1/σ (:meth:`draw`). Every random
    decision is made from uniform integers (:func:`double_geometric_array`,
    :func:`bernoulli_exp`), so the law is exact.

    Examples
    --------
    A total over three cells at ε = 1/2 per unit ℓ1 distance:

    >>> from fractions import Fraction
    >>> import numpy as np
    >>> from isdp.exact import ExactL1Sampler, seeded_source
    >>> sampler = ExactL1Sampler.build(np.array([[1, 1, 1]]))
    >>> sampler.free.tolist(), sampler.solved.tolist(), sampler.solve.tolist()
    ([0, 1], [2], [[-1, -1]])
    >>> noise, attempts = sampler.draw(Fraction(1, 2), seeded_source(2024), max_attempts=100)
    >>> noise.tolist(), attempts, int(noise.sum())
    ([-4, -1, 5], 5, 0)
    """

    A: np.ndarray  # independent rows of the invariants
    free: np.ndarray
    solved: np.ndarray
    solve: np.ndarray
    in_norm: np.ndarray  # bool per solved cell: whether its |u| enters the law

    @classmethod
    def build(cls, A: np.ndarray, derived: np.ndarray | None = None) -> ExactL1Sampler | None:
        """The sampler for Λ(A), or None when the free cells are not the lattice's coordinates.

        Parameters
        ----------
        A : numpy.ndarray of int, shape (m, n)
            The invariants (dependent rows allowed: they are set aside, and checked to hold).
        derived : numpy.ndarray of bool, shape (n,), optional
            The cells outside the norm (a derived table's, :func:`norm_tables`); None: none.

        Returns
        -------
        ExactL1Sampler or None
            The sampler; None when :func:`integral_solve` finds no integral solve.

        Raises
        ------
        isdp.errors.InputError
            When rows with large coefficients are so close to dependent that floating point
            decides their rank or solve wrongly, and the block is too large (rows² × cells above
            :data:`EXACT_SOLVE_LIMIT`) to decide in exact integer arithmetic.
        AssertionError
            When a derived cell would be free (a bug in isdp).

        Notes
        -----
        The rank (:func:`isdp.lattice.independent_rows`) and the solve
        (:func:`integral_solve`) are found in floating point and checked exactly: every row, also
        those set aside as dependent, must hold on (z, X z) in integers. Rows of about 2**31 that
        differ by one in each coefficient can fool floating point (it takes them for one row); when
        the check fails, the independent rows, the solved cells and X are found again by exact
        integer elimination, in the same order of preference.

        Examples
        --------
        >>> import numpy as np
        >>> from isdp.exact import ExactL1Sampler
        >>> ExactL1Sampler.build(np.array([[1, 1, 1]])).solved.tolist()
        [2]
        >>> ExactL1Sampler.build(np.array([[2, 4, 6]])) is None
        True

        Two rows that floating point takes for one (their coefficients differ by one, near 2**31):
        decided in exact arithmetic, Λ(A) is spanned by (1, −1, −1).

        >>> a = 2**31 - 1
        >>> sampler = ExactL1Sampler.build(np.array([[a, a - 1, 1], [a - 1, a - 2, 1]]))
        >>> sampler.A.shape, sampler.free.tolist(), sampler.solve.tolist()
        ((2, 3), [0], [[-1], [-1]])
        """
        full = A
        A = A[independent_rows(A)]
        derived = np.zeros(A.shape[1], dtype=bool) if derived is None else np.asarray(derived, dtype=bool)
        if A.shape[0] == 0 and not full.any():  # no invariant: every cell free
            if derived.any():
                raise AssertionError("a derived cell in no invariant; this is a bug in isdp")
            return cls(A, np.arange(A.shape[1]), np.zeros(0, np.int64), np.zeros((0, A.shape[1]), np.int64),
                       np.zeros(0, dtype=bool))
        first = np.flatnonzero(derived)
        try:  # floating point decides the rank and the solve; both are checked exactly below
            found = integral_solve(A, first=first) if A.shape[0] else None
        except AssertionError:  # floats found fewer independent cells than independent rows
            found = None
        # every invariant (also the rows set aside as dependent) holds on (z, X z), exactly, so
        # Λ(A) has dimension at least |free|, and A_S is invertible (|det| an integer ≥ 1), so at
        # most |free|: z ↦ (z, X z) is onto Λ(A)
        spans = found is not None and (
            np.array_equal(_exact_product(full[:, found[0]], found[1]),
                           -full[:, np.setdiff1d(np.arange(A.shape[1]), found[0])])
            and np.linalg.slogdet(A[:, found[0]].astype(float))[1] >= math.log(0.5))
        if not spans:
            # near-dependent rows with large coefficients can fool floating point (rows of about
            # 2**31 that differ by one): decide again in exact integer arithmetic, where it is affordable
            m, n = full.shape
            if m * m * n <= EXACT_SOLVE_LIMIT:
                exact = _exact_solve(full, first)
                if exact is None:
                    return None
                rows, solved, solve = exact
                A = full[rows]
            elif found is None:
                return None
            else:
                raise InputError(
                    f"the invariants of a block of {n} cells and {m} rows, with coefficients up to "
                    f"{int(np.abs(full).max()):,}, are too close to linearly dependent for floating-point "
                    f"arithmetic, and the block is too large ({m}² × {n} > {EXACT_SOLVE_LIMIT:,}) to decide "
                    "in exact arithmetic: use smaller coefficients, drop rows that are (nearly) combinations "
                    "of others, or split the block")
        else:
            solved, solve = found
        free = np.setdiff1d(np.arange(A.shape[1]), solved)
        if derived[free].any():
            raise AssertionError("a derived table's cell is not determined by the others; this is a bug in isdp")
        return cls(A, free, solved, solve, ~derived[solved])

    def log_acceptance(self, eps: Fraction, sigma: Fraction | None = None) -> float:
        """An estimate of ln P(a proposal is kept), from :data:`PILOT_PROPOSALS` proposals of a fixed
        seed (floats: a plan's forecast, never a release's noise).

        Parameters
        ----------
        eps : fractions.Fraction
            ε per unit ℓ1 distance of the proposal (1/σ for the Gaussian).
        sigma : fractions.Fraction or None, default None
            With a σ, the Gaussian's second rejection is included.

        Returns
        -------
        float
            The log of the estimated acceptance (0 when nothing is solved and no σ is given). It
            depends on A and ε (and σ) only, never on a table.

        Examples
        --------
        >>> from fractions import Fraction
        >>> import numpy as np
        >>> from isdp.exact import ExactL1Sampler
        >>> sampler = ExactL1Sampler.build(np.array([[1, 1, 1]]))
        >>> round(float(np.exp(sampler.log_acceptance(Fraction(1, 2)))), 3)
        0.389
        """
        if len(self.solved) == 0 and sigma is None:
            return 0.0
        rng = np.random.default_rng(_PILOT_SEED)
        p = -math.expm1(-float(eps))
        shape = (PILOT_PROPOSALS, len(self.free))
        z = (rng.geometric(p, shape) - rng.geometric(p, shape)).astype(float)
        solved = (z @ self.solve.T.astype(float))[:, self.in_norm]  # floats: exact below 2**53, and BLAS-fast
        log_keep = -float(eps) * np.abs(solved).sum(axis=1)
        if sigma is not None:
            u = np.abs(np.hstack([z, solved]))
            log_keep = log_keep - ((u - float(sigma)) ** 2).sum(axis=1) / (2 * float(sigma) ** 2)
        top = log_keep.max()
        return float(top + np.log(np.mean(np.exp(log_keep - top))))

    def variances(self, eps: Fraction) -> np.ndarray:
        """Each cell's noise variance under the free-cell route: DG(ε) on the free cells, v = 2r/(1−r)²
        with r = e^−ε, and v Σ_j X_ij² on solved cell i.

        Parameters
        ----------
        eps : fractions.Fraction
            ε per unit ℓ1 distance.

        Returns
        -------
        numpy.ndarray of float, shape (n,)
            The variance of each cell's noise.

        Examples
        --------
        >>> from fractions import Fraction
        >>> import numpy as np
        >>> from isdp.exact import ExactL1Sampler
        >>> v = ExactL1Sampler.build(np.array([[1, 1, 1]])).variances(Fraction(1, 2))
        >>> [round(float(x), 3) for x in v]  # the solved cell carries the sum of two free cells
        [7.835, 7.835, 15.671]
        """
        v = dg_variance(float(eps))
        out = np.full(self.A.shape[1], v)
        out[self.solved] = v * (self.solve.astype(float) ** 2).sum(axis=1)
        return out

    def draw(self, eps: Fraction, rng: IntegerSource, *, max_attempts: int,
             sigma: Fraction | None = None, accept: bool = True) -> tuple[np.ndarray | None, int]:
        """One draw of the noise, by rejection.

        Parameters
        ----------
        eps : fractions.Fraction
            ε per unit ℓ1 distance of the ℓ1 law (1/σ with ``sigma``).
        rng : IntegerSource
            The random source.
        max_attempts : int
            Proposals drawn before giving up.
        sigma : fractions.Fraction or None, default None
            With a σ (and ``eps`` = 1/σ), the generalized Gaussian's second rejection step.
        accept : bool, default True
            False for the free-cell route: the first proposal is the noise (``sigma`` is then not
            used).

        Returns
        -------
        noise : numpy.ndarray of int64, shape (n,) or None
            A vector of Λ(A); None when no proposal was accepted within ``max_attempts``.
        attempts : int
            The proposals drawn (``max_attempts`` when none was accepted; 1 without ``accept``).

        Notes
        -----
        The noise, and so the attempt count, never depends on a table. With ``sigma`` (and ``eps`` =
        1/σ), an accepted ℓ1 draw is kept with probability exp(-Σ_i (|u_i| - σ)² / 2σ²)
        = exp(-‖u‖²/2σ² + ‖u‖₁/σ - n/2) ≤ 1, so the kept law is ∝ exp(-‖u‖₂²/2σ²) on Λ(A): the
        generalized Gaussian, exactly (rejection from the ℓ1 law). Sums and norms run over the cells
        in the norm only.

        Examples
        --------
        >>> from fractions import Fraction
        >>> import numpy as np
        >>> from isdp.exact import ExactL1Sampler, seeded_source
        >>> sampler = ExactL1Sampler.build(np.array([[1, 1, 1]]))
        >>> noise, attempts = sampler.draw(Fraction(1, 2), seeded_source(2024), max_attempts=100, accept=False)
        >>> noise.tolist(), attempts
        ([-3, 0, 3], 1)
        >>> noise, attempts = sampler.draw(Fraction(1, 2), seeded_source(2024), max_attempts=100, sigma=Fraction(2))
        >>> noise.tolist(), attempts
        ([-4, -1, 5], 5)
        """
        if not accept:  # the free-cell route: the proposal itself
            free = double_geometric_array(eps, len(self.free), rng)
            u = np.zeros(self.A.shape[1], dtype=np.int64)
            u[self.free], u[self.solved] = free, self.solve @ free
            return u, 1
        for u, attempt in self._accepted(eps, rng, max_attempts, sigma, batch=8):
            return u, attempt
        return None, max_attempts

    def sample(self, eps: Fraction, size: int, rng: IntegerSource, *, sigma: Fraction | None = None,
               max_attempts: int = 10**9) -> np.ndarray:
        """``size`` independent draws (rows) of the law :meth:`draw` draws, in large batches.

        The accepted proposals in order, each i.i.d.; for studies and tests.

        Parameters
        ----------
        eps : fractions.Fraction
            ε per unit ℓ1 distance (1/σ with ``sigma``).
        size : int
            The number of draws.
        rng : IntegerSource
            The random source.
        sigma : fractions.Fraction or None, default None
            With a σ, the generalized Gaussian's draws.
        max_attempts : int, default 10**9
            Proposals drawn in all before giving up.

        Returns
        -------
        numpy.ndarray of int64, shape (size, n)
            One noise vector of Λ(A) per row.

        Raises
        ------
        isdp.errors.UncertifiableError
            When fewer than ``size`` are accepted within ``max_attempts`` proposals in all.

        Examples
        --------
        >>> from fractions import Fraction
        >>> import numpy as np
        >>> from isdp.exact import ExactL1Sampler, seeded_source
        >>> draws = ExactL1Sampler.build(np.array([[1, 1, 1]])).sample(Fraction(1, 2), 3, seeded_source(2024))
        >>> draws.tolist()
        [[4, 2, -6], [5, -1, -4], [-2, 3, -1]]
        """
        out = np.zeros((size, self.A.shape[1]), dtype=np.int64)
        got = 0
        for got, (u, _) in enumerate(itertools.islice(self._accepted(eps, rng, max_attempts, sigma, batch=1024),
                                                      size), start=1):
            out[got - 1] = u
        if got < size:
            raise UncertifiableError(f"{got} of {size} draws accepted within {max_attempts:,} proposals")
        return out

    def _accepted(self, eps: Fraction, rng: IntegerSource, max_attempts: int, sigma: Fraction | None, *, batch: int):
        """The accepted proposals in order, with the attempt count at each (at most ``max_attempts``)."""
        n_free, attempt = len(self.free), 0
        while attempt < max_attempts:
            # proposals are i.i.d.: drawing a batch at once and taking them in order is the same
            # sequence of attempts as drawing one at a time (a caller may discard the rest of a batch)
            k = min(batch, max_attempts - attempt)
            free = double_geometric_array(eps, k * n_free, rng).reshape(k, n_free)
            solved = free @ self.solve.T
            for row in range(k):
                attempt += 1
                gamma = eps * int(np.abs(solved[row][self.in_norm]).sum())
                if not bernoulli_exp(gamma.numerator, gamma.denominator, rng):
                    continue
                u = np.zeros(self.A.shape[1], dtype=np.int64)
                u[self.free], u[self.solved] = free[row], solved[row]
                if sigma is not None:  # the Gaussian's second rejection (draw)
                    normed = np.concatenate([free[row], solved[row][self.in_norm]])
                    gamma = sum((abs(int(v)) - sigma) ** 2 for v in normed) / (2 * sigma**2)
                    if not bernoulli_exp(gamma.numerator, gamma.denominator, rng):
                        continue
                if np.any(self.A @ u != 0):
                    raise AssertionError("exact sampler left Λ(A); this is a bug in isdp")
                yield u, attempt
            batch = min(2 * batch, 1024)


#: largest dense block (entries) examined for a derived table; a larger one keeps its table in the
#: norm (more noise, never a weaker guarantee)
_DERIVED_LIMIT = 50_000_000


def norm_tables(A, groups: list[np.ndarray]) -> np.ndarray:
    """Which of several tables released together enter the mechanism's norm.

    A table whose cells the invariants determine from the other tables' (its columns of A are
    independent: county totals tied to a county × sex table) is derived: its noise follows from
    theirs, so the law weighs the others only and one person's change costs 2 per table in the norm,
    not per table released.

    Parameters
    ----------
    A : array_like or scipy.sparse array of int, shape (m, n)
        The invariants and ties of the tables together, one column per cell of the joint vector.
    groups : list of numpy.ndarray of int
        The cells (column indices) of each table.

    Returns
    -------
    numpy.ndarray of bool, shape (len(groups),)
        True for a table in the norm, False for a derived one. Depends on A and the tables'
        cells only, never on the counts.

    Notes
    -----
    Tables are tried smallest first, each kept derived when the derived cells so far, with its
    own, still have independent columns; at least one table stays in the norm. Independence is
    decided block by block (:func:`isdp.lattice.blocks`: columns of different blocks share no
    row); a block too large to examine keeps its table in the norm (more noise, never a weaker
    guarantee). The law is then ∝ exp(−ε Σ_{tables in the norm} ‖u_t‖₁) and ε per unit ℓ1 is
    ε per person / (2T), T the tables in the norm (docs/method.md §11, "Several tables").

    Examples
    --------
    County totals (2 cells) tied to a county × sex table (4 cells) with the total kept: the
    county totals are derived.

    >>> import numpy as np
    >>> from isdp.exact import norm_tables
    >>> A = np.array([[1, 1, 0, 0, 0, 0],      # the total
    ...               [1, 0, -1, -1, 0, 0],    # county A = its two sexes
    ...               [0, 1, 0, 0, -1, -1]])   # county B = its two sexes
    >>> norm_tables(A, [np.arange(2), np.arange(2, 6)]).tolist()
    [False, True]

    Two tables without ties both stay in the norm:

    >>> norm_tables(np.array([[1, 1, 0, 0], [0, 0, 1, 1]]), [np.arange(2), np.arange(2, 4)]).tolist()
    [True, True]
    """
    A = as_sparse(A)
    parts = blocks(A)
    derived = np.zeros(A.shape[1], dtype=bool)
    out = np.ones(len(groups), dtype=bool)

    def independent(cells: np.ndarray) -> bool:
        for block, rows in parts:
            mine = block[cells[block]]
            if not len(mine):
                continue
            if len(mine) > len(rows) or len(rows) * len(mine) > _DERIVED_LIMIT:
                return False
            if len(independent_rows(A[rows][:, mine].toarray().T)) < len(mine):
                return False
        return True

    for k in sorted(range(len(groups)), key=lambda k: (len(groups[k]), k)):
        if out.sum() == 1:
            break
        candidate = derived.copy()
        candidate[groups[k]] = True
        if independent(candidate):
            derived, out[k] = candidate, False
    return out


@dataclass(frozen=True)
class ExactSampler:
    """Exact noise on Λ(A), block by block, each by :class:`ExactL1Sampler` (or, on the Gaussian
    route, by Klein's sampler where a block's invariants are a total or a table's two margins).

    Cells whose invariants share no row are independent blocks (:func:`isdp.lattice.blocks`);
    each is drawn by its own sampler with its own attempt budget, and blocks with the same
    invariants share one sampler. Build one with :meth:`build`.

    Parameters
    ----------
    n : int
        The number of cells.
    parts : tuple of (numpy.ndarray, ExactL1Sampler or isdp.exact.LatticeBlock)
        Per block, its cells (global positions) and its sampler, in the order of the cells.

    See Also
    --------
    ExactL1Sampler : The sampler of one block.

    Examples
    --------
    Two separate totals, over cells 0–1 and 2–3, at ε = 1/2 per unit ℓ1 distance:

    >>> from fractions import Fraction
    >>> import numpy as np
    >>> from isdp.exact import ExactSampler, seeded_source
    >>> sampler = ExactSampler.build(np.array([[1, 1, 0, 0], [0, 0, 1, 1]]))
    >>> len(sampler.parts), sampler.solved.tolist(), sampler.n_free
    (2, [1, 3], 2)
    >>> noise, attempts = sampler.draw(Fraction(1, 2), seeded_source(3), max_attempts=100)
    >>> noise.tolist(), attempts
    ([0, 0, 1, -1], 5)
    """

    n: int
    parts: tuple[tuple[np.ndarray, object], ...]  # (the block's cells, its ExactL1Sampler or LatticeBlock)

    @classmethod
    def build(cls, A, vet=None, derived: np.ndarray | None = None, gaussian: bool = False) -> ExactSampler | None:
        """The sampler for Λ(A), or None when in some block the free cells are not the lattice's
        coordinates.

        Blocks with the same invariants (52 states' totals of a few sizes) share one sampler.

        Parameters
        ----------
        A : array_like or scipy.sparse array of int, shape (m, n)
            The invariants.
        vet : callable or None, default None
            Called with each distinct block's :class:`ExactL1Sampler`, largest block first; it may
            raise (a plan's refusal then comes after the hardest block, not after all of them).
        derived : numpy.ndarray of bool, shape (n,), optional
            The cells outside the norm (:class:`ExactL1Sampler`); None: none.
        gaussian : bool, default False
            For the Gaussian route: a block whose invariants are one total or a table's two
            margins (and whose cells are all in the norm) is drawn by Klein's sampler
            (:class:`isdp.exact.LatticeBlock`: exact, linear time, even noise) and
            not vetted; the others by :class:`ExactL1Sampler`.

        Returns
        -------
        ExactSampler or None
            The sampler; None when some block has no integral solve.

        Examples
        --------
        >>> import numpy as np
        >>> from isdp.exact import ExactSampler
        >>> margins = np.array([[1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 0], [0, 1, 0, 1]])  # 2 x 2, both margins
        >>> sampler = ExactSampler.build(margins)
        >>> sampler.n_free, sampler.solved.tolist()
        (1, [1, 2, 3])
        >>> gaussian = ExactSampler.build(margins, gaussian=True)
        >>> type(gaussian.parts[0][1]).__name__, gaussian.n_free, gaussian.solved.tolist()
        ('LatticeBlock', 1, [])
        """
        A = as_sparse(A)
        from ._lattice_gaussian import lattice_block  # it builds on this module's exact draws

        derived = np.zeros(A.shape[1], dtype=bool) if derived is None else derived
        parts, built = [], {}
        for cells, rows in sorted(blocks(A), key=lambda block: -len(block[0])):
            # kept sparse: a block of two margins has 2·cells non-zeros, and Klein's sampler needs no more
            sub = sparse.csr_array(A[rows][:, cells] if len(rows) else (0, len(cells)), dtype=np.int64)
            sub.sort_indices()
            key = (sub.shape, sub.indptr.tobytes(), sub.indices.tobytes(), sub.data.tobytes(), derived[cells].tobytes())
            if key not in built and gaussian and not derived[cells].any():
                built[key] = lattice_block(sub)  # a total or two margins: Klein's sampler, no proposal wasted
            if built.get(key) is None:
                built[key] = ExactL1Sampler.build(sub.toarray(), derived[cells])
                if built[key] is not None and vet is not None:
                    vet(built[key])
            if built[key] is None:
                return None
            parts.append((cells, built[key]))
        parts.sort(key=lambda part: part[0][0])  # in the order of the cells
        return cls(A.shape[1], tuple(parts))

    @property
    def solved(self) -> np.ndarray:
        """The cells solved for from the others (global positions, sorted).

        Returns
        -------
        numpy.ndarray of int64
            The solved cells of every block.

        Examples
        --------
        >>> import numpy as np
        >>> from isdp.exact import ExactSampler
        >>> ExactSampler.build(np.array([[1, 1, 1]])).solved.tolist()
        [2]
        """
        solved = [cells[sub.solved] for cells, sub in self.parts if isinstance(sub, ExactL1Sampler)]
        return np.sort(np.concatenate(solved or [np.zeros(0, np.int64)]))

    @property
    def n_free(self) -> int:
        """The lattice's dimension: the number of free cells.

        Returns
        -------
        int
            The free cells of every block together.

        Examples
        --------
        >>> import numpy as np
        >>> from isdp.exact import ExactSampler
        >>> ExactSampler.build(np.array([[1, 1, 1]])).n_free
        2
        """
        return sum(len(sub.free) if isinstance(sub, ExactL1Sampler) else sub.dim for _, sub in self.parts)

    def variances(self, eps: Fraction) -> np.ndarray:
        """Each cell's noise variance under the free-cell route (:meth:`ExactL1Sampler.variances`).

        Parameters
        ----------
        eps : fractions.Fraction
            ε per unit ℓ1 distance.

        Returns
        -------
        numpy.ndarray of float, shape (n,)
            The variance of each cell's noise.

        Examples
        --------
        >>> from fractions import Fraction
        >>> import numpy as np
        >>> from isdp.exact import ExactSampler
        >>> v = ExactSampler.build(np.array([[1, 1, 1]])).variances(Fraction(1, 2))
        >>> [round(float(x), 3) for x in v]
        [7.835, 7.835, 15.671]
        """
        out = np.zeros(self.n)
        for cells, sub in self.parts:
            if not isinstance(sub, ExactL1Sampler):
                raise ValueError("the free-cell route's variances: a Gaussian route's sampler has none")
            out[cells] = sub.variances(eps)
        return out

    def draw(self, eps: Fraction, rng: IntegerSource, *, max_attempts: int, sigma: Fraction | None = None,
             accept: bool = True, on_block: Callable[[], object] | None = None) -> tuple[np.ndarray | None, int]:
        """One draw of the noise on every block.

        Parameters
        ----------
        eps : fractions.Fraction
            ε per unit ℓ1 distance (1/σ with ``sigma``).
        rng : IntegerSource
            The random source.
        max_attempts : int
            Proposals per block before giving up (each block has its own budget).
        sigma : fractions.Fraction or None, default None
            With a σ, the generalized Gaussian (:meth:`ExactL1Sampler.draw`).
        accept : bool, default True
            False for the free-cell route's noise.
        on_block : callable or None, default None
            Called with no argument after each block drawn (progress that says nothing about the
            counts).

        Returns
        -------
        noise : numpy.ndarray of int64, shape (n,) or None
            A vector of Λ(A); None when a block accepts nothing within ``max_attempts``.
        attempts : int
            The proposals drawn in all blocks.

        Examples
        --------
        >>> from fractions import Fraction
        >>> import numpy as np
        >>> from isdp.exact import ExactSampler, seeded_source
        >>> sampler = ExactSampler.build(np.array([[1, 1, 1]]))
        >>> noise, attempts = sampler.draw(Fraction(1, 2), seeded_source(2024), max_attempts=100)
        >>> noise.tolist(), attempts
        ([-4, -1, 5], 5)
        """
        u = np.zeros(self.n, dtype=np.int64)
        total = 0
        for cells, sub in self.parts:
            if isinstance(sub, ExactL1Sampler):
                noise, attempts = sub.draw(eps, rng, max_attempts=max_attempts, sigma=sigma, accept=accept)
            elif sigma is None or not accept:
                raise ValueError("a block drawn by Klein's sampler serves the Gaussian route only (sigma, accept)")
            else:
                noise, attempts = sub.draw(sigma * sigma, rng)
            total += attempts
            if noise is None:
                return None, total
            u[cells] = noise
            if on_block is not None:
                on_block()
        return u, total
