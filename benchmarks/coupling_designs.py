"""Alternative L-lag couplings of the component-wise sampler, for the coupling scaling study
(docs/coupling-study.md): the benchmarks' support module, built from the compiled pieces of :mod:`isdp.mcmc`.

It imports those pieces from their private modules (the one module outside the library allowed to: see
tests/workflow/test_layout.py), so that its design of the library's own coupling draws the same random
streams and reproduces :func:`isdp.mcmc.meeting_times` draw for draw.

A *design* fixes

- the move set: the lattice's own (Smith) basis, the path basis e_i - e_{i+1} or every pair
  e_i - e_l (the last two for a single sum constraint only);
- the scan: systematic (every move in turn, as the sampler) or random (``lattice.dim`` moves
  per iteration, each drawn uniformly, the same move in both chains), so an iteration costs
  the same number of column updates in every design;
- the anchor: what the coupled pre-jumps try to equalise — the move's lattice coordinate (as
  :mod:`isdp.mcmc`; needs a basis) or one cell of the move (the *anchor cell*);
- the coupling of the two pre-jumps along the chosen move: maximal with independent residuals
  (as :mod:`isdp.mcmc`), maximal with reflected residuals (z_Y = -z_X), and optionally
  common jumps z_Y = z_X while the chains are more than ``far_gap`` apart in ℓ1.

Each pre-jump is marginally DG(a) and one common uniform decides both accept steps (the maximal
coupling of the two accept events), so each chain, given the pair's past, moves by its own
Metropolis kernel: the coupling may depend on both states, the move choice may not. The
chains have met when every cell agrees.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from numba import njit, uint64

from isdp._rng import dg_draw, next_u64, seed_states, uniform_pos
from isdp._runner import over_streams
from isdp.errors import InvariantError
from isdp.lattice import IntegerLattice, Target
from isdp.mcmc import MeetingTimes
from isdp.mcmc._double_geometric import maximal_coupling_dg
from isdp.mcmc._kernels import LAPLACE_L1, LAPLACE_L2, acceptance_ratio, apply_move, basis_csr, norm_change, sweep_law
from isdp.mcmc._samplers import starting_states

BASES = ("smith", "path", "pairs")
SCANS = ("systematic", "random")
ANCHORS = ("coordinate", "cell")
PROPOSALS = ("maximal", "reflection")
_SYSTEMATIC = 0  # SCANS.index("systematic")
_MAXIMAL = 0  # PROPOSALS.index("maximal")
_NEVER = np.iinfo(np.int64).max


def _count(name: str, value, low: int) -> int:
    """``value`` as an int, or a ValueError unless it is an integer ≥ ``low``."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)


def _proposal_eps(value) -> float:
    """``value`` as a float, or a ValueError unless it is a positive finite ε."""
    if not 0.0 < float(value) < np.inf:
        raise ValueError(f"proposal_eps must be positive and finite, got {value!r}")
    return float(value)


def _state(lattice: IntegerLattice, u, name: str) -> np.ndarray:
    """``u`` as one int64 state of ``lattice``, or an InvariantError naming ``name``."""
    if np.ndim(u) != 1:
        raise InvariantError(f"{name} must be one vector of {lattice.n} cells, got shape {np.shape(u)}")
    return starting_states(lattice, u, 1)[0]


@dataclass(frozen=True)
class Design:
    """One coupled kernel: move set, scan and pre-jump coupling (see the module docstring)."""

    name: str
    basis: str = "smith"
    scan: str = "systematic"
    anchor: str = "coordinate"
    proposal: str = "maximal"
    far_gap: int | None = None  # common jumps while ‖x - y‖₁ exceeds this; None: never

    def __post_init__(self):
        if (
            self.basis not in BASES
            or self.scan not in SCANS
            or self.anchor not in ANCHORS
            or self.proposal not in PROPOSALS
        ):
            raise ValueError(f"unknown design {self}")
        if self.basis == "pairs" and (self.scan == "systematic" or self.anchor == "coordinate"):
            raise ValueError("the pair move set (not a basis) needs a random scan and cell anchors")


