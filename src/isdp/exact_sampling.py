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
(:class:`ExactL1Sampler`), block by block (:class:`ExactSampler`, :func:`isdp.constraints.blocks`).
Tables the others determine stay outside the norm (:func:`norm_tables`).
"""

from __future__ import annotations

import itertools
import math
import random
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol

import numpy as np

from .constraints import as_sparse, blocks, independent_rows
from .double_geometric import dg_variance
from .errors import UncertifiableError


class IntegerSource(Protocol):
    """Uniform random integers: ``randbelow(n)`` is uniform on {0, …, n-1}; ``randbytes(k)`` gives k
    uniformly random bytes (for the array samplers)."""

    def randbelow(self, n: int) -> int: ...

    def randbytes(self, n: int) -> bytes: ...


class _Seeded(random.Random):
    """Python's Mersenne Twister; ``randbelow`` draws integers by rejection from random bits (exact)."""

    def randbelow(self, n: int) -> int:
        return self._randbelow(n)


class _System(secrets.SystemRandom):
    """Operating-system entropy (``os.urandom``); ``randbelow`` by rejection from random bits (exact)."""

    def randbelow(self, n: int) -> int:
        return self._randbelow(n)


def system_source() -> IntegerSource:
    """Operating-system entropy: the default source of a release."""
    return _System()


def seeded_source(seed: int) -> IntegerSource:
    """A reproducible source from ``seed``: for tests and reproductions, not for publication."""
    return _Seeded(int(seed))


def as_fraction(value) -> Fraction:
    """``value`` as an exact positive fraction; strings are read exactly (``"0.1"`` is 1/10)."""
    try:
        f = Fraction(str(value)) if not isinstance(value, Fraction) else value
    except (ValueError, ZeroDivisionError):
        raise ValueError(f"{value!r} is not a number") from None
    if f <= 0:
        raise ValueError(f"{value!r} must be positive")
    return f


