"""Release mode.

Privatise one confidential integer table, keep its invariants exactly, and state the guarantee the release meets per
person (docs/release.md, derived in docs/method.md §11). The neighbouring relation and the calibration are
:mod:`isdp.release`'s.

This module draws a release, one way: table → plan → draw → check → statement (the files are
:func:`isdp.release.write_release`'s). A whole table is one part: :func:`release_cells` plans, draws and checks
it, and is also what releases each part of a large table (:func:`isdp.release.release_partitioned`, in this
process or on Dask). The pieces it runs live where their idea does: the request and its plan in
:mod:`isdp.release`, the tables and the invariants A in :mod:`isdp.tables` and :mod:`isdp.lattice`, the exact
samplers in :mod:`isdp.exact`, the chain's certificate in :mod:`isdp.convergence`, the refusals (each with an
exit status) in :mod:`isdp.errors`.

The user states the guarantee needed per person (ε, and δ where the route has one); the routes:

- **exact** (ℓ1, and the Gaussian): noise from the ℓ1 generalized Laplace on Λ(A) drawn exactly,
  in integer arithmetic, by rejection: draw the free cells I i.i.d. DG(ε), solve the invariants
  for the other cells Iᶜ (:func:`~isdp.exact.integral_solve`) and accept with probability
  exp(-ε Σ_{i∈Iᶜ} |u_i|) — the accepted law is ∝ exp(-ε‖u‖₁) on Λ(A). The generalized Gaussian
  is drawn by a second rejection from the ℓ1 law with ε = 1/σ
  (:meth:`~isdp.exact.IntegerL1Sampler.draw`). Pure ε (ρ-zCDP for the Gaussian),
  operating-system entropy. Block by block (:func:`~isdp.lattice.blocks`); the plan forecasts
  the acceptance from A and ε and refuses a block it cannot serve before any count is used.
- **free cells** (ℓ1, ``free_cells``): the proposal without the rejection — the free cells are
  the lattice's coordinates, so the guarantee is the ℓ1 route's; exact, linear time, uneven
  variances (stated).
- **certified chain** (ℓ2, or ℓ1 and the Gaussian when asked with ``allow_chain``): the compiled
  Gibbs-within-Metropolis sampler run for t iterations from u = 0, t from coupled pairs started
  like the chain (:func:`~isdp.release._chain.certify_chain`: t is where the 95 % upper confidence
  bound on the TV bound reaches the target); the release is within total variation η of the
  exact mechanism, which turns ε into (ε, δ) with δ = (1 + e^ε)η. Its random numbers are not
  cryptographic, so it is refused for publication (study runs only, seeded).

Several tables of the same persons (:class:`~isdp.tables.TableSet`) are one vector under their
invariants and the ties between them; a table the others determine is derived (outside the norm,
:meth:`~isdp.exact.IntegerL1Sampler.norm_tables`), and ε per person counts every table in the norm
(docs/method.md §11).

With ``nonnegative`` the release is post-processed onto the non-negative tables with the same
invariants (the integer ℓ1 projection): no privacy cost, no refusal and no run time that depends
on the counts. The noise never depends on the counts, so neither does any refusal, progress
line or attempt count; the counts enter only as x + u.

Three files: the released table, its **privacy statement** (publishable: nothing in it is derived from the counts beyond
the invariants' values, which the release discloses anyway; it is written from the plan) and an **audit record**
(confidential: the input's path and hash, attempt counts, timings). Nothing is written unless the release is integer,
meets every invariant exactly, has the input's shape and labels and its guarantee is at least as strong as the one asked
for; a failure leaves none of the three (:func:`isdp.release.write_release`).
"""

from __future__ import annotations

import hashlib
import sys
import time
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from scipy import sparse

from .._parquet_files import table_files
from .._sparse import row_values
from .._validate import COUNT_LIMIT
from ..errors import InfeasibleError, InputError, InvariantError, UncertifiableError, UsageError
from ..exact import seeded_source, system_source
from ..files import file_sha256
from ..lattice import IntegerLattice, blocks, with_mixing_basis
from ..mcmc import sample
from ..privacy import Guarantee, cell_uncertainty, uncertainty_record
from ..tables import Table, TableSet
from ._plan import Plan
from ._request import Request
from ._statement import privacy_statement, route_record

