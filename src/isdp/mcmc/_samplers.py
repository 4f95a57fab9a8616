"""Gibbs-within-Metropolis sampler for lattice targets (ISDP Algorithm 1; docs/method.md §3).

State u = B w. An iteration sweeps j = 1..k: draw z ~ DG(ε_prop), propose u + z B[:, j],
accept with probability min(1, π(u')/π(u)). Every proposal stays in Λ(A), so the invariants
hold at every step. Chains run in parallel threads (:func:`isdp._runner.over_streams`), each with
its own random stream, so a seed fixes the draws whatever the number of threads.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np
from numba import njit

from .. import _validate as check
from .._rng import seed_states
from .._runner import check_dg_eps, check_grid, check_range, over_streams, run_chunked
from ..errors import InvariantError
from ..lattice import IntegerLattice, Target
from ._kernels import (
    GAUSSIAN,
    LAPLACE_L1,
    LAPLACE_L2,
    basis_csr,
    component_sweep,
    copy_into,
    joint_sweep,
    squared_norm,
    sweep_law,
)

log = logging.getLogger(__name__)

UPDATES = ("component", "joint")


@dataclass
class SamplerResult:
    """The draws and bookkeeping of one :func:`sample` run.

    Parameters
    ----------
    draws : numpy.ndarray
        An int64 array of shape (n_chains, n_draws, n): the retained noise vectors u ∈ Λ(A).
        A release is x + u.
    acceptance : numpy.ndarray
        A float array of shape (n_chains,): accepted proposals / proposals per chain over all
        ``n_iterations``. With ``update="component"`` there are k proposals per iteration and a
        zero pre-jump (z = 0) counts as accepted; with ``"joint"`` there is one.
    final_state : numpy.ndarray
        An int64 array of shape (n_chains, n): the state of each chain after the last
        iteration (a start for a continued run).
    burn_in : int
        Iterations run before the first retained draw.
    thin : int
        Iterations between retained draws.
    n_iterations : int
        Iterations per chain, ``burn_in + n_draws · thin``.
    seed : int
        The seed of the run.
    proposal_eps : float
        ε̃ of the double geometric pre-jumps.
    update : str
        ``"component"`` or ``"joint"`` (see :func:`sample`).
    seconds : float
        Wall-clock time of the run.

    See Also
    --------
    sample : The run that returns it.
    isdp.convergence.convergence_table : R-hat and ESS of ``draws``.

    Examples
    --------
    >>> from isdp.lattice import IntegerLattice, generalized_laplace, sum_constraint
    >>> from isdp.mcmc import sample
    >>> lattice = IntegerLattice.from_constraints(sum_constraint(3))
    >>> result = sample(lattice, generalized_laplace(1.0), n_chains=2, n_draws=100, burn_in=50,
    ...                 proposal_eps=1.0, seed=0, progress=False)
    >>> result.draws.shape, result.n_iterations
    ((2, 100, 3), 150)
    >>> [round(a, 3) for a in result.acceptance.tolist()]
    [0.563, 0.61]
    >>> result.final_state.tolist()
    [[-1, 1, 0], [0, -2, 2]]
    """

    draws: np.ndarray  # int64 (chains, draws, n): retained noise vectors
    acceptance: np.ndarray  # per chain: accepted / proposed (a z = 0 proposal counts as accepted)
    final_state: np.ndarray  # int64 (chains, n): where each chain stopped
    burn_in: int
    thin: int
    n_iterations: int
    seed: int
    proposal_eps: float
    update: str
    seconds: float


@njit(cache=True)
def _run_chain(uc, s, rng, csr, law, t0, n_iter, burn_in, thin, out, joint):
    """One chain's iterations t0..t0+n_iter; returns (accepted, squared norm)."""
    code, param, dg, exp_l1 = law
    scratch = np.empty_like(uc)
    zbuf = np.empty(csr[0].shape[0] - 1, dtype=np.int64)
    wdummy = np.empty(0, dtype=np.int64)
    acc = 0
    for t in range(t0, t0 + n_iter):
        if joint:
            got, s = joint_sweep(uc, s, rng, csr, law, scratch, zbuf)
        # A constant target code lets the compiler drop the other targets' branches from the sweep
        # (measured 20 → 36 M updates/s on the 102-cell ℓ1 case).
        elif code == LAPLACE_L1:
            got, s = component_sweep(uc, s, rng, csr, (LAPLACE_L1, param, dg, exp_l1), wdummy, 0)
        elif code == LAPLACE_L2:
            got, s = component_sweep(uc, s, rng, csr, (LAPLACE_L2, param, dg, exp_l1), wdummy, 0)
        else:
            got, s = component_sweep(uc, s, rng, csr, (GAUSSIAN, param, dg, exp_l1), wdummy, 0)
        acc += got
        done = t + 1 - burn_in
        if done > 0 and done % thin == 0:
            copy_into(out[done // thin - 1], uc)
    return acc, s


@njit(nogil=True, cache=True)
def _run(lo, hi, u, sumsq, rng, csr, law, t0, n_iter, burn_in, thin, out, accepted, joint):
    for c in range(lo, hi):
        acc, sumsq[c] = _run_chain(u[c], sumsq[c], rng[c], csr, law, t0, n_iter, burn_in, thin, out[c], joint)
        accepted[c] += acc


def starting_states(lattice: IntegerLattice, init, n_chains: int) -> np.ndarray:
    """Return the int64 start (n_chains, n) of ``n_chains`` chains.

    0 when ``init`` is None, else ``init`` (one lattice vector for all chains, or one per chain), checked to lie in Λ(A)
    with ‖u‖₂² exact in int64.

    The samplers check their ``init`` this way; a new sampler built from the kernels' pieces
    (:func:`sweep_law`, :func:`basis_csr`) starts from it too.

    Parameters
    ----------
    lattice : isdp.lattice.IntegerLattice
        Λ(A), the lattice the chains move on.
    init : array_like of int or None
        None (every chain at 0), one vector of shape (n,) for all chains, or one per chain, shape
        (n_chains, n).
    n_chains : int
        The number of chains.

    Returns
    -------
    numpy.ndarray
        int64, shape (n_chains, n), C-ordered, a fresh array the kernels may update in place.

    Raises
    ------
    isdp.errors.InvariantError
        If ``init`` has the wrong shape, a vector is not in Λ(A) (A u = 0 in integers), or ‖u‖₂²
        exceeds the exact int64 range.

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.lattice import IntegerLattice
    >>> from isdp.mcmc._samplers import starting_states
    >>> lattice = IntegerLattice.from_constraints(np.ones((1, 3), dtype=np.int64))
    >>> starting_states(lattice, None, 2).tolist(), starting_states(lattice, [1, -1, 0], 2).tolist()
    ([[0, 0, 0], [0, 0, 0]], [[1, -1, 0], [1, -1, 0]])
    >>> starting_states(lattice, [1, 0, 0], 2)
    Traceback (most recent call last):
    ...
    isdp.errors.InvariantError: every initial state must be an integer vector in Λ(A) (A u = 0)
    """
    if init is None:
        return np.zeros((n_chains, lattice.n), dtype=np.int64)
    init = np.asarray(init)
    if init.ndim == 1:
        init = np.broadcast_to(init, (n_chains, init.shape[0]))
    if init.shape != (n_chains, lattice.n):
        raise InvariantError(f"init has shape {init.shape}, expected ({n_chains}, {lattice.n})")
    if not lattice.contains(init):
        raise InvariantError("every initial state must be an integer vector in Λ(A) (A u = 0)")
    try:
        squared_norm(np.asarray(init, dtype=np.int64))  # the kernels keep ‖u‖₂² as an exact int64
    except (ValueError, OverflowError) as err:
        raise InvariantError(f"init: {err}") from None
    # C order whatever the caller's layout: the kernels are compiled (and cached) once per array layout
    return np.array(init, dtype=np.int64, order="C")


def check_state(lattice, u, name: str) -> np.ndarray:
    """Return ``u`` as one int64 vector of ``lattice``, or an InvariantError naming ``name`` and the problem.

    A vector of the lattice has n cells, integer entries, A u = 0 and ‖u‖₂² within the exact int64 range.
    """
    arr = np.asarray(u)
    if arr.shape != (lattice.n,):
        raise InvariantError(f"{name} must be one vector of {lattice.n} cells, got shape {arr.shape}")
    if not lattice.contains(arr):
        raise InvariantError(f"{name} must be an integer vector in Λ(A) (A u = 0), got {arr.tolist()!r}")
    arr = np.array(arr, dtype=np.int64)
    try:
        squared_norm(arr)  # the kernels keep ‖u‖₂² as an exact int64
    except ValueError as err:
        raise InvariantError(f"{name}: {err}") from None
    return arr


def sample(
    lattice: IntegerLattice,
    target: Target,
    *,
    n_chains: int,
    n_draws: int,
    proposal_eps: float,
    seed: int,
    burn_in: int = 0,
    thin: int = 1,
    init=None,
    update: str = "component",
    progress: bool = True,
) -> SamplerResult:
    """Draw integer noise u ~ π on Λ(A) by Gibbs-within-Metropolis (ISDP Algorithm 1).

    Runs ``n_chains`` independent chains for ``burn_in + n_draws · thin`` iterations each and
    keeps the state after iterations ``burn_in + thin``, ``burn_in + 2·thin``, …. Every state
    is in Λ(A), so x + u meets every invariant of x exactly. The run is compiled (numba), and the
    chains run in parallel threads.

    Parameters
    ----------
    lattice : IntegerLattice
        The noise lattice Λ(A); the chain moves along the columns of ``lattice.basis`` (see
        :func:`isdp.lattice.with_mixing_basis` for bases that mix better).
    target : Target
        The target law, :func:`generalized_laplace` or :func:`generalized_gaussian`.
    n_chains : int
        The number of independent chains, at least 1.
    n_draws : int
        The draws kept per chain, at least 0.
    proposal_eps : float
        ε̃ of the double geometric pre-jumps DG(ε̃), in [1e-9, 700]: smaller values propose
        longer jumps, accepted less often. A tuning parameter with no effect on the target law;
        :func:`tune_proposal` chooses one.
    seed : int
        A non-negative integer. Each chain gets its own xoshiro256** stream spawned from
        ``numpy.random.SeedSequence(seed)``, so a seed fixes the draws whatever the thread count.
    burn_in : int, default 0
        Iterations run before the first kept draw.
    thin : int, default 1
        Iterations between kept draws, at least 1.
    init : array_like of int, optional
        The start: one lattice vector of shape (n,) for every chain, or one per chain, shape
        (n_chains, n). Default: u = 0 for every chain.
    update : {"component", "joint"}, default "component"
        What one iteration does.

        - ``"component"`` (ISDP Algorithm 1): sweep the k basis columns in order; for column j
          draw a pre-jump z ~ DG(ε̃), propose u + z·B[:, j] and accept it with probability
          min(1, π(u')/π(u)). One iteration is k Metropolis steps.
        - ``"joint"``: draw all k pre-jumps at once, propose u + B z and accept or reject the
          whole move once. One iteration is one Metropolis step; its acceptance falls quickly
          as k grows, so it is mainly a comparison for the component sweep.

        Both leave π invariant (the proposals are symmetric and stay in Λ(A)).
    progress : bool, default True
        Log the progress about every 5 s on the ``isdp.mcmc`` logger.

    Returns
    -------
    SamplerResult
        ``draws`` int64 of shape (n_chains, n_draws, n) — the noise, not the release — with the
        per-chain acceptance, the final states and the settings of the run.

    Raises
    ------
    ValueError
        If ``update`` is unknown, a count is out of range, ``proposal_eps`` is outside
        [1e-9, 700] or ``seed`` is not a non-negative integer.
    InvariantError
        If ``init`` has the wrong shape, is not an integer vector in Λ(A), or its ‖u‖₂² reaches
        2⁶² (the kernels keep it as an exact int64).

    See Also
    --------
    tune_proposal : Choose ``proposal_eps``.
    isdp.convergence.certify : A certified burn-in for the same chain.
    isdp.convergence.convergence_table : R-hat and ESS of the draws.

    Notes
    -----
    The state is u = B w. The pre-jumps are symmetric and every proposal stays in Λ(A), so the
    Metropolis step leaves π invariant on the lattice. The draws are not independent: check
    convergence (:func:`isdp.convergence.certify`, :func:`isdp.convergence.convergence_table`) before using them.

    Examples
    --------
    Noise that keeps the total of three cells:

    >>> import numpy as np
    >>> from isdp.lattice import IntegerLattice, generalized_laplace, sum_constraint
    >>> from isdp.mcmc import sample
    >>> A = sum_constraint(3)
    >>> lattice = IntegerLattice.from_constraints(A)
    >>> result = sample(lattice, generalized_laplace(1.0), n_chains=2, n_draws=100, burn_in=50,
    ...                 proposal_eps=1.0, seed=0, progress=False)
    >>> result.draws.shape
    (2, 100, 3)
    >>> x = np.array([5, 2, 7])
    >>> release = x + result.draws[0, -1]
    >>> release.tolist(), bool((A @ release == A @ x).all())
    ([4, 3, 7], True)

    The joint update, a Gaussian target, a start and thinning:

    >>> from isdp.lattice import generalized_gaussian
    >>> result = sample(lattice, generalized_gaussian(2.0), n_chains=1, n_draws=3, thin=10,
    ...                 init=[3, -3, 0], update="joint", proposal_eps=0.5, seed=1, progress=False)
    >>> result.draws[0].tolist(), result.n_iterations
    ([[2, -3, 1], [2, 0, -2], [0, 0, 0]], 30)
    """
    if update not in UPDATES:
        raise ValueError(f"update must be one of {UPDATES}, got {update!r}")
    n_chains, n_draws = check.size("n_chains", n_chains, 1), check.size("n_draws", n_draws, 0)
    thin, burn_in = check.size("thin", thin, 1), check.size("burn_in", burn_in, 0)
    proposal_eps = check_dg_eps("proposal_eps", proposal_eps)
    u = starting_states(lattice, init, n_chains)
    sumsq = (u * u).sum(axis=1)
    rng = seed_states(seed, n_chains)
    csr, law = basis_csr(lattice.basis), sweep_law(target, proposal_eps)
    n_iter = burn_in + n_draws * thin
    out = np.zeros((n_chains, n_draws, lattice.n), dtype=np.int64)
    accepted = np.zeros(n_chains, dtype=np.int64)
    joint = update == "joint"

    def step(t, n):
        over_streams(_run, n_chains, u, sumsq, rng, csr, law, t, n, burn_in, thin, out, accepted, joint)

    seconds = run_chunked(step, n_iter, log=log, label=f"sampling {target.label}", progress=progress)

    per_iter = 1 if joint else lattice.dim
    result = SamplerResult(
        draws=out,
        acceptance=accepted / max(n_iter * per_iter, 1),
        final_state=u,
        burn_in=burn_in,
        thin=thin,
        n_iterations=n_iter,
        seed=seed,
        proposal_eps=float(proposal_eps),
        update=update,
        seconds=seconds,
    )
    if not lattice.contains(out.reshape(-1, lattice.n)):  # invariants hold by construction; check anyway
        raise InvariantError("sampler produced a draw outside Λ(A); this is a bug in isdp")
    return result


def tune_proposal(
    lattice: IntegerLattice,
    target: Target,
    grid,
    *,
    n_chains: int = 4,
    n_iter: int = 2000,
    seed: int = 0,
    acceptance_range: tuple[float, float] = (0.2, 0.5),
):
    """Choose ``proposal_eps`` for :func:`sample` by short pilot runs over a grid.

    For each ε̃ of the grid, runs :func:`sample` (component update, from u = 0, no burn-in) and
    measures the component acceptance rate and the mean squared jump distance (MSJD, ‖Δu‖₂² per
    iteration over the second half of the run, a standard efficiency criterion). The choice
    maximises MSJD among the values whose acceptance lies in ``acceptance_range`` (among all
    values if none does).

    Parameters
    ----------
    lattice : IntegerLattice
        The noise lattice, with the basis the real run will use.
    target : Target
        The target law.
    grid : sequence of float
        The candidate values of ε̃, each in [1e-9, 700], e.g. ``(0.05, 0.1, 0.2, 0.4, 0.8)``.
    n_chains : int, default 4
        Chains per pilot run.
    n_iter : int, default 2000
        Iterations per pilot chain, at least 4.
    seed : int, default 0
        The seed of every pilot run (the same for each grid value).
    acceptance_range : tuple of float, default (0.2, 0.5)
        The acceptance rates (lo, hi), 0 ≤ lo ≤ hi ≤ 1, a value must reach to be eligible.

    Returns
    -------
    table : pandas.DataFrame
        One row per grid value: ``proposal_eps``, ``acceptance`` (mean over chains), ``msjd``,
        ``in_range`` (acceptance within ``acceptance_range``) and ``chosen``.
    chosen : float
        The chosen ε̃.

    Raises
    ------
    ValueError
        If the grid is empty or holds an unusable ε̃, a count is out of range, or
        ``acceptance_range`` is not a pair within [0, 1].

    Examples
    --------
    >>> from isdp.lattice import IntegerLattice, generalized_laplace, sum_constraint
    >>> from isdp.mcmc import tune_proposal
    >>> lattice = IntegerLattice.from_constraints(sum_constraint(3))
    >>> table, chosen = tune_proposal(lattice, generalized_laplace(1.0), [0.3, 1.0, 3.0], n_iter=200)
    >>> print(table.round(3).to_string(index=False))
     proposal_eps  acceptance  msjd  in_range  chosen
              0.3       0.269 1.283      True    True
              1.0       0.591 0.980     False   False
              3.0       0.932 0.187     False   False
    >>> chosen
    0.3
    """
    import pandas as pd  # deferred: pandas costs 0.25 s at import, and only this table needs it

    grid = check_grid("grid", grid)
    n_chains = check.size("n_chains", n_chains, 1)
    n_iter = check.size("n_iter", n_iter, 4)  # the second half must hold at least one jump
    acceptance_range = check_range("acceptance_range", acceptance_range)

    rows = []
    for eps_prop in grid:
        res = sample(
            lattice, target, n_chains=n_chains, n_draws=n_iter, proposal_eps=float(eps_prop), seed=seed, progress=False
        )
        jumps = np.diff(res.draws[:, n_iter // 2 :], axis=1)  # second half: past the start-up
        rows.append(
            {
                "proposal_eps": float(eps_prop),
                "acceptance": float(res.acceptance.mean()),
                "msjd": float((jumps.astype(float) ** 2).sum(axis=2).mean()),
            }
        )
    table = pd.DataFrame(rows)
    lo, hi = acceptance_range
    table["in_range"] = table["acceptance"].between(lo, hi)
    pool = table[table["in_range"]] if table["in_range"].any() else table
    chosen = float(pool.loc[pool["msjd"].idxmax(), "proposal_eps"])
    table["chosen"] = table["proposal_eps"] == chosen
    return table, chosen