def bernoulli_exp(num: int, den: int, rng: IntegerSource) -> bool:
    """Bernoulli(exp(-γ)) for a rational γ = num/den ≥ 0 (CKS Algorithm 1), exactly.

    For γ ≤ 1: draw Bernoulli(γ/k) for k = 1, 2, … until the first failure at K; P(K odd) = exp(-γ).
    For γ > 1: exp(-γ) = exp(-1)^⌊γ⌋ · exp(-(γ - ⌊γ⌋)), stopping at the first failure.
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
    """One draw of DG(ε), P(k) ∝ exp(-ε|k|), ε = s/t rational (:func:`double_geometric_array`)."""
    return int(double_geometric_array(eps, 1, rng)[0])


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
    """``size`` independent draws of DG(ε), P(k) ∝ exp(-ε|k|), ε = s/t rational, int64 (CKS Algorithm 2,
    scale t/s = 1/ε, run on whole arrays: far fewer calls to the random source than one at a time).

    X = U + tV with P(X) ∝ exp(-X/t) (U uniform on 0..t-1 kept with probability exp(-U/t), V
    geometric), so Y = ⌊X/s⌋ has P(Y = y) ∝ exp(-ys/t); a random sign (Y = 0 counted once) makes it DG.
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
    """(solved cells S, X) with A[:, S] square and invertible and X = -A[:, S]⁻¹ A[:, F] integral
    (F: the other cells), or None when the greedy S gives a non-integral X (A with independent rows).

    Then z ↦ (u_F = z, u_S = X z) is a bijection from Z^F onto Λ(A) (an integer u in ker A is fixed
    by u_F, and every integer z gives an integer u): the free cells are the lattice's coordinates.
    S is taken greedily from the cells ``first``, then from the last column, so the solved cells are
    the table's last ones; for totally unimodular A (margins of two-way tables, nested totals) X is
    always integral.
    """
    m, n = A.shape
    first = [int(j) for j in first]
    order = first + [j for j in reversed(range(n)) if j not in set(first)]
    solved = np.array(sorted(_greedy_independent(A, order)), dtype=np.int64)
    if len(solved) != m:
        raise AssertionError("A's rows are not independent; pass A[independent_rows(A)]")
    free = np.setdiff1d(np.arange(n), solved)
    X = np.rint(-np.linalg.solve(A[:, solved].astype(float), A[:, free].astype(float)))
    if not np.all(np.abs(X) < 2**52):  # integers exact in floats
        return None
    X = X.astype(np.int64)
    if not np.array_equal(_exact_product(A[:, solved], X), -A[:, free]):  # A_S X = -A_F: X is the solve
        return None
    return solved, X


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
    """Exact ℓ1 generalized Laplace noise on Λ(A) by rejection (module docstring).

    ``solve`` maps the free cells' noise to the solved cells' (integral: :func:`integral_solve`).
    Cells outside the norm (``derived``: a table the others determine, :func:`norm_tables`) are
    always solved and never enter the acceptance: the law is ∝ exp(-ε Σ_{i not derived} |u_i|).
    """

    A: np.ndarray  # independent rows of the invariants
    free: np.ndarray
    solved: np.ndarray
    solve: np.ndarray
    in_norm: np.ndarray  # bool per solved cell: whether its |u| enters the law

    @classmethod
    def build(cls, A: np.ndarray, derived: np.ndarray | None = None) -> ExactL1Sampler | None:
        """The sampler for Λ(A), or None when the free cells are not the lattice's coordinates."""
        full = A
        A = A[independent_rows(A)]
        derived = np.zeros(A.shape[1], dtype=bool) if derived is None else np.asarray(derived, dtype=bool)
        if A.shape[0] == 0:  # no invariant: every cell free
            if derived.any():
                raise AssertionError("a derived cell in no invariant; this is a bug in isdp")
            return cls(A, np.arange(A.shape[1]), np.zeros(0, np.int64), np.zeros((0, A.shape[1]), np.int64),
                       np.zeros(0, dtype=bool))
        found = integral_solve(A, first=np.flatnonzero(derived))
        if found is None:
            return None
        solved, solve = found
        free = np.setdiff1d(np.arange(A.shape[1]), solved)
        if derived[free].any():
            raise AssertionError("a derived table's cell is not determined by the others; this is a bug in isdp")
        # every invariant (also the rows set aside as dependent) holds on (z, X z), exactly, so
        # Λ(A) has dimension at least |free|, and A_S is invertible (|det| an integer ≥ 1), so at
        # most |free|: z ↦ (z, X z) is onto Λ(A)
        if (not np.array_equal(_exact_product(full[:, solved], solve), -full[:, free])
                or np.linalg.slogdet(A[:, solved].astype(float))[1] < math.log(0.5)):
            raise AssertionError("the exact sampler's solve does not span Λ(A); this is a bug in isdp")
        return cls(A, free, solved, solve, ~derived[solved])

    def log_acceptance(self, eps: Fraction, sigma: Fraction | None = None) -> float:
        """An estimate of ln P(a proposal is kept), from :data:`PILOT_PROPOSALS` proposals of a fixed
        seed (floats: a plan's forecast, never a release's noise)."""
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
        with r = e^−ε, and v Σ_j X_ij² on solved cell i."""
        v = dg_variance(float(eps))
        out = np.full(self.A.shape[1], v)
        out[self.solved] = v * (self.solve.astype(float) ** 2).sum(axis=1)
        return out

    def draw(self, eps: Fraction, rng: IntegerSource, *, max_attempts: int,
             sigma: Fraction | None = None, accept: bool = True) -> tuple[np.ndarray | None, int]:
        """(noise, attempts); noise is None when no proposal was accepted within ``max_attempts``.
        Without ``accept`` the first proposal is the noise (the free-cell route).

        The noise, and so the attempt count, never depends on a table. With ``sigma`` (and ``eps`` =
        1/σ), an accepted ℓ1 draw is kept with probability exp(-Σ_i (|u_i| - σ)² / 2σ²)
        = exp(-‖u‖²/2σ² + ‖u‖₁/σ - n/2) ≤ 1, so the kept law is ∝ exp(-‖u‖₂²/2σ²) on Λ(A): the
        generalized Gaussian, exactly (rejection from the ℓ1 law). Sums and norms run over the cells
        in the norm only.
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
        """``size`` independent draws (rows) of the law :meth:`draw` draws — accepted proposals in order,
        each i.i.d. — in large batches, for studies and tests; :class:`UncertifiableError` when fewer
        than ``size`` are accepted within ``max_attempts`` proposals in all."""
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
    """Which of several tables released together enter the mechanism's norm (bool per table).

    A table whose cells the invariants determine from the other tables' (its columns of A are
    independent: county totals tied to a county × sex table) is derived: its noise follows from
    theirs, so the law weighs the others only and one person's change costs 2 per table in the norm,
    not per table released. Tables are tried smallest first; at least one stays in the norm.
    Independence is decided block by block (:func:`blocks`: columns of different blocks share no row).
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
    """Exact noise on Λ(A), block by block (:func:`blocks`), each by :class:`ExactL1Sampler`."""

    n: int
    parts: tuple[tuple[np.ndarray, ExactL1Sampler], ...]  # (the block's cells, its sampler)

    @classmethod
    def build(cls, A, vet=None, derived: np.ndarray | None = None) -> ExactSampler | None:
        """The sampler for Λ(A), or None when in some block the free cells are not the lattice's
        coordinates. Blocks with the same invariants (52 states' totals of a few sizes) share one.
        ``vet`` is called on each distinct block sampler, largest first, and may raise (a plan's
        refusal then comes after the hardest block, not after all of them). ``derived``: the cells
        outside the norm (:class:`ExactL1Sampler`)."""
        A = as_sparse(A)
        derived = np.zeros(A.shape[1], dtype=bool) if derived is None else derived
        parts, built = [], {}
        for cells, rows in sorted(blocks(A), key=lambda block: -len(block[0])):
            sub_A = A[rows][:, cells].toarray() if len(rows) else np.zeros((0, len(cells)), np.int64)
            key = (sub_A.shape, sub_A.tobytes(), derived[cells].tobytes())
            if key not in built:
                built[key] = ExactL1Sampler.build(sub_A, derived[cells])
                if built[key] is not None and vet is not None:
                    vet(built[key])
            if built[key] is None:
                return None
            parts.append((cells, built[key]))
        parts.sort(key=lambda part: part[0][0])  # in the order of the cells
        return cls(A.shape[1], tuple(parts))

    @property
    def solved(self) -> np.ndarray:
        """The cells solved for from the others (global positions, sorted)."""
        return np.sort(np.concatenate([cells[sub.solved] for cells, sub in self.parts] or [np.zeros(0, np.int64)]))

    @property
    def n_free(self) -> int:
        """The lattice's dimension: the number of free cells."""
        return sum(len(sub.free) for _, sub in self.parts)

    def variances(self, eps: Fraction) -> np.ndarray:
        """Each cell's noise variance under the free-cell route (:meth:`ExactL1Sampler.variances`)."""
        out = np.zeros(self.n)
        for cells, sub in self.parts:
            out[cells] = sub.variances(eps)
        return out

    def draw(self, eps: Fraction, rng: IntegerSource, *, max_attempts: int, sigma: Fraction | None = None,
             accept: bool = True, on_block: Callable[[], object] | None = None) -> tuple[np.ndarray | None, int]:
        """(noise, attempts in all); None when a block accepts nothing within ``max_attempts`` (each
        block has its own budget). Without ``accept``, the free-cell route's noise. ``on_block`` is
        called after each block drawn (progress that says nothing about the counts)."""
        u = np.zeros(self.n, dtype=np.int64)
        total = 0
        for cells, sub in self.parts:
            noise, attempts = sub.draw(eps, rng, max_attempts=max_attempts, sigma=sigma, accept=accept)
            total += attempts
            if noise is None:
                return None, total
            u[cells] = noise
            if on_block is not None:
                on_block()
        return u, total

__all__ = [
    "ExactL1Sampler",
    "ExactSampler",
    "IntegerSource",
    "PILOT_PROPOSALS",
    "as_fraction",
    "bernoulli_exp",
    "double_geometric",
    "double_geometric_array",
    "integral_solve",
    "norm_tables",
    "seeded_source",
    "system_source",
]