if TYPE_CHECKING:
    from ..convergence import Certificate


class Progress:
    """Progress on stderr: a bar on a terminal, else a plain line about every 5 s with the time left.

    Nothing is shown when not ``enabled``. Callers count only data-independent work (the exact
    sampler's blocks, a chain certificate's stages), so what it prints says nothing about the
    counts. On a terminal the bar is :mod:`tqdm`'s; otherwise a line when it starts, then one
    about every 5 s.

    Parameters
    ----------
    total : int
        The number of steps.
    desc : str
        What is counted, the start of every line.
    enabled : bool
        Whether to show anything (``Request.progress``; ``isdp release --quiet`` turns it off).

    Examples
    --------
    >>> import contextlib
    >>> import io
    >>> from isdp.release._release import Progress
    >>> stderr = io.StringIO()
    >>> with contextlib.redirect_stderr(stderr):
    ...     bar = Progress(3, "exact sampler (blocks)", enabled=True)
    ...     bar.update()
    ...     bar.update(2)
    ...     bar.close()
    >>> print(stderr.getvalue(), end="")
    exact sampler (blocks): started, 3 steps
    exact sampler (blocks): 3/3 done in 0 s
    >>> bar.done
    3
    """

    def __init__(self, total: int, desc: str, enabled: bool):
        self.total, self.desc, self.enabled, self.done = total, desc, enabled, 0
        self.start = self.last = time.perf_counter()
        self.bar = None
        if enabled and sys.stderr.isatty():
            from tqdm import tqdm  # here: only a terminal shows a bar, and importing tqdm takes ~70 ms

            self.bar = tqdm(total=total, desc=desc, leave=False)
        elif enabled:
            print(f"{desc}: started, {total:,} step{'' if total == 1 else 's'}", file=sys.stderr, flush=True)

    def update(self, k: int = 1) -> None:
        """Count ``k`` more steps done (a line at most every 5 s when not on a terminal).

        Parameters
        ----------
        k : int, default 1
            Steps done since the last call.
        """
        if not self.enabled:
            return
        self.done += k
        if self.bar is not None:
            self.bar.update(k)
            return
        now = time.perf_counter()
        if now - self.last >= 5 and self.done < self.total:
            left = (self.total - self.done) * (now - self.start) / self.done
            print(
                f"{self.desc}: {self.done:,}/{self.total:,} after {now - self.start:.0f} s, about {left:.0f} s left",
                file=sys.stderr,
                flush=True,
            )
            self.last = now

    def close(self) -> None:
        """Remove the bar from the terminal; elsewhere, once every step is done, a last line saying so."""
        if self.bar is not None:
            self.bar.close()
        elif self.enabled and self.done >= self.total:  # an error's message, not this line, ends a failed run
            seconds = time.perf_counter() - self.start
            print(f"{self.desc}: {self.done:,}/{self.total:,} done in {seconds:.0f} s", file=sys.stderr, flush=True)


@dataclass
class Release:
    r"""A checked release, its publishable statement and its confidential audit record (not yet written).

    Made by :func:`make_release`; written by :func:`isdp.release.write_release`.

    Parameters
    ----------
    table : Table or TableSet
        The confidential table (or tables) released.
    values : numpy.ndarray
        The released cells, int64, shape (n,), in the order of ``table.x``: integer, with every
        invariant exactly as in the table.
    statement : dict
        The publishable privacy statement (:func:`~isdp.release._statement.privacy_statement`).
    audit : dict
        The confidential audit record: the input's path, SHA-256 and cells, the exact
        sampler's attempts, the route, the run time.
    uncertainty : dict or None, default None
        With ``Request.uncertainty``, the columns added to the released table, each of shape (n,)
        (:data:`isdp.privacy.UNCERTAINTY_COLUMNS`); else None.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from isdp.tables import constraint_matrix
    >>> from isdp.release import Request, make_release
    >>> from isdp.tables import load_table
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp, "sex_by_age.csv")
    ...     _ = path.write_text("sex,young,old\nFemale,3,5\nMale,4,2\n")
    ...     table = load_table(path)
    ...     A, labels = constraint_matrix(table, ["total"])
    ...     release = make_release(table, A, labels, Request(epsilon="1", seed=4))
    >>> release.values.tolist(), release.statement["publishable"]
    ([4, 7, 4, -1], False)
    >>> sorted(release.audit), release.audit["input"]["cells"]
    (['exact_sampler', 'input', 'route', 'seconds'], 4)
    """

    table: Table | TableSet
    values: np.ndarray  # int64 (n,)
    statement: dict
    audit: dict
    uncertainty: dict | None = None


