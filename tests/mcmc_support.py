"""Compiled draws the samplers' tests check against exact laws: the double geometric sampler of the MCMC kernels
(:func:`isdp._rng.dg_draw`) and the data-augmentation chain's inner draws and one-step kernels
(:mod:`isdp.mcmc._augmented`), each run on its own seeded xoshiro stream as the samplers run them."""

from __future__ import annotations

import numpy as np
from numba import njit

from isdp import _validate as check
from isdp._rng import dg_draw, dg_table, seed_states
from isdp._runner import check_positive
from isdp.lattice import IntegerLattice, Target
from isdp.mcmc._augmented import (
    _checked,
    _coupled_iteration,
    _iteration,
    _structure,
    discrete_gaussian,
    inverse_gaussian,
    maximal_coupling_ig,
)
from isdp.mcmc._double_geometric import _check_draw_eps
from isdp.mcmc._kernels import copy_into
from isdp.mcmc._samplers import check_state

# --------------------------------------------------------------------------- the double geometric sampler


@njit(cache=True)
def _dg_fill(states, dg, out):
    per_stream = out.shape[1]
    for i in range(out.shape[0]):
        for j in range(per_stream):
            out[i, j] = dg_draw(states[i], dg)


def dg_rvs_compiled(eps: float, size: int, seed: int, max_table_bits: int = 11) -> np.ndarray:
    """DG(ε) draws from the compiled sampler the MCMC kernels use (for testing it).

    A small ``max_table_bits`` sends more draws through the sampler's exact tail fallback.
    """
    out = np.empty((1, int(size)), dtype=np.int64)
    _dg_fill(seed_states(seed, 1), dg_table(_check_draw_eps(eps), max_table_bits), out)
    return out[0]


# --------------------------------------------------------------------------- the data-augmentation chain


@njit(cache=True)
def _coupled_steps(x0, y0, rng, eps, blocks, restart, out_x, out_y, out_t):
    x = x0.copy()
    y = y0.copy()
    for r in range(out_x.shape[0]):
        if restart:
            copy_into(x, x0)
            copy_into(y, y0)
        out_t[r, 0], out_t[r, 1] = _coupled_iteration(x, y, rng, eps, blocks)
        copy_into(out_x[r], x)
        copy_into(out_y[r], y)


@njit(cache=True)
def _single_steps(x0, rng, eps, blocks, out_x, out_t):
    x = x0.copy()
    for r in range(out_x.shape[0]):
        copy_into(x, x0)
        out_t[r] = _iteration(x, rng, eps, blocks)
        copy_into(out_x[r], x)


@njit(cache=True)
def _fill_dg(rng, t, out):
    for i in range(out.shape[0]):
        out[i] = discrete_gaussian(rng, t)


@njit(cache=True)
def _fill_ig(rng, nu, lam, out):
    for i in range(out.shape[0]):
        out[i] = inverse_gaussian(rng, nu, lam)


@njit(cache=True)
def _fill_ig_coupled(rng, nu_x, nu_y, lam, out):
    for i in range(out.shape[0]):
        out[i, 0], out[i, 1] = maximal_coupling_ig(rng, nu_x, nu_y, lam)


def discrete_gaussian_rvs(t: float, size: int, seed: int) -> np.ndarray:
    """``size`` compiled draws of P(k) ∝ exp(−t k²)."""
    out = np.empty(check.size("size", size, 1), dtype=np.int64)
    _fill_dg(seed_states(seed, 1)[0], check_positive("t", t), out)
    return out


def inverse_gaussian_rvs(mean: float, shape: float, size: int, seed: int) -> np.ndarray:
    """``size`` compiled draws of InverseGaussian(mean, shape); ``mean = inf`` gives the Lévy law."""
    mean, shape = float(mean), check_positive("shape", shape)
    if not mean > 0:
        raise ValueError(f"mean must be positive (inf for the Lévy law), got {mean}")
    out = np.empty(check.size("size", size, 1), dtype=float)
    _fill_ig(seed_states(seed, 1)[0], 1.0 / mean, shape, out)
    return out


def coupled_ig_rvs(mean_x: float, mean_y: float, shape: float, size: int, seed: int) -> np.ndarray:
    """``size`` draws (size × 2) of the maximal coupling of IG(mean_x, shape) and IG(mean_y, shape)."""
    out = np.empty((check.size("size", size, 1), 2), dtype=float)
    _fill_ig_coupled(
        seed_states(seed, 1)[0], 1.0 / float(mean_x), 1.0 / float(mean_y), check_positive("shape", shape), out
    )
    return out


def coupled_iterations(lattice: IntegerLattice, target: Target, x, y, *, n_rep: int, seed: int, restart: bool = True):
    """Coupled iterations from the pair (x, y): ``n_rep`` independent one-step draws (``restart``) or
    one trajectory of ``n_rep`` iterations. Returns (x's, y's, (t_X, t_Y) per iteration)."""
    eps, blocks = _structure(lattice, target)
    x, y = check_state(lattice, x, "x"), check_state(lattice, y, "y")
    n_rep = check.size("n_rep", n_rep, 1)
    out_x = np.empty((n_rep, lattice.n), dtype=np.int64)
    out_y = np.empty((n_rep, lattice.n), dtype=np.int64)
    out_t = np.empty((n_rep, 2), dtype=float)
    _coupled_steps(x, y, seed_states(seed, 1)[0], eps, blocks, restart, out_x, out_y, out_t)
    return _checked(lattice, out_x), _checked(lattice, out_y), out_t


def single_iterations(lattice: IntegerLattice, target: Target, x, *, n_rep: int, seed: int):
    """``n_rep`` independent one-step draws of the single-chain kernel from x: (x's, t's)."""
    eps, blocks = _structure(lattice, target)
    x = check_state(lattice, x, "x")
    n_rep = check.size("n_rep", n_rep, 1)
    out_x = np.empty((n_rep, lattice.n), dtype=np.int64)
    out_t = np.empty(n_rep, dtype=float)
    _single_steps(x, seed_states(seed, 1)[0], eps, blocks, out_x, out_t)
    return _checked(lattice, out_x), out_t
