"""Release mode: privatise one confidential integer table, keep its invariants exactly, and say
which guarantee the release meets (docs/release.md; the derivations are in docs/method.md §11).

Two routes, chosen per request:

- **exact** (ℓ1): noise from the ℓ1 generalized Laplace on Λ(A) drawn exactly, in integer
  arithmetic (:mod:`isdp.discrete`), by rejection: draw the free cells I i.i.d. DG(ε), solve the
  invariants for the other cells Iᶜ (A[:, Iᶜ] unimodular, so the solve is integral) and accept
  with probability exp(-ε Σ_{i∈Iᶜ} |u_i|) — the accepted law is ∝ exp(-ε‖u‖₁) on Λ(A), the
  sum-constraint sampler of docs/method.md §7 for any such A. With non-negativity, a draw with a
  negative cell is rejected too, which is the congenial mechanism of Congenial DP §3 exactly.
  Guarantee: pure ε- (2ε- with non-negativity) integer subspace DP. The generalized Gaussian is
  drawn exactly too, by a second rejection from the ℓ1 law with ε = 1/σ (:meth:`ExactL1Sampler.draw`).
- **certified chain** (ℓ2, or ℓ1 and Gaussian when the exact route is out of budget): the compiled
  Gibbs-within-Metropolis sampler run for t iterations from u = 0, where t comes from L-lag
  coupled pairs started like the chain; the release is within total variation η of the exact
  mechanism, which turns ε into (ε, δ) with δ = (1 + e^ε)η.

Nothing is written unless the release is integer, meets every invariant exactly and has the
input's shape and labels; both files are written atomically, and a failure leaves neither.
"""

from __future__ import annotations

import csv
import hashlib
import json
import math
import os
import tempfile
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np
import sympy

from . import __version__
from .accounting import zcdp_to_dp
from .bases import with_mixing_basis
from .certification import Certificate, CertificationError, certify_searching_lag, pairs_needed
from .discrete import (
    IntegerSource,
    as_fraction,
    bernoulli_exp,
    double_geometric,
    seeded_source,
    system_source,
)
from .lattice import IntegerLattice, InvariantError, check_release
from .samplers import sample, tune_proposal
from .tables import LongTable, WideTable, read_long_table, read_wide_table, write_csv_atomic
from .targets import generalized_gaussian, generalized_laplace

FAMILIES = ("total", "row-margins", "column-margins", "all-margins")
NORMS = ("l1", "l2", "gaussian")
_PROPOSAL_GRID = (0.05, 0.1, 0.2, 0.4, 0.8, 1.6)


class ReleaseError(Exception):
    """A request that cannot be released; ``exit_code`` is the command's exit status."""

    exit_code = 1


class UsageError(ReleaseError):
    """Bad parameters (ε ≤ 0, an unknown family, a missing σ, …)."""

    exit_code = 2


class InputError(ReleaseError):
    """Unreadable table or constraint file: wrong shape, labels, non-integer or negative counts."""

    exit_code = 3


class InfeasibleError(ReleaseError):
    """The invariants cannot be kept with noise (full rank) or disagree with the table."""

    exit_code = 4


class UncertifiableError(ReleaseError):
    """No sampler reaches the requested guarantee within the budget."""

    exit_code = 5


# --------------------------------------------------------------------------- input


@dataclass(frozen=True)
class Table:
    """A confidential table as a vector of counts with one label per cell and per key."""

    path: Path
    x: np.ndarray  # int64 (n,)
    keys: list[tuple[str, ...]]  # each cell's key (row, column) for wide tables
    layout: WideTable | LongTable

    @property
    def cell_labels(self) -> list[str]:
        """``key1|key2|…`` per cell."""
        return ["|".join(k) for k in self.keys]

    def lines(self, cells) -> list[list[str]]:
        """The input's layout filled with ``cells``."""
        return self.layout.with_cells(cells)


def load_table(path, fmt: str = "auto", count_column: str = "count") -> Table:
    """Read a wide or long CSV table of non-negative integer counts (``fmt``: auto, wide or long).

    ``auto`` reads a table whose header has a column named ``count_column`` as long, else as wide.
    """
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    try:
        if fmt == "auto":
            with path.open(encoding="utf-8-sig", errors="replace") as fh:
                header = [h.strip().casefold() for h in fh.readline().split(",")]
            fmt = "long" if count_column.casefold() in header else "wide"
        if fmt == "long":
            long = read_long_table(path, count_column)
            return Table(path, long.counts, long.keys, long)
        if fmt != "wide":
            raise UsageError(f"unknown table format {fmt!r}: auto, wide or long")
        wide = read_wide_table(path)
        keys = [(r, c) for r in wide.row_labels for c in wide.col_labels]
        return Table(path, wide.cells.ravel(), keys, wide)
    except InvariantError as err:
        raise InputError(str(err)) from None