def make_release(table: Table | TableSet, A: np.ndarray, labels: list[str], req: Request) -> Release:
    r"""Draw and check one release of ``table`` keeping ``A x``.

    The plan (:meth:`Plan.of`) is made first, from ``A``, the request and the labels alone; then the noise
    is drawn on the route it chose — exact (ℓ1, Gaussian), free cells, or the certified chain —
    added to the counts, post-processed onto non-negative tables if asked, and checked: the
    release is integer, meets every invariant exactly (A·release = A·x, in exact integers) and
    its guarantee is at least as strong as the one asked. Nothing is written
    (:func:`isdp.release.write_release` does that).

    Parameters
    ----------
    table : Table or TableSet
        The confidential table, counts included (:func:`isdp.tables.load_table`), or tables
        released together (:class:`isdp.tables.TableSet`).
    A : array_like or scipy.sparse array
        The invariants, rows × cells (:func:`isdp.tables.constraint_matrix`).
    labels : list of str
        One label per row of ``A``.
    req : Request
        What to release and how; ``req.seed`` None draws from operating-system entropy.

    Returns
    -------
    Release
        The released values (int64, the order of ``table.x``), the publishable statement and
        the confidential audit record.

    Raises
    ------
    isdp.errors.UsageError
        Bad options (:meth:`Request.check`, :meth:`Plan.make`), a rule of ``req`` that does not apply
        to the table (:meth:`Plan.of`), or a table read for its labels only (a dry run's: no counts).
    isdp.errors.InputError
        An invariant's value beyond ±2**53.
    isdp.errors.InfeasibleError
        Invariants that fix every cell, or from which the chain's lattice cannot be built.
    isdp.errors.UncertifiableError
        A request no route can serve: the forecast, no accepted proposal within
        ``req.max_attempts``, a chain that cannot be certified or is asked without a seed.

    See Also
    --------
    dry_run : The statement a run would carry, before any count is read.
    isdp.release.write_release : Writes the three files, all or none.
    isdp.cli.main : ``isdp release``.

    Notes
    -----
    The guarantee is per person (docs/method.md §11). The generalized Laplace
    π(u) ∝ exp(−ε‖u‖) on Λ(A) is ε-integer subspace DP per unit distance (ISDP Thm 10), drawn
    exactly by rejection from double geometric proposals on the free cells in integer arithmetic
    (Canonne, Kamath & Steinke's samplers) from operating-system entropy: pure ε per person. The
    free-cell route has the same ε (its free cells are the lattice's coordinates). The
    generalized Gaussian (ISDP Eq. 8) is ρ-zCDP with ρ = 1/σ² per person, stated as (ε, δ). The
    certified chain (ISDP Algorithm 1, certified by L-lag coupling: Biswas, Jacob & Vanetti 2019)
    is within TV η of the exact mechanism at 95 % confidence, which gives δ = (1 + e^ε)η. The
    non-negative projection is a function of the noisy table and the invariants only, so the
    guarantee is unchanged. The invariants are disclosed exactly, by design.

    Examples
    --------
    Both margins of a 2 × 2 table kept exactly, ε = 1 per person (seeded to show a result: a
    seeded release is not for publication):

    >>> import tempfile
    >>> from pathlib import Path
    >>> from isdp._sparse import row_values
    >>> from isdp.tables import constraint_matrix
    >>> from isdp.release import Request, make_release
    >>> from isdp.tables import load_table
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = Path(tmp.name, "sex_by_age.csv")
    >>> _ = path.write_text("sex,young,old\nFemale,3,5\nMale,4,2\n")
    >>> table = load_table(path)
    >>> A, labels = constraint_matrix(table, ["all-margins"])
    >>> release = make_release(table, A, labels, Request(epsilon="1", seed=3))
    >>> release.values.tolist(), release.values.dtype.name
    ([2, 6, 5, 1], 'int64')
    >>> row_values(A, release.values) == row_values(A, table.x)
    True
    >>> print(release.statement["guarantee"]["per_person"]["text"])  # doctest: +NORMALIZE_WHITESPACE
    1-DP for any two tables with the same invariants that differ in one person's record
    (added, removed, or moved between cells)
    >>> table.with_cells(release.values)
    [['sex', 'young', 'old'], ['Female', '2', '6'], ['Male', '5', '1']]

    Under the total only, unbiased noise on small counts can go below zero; ``nonnegative``
    projects it away without changing the guarantee (the cell raised to 0, the excess taken back
    evenly from the others: :func:`isdp.baselines.l1_total_projection`):

    >>> A, labels = constraint_matrix(table, ["total"])
    >>> make_release(table, A, labels, Request(epsilon="1", seed=26)).values.tolist()
    [4, 5, 6, -1]
    >>> make_release(table, A, labels, Request(epsilon="1", seed=26, nonnegative=True)).values.tolist()
    [3, 5, 6, 0]
    >>> tmp.cleanup()
    """
    started = time.perf_counter()
    rng = seeded_source(req.seed) if req.seed is not None else system_source()
    drawn = release_cells(table, A, labels, req, rng, progress=req.progress)
    plan = drawn.plan
    statement = privacy_statement(
        plan,
        drawn.guarantee,
        route_record(plan, drawn.lattice, drawn.certificate, drawn.proposal_eps),
        drawn.kept,
    )
    if req.uncertainty is not None:
        statement["uncertainty"] = uncertainty_record(req.uncertainty, drawn.draws)
    inputs = [
        {"path": str(t.path), "sha256": input_sha256(t.path), "cells": len(t.keys)}
        for t in (table.tables if isinstance(table, TableSet) else [table])
    ]
    audit = {
        **drawn.audit,
        "input": inputs[0] if len(inputs) == 1 else inputs,
        "seconds": round(time.perf_counter() - started, 3),
        "route": statement["route"]["name"],
    }
    return Release(table, drawn.values, statement, audit, drawn.columns)


