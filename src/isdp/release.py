"""Release mode: privatise one confidential integer table, keep its invariants exactly, and state
the guarantee the release meets per person (docs/release.md; the derivations are in
docs/method.md §11; the neighbouring relation and the calibration in :mod:`isdp.privacy`).

This module plans and runs a release; the pieces it runs live where their idea does:

- the tables (:class:`~isdp.tables.Table`, :class:`~isdp.tables.TableSet`,
  :func:`~isdp.tables.load_table`) in :mod:`isdp.tables`;
- the invariants A (:func:`~isdp.constraints.constraint_matrix`, :func:`~isdp.constraints.blocks`)
  in :mod:`isdp.constraints`;
- the exact sampler (:class:`~isdp.exact_sampling.ExactSampler`, :func:`~isdp.exact_sampling.norm_tables`)
  in :mod:`isdp.exact_sampling`;
- the chain's certificate (:func:`~isdp.certification.certify_chain`, a
  :class:`~isdp.certification.Certificate`) in :mod:`isdp.certification`;
- the refusals (:class:`~isdp.errors.ReleaseError` and its kinds, each with an exit status) in
  :mod:`isdp.errors`.

The user states the guarantee needed per person (ε, and δ where the route has one); the routes:

- **exact** (ℓ1, and the Gaussian): noise from the ℓ1 generalized Laplace on Λ(A) drawn exactly,
  in integer arithmetic, by rejection: draw the free cells I i.i.d. DG(ε), solve the invariants
  for the other cells Iᶜ (:func:`~isdp.exact_sampling.integral_solve`) and accept with probability
  exp(-ε Σ_{i∈Iᶜ} |u_i|) — the accepted law is ∝ exp(-ε‖u‖₁) on Λ(A). The generalized Gaussian
  is drawn by a second rejection from the ℓ1 law with ε = 1/σ
  (:meth:`~isdp.exact_sampling.ExactL1Sampler.draw`). Pure ε (ρ-zCDP for the Gaussian),
  operating-system entropy. Block by block (:func:`~isdp.constraints.blocks`); the plan forecasts
  the acceptance from A and ε and refuses a block it cannot serve before any count is used.
- **free cells** (ℓ1, ``free_cells``): the proposal without the rejection — the free cells are
  the lattice's coordinates, so the guarantee is the ℓ1 route's; exact, linear time, uneven
  variances (stated).
- **certified chain** (ℓ2, or ℓ1 and the Gaussian when asked with ``allow_chain``): the compiled
  Gibbs-within-Metropolis sampler run for t iterations from u = 0, t from coupled pairs started
  like the chain (:func:`~isdp.certification.certify_chain`: t is where the 95 % upper confidence
  bound on the TV bound reaches the target); the release is within total variation η of the
  exact mechanism, which turns ε into (ε, δ) with δ = (1 + e^ε)η. Its random numbers are not
  cryptographic, so it is refused for publication (study runs only, seeded).

Several tables of the same persons (:class:`~isdp.tables.TableSet`) are one vector under their
invariants and the ties between them; a table the others determine is derived (outside the norm,
:func:`~isdp.exact_sampling.norm_tables`), and ε per person counts every table in the norm
(docs/method.md §11).

With ``nonnegative`` the release is post-processed onto the non-negative tables with the same
invariants (the integer ℓ1 projection): no privacy cost, no refusal and no run time that depends
on the counts. The noise never depends on the counts, so neither does any refusal, progress
line or attempt count; the counts enter only as x + u.

Three files: the released table, its **privacy statement** (publishable: nothing in it is
derived from the counts beyond the invariants' values, which the release discloses anyway; it is
written from the plan by :func:`isdp.release_statement.privacy_statement`) and an **audit record** (confidential:
the input's path and hash, attempt counts, timings). Nothing is written unless the release is
integer, meets every invariant exactly, has the input's shape and labels and its guarantee is at
least as strong as the one asked for; a failure leaves none of the three (:func:`isdp.release_files.write_release`).
"""

from __future__ import annotations

import hashlib
import math
import sys
import time
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np
from scipy import sparse