def _family_rows(table: Table, family: str) -> tuple[list[np.ndarray], list[str]]:
    n = len(table.keys)
    if family == "total":
        return [np.ones(n, dtype=np.int64)], ["total"]
    width = len(table.keys[0])
    axes = {"row-margins": [0], "column-margins": [1], "all-margins": [0, 1]}[family]
    if width < max(axes) + 1:
        raise UsageError(f"invariant {family!r} needs a table with two key columns (rows and columns); "
                         f"{table.path} has {width}")
    rows, labels = [], []
    for axis in axes:
        for level in dict.fromkeys(k[axis] for k in table.keys):  # first-seen order
            rows.append(np.array([k[axis] == level for k in table.keys], dtype=np.int64))
            labels.append(f"{'row' if axis == 0 else 'column'} {level}")
    return rows, labels


def read_constraint_file(path, table: Table) -> tuple[list[np.ndarray], list[str]]:
    """Constraints from a CSV: header ``constraint,<cell labels>[,value]``, one line per constraint.

    Cell labels are ``row|column`` (wide) or the key fields joined by ``|`` (long) and must name
    the table's cells in its order. An optional ``value`` column states each invariant's value;
    it must equal the table's (else :class:`InfeasibleError`).
    """
    path = Path(path)
    try:
        with path.open(encoding="utf-8-sig", newline="") as fh:
            lines = [[f.strip() for f in row] for row in csv.reader(fh) if any(f.strip() for f in row)]
    except (OSError, UnicodeDecodeError) as err:
        raise InputError(f"{path}: cannot read the constraint file ({err})") from None
    if not lines:
        raise InputError(f"{path}: the constraint file is empty")
    header, body = lines[0], lines[1:]
    has_value = header[-1].casefold() == "value"
    cells = header[1:-1] if has_value else header[1:]
    if cells != table.cell_labels:
        raise InputError(f"{path}: the header must name the table's {len(table.keys)} cells in order "
                         f"({', '.join(table.cell_labels[:3])}, …); got {len(cells)} columns "
                         f"({', '.join(cells[:3])}, …)")
    rows, labels = [], []
    for number, fields in enumerate(body, start=2):
        if len(fields) != len(header):
            raise InputError(f"{path}: line {number} has {len(fields)} fields, the header {len(header)}")
        try:
            coef = np.array([int(f) for f in fields[1 : 1 + len(cells)]], dtype=np.int64)
        except ValueError:
            raise InputError(f"{path}: line {number}: coefficients must be integers") from None
        if has_value:
            try:
                stated = int(fields[-1])
            except ValueError:
                raise InputError(f"{path}: line {number}: value {fields[-1]!r} is not an integer") from None
            actual = int(coef @ table.x)
            if stated != actual:
                raise InfeasibleError(f"{path}: constraint {fields[0]!r} states the value {stated}, "
                                      f"the table gives {actual}: the invariants do not hold on this table")
        rows.append(coef)
        labels.append(fields[0] or f"constraint {number - 1}")
    return rows, labels


def constraint_matrix(table: Table, families=(), constraint_file=None) -> tuple[np.ndarray, list[str]]:
    """The invariants as a matrix A (rows without repeats) with a label per row."""
    rows, labels = [], []
    for family in families:
        if family not in FAMILIES:
            raise UsageError(f"unknown invariant family {family!r}: choose from {', '.join(FAMILIES)}")
        r, lab = _family_rows(table, family)
        rows += r
        labels += lab
    if constraint_file is not None:
        r, lab = read_constraint_file(constraint_file, table)
        rows += r
        labels += lab
    if not rows:
        raise UsageError("no invariants: give --invariant (total, row-margins, column-margins, "
                         "all-margins) and/or --constraints FILE")
    seen, keep = set(), []
    for i, r in enumerate(rows):
        if r.tobytes() not in seen:
            seen.add(r.tobytes())
            keep.append(i)
    return np.array([rows[i] for i in keep]), [labels[i] for i in keep]