@dataclass
class Drawn:
    """One release of a table's cells, drawn under its plan and checked (:func:`release_cells`).

    Parameters
    ----------
    plan : Plan
        The plan it was drawn under.
    values : numpy.ndarray
        The released cells, int64: integer, every invariant exactly as in the table.
    kept : numpy.ndarray
        The invariants' values A x, int64, one per row of ``plan.A``.
    guarantee : isdp.privacy.Guarantee
        The guarantee met, at least as strong as the request's.
    attempts : int or None
        The exact sampler's proposals (None when it did not run: the ℓ2 route).
    audit : dict
        The confidential record of the draw: the exact sampler's attempts, the certificate's seconds.
    lattice, certificate, proposal_eps
        The certified chain's lattice, certificate and proposal ε (None on the exact routes).
    columns : dict or None
        With ``Request.uncertainty``, the columns added to the released cells.
    draws : tuple of int
        With ``Request.uncertainty``, the fewest and the most simulated draws of a block shape.
    """

    plan: Plan
    values: np.ndarray
    kept: np.ndarray
    guarantee: Guarantee
    attempts: int | None
    audit: dict
    lattice: IntegerLattice | None = None
    certificate: Certificate | None = None
    proposal_eps: float | None = None
    columns: dict | None = None
    draws: tuple[int, int] = (0, 0)


