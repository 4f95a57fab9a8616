"""Exact computations behind E1's rows on ISDP's lattice theory.

The index of a basis's lattice in the integer kernel (Prop 8), lattice points in balls (Lemma 11) and the moment
generating function of a law on a box (Thm 15 (10), Prop 18), and the probability that i.i.d. noise keeps invariants
(§3.1, §4).
"""

from __future__ import annotations

import itertools
from math import gcd

import numpy as np

#: largest |minor| taken as exact: float determinants of small-integer matrices are exact integers below it
EXACT_MINOR = 2.0**50


def maximal_minors_gcd(B) -> int:
    """Gcd of the k × k minors of the n × k integer matrix ``B``.

    1 iff the columns span every integer vector of their real span (the Smith form of Bᵀ is all ones). Minors are taken
    in batches of growing size and the search stops at gcd 1. Raises ValueError when a minor is too large to be exact in
    floating point.
    """
    B = np.asarray(B, dtype=float)
    n, k = B.shape
    rows = itertools.combinations(range(n), k)
    g, batch = 0, 1
    while g != 1:
        chosen = np.array(list(itertools.islice(rows, batch)), dtype=np.int64)
        if chosen.size == 0:
            break
        dets = np.linalg.det(B[chosen])
        rounded = np.rint(dets)
        if np.any(np.abs(rounded) >= EXACT_MINOR) or np.any(np.abs(dets - rounded) > 1e-6):
            raise ValueError(
                f"a {k} × {k} minor ({dets[np.argmax(np.abs(dets - rounded))]:.6g}) is not exact in floating point"
            )
        for d in np.unique(np.abs(rounded)).astype(np.int64):
            g = gcd(g, int(d))
        batch *= 2
    return g


def kernel_index(A, B) -> int:
    """Return the index of the lattice spanned by ``B``'s columns in Z^n ∩ ker A.

    The gcd of B's maximal minors when A B = 0 and B has n − rank(A) columns (1: B spans all integer solutions of A u =
    0; 0: its columns are dependent), else 0 (B leaves the kernel or has the wrong number of columns).
    """
    A, B = np.asarray(A, dtype=np.int64), np.asarray(B, dtype=np.int64)
    dim = A.shape[1] - int(np.linalg.matrix_rank(A.astype(float)))
    if np.any(A @ B != 0) or B.shape[1] != dim:
        return 0
    return maximal_minors_gcd(B)


def ball_counts(A, radii, norm: str) -> np.ndarray:
    """Count the points u of Λ(A) with ‖u‖ ≤ r (``norm`` "l1" or "l2"), for each r of ``radii``.

    Enumerated over the free cells of :class:`isdp.exact.IntegerL1Sampler` (the lattice's coordinates): |u_free|_∞ ≤ ‖u‖
    in both norms, so the box of the largest radius holds every ball. One value of the first free cell at a time keeps
    memory small.
    """
    from isdp.exact import IntegerL1Sampler

    sampler = IntegerL1Sampler.build(np.asarray(A, dtype=np.int64))
    top, k = int(np.floor(max(radii))), len(sampler.free)
    rest = np.array(list(itertools.product(range(-top, top + 1), repeat=k - 1)), dtype=np.int64).reshape(-1, k - 1)
    size = (lambda u: np.abs(u).sum(axis=-1)) if norm == "l1" else (lambda u: (u * u).sum(axis=-1))
    rest_solved, rest_size = rest @ sampler.solve[:, 1:].T, size(rest)
    limits = np.asarray(radii, dtype=float) ** (1 if norm == "l1" else 2)
    counts = np.zeros(len(limits), dtype=np.int64)
    for first in range(-top, top + 1):
        total = rest_size + size(np.array([first])) + size(rest_solved + first * sampler.solve[:, 0])
        counts += (total[:, None] <= limits[None, :]).sum(axis=0)
    return counts


def kernel_grid(A, max_norm: float, steps: int) -> np.ndarray:
    """Return vectors λ = Q t of ker A on a grid, Q an orthonormal basis of it, as rows.

    t is on the grid {−steps..steps}^k · max_norm/steps with ‖t‖ ≤ max_norm, so ‖λ‖ = ‖t‖.
    """
    from scipy.linalg import null_space

    Q = null_space(np.asarray(A, dtype=float))
    ticks = np.arange(-steps, steps + 1) * (max_norm / steps)
    t = np.array(list(itertools.product(ticks, repeat=Q.shape[1])))
    return t[np.linalg.norm(t, axis=1) <= max_norm * (1 + 1e-12)] @ Q.T


