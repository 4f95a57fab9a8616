"""A data-augmentation Gibbs sampler for the ℓ2 generalized Laplace on sum constraints, and its coupling.

See docs/method.md §4, "ℓ2 by data augmentation", and docs/coupling-study.md.

Target π(u) ∝ exp(-ε‖u‖₂) on Λ(A), A one sum constraint or one sum per block of cells (cells in no
block are free). Subordination writes the Laplace factor as a mixture of Gaussians: for a > 0, r ≥ 0,

    exp(-a r) = ∫₀^∞ a / (2√π) · t^(-3/2) exp(-a² / (4t)) exp(-t r²) dt,

so π is the u-marginal of f(u, t) ∝ t^(-3/2) exp(-ε² / (4t)) exp(-t‖u‖²) on Λ(A) × (0, ∞), and
the Gibbs sampler on f alternates two exact draws:

- t | u ~ InverseGaussian(mean ε / (2‖u‖), shape ε² / 2) (Lévy with scale ε² / 2 when u = 0),
  by Michael, Schucany & Haas (1976);
- u | t: independent discrete Gaussians P(k) ∝ exp(-t k²) conditioned on every block summing
  to 0: draw all but one cell of a block, set the last to minus their sum and accept the block
  with probability exp(-t (last cell)²) (acceptance about 1/√(block size)). The discrete Gaussian
  is Canonne, Kamath & Steinke (2020) Algorithm 3: rejection from a discrete Laplace.

This is a different Markov chain from :func:`isdp.mcmc.sample` (ISDP Algorithm 1) with the same target;
its state is u (t is redrawn from u every iteration). Draws use floating-point logarithms: fine
for studying and certifying a chain, not a replacement for :mod:`isdp.exact` in a release.

Coupling two chains: the two t-draws are maximally coupled (Thorisson's rejection construction
with the closed-form inverse-Gaussian densities), then both u-draws use one common random
stream. When the t's coincide the u's coincide, and then every later pair of draws too: the pair
has met. Each chain, given the pair's past, moves by its own kernel, so the L-lag bound of
:mod:`isdp.mcmc` applies (:func:`isdp.convergence.certify_augmented`).
"""

from __future__ import annotations

import math
import time

import numpy as np
from numba import njit, uint64

from .. import _validate as check
from .._rng import next_u64, seed_states, uniform_pos
from .._runner import over_streams
from ..errors import InvariantError
from ..lattice import IntegerLattice, Target
from ._kernels import LAPLACE_L2
from ._meeting_times import MeetingTimes
from ._samplers import starting_states

#: the basis field of a certificate of this chain
CHAIN_NAME = "data augmentation (inverse-Gaussian / discrete Gaussian)"


# ---- exact draws -------------------------------------------------------------------------------


@njit(inline="always")
def _normal(rng):
    """Return standard normal (Box–Muller, one of the pair)."""
    return math.sqrt(-2.0 * math.log(uniform_pos(rng))) * math.cos(2.0 * math.pi * uniform_pos(rng))


@njit
def inverse_gaussian(rng, nu, lam):
    """InverseGaussian(mean 1/ν, shape λ); ν = 0 is the Lévy law λ / Z² (mean ∞).

    Michael, Schucany & Haas: with y = Z², x = μ / (1 + w + √(w(2 + w))), w = μy / (2λ) (the
    smaller root, in a form without cancellation), keep x with probability μ / (μ + x), else μ² / x.
    """
    z = _normal(rng)
    y = z * z
    if nu == 0.0:
        return lam / y if y > 0.0 else np.inf
    mu = 1.0 / nu
    w = mu * y / (2.0 * lam)
    x = mu / (1.0 + w + math.sqrt(w * (2.0 + w)))
    if uniform_pos(rng) * (mu + x) <= mu:
        return x
    return mu * mu / x


@njit(inline="always")
def ig_log_ratio(x, nu_p, nu_q, lam):
    """Log p(x) − log q(x) for inverse Gaussians of shape λ and means 1/ν_p, 1/ν_q (ν = 0 allowed)."""
    return -0.5 * lam * ((nu_p * nu_p - nu_q * nu_q) * x - 2.0 * (nu_p - nu_q))


@njit
def maximal_coupling_ig(rng, nu_x, nu_y, lam):
    """(t_X, t_Y) from the maximal coupling of IG(1/ν_X, λ) and IG(1/ν_Y, λ) (Thorisson).

    Equal with probability 1 − TV; always equal when ν_X = ν_Y.
    """
    tx = inverse_gaussian(rng, nu_x, lam)
    if math.log(uniform_pos(rng)) <= ig_log_ratio(tx, nu_y, nu_x, lam):
        return tx, tx
    while True:
        ty = inverse_gaussian(rng, nu_y, lam)
        if math.log(uniform_pos(rng)) > ig_log_ratio(ty, nu_x, nu_y, lam):
            return tx, ty