DESIGNS = {
    d.name: d
    for d in (
        Design("smith-maximal"),  # = isdp.mcmc.meeting_times
        Design("smith-reflection", proposal="reflection"),
        Design("smith-random", scan="random"),
        Design("path-maximal", basis="path"),  # = isdp.mcmc on the path-basis lattice
        Design("path-reflection", basis="path", proposal="reflection"),
        Design("path-random", basis="path", scan="random"),
        Design("path-cell", basis="path", anchor="cell"),
        Design("pairs-random", basis="pairs", scan="random", anchor="cell"),
        Design("path-two-phase", basis="path", proposal="reflection", far_gap=20),
    )
}


def design_moves(lattice: IntegerLattice, basis: str):
    """(moves n × m, anchor cell of each move) for a move set.

    The Smith basis anchors each column at its ±1 cell shared with the fewest other columns
    (for one sum constraint: the non-hub cell, so the anchor difference is the lattice
    coordinate difference that :mod:`isdp.mcmc` couples). The path basis anchors
    e_i - e_{i+1} at i, so a systematic sweep pushes differences to the right; e_i - e_l
    (i < l) is anchored at i.
    """
    n = lattice.n
    if basis == "smith":
        moves = lattice.basis
        nz = moves != 0
        share = nz.sum(axis=1)
        anchors = np.empty(moves.shape[1], dtype=np.int64)
        for j in range(moves.shape[1]):
            cells = np.flatnonzero(np.abs(moves[:, j]) == 1)
            if cells.size == 0:
                raise ValueError(f"basis column {j} has no ±1 entry to anchor a coupled jump on")
            anchors[j] = cells[np.argmin(share[cells])]
        return moves, anchors
    if lattice.rank != 1 or np.any(lattice.A != lattice.A[0, 0]):
        raise ValueError(f"the {basis!r} move set is defined for a single sum constraint only")
    if basis == "path":
        moves = np.zeros((n, n - 1), dtype=np.int64)
        moves[np.arange(n - 1), np.arange(n - 1)] = 1
        moves[np.arange(1, n), np.arange(n - 1)] = -1
        return moves, np.arange(n - 1, dtype=np.int64)
    first, second = np.triu_indices(n, 1)
    moves = np.zeros((n, first.size), dtype=np.int64)
    moves[first, np.arange(first.size)] = 1
    moves[second, np.arange(first.size)] = -1
    return moves, first.astype(np.int64)


@njit(inline="always")
def _pick(rng, j, n_moves, scan):
    """Index of the next move: in turn, or uniformly at random (modulo bias < 2^-50)."""
    if scan == _SYSTEMATIC:
        return j
    return np.int64(next_u64(rng) % uint64(n_moves))


@njit(inline="always")
def _ratio(u, sumsq, idx, val, start, end, z, law):
    """(acceptance ratio of the move, squared norm after it), as the sampler's sweep computes them."""
    code, param, _, exp_l1 = law
    change = norm_change(u, idx, val, start, end, z, code)
    if code == LAPLACE_L1:
        return acceptance_ratio(change, 0.0, 0.0, code, param, exp_l1), sumsq
    new_norm = np.sqrt(sumsq + change) if code == LAPLACE_L2 else 0.0
    return acceptance_ratio(change, np.sqrt(sumsq), new_norm, code, param, exp_l1), sumsq + change