def subgaussian_excess(law, lambdas, sigma: float) -> np.ndarray:
    """Ln E exp⟨λ, U⟩ − σ²‖λ‖²/2 for U ~ ``law`` (an :class:`isdp.privacy.TruncatedLaw`), per row λ of ``lambdas``.

    At most 0 for every λ when U is sub-Gaussian with variance proxy σ².
    """
    keep = law.probs > 0
    exponents = law.points[keep] @ lambdas.T + np.log(law.probs[keep])[:, None]
    top = exponents.max(axis=0)
    log_mgf = top + np.log(np.exp(exponents - top).sum(axis=0))
    return log_mgf - sigma**2 * (lambdas * lambdas).sum(axis=1) / 2


def iid_invariant_probability(A, pmf, tol: float = 1e-12) -> tuple[float, float, int]:
    """Return P(A u = 0) for u with i.i.d. entries of the symmetric integer law ``pmf``, its error bound and grid size.

    ``pmf`` gives the probabilities of −R, …, R; the grid size is N. The mean over the torus grid (2π/N · Z_N)^k of ∏_i
    φ((Aᵀt)_i), φ the law's characteristic function (real: an FFT of the law wrapped mod N), is Σ_ℓ P(A u = N ℓ)
    exactly, so it exceeds P(A u = 0) by at most Σ_rows P(|(A u)_row| ≥ N), each row's law from a 1-D FFT on a grid of
    80 of its SDs (aliasing below 1e-15 for laws with Gaussian or exponential tails); N is the smallest multiple of 8
    with that bound at most ``tol``. Identical columns of A are grouped (φ to their multiplicity); A has at most 3 rows
    (the grid has N^k points).
    """
    A, pmf = np.asarray(A, dtype=np.int64), np.asarray(pmf, dtype=float)
    radius, k = (len(pmf) - 1) // 2, A.shape[0]
    if k == 0:
        return 1.0, 0.0, 1
    if k > 3:
        raise ValueError(f"at most 3 invariants (a grid of N^k points), got {k}")

    def phi(size):
        wrapped = np.zeros(size)
        np.add.at(wrapped, np.arange(-radius, radius + 1) % size, pmf)
        return np.fft.fft(wrapped).real

    sd = float(np.sqrt(pmf @ np.arange(-radius, radius + 1) ** 2 * (A**2).sum(axis=1).max()))
    fine = int(2 ** np.ceil(np.log2(80 * sd + 2 * radius + 64)))  # a row sum's law beyond 40 SD: below 1e-15
    fine_phi, tails = phi(fine), np.zeros(fine // 2)
    for row in A:  # tails[N] = Σ_rows P(|S_row| ≥ N)
        weights, counts = np.unique(row[row != 0], return_counts=True)
        law = np.abs(
            np.fft.ifft(
                np.prod(
                    [fine_phi[(w * np.arange(fine)) % fine] ** c for w, c in zip(weights, counts, strict=True)], axis=0
                )
            ).real
        )
        folded = law[: fine // 2] + np.r_[0.0, law[: fine // 2 : -1]]  # P(|S| = s), s < fine/2
        tails += folded.sum() - np.cumsum(np.r_[0.0, folded[:-1]])
    grid = next(n for n in range(8, fine // 2, 8) if tails[n] <= tol)
    table = phi(grid)
    cols, mult = np.unique(A.T, axis=0, return_counts=True)
    rest = np.indices((grid,) * (k - 1)).reshape(k - 1, -1).T if k > 1 else np.zeros((1, 0), dtype=np.int64)
    fixed, moving = np.ones(len(rest)), []  # the factors that do not depend on the first coordinate, once
    for c, m in zip(cols, mult, strict=True):
        power, offset = table**m, (rest @ c[1:]) % grid
        if c[0] == 0:
            fixed *= power[offset]
        else:
            moving.append((c[0], power, offset))
    total, block = 0.0, max(1, 2**18 // len(rest))
    for start in range(0, grid, block):  # slices of the torus along the first coordinate bound the memory
        first = np.arange(start, min(start + block, grid))[:, None]
        term = np.broadcast_to(fixed, (len(first), len(rest))).copy()
        for c0, power, offset in moving:
            term *= np.take(power, (offset + c0 * first) % grid)
        total += term.sum()
    return float(total / grid**k), float(tails[grid]), grid