# --------------------------------------------------------------------------- exact route


def independent_rows(A: np.ndarray) -> np.ndarray:
    """Positions of a maximal set of linearly independent rows of A (first-come)."""
    keep: list[int] = []
    for i in range(A.shape[0]):
        if np.linalg.matrix_rank(A[[*keep, i]].astype(float)) == len(keep) + 1:
            keep.append(i)
    return np.array(keep, dtype=np.int64)


def unimodular_complement(A: np.ndarray) -> np.ndarray | None:
    """Columns Iᶜ with A[:, Iᶜ] square and of determinant ±1 (A with independent rows), or None.

    Greedy from the last column (so the solved cells are the table's last ones); for totally
    unimodular A (margins of two-way tables) any basis works.
    """
    cols: list[int] = []
    for j in reversed(range(A.shape[1])):
        if np.linalg.matrix_rank(A[:, [*cols, j]].astype(float)) == len(cols) + 1:
            cols.append(j)
            if len(cols) == A.shape[0]:
                break
    cols.sort()
    det = int(sympy.Matrix(A[:, cols].tolist()).det())
    return np.array(cols, dtype=np.int64) if abs(det) == 1 else None


def _bernoulli_exp(gamma: Fraction, rng: IntegerSource) -> bool:
    return bernoulli_exp(gamma.numerator, gamma.denominator, rng)


@dataclass(frozen=True)
class ExactL1Sampler:
    """Exact ℓ1 generalized Laplace noise on Λ(A) by rejection (module docstring).

    ``solve`` maps the free cells' noise to the solved cells' (integer: A[:, solved] is unimodular).
    """

    A: np.ndarray  # independent rows of the invariants
    free: np.ndarray
    solved: np.ndarray
    solve: np.ndarray

    @classmethod
    def build(cls, A: np.ndarray) -> ExactL1Sampler | None:
        """The sampler for Λ(A), or None when no set of cells has a unimodular A[:, cells]."""
        A = A[independent_rows(A)]
        solved = unimodular_complement(A)
        if solved is None:
            return None
        free = np.setdiff1d(np.arange(A.shape[1]), solved)
        inverse = sympy.Matrix(A[:, solved].tolist()).inv()
        solve = -np.array((inverse * sympy.Matrix(A[:, free].tolist())).tolist(), dtype=np.int64)
        return cls(A, free, solved, solve)

    def draw(self, x: np.ndarray, eps: Fraction, rng: IntegerSource, *, nonnegative: bool = False,
             max_attempts: int, sigma: Fraction | None = None,
             progress: bool = False) -> tuple[np.ndarray | None, int]:
        """(noise, attempts); noise is None when no proposal was accepted within ``max_attempts``.

        With ``nonnegative``, a proposal with x + u < 0 in some cell is rejected as well. With
        ``sigma`` (and ``eps`` = 1/σ), an accepted ℓ1 draw is kept with probability
        exp(-Σ_i (|u_i| - σ)² / 2σ²) = exp(-‖u‖²/2σ² + ‖u‖₁/σ - n/2) ≤ 1, so the kept law is
        ∝ exp(-‖u‖₂²/2σ²) on Λ(A): the generalized Gaussian, exactly (rejection from the ℓ1 law).
        """
        from tqdm import tqdm

        u = np.zeros(self.A.shape[1], dtype=np.int64)
        with tqdm(total=max_attempts, desc="exact sampler (attempts)", unit="try", leave=False,
                  disable=None if progress else True, miniters=1000) as bar:
            for attempt in range(1, max_attempts + 1):
                u[self.free] = [double_geometric(eps, rng) for _ in self.free]
                u[self.solved] = self.solve @ u[self.free]
                if not (nonnegative and np.any(x + u < 0)) and _bernoulli_exp(eps * int(np.abs(u[self.solved]).sum()), rng):
                    if sigma is None or _bernoulli_exp(sum((abs(int(v)) - sigma) ** 2 for v in u) / (2 * sigma**2), rng):
                        if np.any(self.A @ u != 0):
                            raise AssertionError("exact sampler left Λ(A); this is a bug in isdp")
                        return u, attempt
                bar.update()
        return None, max_attempts


# --------------------------------------------------------------------------- certified chain