from .bases import with_mixing_basis
from .certification import LEVEL, certify_chain, pairs_needed
from .constraints import as_sparse, blocks, row_values
from .double_geometric import dg_variance
from .errors import InfeasibleError, InputError, UncertifiableError, UsageError
from .exact_sampling import (
    PILOT_PROPOSALS,
    ExactL1Sampler,
    ExactSampler,
    as_fraction,
    norm_tables,
    seeded_source,
    system_source,
)
from .lattice import COUNT_LIMIT, IntegerLattice, InvariantError
from .privacy import Guarantee, Neighbours, gaussian_sigma, unit_epsilon
from .release_statement import privacy_statement, route_record
from .samplers import sample
from .tables import Table, TableSet
from .targets import generalized_gaussian, generalized_laplace

NORMS = ("l1", "l2", "gaussian")
#: most coupled pairs a chain certificate may ask for (each costs a coupled run)
MAX_PAIRS = 100_000


class Progress:
    """Progress on stderr: a bar on a terminal, else a plain line about every 5 s with the time left;
    nothing when not ``enabled``. Callers count only data-independent work (blocks, pairs)."""

    def __init__(self, total: int, desc: str, enabled: bool):
        self.total, self.desc, self.enabled, self.done = total, desc, enabled, 0
        self.start = self.last = time.perf_counter()
        self.bar = None
        if enabled and sys.stderr.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc=desc, leave=False)
        elif enabled:
            print(f"{desc}: started, {total} steps", file=sys.stderr, flush=True)

    def update(self, k: int = 1) -> None:
        if not self.enabled:
            return
        self.done += k
        if self.bar is not None:
            self.bar.update(k)
            return
        now = time.perf_counter()
        if now - self.last >= 5 and self.done < self.total:
            left = (self.total - self.done) * (now - self.start) / self.done
            print(f"{self.desc}: {self.done}/{self.total} after {now - self.start:.0f} s, about {left:.0f} s left",
                  file=sys.stderr, flush=True)
            self.last = now

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


# --------------------------------------------------------------------------- the request and its plan


@dataclass
class Request:
    """What to release and how (the command's options).

    ``epsilon`` and ``delta`` are the guarantee needed **per person** (:mod:`isdp.privacy`); the
    mechanism's own parameters follow from them.
    """

    norm: str = "l1"
    epsilon: str | None = None  # per person; exact decimal or fraction as typed
    delta: float | None = None  # per person: the Gaussian's and the certified chain's δ
    allow_chain: bool = False  # l1, Gaussian: a certified chain when the exact route cannot serve
    free_cells: bool = False  # l1: the exact route's proposal, released without rejection
    nonnegative: bool = False
    pairs: int | None = None  # chain: coupled pairs (None: twice the least that resolves its target)
    max_iter: int = 200_000
    max_attempts: int = 20_000
    seed: int | None = None  # None: operating-system entropy
    progress: bool = False

    @property
    def chain_possible(self) -> bool:
        """Whether this request may run the certified chain."""
        return self.norm == "l2" or self.allow_chain

    @property
    def epsilon_person(self) -> Fraction:
        return as_fraction(self.epsilon)

    def check(self) -> None:
        """Raise :class:`UsageError` on any inconsistent parameter, and :class:`UncertifiableError`
        for a publication run that would need the chain."""
        if self.norm not in NORMS:
            raise UsageError(f"unknown norm {self.norm!r}: choose from {', '.join(NORMS)}")
        if self.epsilon is None:
            raise UsageError("give --epsilon: the guarantee needed per person")
        try:
            eps = as_fraction(self.epsilon)
        except ValueError:
            raise UsageError(f"--epsilon must be a positive number, got {self.epsilon!r}") from None
        if not Fraction(1, 10**9) <= eps <= 700:
            raise UsageError(f"--epsilon {self.epsilon} is outside [1e-9, 700]")
        if self.seed is not None and self.seed < 0:
            raise UsageError(f"--seed must be a non-negative integer, got {self.seed}")
        if self.norm == "gaussian" or self.chain_possible:
            if self.delta is None:
                raise UsageError(f"the {'Gaussian' if self.norm == 'gaussian' else 'certified chain'}'s guarantee "
                                 "has a delta: give --delta (per person, in (0, 1))")
            if not 0 < self.delta < 1:
                raise UsageError(f"--delta must lie in (0, 1), got {self.delta}")
        elif self.delta is not None:
            raise UsageError("--delta is used only by --norm gaussian and the certified chain (--norm l2, "
                             "--allow-chain): the l1 exact release is pure epsilon")
        if self.free_cells and (self.norm != "l1" or self.allow_chain):
            raise UsageError("--free-cells is an l1 route of its own: not with --norm l2 or gaussian, nor with "
                             "--allow-chain")
        if self.pairs is not None and not 2 <= self.pairs <= MAX_PAIRS:
            raise UsageError(f"--pairs must lie in [2, {MAX_PAIRS:,}], got {self.pairs}")
        for name in ("max_iter", "max_attempts"):
            if getattr(self, name) < 2:
                raise UsageError(f"--{name.replace('_', '-')} must be at least 2")
        if self.chain_possible and self.seed is None:
            raise UncertifiableError(
                "the certified chain is refused for publication: its random numbers come from xoshiro256** "
                "(fast, not cryptographic) and its delta rests on a statistical certificate; "
                + ("use --norm l1 or gaussian (exact, operating-system entropy), or " if self.norm == "l2" else
                   "drop --allow-chain (the exact route draws from operating-system entropy), or ")
                + "run a study with --seed N --reproducible-not-for-publication")

    def delta_split(self) -> tuple[float | None, float | None]:
        """(the Gaussian's zCDP → (ε, δ) δ, the δ left for a chain's TV bound); halves when both apply."""
        if self.delta is None:
            return None, None
        if self.norm == "gaussian":
            return (self.delta / 2, self.delta / 2) if self.allow_chain else (self.delta, None)
        return None, self.delta