@njit
def _single_iteration(u, sumsq, wdiff, rng, moves, law, options):
    """One iteration of one chain (the sampler's sweep, or ``n_updates`` random moves).

    Accepted jumps are subtracted from ``wdiff`` (the lag phase runs chain X alone). Arguments as
    :func:`_compiled_design` and :func:`isdp.mcmc._kernels.sweep_law`.
    """
    ptr, idx, val, _ = moves
    dg = law[2]
    scan, n_updates, _, _ = options
    n_moves = ptr.shape[0] - 1
    steps = n_moves if scan == _SYSTEMATIC else n_updates
    for r in range(steps):
        j = _pick(rng, r, n_moves, scan)
        z = dg_draw(rng, dg)
        if z == 0:
            continue
        start, end = ptr[j], ptr[j + 1]
        ratio, new = _ratio(u, sumsq, idx, val, start, end, z, law)
        if uniform_pos(rng) <= ratio:
            apply_move(u, idx, val, start, end, z)
            wdiff[j] -= z
            sumsq = new
    return sumsq


@njit(inline="always")
def _touched_gap(x, y, idx, start, end):
    """(cells that differ, their ℓ1 difference) among the cells a move touches."""
    n_diff = 0
    gap = 0
    for p in range(start, end):
        d = x[idx[p]] - y[idx[p]]
        if d != 0:
            n_diff += 1
            gap += abs(d)
    return n_diff, gap


@njit(inline="always")
def _coupled_jumps(rng, shift, proposal, common, dg):
    """(z_X, z_Y), both DG(a), with z_Y = z_X + shift (the anchors land together) w.p. 1 - TV."""
    if common:
        z = dg_draw(rng, dg)
        return z, z
    if proposal == _MAXIMAL:
        zx, zy = maximal_coupling_dg(rng, 0, -shift, dg)
        return zx, zy + shift
    # Reflection-maximal: keep the meeting draw, else reflect z_Y - shift about -shift/2, which
    # maps the residual of DG onto the residual of -shift + DG, so z_Y = -z_X.
    z = dg_draw(rng, dg)
    if np.log(uniform_pos(rng)) <= (abs(z + shift) - abs(z)) * dg[3]:  # dg[3] = log a
        return z, z + shift
    return z, -z


@njit
def _coupled_iteration(x, y, st, wdiff, rng, moves, law, options):
    """One coupled iteration; ``st`` = [sumsq X, sumsq Y, differing cells, ‖x - y‖₁] and
    ``wdiff`` = w_Y - w_X (move coordinates) are updated. ``anchor_pos[j] < 0``: coordinate anchor.
    """
    ptr, idx, val, anchor_pos = moves
    dg = law[2]
    scan, n_updates, proposal, far_gap = options
    n_moves = ptr.shape[0] - 1
    steps = n_moves if scan == _SYSTEMATIC else n_updates
    for r in range(steps):
        j = _pick(rng, r, n_moves, scan)
        start, end = ptr[j], ptr[j + 1]
        c = anchor_pos[j]
        # z_Y - z_X that equalises the anchor (anchor cells have val = ±1)
        shift = -wdiff[j] if c < 0 else (x[idx[c]] - y[idx[c]]) * val[c]
        zx, zy = _coupled_jumps(rng, shift, proposal, st[3] > far_gap, dg)
        unif = uniform_pos(rng)  # common to both chains
        nd0, gap0 = _touched_gap(x, y, idx, start, end)
        if zx != 0:
            ratio, new = _ratio(x, st[0], idx, val, start, end, zx, law)
            if unif <= ratio:
                apply_move(x, idx, val, start, end, zx)
                wdiff[j] -= zx
                st[0] = new
        if zy != 0:
            ratio, new = _ratio(y, st[1], idx, val, start, end, zy, law)
            if unif <= ratio:
                apply_move(y, idx, val, start, end, zy)
                wdiff[j] += zy
                st[1] = new
        nd1, gap1 = _touched_gap(x, y, idx, start, end)
        st[2] += nd1 - nd0
        st[3] += gap1 - gap0


@njit(inline="always")
def _pair_state(x, y):
    st = np.zeros(4, dtype=np.int64)
    st[0] = (x * x).sum()
    st[1] = (y * y).sum()
    for i in range(x.shape[0]):
        if x[i] != y[i]:
            st[2] += 1
            st[3] += abs(x[i] - y[i])
    return st