@njit
def discrete_gaussian(rng, t):
    """K with P(k) ∝ exp(−t k²), t > 0 (Canonne, Kamath & Steinke 2020, Algorithm 3).

    σ² = 1/(2t), s = ⌊σ⌋ + 1: Y ~ discrete Laplace P(y) ∝ exp(−|y|/s) (a difference of two
    geometrics), kept with probability exp(−(|Y| − σ²/s)² / (2σ²)); acceptance is at least ~0.4.
    """
    sigma2 = 0.5 / t
    if sigma2 == 0.0:  # t = ∞ (a Lévy draw of Z = 0): the point mass at 0
        return np.int64(0)
    s = math.floor(math.sqrt(sigma2)) + 1.0
    while True:
        g1 = math.floor(-s * math.log(uniform_pos(rng)))
        g2 = math.floor(-s * math.log(uniform_pos(rng)))
        y = g1 - g2
        d = abs(y) - sigma2 / s
        if uniform_pos(rng) <= math.exp(-d * d / (2.0 * sigma2)):
            return np.int64(y)


@njit
def draw_given_t(u, rng, t, blocks):
    """Draw u | t: discrete Gaussians exp(−t k²) on free cells, and per block conditioned on a zero sum.

    ``blocks`` as :func:`_structure` makes them.
    """
    block_ptr, block_cells, free_cells = blocks
    for c in free_cells:
        u[c] = discrete_gaussian(rng, t)
    for b in range(block_ptr.shape[0] - 1):
        lo, hi = block_ptr[b], block_ptr[b + 1]
        last = block_cells[hi - 1]
        while True:
            total = 0
            for p in range(lo, hi - 1):
                k = discrete_gaussian(rng, t)
                u[block_cells[p]] = k
                total += k
            if uniform_pos(rng) <= math.exp(-t * float(total) * float(total)):
                u[last] = -total
                break


@njit(inline="always")
def _nu(u, eps):
    """ν = 1/mean of t | u = 2‖u‖₂ / ε."""
    sumsq = 0.0
    for i in range(u.shape[0]):
        sumsq += float(u[i]) * float(u[i])
    return 2.0 * math.sqrt(sumsq) / eps


@njit(inline="always")
def _substream(rng):
    """Return a fresh xoshiro state drawn from ``rng``: the common stream of one coupled u-draw."""
    sub = np.empty(4, dtype=np.uint64)
    for i in range(4):
        sub[i] = next_u64(rng)
    if sub[0] == 0 and sub[1] == 0 and sub[2] == 0 and sub[3] == 0:
        sub[0] = uint64(1)
    return sub


@njit
def _iteration(u, rng, eps, blocks):
    lam = 0.5 * eps * eps
    t = inverse_gaussian(rng, _nu(u, eps), lam)
    draw_given_t(u, _substream(rng), t, blocks)
    return t


@njit
def _coupled_iteration(x, y, rng, eps, blocks):
    lam = 0.5 * eps * eps
    tx, ty = maximal_coupling_ig(rng, _nu(x, eps), _nu(y, eps), lam)
    sub = _substream(rng)
    draw_given_t(x, sub.copy(), tx, blocks)
    draw_given_t(y, sub, ty, blocks)
    return tx, ty


# ---- compiled runs -----------------------------------------------------------------------------


@njit(nogil=True, cache=True)
def _run(lo, hi, u, rng, eps, blocks, burn_in, thin, out):
    for c in range(lo, hi):
        for _ in range(burn_in):
            _iteration(u[c], rng[c], eps, blocks)
        for d in range(out.shape[1]):
            for _ in range(thin):
                _iteration(u[c], rng[c], eps, blocks)
            out[c, d] = u[c]


@njit(nogil=True, cache=True)
def _meeting_times(lo, hi, init, rng, eps, blocks, lag, max_iter, tau, met):
    for p in range(lo, hi):
        x = init[p].copy()
        y = init[p].copy()
        for _ in range(lag):
            _iteration(x, rng[p], eps, blocks)
        t = lag
        met[p] = False
        while t < max_iter:
            t += 1
            _coupled_iteration(x, y, rng[p], eps, blocks)
            if np.array_equal(x, y):
                met[p] = True
                break
        tau[p] = t