def _exact_refusal(req: Request, unit, log_acceptance: float, block: ExactL1Sampler) -> str:
    """Why the exact route cannot serve this request (its hardest block), and what would."""
    need = ("more than 10^300" if -log_acceptance > 690 else f"about 10^{-log_acceptance / math.log(10):.0f}"
            if -log_acceptance > math.log(1e6) else f"about {math.exp(-log_acceptance):,.0f}")
    if req.norm == "l1":
        ratio = block.variances(unit).max() / dg_variance(float(unit))
        options = [f"--free-cells (exact, the same epsilon per person, in linear time; its noise is not spread "
                   f"evenly: a solved cell's variance is up to {ratio:,.0f} times a free cell's here)"]
    else:
        options = ["--norm l1 (its exact sampler accepts far more often than the Gaussian's), or --norm l1 "
                   "--free-cells"]
    options += ["fewer invariants (one margin, or totals over blocks of cells)", "a larger --epsilon",
                "a smaller table",
                "a study run with --allow-chain --delta D --seed N --reproducible-not-for-publication (a certified "
                "chain; about 6 x 6 cells with both margins at most)"]
    return (f"the exact sampler would need {need} proposals for one draw of a block of {block.A.shape[1]:,} cells "
            f"(estimated from {PILOT_PROPOSALS:,} proposals: a function of the invariants and epsilon, never of the "
            f"counts), beyond --max-attempts {req.max_attempts:,}: nothing is released. What would work: "
            + "; ".join(options))


MECHANISMS = {"l1": "generalized Laplace, l1 norm (ISDP Def. 9)", "l2": "generalized Laplace, l2 norm (ISDP Def. 9)",
              "gaussian": "generalized Gaussian (ISDP Eq. 8)",
              "free-cells": "free-cell double geometric: i.i.d. noise on the lattice's coordinates "
                            "(docs/method.md §11)"}