@dataclass(frozen=True)
class ChainCertificate:
    """The chain route's certificate: the run length and the :class:`isdp.Certificate` behind it."""

    iterations: int  # the chain's iterations: t_cert of the certificate (at least 1)
    proposal_eps: float
    certificate: Certificate

    @property
    def eta(self) -> float:
        """The TV bound the statement uses: the certificate's 95 % upper confidence bound at ``iterations``."""
        return float(self.certificate.bound(self.iterations)[0])

    def record(self) -> dict:
        return {"method": "L-lag coupling (Biswas, Jacob & Vanetti 2019), pairs started at u = 0, as the chain",
                "iterations": self.iterations, "proposal_eps": self.proposal_eps, "tv_certified": self.eta,
                **self.certificate.summary(burn_in=self.iterations)}


def certify_chain(lattice: IntegerLattice, target, *, tv: float, pairs: int, max_iter: int, seed: int,
                  progress: bool = False) -> ChainCertificate:
    """The first t at which the 95 % upper confidence bound on the chain's TV bound is at most ``tv``
    (:func:`isdp.certify`, docs/method.md §4).

    Pairs start at u = 0, as the release chain does (:func:`isdp.certification.certify_searching_lag`:
    one term, the lag fixed by a pilot before the pairs run, within ``max_iter``). Raises
    :class:`UncertifiableError` when ``pairs`` cannot resolve ``tv`` at all, when a pilot pair has
    not met within ``max_iter`` iterations, or when the bound never reaches ``tv``.
    """
    from tqdm import tqdm

    if pairs < pairs_needed(tv):
        raise UncertifiableError(f"--tv {tv:g} is below what {pairs} coupled pairs can resolve at 95 % "
                                 f"({pairs_needed(tv)} are needed): raise --pairs")
    with tqdm(total=2, desc="certifying the chain", disable=None if progress else True, leave=False) as bar:
        _, proposal_eps = tune_proposal(lattice, target, _PROPOSAL_GRID, n_chains=2, n_iter=1000, seed=seed)
        bar.update()
        try:
            cert = certify_searching_lag(lattice, target, proposal_eps=proposal_eps, start=None, n_pairs=pairs,
                                         seed=seed + 1, threshold=tv, max_iter=max_iter)
        except CertificationError as err:
            raise UncertifiableError(f"cannot certify the chain within --max-iter {max_iter}: {err}; raise "
                                     "--max-iter, use the l1 norm (exact sampler) or fewer cells") from None
        bar.update()
    if not cert.certified:
        raise UncertifiableError(f"cannot certify the chain within --max-iter {max_iter}: {cert.status}; raise "
                                 "--max-iter, use the l1 norm (exact sampler) or fewer cells")
    return ChainCertificate(iterations=max(cert.t_cert, 1), proposal_eps=float(proposal_eps), certificate=cert)


# --------------------------------------------------------------------------- the release