# ---- public API --------------------------------------------------------------------------------


def _structure(lattice: IntegerLattice, target: Target):
    """(ε, blocks) of a sum-block lattice and an ℓ2 Laplace target.

    The kernels' ``blocks`` = (block_ptr, block_cells, free_cells), block b's cells being
    ``block_cells[block_ptr[b]:block_ptr[b+1]]``.
    """
    if not isinstance(lattice, IntegerLattice):
        raise TypeError(f"lattice must be an IntegerLattice, got {type(lattice).__name__}")
    if not isinstance(target, Target) or target.code != LAPLACE_L2:
        raise ValueError(f"the data-augmentation sampler targets the ℓ2 generalized Laplace, got {target!r}")
    blocks = lattice.sum_blocks
    if blocks is None:
        raise ValueError(
            "the data-augmentation sampler needs one sum constraint, or one sum per block of "
            "cells (A with 0/1 entries, each cell in at most one row)"
        )
    block_ptr = np.cumsum([0] + [len(b) for b in blocks]).astype(np.int64)
    block_cells = np.concatenate(blocks).astype(np.int64)
    free_cells = np.setdiff1d(np.arange(lattice.n), block_cells).astype(np.int64)
    return float(target.scale), (block_ptr, block_cells, free_cells)


def _checked(lattice: IntegerLattice, draws: np.ndarray) -> np.ndarray:
    """Return the draws, after checking every one is an integer vector of Λ(A) (A u = 0 exactly)."""
    flat = draws.reshape(-1, lattice.n)
    if flat.size and not lattice.contains(flat):
        raise InvariantError("a data-augmentation draw left Λ(A): this is a bug, nothing is returned")
    return draws


def augmented_sample(
    lattice: IntegerLattice,
    target: Target,
    *,
    n_chains: int,
    n_draws: int,
    seed: int,
    burn_in: int = 0,
    thin: int = 1,
    init=None,
) -> np.ndarray:
    """``n_chains`` independent data-augmentation chains for the ℓ2 Laplace ``target`` on a sum-block ``lattice``.

    Each iteration draws t | u (inverse Gaussian) and then u | t (discrete Gaussians conditioned on
    every block summing to 0), both exactly; the chain keeps every ``thin``-th iteration after
    ``burn_in``. Certify the burn-in with :func:`isdp.convergence.certify_augmented`.

    Parameters
    ----------
    lattice : IntegerLattice
        Λ(A) for one sum constraint, or one sum per block of cells (cells in no block are free).
    target : Target
        The ℓ2 generalized Laplace, π(u) ∝ exp(−ε‖u‖₂) (``generalized_laplace(eps, "l2")``).
    n_chains : int
        Number of independent chains (≥ 1), run in parallel.
    n_draws : int
        Draws kept per chain (≥ 0).
    seed : int
        Non-negative seed; each chain has its own random stream, so the draws do not depend on the
        number of threads.
    burn_in : int, default 0
        Iterations discarded before the first kept draw.
    thin : int, default 1
        Keep every ``thin``-th iteration: draw j is the state after ``burn_in + j·thin`` iterations.
    init : array_like of int, optional
        Start: one lattice vector for all chains, shape (n,), or one per chain, (n_chains, n).
        Default u = 0.

    Returns
    -------
    numpy.ndarray
        int64, shape (n_chains, n_draws, n); every draw is checked to lie in Λ(A).

    Raises
    ------
    ValueError
        If the target is not the ℓ2 Laplace, A is not a set of block sums, or a count is out of range.
    isdp.errors.InvariantError
        If ``init`` is not in Λ(A) (or a draw left it, which would be a bug).

    See Also
    --------
    augmented_meeting_times : the coupled pairs of this chain.
    isdp.mcmc.sample : the Metropolis sampler (ISDP Algorithm 1) for the same target.

    Notes
    -----
    For a > 0 and r ≥ 0, e^(−ar) = ∫₀^∞ a/(2√π) t^(−3/2) e^(−a²/(4t)) e^(−t r²) dt, so π is the u-marginal
    of f(u, t) ∝ t^(−3/2) e^(−ε²/(4t)) e^(−t‖u‖²); t | u is inverse Gaussian with mean ε/(2‖u‖) and
    shape ε²/2 (Michael, Schucany & Haas 1976), u | t a vector of discrete Gaussians e^(−t k²)
    (Canonne, Kamath & Steinke 2020, Algorithm 3) conditioned on zero block sums by rejection. It is
    a different Markov chain from ISDP Algorithm 1 with the same target (docs/method.md §4, "ℓ2 by
    data augmentation"). Draws use floating-point logarithms: for studying and certifying a chain,
    not for a release (:mod:`isdp.exact`).

    Examples
    --------
    >>> from isdp.lattice import IntegerLattice, generalized_laplace, sum_constraint
    >>> from isdp.mcmc import augmented_sample
    >>> lattice = IntegerLattice.from_constraints(sum_constraint(3))
    >>> draws = augmented_sample(lattice, generalized_laplace(1.0, "l2"), n_chains=2, n_draws=3, seed=0,
    ...                          burn_in=5)
    >>> draws.shape, draws.sum(axis=-1).tolist()
    ((2, 3, 3), [[0, 0, 0], [0, 0, 0]])
    """
    eps, blocks = _structure(lattice, target)
    n_chains, n_draws = check.size("n_chains", n_chains, 1), check.size("n_draws", n_draws, 0)
    burn_in, thin = check.size("burn_in", burn_in, 0), check.size("thin", thin, 1)
    u = starting_states(lattice, init, n_chains)
    out = np.zeros((n_chains, n_draws, lattice.n), dtype=np.int64)
    over_streams(_run, n_chains, u, seed_states(seed, n_chains), eps, blocks, burn_in, thin, out)
    return _checked(lattice, out)