def release_cells(
    table: Table | TableSet,
    A,
    labels: list[str],
    req: Request,
    rng,
    *,
    progress: bool = False,
    part: bool = False,
    rules=None,
) -> Drawn:
    r"""Plan, draw and check the release of a table's cells: the one path of every release.

    A whole table is one part: :func:`make_release` releases it so, and
    :func:`isdp.release.release_partitioned` each part of a large table (in this process or on Dask). The plan
    (:meth:`Plan.of`) comes first, from ``A``, the request and the labels; then the invariants' values are
    checked within ±2**53, the noise drawn on the plan's route (exact, free cells, or the certified chain),
    added to the counts, projected onto non-negative tables if asked, and the release checked: integer, every
    invariant exact, its guarantee at least as strong as the request's.

    Parameters
    ----------
    table : Table or TableSet
        The confidential table (or a part of one), counts included.
    A : array_like or scipy.sparse array
        The invariants, rows × cells.
    labels : list of str
        One label per row of ``A``.
    req : Request
        The request.
    rng : object
        The source of the draw (:func:`isdp.exact.system_source`, or :func:`isdp.exact.seeded_source`).
    progress : bool, default False
        Show the exact sampler's blocks or the certificate's stages on stderr.
    part : bool, default False
        ``table`` is one part of a larger table (:meth:`Plan.of`).
    rules : sequence of str or None, optional
        Per row of ``A``, the rule that made it, when known (:meth:`Plan.of`).

    Returns
    -------
    Drawn
        The released cells, the invariants' values and what the statement and the audit record need.

    Raises
    ------
    isdp.errors.ReleaseError
        As :func:`make_release`.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from isdp.exact import seeded_source
    >>> from isdp.tables import constraint_matrix, load_table
    >>> from isdp.release import Request
    >>> from isdp.release._release import release_cells
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp, "sex_by_age.csv")
    ...     _ = path.write_text("sex,young,old\nFemale,3,5\nMale,4,2\n")
    ...     table = load_table(path)
    >>> A, labels = constraint_matrix(table, ["all-margins"])
    >>> drawn = release_cells(table, A, labels, Request(epsilon="1", seed=3), seeded_source(3))
    >>> drawn.values.tolist(), drawn.kept.tolist()
    ([2, 6, 5, 1], [8, 6, 7, 7])
    """
    plan = Plan.of(table, A, labels, req, part=part, rules=rules)
    A = plan.A
    x = table.x
    if x is None:
        raise UsageError(f"{table.path}: the table was read for its labels only (a dry run): no counts to release")
    kept = row_values(A, x)
    for label, value in zip(labels, kept, strict=True):
        if abs(value) > COUNT_LIMIT:
            raise InputError(
                f"{table.path}: the invariant {label!r} is {value}, beyond ±2**53: counts and every "
                "invariant's value must lie within ±2**53 (exact in int64 and float arithmetic)"
            )
    audit: dict = {}
    noise, attempts, certificate, proposal_eps, lattice = None, None, None, None, None
    if plan.exact is not None and plan.exact_feasible:
        assert isinstance(plan.unit, Fraction)  # the exact routes' ε per unit ℓ1 distance or σ, both exact
        sigma = plan.unit if req.norm == "gaussian" else None
        bar = Progress(len(plan.exact.parts), "exact sampler (blocks)", progress)
        try:
            noise, attempts = plan.exact.draw(
                1 / sigma if sigma is not None else plan.unit,
                rng,
                max_attempts=req.max_attempts,
                sigma=sigma,
                accept=not req.free_cells,
                on_block=bar.update,
            )
        finally:
            bar.close()
        audit["exact_sampler"] = {"attempts": attempts, "accepted": noise is not None}
        if noise is None and not req.allow_chain:
            raise UncertifiableError(no_acceptance(req))
    if noise is None:
        from ..convergence import Certificate  # deferred: isdp.convergence loads pandas, which only a chain needs

        noise, lattice, certificate, proposal_eps = _chain_noise(plan, rng, progress)
        audit["certificate_seconds"] = round(certificate.seconds, 3)
    values = x + noise
    if req.nonnegative:
        values = _nonnegative(values, A)
    if values.dtype != np.int64 or values.shape != x.shape or row_values(A, values) != kept:
        raise AssertionError("release failed its checks (integer, every invariant exact); this is a bug in isdp")
    if certificate is None:
        guarantee = plan.guarantee()
    else:  # the chain is within TV η of the exact mechanism: η the certificate's bound at its run length
        guarantee = plan.guarantee(float(certificate.bound(certificate.burn_in(floor=1))[0]), Certificate.LEVEL)
    plan.check_not_weaker(guarantee)
    columns, got = None, {"draws": (0, 0)}
    if req.uncertainty is not None:
        assert isinstance(plan.unit, Fraction)  # an exact route's (Request.check)
        got = cell_uncertainty(plan.exact, len(x), req, plan.unit, req.uncertainty)
        columns = {"noise_sd": got["sd"], "lower": values - got["high"], "upper": values - got["low"]}
    return Drawn(
        plan,
        values,
        np.array(kept, dtype=np.int64),
        guarantee,
        attempts,
        audit,
        lattice,
        certificate,
        proposal_eps,
        columns,
        got["draws"],
    )