@njit(cache=True)
def _lagged_pair(start, rng, moves, law, options, lag):
    """A pair started at ``start`` with X run ``lag`` iterations ahead: (x, y, wdiff, pair state)."""
    x = start.copy()
    y = start.copy()
    wdiff = np.zeros(moves[0].shape[0] - 1, dtype=np.int64)
    sumsq = (x * x).sum()
    for _ in range(lag):
        sumsq = _single_iteration(x, sumsq, wdiff, rng, moves, law, options)
    return x, y, wdiff, _pair_state(x, y)


@njit(nogil=True, cache=True)
def _meeting_times(lo, hi, init, rng, moves, law, options, lag, max_iter, tau, met):
    for p in range(lo, hi):
        x, y, wdiff, st = _lagged_pair(init[p], rng[p], moves, law, options, lag)
        t = lag
        met[p] = False
        while t < max_iter:
            t += 1
            _coupled_iteration(x, y, st, wdiff, rng[p], moves, law, options)
            if st[2] == 0:
                met[p] = True
                break
        tau[p] = t


def _compiled_design(lattice: IntegerLattice, design: Design):
    """(moves n × m, the kernels' ``moves`` = (ptr, idx, val, anchor_pos), their ``options`` = (scan,
    updates per random-scan iteration, proposal, far gap)): the move set in column-wise CSR form
    (:func:`isdp.mcmc._kernels.basis_csr`), each with its anchor's position in ``idx`` (-1: coordinate anchor)."""
    moves, anchors = design_moves(lattice, design.basis)
    ptr, idx, val = basis_csr(moves)
    anchor_pos = np.full(moves.shape[1], -1, dtype=np.int64)
    if design.anchor == "cell":
        for j in range(moves.shape[1]):
            cells = idx[ptr[j] : ptr[j + 1]]
            anchor_pos[j] = ptr[j] + int(np.flatnonzero(cells == anchors[j])[0])
    far_gap = _NEVER if design.far_gap is None else int(design.far_gap)
    return (
        moves,
        (ptr, idx, val, anchor_pos),
        (SCANS.index(design.scan), lattice.dim, PROPOSALS.index(design.proposal), far_gap),
    )


def design_meeting_times(
    lattice: IntegerLattice,
    target: Target,
    design: Design,
    *,
    lag: int,
    n_pairs: int,
    proposal_eps: float,
    seed: int,
    max_iter: int = 1_000_000,
    init=None,
) -> MeetingTimes:
    """L-lag meeting times of ``n_pairs`` pairs under ``design`` (as :func:`isdp.mcmc.meeting_times`
    for the sampler's own coupling).

    Censored pairs (not met by ``max_iter``) have ``met = False`` and ``tau = max_iter``.
    """
    max_iter, proposal_eps = _count("max_iter", max_iter, 1), _proposal_eps(proposal_eps)
    lag, n_pairs = _count("lag", lag, 1), _count("n_pairs", n_pairs, 1)
    if lag > max_iter:
        raise ValueError(f"lag = {lag} exceeds max_iter = {max_iter}")
    start = starting_states(lattice, init, n_pairs)
    _, moves, options = _compiled_design(lattice, design)
    tau = np.zeros(n_pairs, dtype=np.int64)
    met = np.zeros(n_pairs, dtype=np.bool_)
    tick = time.perf_counter()
    over_streams(
        _meeting_times,
        n_pairs,
        start,
        seed_states(seed, n_pairs),
        moves,
        sweep_law(target, proposal_eps),
        options,
        lag,
        max_iter,
        tau,
        met,
    )
    return MeetingTimes(tau=tau, met=met, lag=lag, seconds=time.perf_counter() - tick)