def augmented_meeting_times(
    lattice: IntegerLattice, target: Target, *, lag: int, n_pairs: int, seed: int, max_iter: int = 100_000, init=None
) -> MeetingTimes:
    """L-lag meeting times of ``n_pairs`` coupled pairs of the data-augmentation chain :func:`augmented_sample`.

    Pair p starts at X₀ = Y₀ = ``init[p]`` (default 0); X runs ``lag`` iterations alone, then the
    pair moves under the coupled kernel until X_t = Y_{t−L}. Censored pairs have ``met = False`` and
    ``tau = max_iter``. :func:`isdp.convergence.certify_augmented` turns them into a certificate.

    Parameters
    ----------
    lattice : IntegerLattice
        Λ(A) for one sum constraint, or one sum per block of cells.
    target : Target
        The ℓ2 generalized Laplace target.
    lag : int
        The lag L, 1 ≤ L ≤ ``max_iter``.
    n_pairs : int
        Number of independent pairs (≥ 1), run in parallel.
    seed : int
        Non-negative seed; one random stream per pair.
    max_iter : int, default 100_000
        Censoring time of a pair, lag included.
    init : array_like of int, optional
        Start of both chains: one lattice vector for all pairs, shape (n,), or one per pair,
        (n_pairs, n). Default u = 0.

    Returns
    -------
    MeetingTimes
        τ and ``met`` per pair, the lag and the wall time.

    Raises
    ------
    ValueError
        If the target is not the ℓ2 Laplace, A is not a set of block sums, or a count is out of range.
    isdp.errors.InvariantError
        If ``init`` is not in Λ(A).

    Notes
    -----
    The two t-draws come from the maximal coupling of the two inverse-Gaussian laws (Thorisson's
    construction, closed-form log-density ratio) and both u-draws read one common random stream,
    so equal t's give equal u's and a met pair stays met, while each chain moves by its own kernel:
    the L-lag bound of Biswas, Jacob & Vanetti (2019) applies (docs/method.md §4).

    Examples
    --------
    >>> from isdp.lattice import IntegerLattice, generalized_laplace, sum_constraint
    >>> from isdp.mcmc import augmented_meeting_times
    >>> lattice = IntegerLattice.from_constraints(sum_constraint(3))
    >>> mt = augmented_meeting_times(lattice, generalized_laplace(1.0, "l2"), lag=5, n_pairs=4, seed=0,
    ...                              max_iter=100)
    >>> bool(mt.met.all()), int(mt.tau.max()) <= 20
    (True, True)
    """
    eps, blocks = _structure(lattice, target)
    max_iter = check.size("max_iter", max_iter, 1)
    lag, n_pairs = check.size("lag", lag, 1, high=max_iter), check.size("n_pairs", n_pairs, 1)
    start = starting_states(lattice, init, n_pairs)
    tau = np.zeros(n_pairs, dtype=np.int64)
    met = np.zeros(n_pairs, dtype=np.bool_)
    tick = time.perf_counter()
    over_streams(_meeting_times, n_pairs, start, seed_states(seed, n_pairs), eps, blocks, lag, max_iter, tau, met)
    return MeetingTimes(tau=tau, met=met, lag=lag, seconds=time.perf_counter() - tick, chain=CHAIN_NAME)