@dataclass
class Request:
    """What to release and how (the command's options)."""

    norm: str = "l1"
    epsilon: str | None = None  # exact decimal or fraction as typed
    sigma: float | None = None
    delta: float = 1e-6  # Gaussian only: the δ of its (ε, δ) conversion
    nonnegative: bool = False
    tv: float = 0.02
    pairs: int = 200
    max_iter: int = 200_000
    max_attempts: int = 20_000
    seed: int | None = None  # None: operating-system entropy
    progress: bool = False

    def check(self) -> None:
        """Raise :class:`UsageError` on any inconsistent parameter."""
        if self.norm not in NORMS:
            raise UsageError(f"unknown norm {self.norm!r}: choose from {', '.join(NORMS)}")
        if self.norm == "gaussian":
            if self.sigma is None or not (math.isfinite(self.sigma) and self.sigma > 0):
                raise UsageError(f"the Gaussian mechanism needs --sigma > 0, got {self.sigma}")
            if not 0 < self.delta < 1:
                raise UsageError(f"--delta must lie in (0, 1), got {self.delta}")
        else:
            if self.epsilon is None:
                raise UsageError(f"the {self.norm} mechanism needs --epsilon")
            try:
                eps = as_fraction(self.epsilon)
            except ValueError:
                raise UsageError(f"--epsilon must be a positive number, got {self.epsilon!r}") from None
            if not 1e-9 <= eps <= 700:
                raise UsageError(f"--epsilon {self.epsilon} is outside [1e-9, 700]")
        if self.nonnegative and self.norm != "l1":
            raise UsageError("--nonnegative needs --norm l1 (the congenial mechanism of Congenial DP §3)")
        if not 0 < self.tv < 1:
            raise UsageError(f"--tv must lie in (0, 1), got {self.tv}")
        for name in ("pairs", "max_iter", "max_attempts"):
            if getattr(self, name) < 2:
                raise UsageError(f"--{name.replace('_', '-')} must be at least 2")


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def guarantee_statement(req: Request, eta: float | None) -> dict:
    """The guarantee of ``req``: pure (η None, an exact draw) or with δ from the TV bound η (docs/method.md §11)."""
    if req.norm == "gaussian":
        rho = 1.0 / (2 * req.sigma**2)
        eps0 = zcdp_to_dp(rho, req.delta)
        out = {"kind": "zCDP", "rho_per_unit_l2_distance": rho,
               "text": (f"rho-zCDP with rho = ||x - x'||_2^2 / (2 sigma^2) = {rho:.6g}·||x - x'||_2^2 for every pair "
                        "of tables with the same invariants (A x = A x')"),
               "epsilon_at_unit_distance": eps0, "delta_of_conversion": req.delta}
        if eta is not None:
            out["delta_at_unit_distance"] = req.delta + (1 + math.exp(eps0)) * eta
            out["text"] += (f"; the chain is within TV {eta:.3g} of it, so at unit l2 distance "
                            f"({eps0:.4g}, {out['delta_at_unit_distance']:.3g})-DP")
        return out
    eps = float(as_fraction(req.epsilon))
    scale = 2 * eps if req.nonnegative else eps
    norm = "||x - x'||_1" if req.norm == "l1" else "||x - x'||_2"
    out = {"kind": "pure" if eta is None else "approximate", "epsilon_per_unit_distance": scale,
           "distance": req.norm}
    base = (f"for all tables x, x' with the same invariants (A x = A x') and every set S of outputs, "
            f"P(M(x) in S) <= exp({scale:g}·{norm})·P(M(x') in S)")
    if req.nonnegative:
        base += " (the congenial mechanism: 2ε, Congenial DP §3)"
    if eta is None:
        out["text"] = f"{scale:g}-integer subspace DP: {base}"
        return out
    out["delta_at_distance"] = {str(d): (1 + math.exp(scale * d)) * eta for d in (1, 2)}
    out["text"] = (f"({scale:g}, delta)-integer subspace DP with delta = (1 + exp({scale:g}·d))·{eta:.3g} at "
                   f"distance d = {norm}: {base} + delta")
    return out


@dataclass
class Release:
    """A checked release and its provenance (not yet written)."""

    table: Table
    values: np.ndarray  # int64 (n,)
    provenance: dict