@dataclass(frozen=True)
class Plan:
    """What a request does under invariants A, decided from A and the options alone (no count)."""

    req: Request
    A: np.ndarray
    labels: list[str]
    neighbours: Neighbours
    exact: ExactSampler | None
    unit: Fraction | float  # ε per unit distance (Laplace) or σ (Gaussian)
    expected_attempts: float  # the exact sampler's forecast proposals per draw (hardest block)
    tables_in_norm: tuple[bool, ...] = (True,)  # per table released: whether it enters the norm (norm_tables)

    @classmethod
    def make(cls, A: np.ndarray, labels: list[str], req: Request, groups: list[np.ndarray] | None = None) -> Plan:
        """Check the request and choose the route; raises a :class:`ReleaseError` before any count is read.
        ``groups``: each table's cells, when several tables are released together."""
        req.check()
        A = as_sparse(A)
        if groups is not None and len(groups) > 1 and req.chain_possible:
            raise UsageError("several tables are released by the exact routes only (--norm l1, --norm gaussian, "
                             "--free-cells): the certified chain takes one table")
        if (req.norm == "l2" and A.shape[0] >= A.shape[1]
                and np.linalg.matrix_rank(A.toarray().astype(float)) >= A.shape[1]):
            raise InfeasibleError("infeasible invariants: they fix every cell, so no noise can be added")
        tables_in_norm = norm_tables(A, groups) if groups is not None and len(groups) > 1 else np.ones(1, dtype=bool)
        derived = np.zeros(A.shape[1], dtype=bool)
        for k in np.flatnonzero(~tables_in_norm):
            derived[groups[k]] = True
        n_in_norm = int(tables_in_norm.sum())
        delta_conversion, _ = req.delta_split()
        unit = (gaussian_sigma(float(req.epsilon_person), delta_conversion, n_in_norm) if req.norm == "gaussian"
                else unit_epsilon(req.epsilon_person, req.norm, n_in_norm))
        gaussian = req.norm == "gaussian"
        worst = [0.0]  # the lowest log acceptance forecast in any block

        def vet(sub: ExactL1Sampler) -> None:
            if req.free_cells:
                return
            worst[0] = min(worst[0], sub.log_acceptance(1 / unit if gaussian else unit, unit if gaussian else None))
            if -worst[0] > math.log(req.max_attempts) and not req.allow_chain:
                raise UncertifiableError(_exact_refusal(req, unit, worst[0], sub))

        exact = ExactSampler.build(A, vet, derived) if req.norm != "l2" else None
        if exact is not None and exact.n_free == 0:
            raise InfeasibleError("infeasible invariants: they fix every cell, so no noise can be added")
        if exact is None and not req.chain_possible:
            raise UncertifiableError("the free cells are not the lattice's coordinates (no set of cells whose values "
                                     "the invariants give in integers from the others), so the exact sampler does not "
                                     "apply: change the invariants, or run a study with --allow-chain --delta D --seed "
                                     "N --reproducible-not-for-publication")
        attempts = math.exp(-worst[0]) if -worst[0] < 700 else math.inf
        neighbours = Neighbours.of(A)
        if len(tables_in_norm) > 1 and not neighbours.one_person:
            # one person's change may touch every table at once: single-cell moves do not settle it
            neighbours = Neighbours(one_person=None, two_persons=None)
        plan = cls(req, A, labels, neighbours, exact, unit, attempts, tuple(bool(b) for b in tables_in_norm))
        if req.chain_possible:
            plan.pairs()  # a chain that cannot be certified is refused before anything runs
        return plan

    @property
    def exact_feasible(self) -> bool | None:
        """Whether the exact sampler is expected to accept within --max-attempts per block (None: no
        exact sampler). A forecast from the invariants and ε only (:meth:`ExactL1Sampler.log_acceptance`)."""
        if self.exact is None:
            return None
        return self.expected_attempts <= self.req.max_attempts

    def guarantee(self, eta: float | None = None, confidence: float | None = None) -> Guarantee:
        """The guarantee of the exact mechanism, or of the chain within TV ``eta`` of it."""
        return Guarantee(self.req.norm, self.unit, self.req.delta_split()[0], eta, confidence,
                         n_tables=sum(self.tables_in_norm), released=len(self.tables_in_norm))

    def eta_target(self) -> float:
        """The TV bound a chain must certify so that δ per person stays within the request."""
        return self.req.delta_split()[1] / (1 + math.exp(self.guarantee().at(1)["epsilon"]))

    def pairs(self) -> int:
        """Coupled pairs for the chain's certificate; :class:`UncertifiableError` if none can do."""
        eta, req = self.eta_target(), self.req
        needed = pairs_needed(eta)
        if needed > MAX_PAIRS:
            floor = (1 + math.exp(self.guarantee().at(1)["epsilon"])) * (1 - (1 - LEVEL) ** (1 / MAX_PAIRS))
            raise UncertifiableError(f"--delta {req.delta:g} needs the chain within TV {eta:.3g} of the exact "
                                     f"mechanism, which {needed:,} coupled pairs would be needed to certify at 95 % "
                                     f"(at most {MAX_PAIRS:,}): a certified chain cannot state a delta below about "
                                     f"{floor:.2g} here; raise --delta or use an exact route")
        if req.pairs is None:
            return min(max(200, 2 * needed), MAX_PAIRS)
        if req.pairs < needed:
            raise UncertifiableError(f"--pairs {req.pairs} cannot certify TV {eta:.3g} (needed for --delta "
                                     f"{req.delta:g}) at 95 %: {needed} pairs are needed")
        return req.pairs

    def chain_target(self):
        """The chain's target law on Λ(A)."""
        if self.req.norm == "gaussian":
            return generalized_gaussian(float(self.unit))
        return generalized_laplace(float(self.unit), self.req.norm)

    def mechanism(self) -> dict:
        """The mechanism and its own parameter."""
        out = {"name": MECHANISMS["free-cells" if self.req.free_cells else self.req.norm]}
        if self.req.norm == "gaussian":
            out["sigma"] = str(self.unit)
        else:
            key = f"epsilon_per_unit_{self.req.norm}_distance"
            out[key] = str(self.unit) if isinstance(self.unit, Fraction) else float(self.unit)
        return out

    def check_not_weaker(self, g: Guarantee) -> None:
        """Refuse a guarantee weaker than the request (ε, δ per person), or a δ of 1 or more."""
        got, req = g.at(1), self.req
        eps_ok = got["epsilon"] <= float(req.epsilon_person) * (1 + 1e-12)
        delta_ok = got["delta"] <= (req.delta or 0.0) and got["delta"] < 1
        if not (eps_ok and delta_ok):
            raise UncertifiableError(f"the release would meet ({got['epsilon']:.6g}, {got['delta']:.3g}) per person, "
                                     f"weaker than the ({req.epsilon}, {req.delta or 0:g}) asked: nothing is released")


