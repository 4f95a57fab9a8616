r"""Exact discrete Gaussian noise on the lattice of a total or of a table's two margins (Klein's sampler).

The generalized Gaussian of the release's Gaussian route is the discrete Gaussian
D_{Λ,σ}(u) ∝ exp(−‖u‖²/2σ²) on the kernel lattice Λ(A) of a block's invariants. When the block's
invariants are one total over n cells, or exactly the row and column totals of an r × c table
(any invariant they imply may be among them), Λ(A) has a basis whose Gram–Schmidt vectors are
known in closed form, and Klein's sampler draws from D_{Λ,σ} in one pass over the basis with
an exact rejection step: no proposal is wasted on the invariants, so its cost is linear in the
cells and every cell gets the same noise (docs/method.md §11).

**The basis.** For a total over n cells, b_i = e_i − e_{i+1} (i = 1 … n − 1): its Gram–Schmidt
vectors are b̃_i = (e_1 + … + e_i − i·e_{i+1})/i, with ‖b̃_i‖² = (i + 1)/i and the only non-zero
coefficient μ_{i+1,i} = ⟨b_{i+1}, b̃_i⟩/‖b̃_i‖² = −i/(i + 1). For both margins of an r × c table,
b_{ij} = (e_i − e_{i+1}) ⊗ (e_j − e_{j+1}) in lexicographic order: the Gram matrix is the
Kronecker product of the two totals', so its Gram–Schmidt vectors and coefficients are the
products of theirs.

**Klein's sampler** (Klein 2000; Gentry, Peikert & Vaikuntanathan 2008) runs backwards over the
basis: z_k ~ D_{Z, σ_k, c_k} with σ_k = σ/‖b̃_k‖ and c_k = −Σ_{l>k} z_l μ_{l,k}, and returns
u = Σ z_k b_k. It returns u with probability ρ_σ(u) / Π_k ρ_{σ_k}(Z − c_k), where
ρ_s(x) = exp(−x²/2s²); accepting u with probability Π_k ρ_{σ_k}(Z − c_k)/ρ_{σ_k}(Z) ≤ 1 leaves
exactly D_{Λ,σ} (Brakerski, Langlois, Peikert, Regev & Stehlé 2013, Lemma 2.3). Every number
involved is rational (σ² is), each one-dimensional draw is exact in integer arithmetic
(rejection from a double geometric, as Canonne, Kamath & Steinke's Algorithm 3, with a rational
centre), and the acceptance is decided exactly: a uniform number drawn bit by bit is compared
with rigorous bounds on the product of theta-function ratios, refined only as far as the
comparison needs. For σ_k ≥ 1 the product differs from 1 by less than 10⁻⁷ per basis vector, so
almost every pass is accepted.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .. import _validate as check
from ._compiled_klein import compiled_klein_blocks
from ._discrete_gaussian import WORD_BITS, _discrete_gaussian, below, decided, klein_scale, sigma2_argument
from ._integer_sources import IntegerSource

#: the invariant structures this sampler serves: one total, or the two margins of a table
KINDS = ("total", "margins")


@dataclass(frozen=True)
class LatticeBlock:
    """The cells of a block whose invariants are a total or a table's two margins, as a grid.

    Build one with :func:`lattice_block`; draw its noise with :meth:`draw`.

    Parameters
    ----------
    grid : numpy.ndarray of int64, shape (r, c)
        The block's cells (their positions in the block) laid out as the table whose margins are
        the invariants; for a total, one row (r = 1) of all cells.
    kind : {"total", "margins"}
        One total over the cells, or the row and column totals of the grid.

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.exact import lattice_block
    >>> margins = np.array([[1, 1, 1, 0, 0, 0], [0, 0, 0, 1, 1, 1],
    ...                     [1, 0, 0, 1, 0, 0], [0, 1, 0, 0, 1, 0], [0, 0, 1, 0, 0, 1]])
    >>> block = lattice_block(margins)
    >>> block.kind, block.grid.tolist(), block.dim
    ('margins', [[0, 1, 2], [3, 4, 5]], 2)
    """

    grid: np.ndarray
    kind: str

    @property
    def dim(self) -> int:
        """The dimension of Λ(A): n − 1 for a total, (r − 1)(c − 1) for both margins.

        Returns
        -------
        int
            The number of basis vectors, one one-dimensional draw each.

        Examples
        --------
        >>> import numpy as np
        >>> from isdp.exact import lattice_block
        >>> lattice_block(np.ones((1, 5), dtype=int)).dim
        4
        """
        r, c = self.grid.shape
        return c - 1 if self.kind == "total" else (r - 1) * (c - 1)

    def variances(self, sigma2: Fraction) -> np.ndarray:
        """Each cell's noise variance under the continuous Gaussian on the same subspace: a bound on the lattice's.

        σ²(1 − 1/n) for a total over n cells, σ²(1 − 1/r)(1 − 1/c) for both margins of an r × c
        table: the same for every cell. It bounds the lattice Gaussian's own variance, which is
        sub-Gaussian with the same σ (ISDP Prop 18: Var⟨e_i, u⟩ ≤ σ²‖P e_i‖², P the projection on
        the subspace), and equals it where σ is large against the lattice's spacing: on the
        coarsest lattice, a 2 × 2 table's (Z·v, ‖v‖² = 4), the lattice's is 14 % below at σ = 1,
        2·10⁻⁷ at σ = 2, and equal in double precision from σ = 3 (a release at ε ≤ 1 per person
        has σ near 6; ``tests/core/exact/test_lattice_gaussian.py``). The statement gives it as
        ``noise_variance_per_cell_at_most``.

        Parameters
        ----------
        sigma2 : fractions.Fraction
            σ², the Gaussian's variance parameter.

        Returns
        -------
        numpy.ndarray of float
            The variance of each cell's noise, in the order of the block's cells.

        Examples
        --------
        >>> from fractions import Fraction
        >>> import numpy as np
        >>> from isdp.exact import lattice_block
        >>> lattice_block(np.ones((1, 4), dtype=int)).variances(Fraction(4)).tolist()
        [3.0, 3.0, 3.0, 3.0]
        """
        r, c = self.grid.shape
        share = (1 - 1 / c) if self.kind == "total" else (1 - 1 / r) * (1 - 1 / c)
        return np.full(self.grid.size, float(sigma2) * share)

    def draw(self, sigma2: Fraction, rng: IntegerSource) -> tuple[np.ndarray, int]:
        """One exact draw of D_{Λ,σ} on the block.

        Parameters
        ----------
        sigma2 : fractions.Fraction, int, float or str
            σ², rational, in [2**-64, 2**100] (as :func:`isdp.exact.discrete_gaussian` takes it).
        rng : IntegerSource
            The random source (:func:`isdp.exact.system_source` for a release).

        Returns
        -------
        noise : numpy.ndarray of int64
            A vector of Λ(A) in the order of the block's cells, distributed exactly as D_{Λ,σ}.
        attempts : int
            Klein passes drawn until one was accepted (almost always 1).

        Raises
        ------
        isdp.errors.ArgumentError
            A ValueError, when ``sigma2`` is not a number in one of the number forms or lies outside
            [2**-64, 2**100].

        Examples
        --------
        >>> from fractions import Fraction
        >>> import numpy as np
        >>> from isdp.exact import seeded_source
        >>> from isdp.exact import lattice_block
        >>> A = np.array([[1, 1, 1, 0, 0, 0], [0, 0, 0, 1, 1, 1], [1, 0, 0, 1, 0, 0], [0, 1, 0, 0, 1, 0]])
        >>> block = lattice_block(A)  # 2 x 3, both margins (the third column's total is implied)
        >>> noise, attempts = block.draw(Fraction(9), seeded_source(3))
        >>> noise.reshape(2, 3).tolist(), attempts
        ([[-1, 1, 0], [1, -1, 0]], 1)
        >>> (A @ noise).tolist()
        [0, 0, 0, 0]
        """
        z, attempts = self._coordinates(sigma2_argument(sigma2), rng)
        return self.noise(z), attempts

    def draw_blocks(self, sigma2: Fraction, count: int, rng: IntegerSource) -> tuple[np.ndarray, int]:
        """``count`` independent draws of :meth:`draw`'s law (the noise of ``count`` blocks of this shape), compiled.

        Parameters
        ----------
        sigma2 : fractions.Fraction, int, float or str
            σ², as for :meth:`draw`.
        count : int
            The number of draws, ≥ 0.
        rng : IntegerSource
            The random source (:func:`isdp.exact.system_source` for a release).

        Returns
        -------
        noise : numpy.ndarray of int64, shape (count, n)
            One vector of Λ(A) per row, in the order of the block's cells.
        attempts : int
            Klein passes drawn in all.

        Raises
        ------
        isdp.errors.ArgumentError
            A ValueError, when ``sigma2`` is out of :meth:`draw`'s range or ``count`` is not an
            integer ≥ 0.

        Notes
        -----
        The pass runs compiled (:mod:`isdp.exact._compiled_klein`) on words the source delivers in
        bulk; a block whose decision its double-precision bounds cannot make is drawn by :meth:`draw`'s
        Python pass from the same words, so the law, and the draws on given words, are :meth:`draw`'s.

        Examples
        --------
        >>> from fractions import Fraction
        >>> import numpy as np
        >>> from isdp.exact import lattice_block, seeded_source
        >>> block = lattice_block(np.ones((1, 4), dtype=int))
        >>> noise, attempts = block.draw_blocks(Fraction(9), 3, seeded_source(1))
        >>> noise.shape, noise.sum(axis=1).tolist(), attempts
        ((3, 4), [0, 0, 0], 3)
        """
        sigma2, count = sigma2_argument(sigma2), check.size("count", count)

        def reference(reader) -> tuple[np.ndarray, int]:
            z, attempts = self._coordinates(sigma2, reader)
            return z.ravel(), attempts

        z, attempts = compiled_klein_blocks(self.kind, self.grid.shape, sigma2, count, rng, reference)
        if self.kind == "total":
            vectors = _differences(z, 1)
        else:
            r, c = self.grid.shape
            vectors = _differences(_differences(z.reshape(count, r - 1, c - 1), 1), 2).reshape(count, r * c)
        noise = np.empty((count, self.grid.size), dtype=np.int64)
        noise[:, self.grid.ravel()] = vectors
        return noise, attempts

    def _coordinates(self, sigma2: Fraction, rng: IntegerSource) -> tuple[np.ndarray, int]:
        """Klein passes in Python until one is accepted: its coordinates and the passes drawn."""
        base = float(sigma2)
        attempts = 0
        while True:
            attempts += 1
            z, centres, widths = _klein_pass(
                self.kind,
                self.grid.shape,
                sigma2,
                lambda centre, width, a, b: _discrete_gaussian(centre, width, rng, klein_scale(base, a, b)),
            )
            if _accept(centres, widths, rng):
                return z, attempts

    def noise(self, z: np.ndarray) -> np.ndarray:
        """Return the noise vector u = Σ_k z_k b_k of basis coordinates ``z``, in the order of the block's cells.

        Parameters
        ----------
        z : numpy.ndarray of int
            The coordinates: shape (n − 1,) for a total, (r − 1, c − 1) for both margins.

        Returns
        -------
        numpy.ndarray of int64
            The vector of Λ(A).

        Examples
        --------
        >>> import numpy as np
        >>> from isdp.exact import lattice_block
        >>> lattice_block(np.ones((1, 3), dtype=int)).noise(np.array([2, -1])).tolist()
        [2, -3, 1]
        """
        out = np.zeros(self.grid.size, dtype=np.int64)
        out[self.grid.ravel()] = _lattice_vector(self.kind, self.grid.shape, np.asarray(z, dtype=np.int64)).ravel()
        return out

    def log_weight(self, z: np.ndarray, sigma2: Fraction) -> float:
        """Log P(the sampler returns the coordinates ``z``) up to a constant, from Klein's pass itself.

        The accepted pass returns z with probability Π_k ρ_{σ_k}(z_k − c_k)/ρ_{σ_k}(Z), the centres
        c_k computed by the pass from the later coordinates, as :meth:`draw` computes them: this is
        the law an audit enumerates (:func:`isdp.privacy.exact_route_noise`). By the
        Gram–Schmidt identity it equals −‖u‖²/2σ² up to the constant.

        Parameters
        ----------
        z : numpy.ndarray of int
            The coordinates, as for :meth:`noise`.
        sigma2 : fractions.Fraction
            σ².

        Returns
        -------
        float
            The log-probability up to an additive constant that does not depend on ``z``.

        Examples
        --------
        >>> from fractions import Fraction
        >>> import numpy as np
        >>> from isdp.exact import lattice_block
        >>> block = lattice_block(np.ones((1, 3), dtype=int))
        >>> z = np.array([2, -1])
        >>> u = block.noise(z)
        >>> round(block.log_weight(z, Fraction(4)) - block.log_weight(np.zeros(2, int), Fraction(4)), 9)
        -1.75
        >>> -float(u @ u) / (2 * 4)
        -1.75
        """
        given = iter(np.asarray(z, dtype=np.int64).ravel()[::-1].tolist())  # the pass runs backwards
        log = [0.0]

        def choose(centre: Fraction, width: Fraction, a: int, b: int) -> int:
            value = next(given)
            log[0] -= float((value - centre) ** 2 / (2 * width))
            return value

        _klein_pass(self.kind, self.grid.shape, Fraction(sigma2), choose)
        return log[0]


def _klein_pass(kind: str, shape: tuple[int, int], sigma2: Fraction, choose):
    """Klein's backward pass over the basis.

    ``choose(centre, σ_k², a, b)`` gives each coordinate z_k (a draw, or a given value when a law is computed), σ_k² =
    σ²·a/b; returns z with the centres and σ_k² in the pass's order.
    """
    centres, widths = [], []

    def step(centre: Fraction, a: int, b: int) -> int:
        centres.append(centre)
        widths.append(sigma2 * Fraction(a, b))
        return choose(centre, widths[-1], a, b)

    if kind == "total":
        n = shape[1]
        z = [0] * (n + 1)  # z[i] for i = 1 … n − 1, z[n] = 0
        for i in range(n - 1, 0, -1):
            z[i] = step(Fraction(i * z[i + 1], i + 1), i, i + 1)
        return np.array(z[1:n], dtype=np.int64), centres, widths
    r, c = shape
    grid = [[0] * (c + 1) for _ in range(r + 1)]  # grid[i][j] = z_ij, i < r, j < c; zero beyond
    for i in range(r - 1, 0, -1):
        for j in range(c - 1, 0, -1):
            centre = Fraction(
                j * (i + 1) * grid[i][j + 1] + i * (j + 1) * grid[i + 1][j] - i * j * grid[i + 1][j + 1],
                (i + 1) * (j + 1),
            )
            grid[i][j] = step(centre, i * j, (i + 1) * (j + 1))
    return np.array([row[1:c] for row in grid[1:r]], dtype=np.int64), centres, widths


def _differences(z: np.ndarray, axis: int) -> np.ndarray:
    """Σ_k z_k (e_k − e_{k+1}) along ``axis``: n coordinates from n − 1."""
    shape = list(z.shape)
    shape[axis] += 1
    out = np.zeros(shape, dtype=z.dtype)
    head = [slice(None)] * z.ndim
    tail = list(head)
    head[axis], tail[axis] = slice(0, -1), slice(1, None)
    out[tuple(head)] += z
    out[tuple(tail)] -= z
    return out


def _lattice_vector(kind: str, shape: tuple[int, int], z: np.ndarray) -> np.ndarray:
    """U = Σ_k z_k b_k on the grid."""
    if kind == "total":
        return _differences(z, 0).reshape(shape)
    return _differences(_differences(z, 0), 1)


def _theta_gap_bound(sigma2: float) -> float:
    """Return an upper bound on 1 − ρ_s(Z − c)/ρ_s(Z) for every c, s² = ``sigma2`` (float, rounded up)."""
    if sigma2 * 2 * math.pi < 1:
        return 1.0  # narrow: no useful bound in closed form; the exact comparison decides
    q = math.exp(-2 * math.pi**2 * sigma2)
    # Poisson summation: ρ_s(Z − c) ∝ 1 + 2 Σ_m q^{m²} cos(2πmc), so the ratio is at least
    # (1 − 2S)/(1 + 2S) with S = Σ_m q^{m²} ≤ q/(1 − q), and 1 minus it at most 4S
    return 4 * q / (1 - q) * (1 + 1e-9) + 1e-300


def _accept(centres: list[Fraction], widths: list[Fraction], rng: IntegerSource) -> bool:
    """Bernoulli(Π_k ρ_{σ_k}(Z − c_k)/ρ_{σ_k}(Z)), exactly.

    A uniform number read 63 bits at a time against rigorous bounds on the product, refined until they decide
    (:func:`isdp.exact._discrete_gaussian.below`).
    """
    word = rng.randbelow(1 << WORD_BITS)
    gap = sum(_theta_gap_bound(float(w)) for w in widths)  # 1 − P ≤ gap
    # U < P surely when U's interval lies below 1 − gap (2**-40: the rounding of the sum and of 1 − gap)
    if gap < 1 and decided(word, 1 - gap - 2.0**-40, 2.0):
        return True
    # the product in floating point, with a bound on its rounding error far above the true one
    # (each factor a sum of fewer than 100 terms, each within a few ulps)
    product = math.prod(_theta_ratio_float(c, w) for c, w in zip(centres, widths, strict=True))
    slack = 1e-11 * (len(widths) + 1)
    outcome = decided(word, product * (1 - slack), product * (1 + slack) + 1e-300)
    if outcome is not None:
        return outcome
    return _accept_exactly(word, centres, widths, rng)


def _theta_ratio_float(centre: Fraction, sigma2: Fraction) -> float:
    """ρ_s(Z − c)/ρ_s(Z) in floating point (the sums of :func:`_theta_ratio`, terms to 1e-18)."""
    c, s2 = float(centre - math.floor(centre)), float(sigma2)
    if s2 * 2 * math.pi >= 1:
        q = math.exp(-2 * math.pi**2 * s2)
        terms = [q ** (m * m) for m in range(1, 40) if q ** (m * m) > 1e-18]
        return (1 + 2 * sum(t * math.cos(2 * math.pi * (m + 1) * c) for m, t in enumerate(terms))) / (
            1 + 2 * sum(terms)
        )
    ks = range(-40, 41)
    return sum(math.exp(-((k - c) ** 2) / (2 * s2)) for k in ks) / sum(math.exp(-(k**2) / (2 * s2)) for k in ks)


def _accept_exactly(word: int, centres, widths, rng: IntegerSource) -> bool:
    """Return the rare case: interval arithmetic (mpmath.iv) at growing precision against more bits of U."""
    from mpmath import iv  # deferred: the rare case only, and mpmath takes 30 ms to load

    def product(prec: int):
        out = iv.mpf(1)
        for centre, width in zip(centres, widths, strict=True):
            out *= _theta_ratio(centre, width, iv)
        return out

    return below(word, product, rng)


def _theta_ratio(centre: Fraction, sigma2: Fraction, iv):
    """ρ_s(Z − c)/ρ_s(Z) as an interval that contains it (truncation included), s² = ``sigma2``."""
    s2 = iv.mpf(sigma2.numerator) / sigma2.denominator
    c = iv.mpf((centre - math.floor(centre)).numerator) / (centre - math.floor(centre)).denominator
    eps = iv.mpf(2) ** -(iv.prec + 8)
    if float(sigma2) * 2 * math.pi >= 1:  # Poisson summation: terms q^{m²}, q ≤ e^{−π}
        q = iv.exp(-2 * iv.pi**2 * s2)
        num, den, m = iv.mpf(1), iv.mpf(1), 1
        while True:
            term = q ** (m * m)
            if term.b < eps:
                tail = 2 * term / (1 - q)  # Σ_{m' ≥ m} q^{m'²} ≤ q^{m²}/(1 − q), twice
                return (num + iv.mpf([-1, 1]) * tail) / (den + iv.mpf([0, 1]) * tail)
            num += 2 * term * iv.cos(2 * iv.pi * m * c)
            den += 2 * term
            m += 1
    # direct sum for narrow Gaussians: terms exp(−(k − c)²/2s²), e^{−1/2s²} < e^{−π}
    num, den, k = iv.exp(-(c**2) / (2 * s2)), iv.mpf(1), 1
    while True:
        terms = [iv.exp(-((k - c) ** 2) / (2 * s2)), iv.exp(-((k + c) ** 2) / (2 * s2))]
        base = iv.exp(-(iv.mpf(k) ** 2) / (2 * s2))
        if terms[0].b < eps and base.b < eps:
            ratio = iv.exp(-(2 * k - 1) / (2 * s2))  # later terms shrink at least geometrically by it
            tail = 2 * terms[0] / (1 - ratio)
            return (num + iv.mpf([0, 1]) * tail) / (den + iv.mpf([0, 1]) * 2 * base / (1 - ratio))
        num += terms[0] + terms[1]
        den += 2 * base
        k += 1