def make_release(table: Table, A: np.ndarray, labels: list[str], req: Request) -> Release:
    """Draw and check one release of ``table`` keeping ``A x``; raises a :class:`ReleaseError`."""
    req.check()
    x = table.x
    invariants = A @ x
    reproducible = req.seed is not None
    rng = seeded_source(req.seed) if reproducible else system_source()
    try:
        # the chain route runs on the basis chosen for mixing (isdp.bases): the same lattice, a chain
        # whose coupled pairs meet (path moves for sums, adjacent 2x2 moves for two-way tables)
        lattice = with_mixing_basis(IntegerLattice.from_constraints(A))
    except InvariantError as err:
        raise InfeasibleError(f"infeasible invariants: {err}") from None
    prov: dict = {"mechanism": None, "route": None, "sampler": None, "basis": None, "certificate": None}
    noise = None
    if req.norm in ("l1", "gaussian"):
        sigma = as_fraction(str(req.sigma)) if req.norm == "gaussian" else None
        eps = 1 / sigma if sigma is not None else as_fraction(req.epsilon)
        exact = ExactL1Sampler.build(A)
        if exact is not None:
            noise, attempts = exact.draw(x, eps, rng, nonnegative=req.nonnegative, max_attempts=req.max_attempts,
                                         sigma=sigma, progress=req.progress)
            prov["exact_sampler"] = {"max_attempts": req.max_attempts,
                                     "solved_cells": [table.cell_labels[i] for i in exact.solved]}
            if not req.nonnegative:  # with non-negativity the count depends on x: not published
                prov["exact_sampler"]["attempts"] = attempts
        if noise is not None:
            how = ("exact rejection in integer arithmetic: free cells i.i.d. double geometric (Canonne-Kamath-"
                   f"Steinke Alg. 2) with epsilon {eps}, invariants solved for the other cells, accepted with "
                   f"probability exp(-{eps}·sum |u_solved|)")
            if sigma is not None:
                how += f", then kept with probability exp(-sum (|u_i| - {sigma})^2 / (2·{sigma}^2))"
            prov.update(route="exact", sampler=how + (", negative cells rejected" if req.nonnegative else ""),
                        basis={"solved_cells": prov["exact_sampler"]["solved_cells"]})
        elif req.nonnegative:
            what = ("no unimodular set of cells to solve the invariants for" if exact is None
                    else f"no draw accepted in --max-attempts {req.max_attempts}")
            raise UncertifiableError(f"cannot release with --nonnegative exactly: {what}; raise --max-attempts, "
                                     "raise --epsilon, or release without --nonnegative")
    if noise is None:
        target = (generalized_gaussian(req.sigma) if req.norm == "gaussian"
                  else generalized_laplace(float(as_fraction(req.epsilon)), req.norm))
        seed = rng.randbelow(2**62)
        cert = certify_chain(lattice, target, tv=req.tv, pairs=req.pairs, max_iter=req.max_iter, seed=seed,
                             progress=req.progress)
        res = sample(lattice, target, n_chains=1, n_draws=1, burn_in=cert.iterations - 1, thin=1,
                     proposal_eps=cert.proposal_eps, seed=seed + 3, progress=False)
        noise = res.draws[0, -1]
        prov.update(route="certified chain", sampler=(
            "compiled Gibbs-within-Metropolis (ISDP Alg. 1), one chain from u = 0, run "
            f"{cert.iterations} iterations; double geometric jumps from a 2**-52-rounded alias table"),
            basis={"kind": lattice.basis_name, "vectors": lattice.basis.T.tolist()},
            certificate={**cert.record(), "tv_target": req.tv})
    values = x + noise
    try:
        check_release(values, A, invariants)
    except InvariantError as err:
        raise AssertionError(f"release failed its checks ({err}); this is a bug in isdp") from None
    if req.nonnegative and np.any(values < 0):
        raise AssertionError("release has a negative cell despite --nonnegative; this is a bug in isdp")
    eta = None if prov["route"] == "exact" else prov["certificate"]["tv_certified"]
    mechanism = ({"l1": "generalized Laplace, l1 norm (ISDP Def. 9)", "l2": "generalized Laplace, l2 norm (ISDP Def. 9)",
                  "gaussian": "generalized Gaussian (ISDP Eq. 8)"}[req.norm])
    if req.nonnegative:
        mechanism += ", conditioned on non-negative cells (congenial, Congenial DP §3)"
    prov.update(
        mechanism=mechanism,
        epsilon=req.epsilon if req.norm != "gaussian" else None,
        sigma=req.sigma,
        guarantee=guarantee_statement(req, eta),
        invariants=[{"label": lab, "value": int(v), "coefficients": row.tolist()}
                    for lab, v, row in zip(labels, invariants, A, strict=True)],
        randomness=("seeded: reproducible, not for publication" if reproducible
                    else "operating-system entropy (secrets)"),
        seed=req.seed,
        input={"path": str(table.path), "sha256": _sha256(table.path), "cells": int(len(x))},
        package={"name": "isdp", "version": __version__},
        checks=["integer", "every invariant exact (A·release = A·x)", "input shape and labels",
                *(["non-negative"] if req.nonnegative else [])],
    )
    return Release(table, values, prov)


def write_release(release: Release, output, provenance) -> None:
    """Write the table and its provenance atomically; on any failure neither file is left behind."""
    output, provenance = Path(output), Path(provenance)
    lines = release.table.lines(release.values)
    expected = release.table.lines(release.table.x)
    if len(lines) != len(expected) or any(len(a) != len(b) or a[0] != b[0] for a, b in zip(lines, expected, strict=True)):
        raise AssertionError("release layout differs from the input's; this is a bug in isdp")
    fd, tmp = tempfile.mkstemp(dir=provenance.parent, prefix=f".{provenance.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(release.provenance | {"output": {"path": str(output)}}, fh, indent=1)
            fh.write("\n")
        write_csv_atomic(output, lines)
        try:
            os.replace(tmp, provenance)
        except BaseException:
            output.unlink(missing_ok=True)
            raise
    finally:
        Path(tmp).unlink(missing_ok=True)