def _chain_noise(plan: Plan, rng, progress: bool):
    """Return the certified chain's noise.

    Its lattice, certificate and proposal ε (the ℓ2 route, or ``allow_chain``).
    """
    from ._chain import certify_chain  # deferred: isdp.convergence loads pandas, which only a chain needs

    try:
        # the chain runs on the basis chosen for mixing (isdp.lattice): the same lattice, a chain
        # whose coupled pairs meet (path moves for sums, adjacent 2x2 moves for two-way tables)
        lattice = with_mixing_basis(IntegerLattice.from_constraints(plan.A.toarray()))
    except InvariantError as err:
        raise InfeasibleError(f"infeasible invariants: {err}") from None
    seed = rng.randbelow(2**62)
    bar = Progress(2, f"certifying the chain ({plan.pairs():,} coupled pairs)", progress)
    try:
        proposal_eps, certificate = certify_chain(
            lattice,
            plan.chain_target(),
            threshold=plan.eta_target(),
            n_pairs=plan.pairs(),
            max_iter=plan.req.max_iter,
            seed=seed,
            on_step=bar.update,
        )
    finally:
        bar.close()
    iterations = certificate.burn_in(floor=1)  # the certified iteration, at least one
    res = sample(
        lattice,
        plan.chain_target(),
        n_chains=1,
        n_draws=1,
        burn_in=iterations - 1,
        thin=1,
        proposal_eps=proposal_eps,
        seed=seed + 3,
        progress=False,
    )
    return res.draws[0, -1], lattice, certificate, proposal_eps


def no_acceptance(req: Request) -> str:
    """Return the refusal when a block of the exact sampler accepted no proposal within ``req.max_attempts``."""
    advice = (
        "its Gaussian step accepts a share that falls geometrically with the number of cells: raise "
        "--max-attempts, use --norm l1, or fewer cells"
        if req.norm == "gaussian"
        else "raise --max-attempts or --epsilon, or use --free-cells"
    )
    return (
        f"the exact sampler accepted none of --max-attempts {req.max_attempts} proposals (its acceptance depends "
        f"on the invariants and epsilon, never on the counts): {advice}"
    )


def _nonnegative(values: np.ndarray, A: sparse.csr_array) -> np.ndarray:
    """Return the integer ℓ1 projection onto {z ≥ 0, A z = A values}, block by block.

    The objective and the constraints separate over :func:`blocks`; a block already non-negative is left as it
    is. A block that is one total gets the ℓ2-nearest of the ℓ1 optima, whatever the solver
    (:func:`isdp.baselines.l1_total_projection`); other blocks HiGHS' optimum.
    """
    # deferred: isdp.baselines loads HiGHS (highspy), which only --nonnegative needs
    from ..baselines import L1Projector, l1_total_projection

    out = values.copy()
    for cells, rows in blocks(A):
        if out[cells].min() >= 0:
            continue
        if not len(rows):  # a cell in no invariant
            out[cells] = np.maximum(out[cells], 0)
            continue
        sub = A[rows][:, cells]  # sparse: a block of Klein's may have millions of cells
        m, b = out[cells].astype(float), (sub @ out[cells]).astype(float)
        if sub.shape[0] == 1 and sub.nnz == sub.shape[1] and bool(np.all(sub.data == 1)):  # one total
            out[cells] = l1_total_projection(m, b[0], nonnegative=True)
        else:
            out[cells] = L1Projector(sub, "integer", nonnegative=True)(m, b)
    if np.any(out < 0):
        raise AssertionError("release has a negative cell despite --nonnegative; this is a bug in isdp")
    return out


def input_sha256(path: Path) -> str:
    """Return an input's SHA-256 (:func:`isdp.files.file_sha256`).

    For a directory of Parquet files, that of their names and digests.
    """
    if path.is_dir():
        digest = hashlib.sha256()
        for file in table_files(path):
            digest.update(f"{file.name}\0{file_sha256(file)}\n".encode())
        return digest.hexdigest()
    return file_sha256(path)