# --------------------------------------------------------------------------- the statement


def dry_run(table: Table | TableSet, A: np.ndarray, labels: list[str], req: Request) -> dict:
    """The statement a run with these options would carry, from the labels and the options only.

    The route is the one that would be tried first; on the chain route the δ stated is the most a
    run may reach (its certificate is computed at run time, from the invariants and fresh random
    numbers only).
    """
    plan = Plan.make(A, labels, req, getattr(table, "groups", None))
    if plan.exact is not None and plan.exact_feasible:
        route = route_record(plan, table)
        g = plan.guarantee()
    else:
        route = {"name": "certified chain", "pairs": plan.pairs(), "tv_target": plan.eta_target(),
                 "certificate": "computed at run time from the invariants and fresh random numbers"}
        g = plan.guarantee(plan.eta_target(), LEVEL)
    return {**privacy_statement(plan, table, g, route, None), "dry_run": True}


# --------------------------------------------------------------------------- the release


@dataclass
class Release:
    """A checked release, its publishable statement and its confidential audit record (not yet written)."""

    table: Table | TableSet
    values: np.ndarray  # int64 (n,)
    statement: dict
    audit: dict


def make_release(table: Table | TableSet, A: np.ndarray, labels: list[str], req: Request) -> Release:
    """Draw and check one release of ``table`` keeping ``A x``; raises a :class:`ReleaseError`."""
    started = time.perf_counter()
    plan = Plan.make(A, labels, req, getattr(table, "groups", None))
    A = plan.A
    x = table.x
    kept = row_values(A, x)
    for label, value in zip(labels, kept, strict=True):
        if abs(value) > COUNT_LIMIT:
            raise InputError(f"{table.path}: the invariant {label!r} is {value}, beyond ±2**53: counts and every "
                             "invariant's value must lie within ±2**53 (exact in int64 and float arithmetic)")
    invariants = np.array(kept, dtype=np.int64)
    rng = seeded_source(req.seed) if req.seed is not None else system_source()
    audit: dict = {}
    noise, certificate, proposal_eps, lattice = None, None, None, None
    if plan.exact is not None and plan.exact_feasible:
        sigma = plan.unit if req.norm == "gaussian" else None
        bar = Progress(len(plan.exact.parts), "exact sampler (blocks)", req.progress)
        try:
            noise, attempts = plan.exact.draw(1 / sigma if sigma is not None else plan.unit, rng,
                                              max_attempts=req.max_attempts, sigma=sigma, accept=not req.free_cells,
                                              on_block=bar.update)
        finally:
            bar.close()
        audit["exact_sampler"] = {"attempts": attempts, "accepted": noise is not None}
        if noise is None and not req.allow_chain:
            advice = ("its Gaussian step accepts a share that falls geometrically with the number of cells: use "
                      "--norm l1, or fewer cells" if req.norm == "gaussian" else "raise --max-attempts or --epsilon")
            raise UncertifiableError(f"the exact sampler accepted none of --max-attempts {req.max_attempts} proposals "
                                     f"(its acceptance depends on the invariants and epsilon, never on the counts): "
                                     f"{advice}")
    if noise is None:
        try:
            # the chain runs on the basis chosen for mixing (isdp.bases): the same lattice, a chain
            # whose coupled pairs meet (path moves for sums, adjacent 2x2 moves for two-way tables)
            lattice = with_mixing_basis(IntegerLattice.from_constraints(A.toarray()))
        except InvariantError as err:
            raise InfeasibleError(f"infeasible invariants: {err}") from None
        seed = rng.randbelow(2**62)
        bar = Progress(2, f"certifying the chain ({plan.pairs()} coupled pairs)", req.progress)
        try:
            proposal_eps, certificate = certify_chain(lattice, plan.chain_target(), threshold=plan.eta_target(),
                                                      n_pairs=plan.pairs(), max_iter=req.max_iter, seed=seed,
                                                      on_step=bar.update)
        finally:
            bar.close()
        iterations = certificate.burn_in(floor=1)  # the certified iteration, at least one
        res = sample(lattice, plan.chain_target(), n_chains=1, n_draws=1, burn_in=iterations - 1, thin=1,
                     proposal_eps=proposal_eps, seed=seed + 3, progress=False)
        noise = res.draws[0, -1]
        audit["certificate_seconds"] = round(certificate.seconds, 3)
    values = x + noise
    if req.nonnegative:
        values = _nonnegative(values, A)
    if values.dtype != np.int64 or values.shape != x.shape or row_values(A, values) != kept:
        raise AssertionError("release failed its checks (integer, every invariant exact); this is a bug in isdp")
    if certificate is None:
        guarantee = plan.guarantee()
    else:  # the chain is within TV η of the exact mechanism: η the certificate's bound at its run length
        guarantee = plan.guarantee(float(certificate.bound(iterations)[0]), LEVEL)
    plan.check_not_weaker(guarantee)
    statement = privacy_statement(plan, table, guarantee,
                                  route_record(plan, table, lattice, certificate, proposal_eps), invariants)
    inputs = [{"path": str(t.path), "sha256": _sha256(t.path), "cells": len(t.keys)}
              for t in (table.tables if isinstance(table, TableSet) else [table])]
    audit.update(
        input=inputs[0] if len(inputs) == 1 else inputs,
        seconds=round(time.perf_counter() - started, 3),
        route=statement["route"]["name"],
    )
    return Release(table, values, statement, audit)


def _nonnegative(values: np.ndarray, A: sparse.csr_array) -> np.ndarray:
    """The integer ℓ1 projection onto {z ≥ 0, A z = A values}, block by block (the objective and the
    constraints separate over :func:`blocks`); a block already non-negative is left as it is."""
    from .baselines import l1_projection_milp

    out = values.copy()
    for cells, rows in blocks(A):
        if out[cells].min() >= 0:
            continue
        if not len(rows):  # a cell in no invariant
            out[cells] = np.maximum(out[cells], 0)
            continue
        sub = A[rows][:, cells].toarray()
        out[cells] = l1_projection_milp(out[cells].astype(float), sub, sub @ out[cells], nonnegative=True)
    if np.any(out < 0):
        raise AssertionError("release has a negative cell despite --nonnegative; this is a bug in isdp")
    return out


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


__all__ = [
    "MAX_PAIRS",
    "MECHANISMS",
    "NORMS",
    "Plan",
    "Progress",
    "Release",
    "Request",
    "dry_run",
    "make_release",
]