@njit(cache=True)
def _iteration_draws(x0, y0, wdiff0, rng, moves, law, options, single, out_x, out_y):
    for r in range(out_x.shape[0]):
        x = x0.copy()
        y = y0.copy()
        wdiff = wdiff0.copy()
        if single:
            _single_iteration(x, (x * x).sum(), wdiff, rng, moves, law, options)
        else:
            _coupled_iteration(x, y, _pair_state(x, y), wdiff, rng, moves, law, options)
        for i in range(x.shape[0]):  # element-wise: a row assignment compiles numba's broadcasting setitem (6 s)
            out_x[r, i] = x[i]
            out_y[r, i] = y[i]


def iteration_draws(
    lattice: IntegerLattice,
    target: Target,
    design: Design,
    x,
    y,
    *,
    proposal_eps: float,
    n_rep: int,
    seed: int,
    coupled: bool = True,
):
    """``n_rep`` independent coupled iterations from the fixed pair (x, y), for validation.

    With ``coupled=False`` only x moves, by the design's single-chain kernel.
    """
    x, y = _state(lattice, x, "x"), _state(lattice, y, "y")
    n_rep, proposal_eps = _count("n_rep", n_rep, 1), _proposal_eps(proposal_eps)
    moves, kernel_moves, options = _compiled_design(lattice, design)
    wdiff = np.zeros(moves.shape[1], dtype=np.int64)
    if design.anchor == "coordinate":
        wdiff = np.rint(np.linalg.lstsq(moves.astype(float), (y - x).astype(float), rcond=None)[0])
        wdiff = wdiff.astype(np.int64)
        assert np.all(moves @ wdiff == y - x), "the move set is not a basis"
    out_x = np.empty((n_rep, lattice.n), dtype=np.int64)
    out_y = np.empty((n_rep, lattice.n), dtype=np.int64)
    _iteration_draws(
        x,
        y,
        wdiff,
        seed_states(seed, 1)[0],
        kernel_moves,
        sweep_law(target, proposal_eps),
        options,
        not coupled,
        out_x,
        out_y,
    )
    return out_x, out_y


@njit(nogil=True, cache=True)
def _disagreement(lo, hi, init, rng, moves, law, options, lag, checkpoints, out):
    for p in range(lo, hi):
        x, y, wdiff, st = _lagged_pair(init[p], rng[p], moves, law, options, lag)
        t = 0
        for c in range(checkpoints.shape[0]):
            while t < checkpoints[c] and st[2] > 0:
                t += 1
                _coupled_iteration(x, y, st, wdiff, rng[p], moves, law, options)
            out[p, c] = st[2]


def disagreement(
    lattice: IntegerLattice,
    target: Target,
    design: Design,
    *,
    lag: int,
    n_pairs: int,
    proposal_eps: float,
    seed: int,
    checkpoints,
    init=None,
) -> np.ndarray:
    """Cells on which X_{t+L} and Y_t differ, per pair (rows) at each of the increasing ``checkpoints`` t
    (columns): how far censored pairs are from meeting. A met pair stays at 0 (the chains stay together)."""
    proposal_eps = _proposal_eps(proposal_eps)
    lag, n_pairs = _count("lag", lag, 1), _count("n_pairs", n_pairs, 1)
    checkpoints = np.asarray(checkpoints, dtype=np.int64)
    if checkpoints.ndim != 1 or checkpoints.size == 0 or np.any(np.diff(checkpoints) <= 0) or checkpoints[0] < 0:
        raise ValueError(f"checkpoints must be increasing non-negative iterations, got {checkpoints.tolist()!r}")
    start = starting_states(lattice, init, n_pairs)
    _, moves, options = _compiled_design(lattice, design)
    out = np.zeros((n_pairs, checkpoints.size), dtype=np.int64)
    over_streams(
        _disagreement,
        n_pairs,
        start,
        seed_states(seed, n_pairs),
        moves,
        sweep_law(target, proposal_eps),
        options,
        lag,
        checkpoints,
        out,
    )
    return out
