"""Release mode: privatise one confidential integer table, keep its invariants exactly, and state
the guarantee the release meets per person (docs/release.md; the derivations are in
docs/method.md §11; the neighbouring relation and the calibration in :mod:`isdp.privacy`).

The user states the guarantee needed per person (ε, and δ where the route has one); the routes:

- **exact** (ℓ1, and the Gaussian): noise from the ℓ1 generalized Laplace on Λ(A) drawn exactly,
  in integer arithmetic (:mod:`isdp.discrete`), by rejection: draw the free cells I i.i.d. DG(ε),
  solve the invariants for the other cells Iᶜ (:func:`integral_solve`) and accept with
  probability exp(-ε Σ_{i∈Iᶜ} |u_i|) — the accepted law is ∝ exp(-ε‖u‖₁) on Λ(A). The
  generalized Gaussian is drawn by a second rejection from the ℓ1 law with ε = 1/σ
  (:meth:`ExactL1Sampler.draw`). Pure ε (ρ-zCDP for the Gaussian), operating-system entropy.
  Block by block (:func:`blocks`); the plan forecasts the acceptance from A and ε and refuses a
  block it cannot serve before any count is used.
- **free cells** (ℓ1, ``free_cells``): the proposal without the rejection — the free cells are
  the lattice's coordinates, so the guarantee is the ℓ1 route's; exact, linear time, uneven
  variances (stated).
- **certified chain** (ℓ2, or ℓ1 and the Gaussian when asked with ``allow_chain``): the compiled
  Gibbs-within-Metropolis sampler run for t iterations from u = 0, t from coupled pairs started
  like the chain; the release is within total variation η of the exact mechanism, which turns ε
  into (ε, δ) with δ = (1 + e^ε)η. Its random numbers are not cryptographic, so it is refused
  for publication (study runs only, seeded).

Several tables of the same persons (:class:`TableSet`) are one vector under their invariants and
the ties between them; a table the others determine is derived (outside the norm,
:func:`norm_tables`), and ε per person counts every table in the norm (docs/method.md §11).

With ``nonnegative`` the release is post-processed onto the non-negative tables with the same
invariants (the integer ℓ1 projection): no privacy cost, no refusal and no run time that depends
on the counts. The noise never depends on the counts, so neither does any refusal, progress
line or attempt count; the counts enter only as x + u.

Three files: the released table, its **privacy statement** (publishable: nothing in it is
derived from the counts beyond the invariants' values, which the release discloses anyway) and
an **audit record** (confidential: the input's path and hash, attempt counts, timings). Nothing
is written unless the release is integer, meets every invariant exactly, has the input's shape
and labels and its guarantee is at least as strong as the one asked for; a failure leaves none
of the three.
"""

from __future__ import annotations

import csv
import hashlib
import itertools
import json
import math
import os
import re
import sys
import tempfile
import time
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from pathlib import Path

import numpy as np
from scipy import sparse

from . import __version__
from .bases import with_mixing_basis
from .certification import (
    LEVEL,
    Certificate,
    CertificationError,
    certify_searching_lag,
    pairs_needed,
)
from .discrete import (
    IntegerSource,
    as_fraction,
    bernoulli_exp,
    double_geometric_array,
    seeded_source,
    system_source,
)
from .distributions import dg_variance
from .lattice import COUNT_LIMIT, IntegerLattice, InvariantError
from .privacy import Guarantee, Neighbours, gaussian_sigma, unit_epsilon
from .samplers import sample, tune_proposal
from .tables import (
    LongTable,
    WideTable,
    read_long_table,
    read_table_keys,
    read_wide_table,
)
from .targets import generalized_gaussian, generalized_laplace

FAMILIES = ("total", "row-margins", "column-margins", "all-margins")
NORMS = ("l1", "l2", "gaussian")
_PROPOSAL_GRID = (0.05, 0.1, 0.2, 0.4, 0.8, 1.6)
#: most coupled pairs a chain certificate may ask for (each costs a coupled run)
MAX_PAIRS = 100_000


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
    """No route reaches the requested guarantee within the budget, or the route is refused for publication."""

    exit_code = 5


# --------------------------------------------------------------------------- input


@dataclass(frozen=True)
class Table:
    """A confidential table as a vector of counts with one label per cell and per key.

    ``x`` and ``layout`` are None for a table read for a dry run (its labels only).
    """

    path: Path
    x: np.ndarray | None  # int64 (n,)
    keys: list[tuple[str, ...]]  # each cell's key (row, column) for wide tables
    layout: WideTable | LongTable | None
    key_names: tuple[str, ...] = ("row", "column")  # a long table's key column names

    @cached_property
    def cell_labels(self) -> list[str]:
        """``key1|key2|…`` per cell."""
        return ["|".join(k) for k in self.keys]

    def lines(self, cells) -> list[list[str]]:
        """The input's layout filled with ``cells``."""
        return self.layout.with_cells(cells)


#: a label that reads as a number: in a wide table read with ``--format auto`` it may be a count
#: (a file without a header row or without a row-label column), which must never be published
_NUMBER_RE = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
#: largest coefficient of a constraint (as the library's lattices: docs/reliability.md)
COEFFICIENT_LIMIT = 2**31


def _numeric_labels(table: Table) -> None:
    for axis, what, hint in ((1, "column", "no header row"), (0, "row", "no row-label column")):
        for label in dict.fromkeys(k[axis] for k in table.keys):
            if _NUMBER_RE.fullmatch(label):
                raise InputError(f"{table.path}: the {what} label {label!r} is a number: the file may have {hint}, "
                                 "and a count read as a label would be published unchanged; if the labels are "
                                 "right, say so with --format wide")


def load_table(path, fmt: str = "auto", count_column: str = "count", counts: bool = True) -> Table:
    """Read a wide or long CSV table of non-negative integer counts (``fmt``: auto, wide or long).

    ``auto`` reads a table whose header has a column named ``count_column`` as long, else as wide;
    a wide table read so is refused when a row or column label is a number (it may be a count: a
    file without a header row or without a row-label column), unless ``fmt`` says ``wide``. With
    ``counts`` False only the labels are read (a dry run): ``x`` and ``layout`` are None.
    """
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such file" if not path.exists() else f"{path}: not a regular file")
    if fmt not in ("auto", "long", "wide"):
        raise UsageError(f"unknown table format {fmt!r}: auto, wide or long")
    try:
        chosen = fmt
        if fmt == "auto":
            with path.open(encoding="utf-8-sig", errors="replace") as fh:
                header = [h.strip().casefold() for h in fh.readline().split(",")]
            chosen = "long" if count_column.casefold() in header else "wide"
        names = ("row", "column")
        if chosen == "long":
            with path.open(encoding="utf-8-sig", newline="") as fh:
                header = [h.strip() for h in next(csv.reader(fh), [])]
            names = tuple(h for h in header if h.casefold() != count_column.casefold())
        if not counts:
            table = Table(path, None, read_table_keys(path, count_column if chosen == "long" else None), None, names)
        elif chosen == "long":
            long = read_long_table(path, count_column)
            table = Table(path, long.counts, long.keys, long, names)
        else:
            wide = read_wide_table(path)
            table = Table(path, wide.cells.ravel(), [(r, c) for r in wide.row_labels for c in wide.col_labels], wide)
    except InvariantError as err:
        raise InputError(str(err)) from None
    except OSError as err:
        raise InputError(f"{path}: cannot read the table ({err.strerror or err})") from None
    if fmt == "auto" and chosen == "wide":
        _numeric_labels(table)
    for key in table.keys:
        if any("|" in field for field in key):
            raise InputError(f"{path}: the label {next(f for f in key if '|' in f)!r} contains '|', which joins a "
                             "cell's keys in constraint files and statements (two cells could get one name)")
    return table


@dataclass(frozen=True)
class TableSet:
    """Several tables released together (the same persons counted in each, at most once per table):
    one vector of their cells in order, each cell labelled ``NAME|key…`` with NAME its file's stem."""

    tables: tuple[Table, ...]
    names: tuple[str, ...]

    @classmethod
    def of(cls, tables: list[Table]) -> TableSet:
        names = tuple(t.path.stem for t in tables)
        if len(set(names)) < len(names):
            raise UsageError(f"tables released together need distinct file names (their stems name them in "
                             f"invariants and statements): {', '.join(names)}")
        return cls(tuple(tables), names)

    @property
    def path(self) -> str:
        return " + ".join(str(t.path) for t in self.tables)

    @cached_property
    def x(self) -> np.ndarray | None:
        return None if self.tables[0].x is None else np.concatenate([t.x for t in self.tables])

    @cached_property
    def keys(self) -> list[tuple[str, ...]]:
        return [(name, *k) for name, t in zip(self.names, self.tables, strict=True) for k in t.keys]

    @cached_property
    def cell_labels(self) -> list[str]:
        return ["|".join(k) for k in self.keys]

    @cached_property
    def groups(self) -> list[np.ndarray]:
        """Each table's cells in the joint vector."""
        ends = np.cumsum([len(t.keys) for t in self.tables])
        return [np.arange(end - len(t.keys), end) for t, end in zip(self.tables, ends, strict=True)]

    def table(self, name: str) -> int:
        """The position of the table called ``name``."""
        if name not in self.names:
            raise UsageError(f"no table called {name!r}: the tables are {', '.join(self.names)} (their file stems)")
        return self.names.index(name)


def _grouped_rows(table: Table, axes: list[int], what) -> tuple[sparse.csr_array, list[str]]:
    """One row per distinct value of the key fields ``axes`` (first-seen order): the sum of its cells."""
    groups: dict[tuple[str, ...], int] = {}
    member = np.array([groups.setdefault(tuple(k[a] for a in axes), len(groups)) for k in table.keys],
                      dtype=np.int64)
    n = len(table.keys)
    A = sparse.csr_array((np.ones(n, dtype=np.int64), (member, np.arange(n))), shape=(len(groups), n))
    return A, [what(g) for g in groups]


def _family_rows(table: Table, family: str) -> tuple[sparse.csr_array, list[str]]:
    """The rows of an invariant family: ``total``, ``row-margins``, ``column-margins``,
    ``all-margins`` or ``by:NAME[,NAME…]`` (a total for every combination of those key columns)."""
    if family == "total":
        return _grouped_rows(table, [], lambda g: "total")
    if family.startswith("by:"):
        wanted = [w.strip() for w in family[3:].split(",") if w.strip()]
        names = [n.casefold() for n in table.key_names]
        missing = [w for w in wanted if w.casefold() not in names]
        if missing or len(set(map(str.casefold, wanted))) != len(wanted):
            raise UsageError(f"invariant {family!r}: name key columns of {table.path}, each once: "
                             f"{', '.join(table.key_names)}" + (f" (no {', '.join(map(repr, missing))})" if missing else ""))
        axes = [names.index(w.casefold()) for w in wanted]
        return _grouped_rows(table, axes, lambda g: "by " + ", ".join(
            f"{table.key_names[a]}={v}" for a, v in zip(axes, g, strict=True)) if axes else "total")
    if family not in FAMILIES:
        raise UsageError(f"unknown invariant family {family!r}: choose from {', '.join(FAMILIES)} or by:NAME[,NAME…]")
    width = len(table.keys[0])
    axes = {"row-margins": [0], "column-margins": [1], "all-margins": [0, 1]}[family]
    if width < max(axes) + 1:
        raise UsageError(f"invariant {family!r} needs a table with two key columns (rows and columns); "
                         f"{table.path} has {width}")
    parts = [_grouped_rows(table, [axis], lambda g, axis=axis: f"{'row' if axis == 0 else 'column'} {g[0]}")
             for axis in axes]
    return sparse.vstack([a for a, _ in parts], format="csr"), [lab for _, labs in parts for lab in labs]


def read_constraint_file(path, table: Table) -> tuple[list[np.ndarray], list[str]]:
    """Constraints from a CSV: header ``constraint,<cell labels>[,value]``, one line per constraint.

    Cell labels are ``row|column`` (wide) or the key fields joined by ``|`` (long) and must name
    the table's cells in its order. An optional ``value`` column states each invariant's value;
    it must equal the table's (else :class:`InfeasibleError`; not checked on a dry run's table).
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
            ints = [int(f) for f in fields[1 : 1 + len(cells)]]
        except ValueError:
            raise InputError(f"{path}: line {number}: coefficients must be integers") from None
        if max(map(abs, ints)) > COEFFICIENT_LIMIT:
            raise InputError(f"{path}: line {number}: a coefficient is beyond ±2**31")
        if not any(ints):
            raise InputError(f"{path}: line {number}: constraint {fields[0]!r} has no non-zero coefficient")
        coef = np.array(ints, dtype=np.int64)
        if has_value:
            try:
                stated = int(fields[-1])
            except ValueError:
                raise InputError(f"{path}: line {number}: value {fields[-1]!r} is not an integer") from None
            actual = stated if table.x is None else sum(c * int(v) for c, v in zip(ints, table.x, strict=True))
            if stated != actual:
                raise InfeasibleError(f"{path}: constraint {fields[0]!r} states the value {stated}, "
                                      f"the table gives {actual}: the invariants do not hold on this table")
        rows.append(coef)
        labels.append(fields[0] or f"constraint {number - 1}")
    return rows, labels


def as_sparse(A) -> sparse.csr_array:
    """A constraint matrix as a canonical int64 CSR array (memory linear in its non-zeros)."""
    A = sparse.csr_array(A, dtype=np.int64)
    A.sum_duplicates()
    A.eliminate_zeros()
    A.sort_indices()
    return A


def _placed(tset: TableSet, k: int, rows: sparse.csr_array) -> sparse.csr_array:
    """Rows over table ``k``'s cells as rows over the joint vector."""
    n = len(tset.keys)
    rows = sparse.coo_array(rows)
    return sparse.csr_array((rows.data, (rows.row, rows.col + tset.groups[k][0])), shape=(rows.shape[0], n))


def _set_family_rows(tset: TableSet, family: str) -> tuple[sparse.csr_array, list[str]]:
    """A family on every table, or on one with ``FAMILY@NAME``."""
    family, _, name = family.partition("@")
    which = [tset.table(name)] if name else range(len(tset.tables))
    parts, labels = [], []
    for k in which:
        rows, lab = _family_rows(tset.tables[k], family)
        parts.append(_placed(tset, k, rows))
        labels += [f"{tset.names[k]}: {label}" for label in lab]
    return sparse.vstack(parts, format="csr"), labels


def _tie_rows(tset: TableSet, tie: str) -> tuple[sparse.csr_array, list[str]]:
    """``total`` or ``by:NAME[,NAME…]``: the totals of each group agree in every table that has those
    key columns (the first such table's against each other's)."""
    if tie != "total" and not tie.startswith("by:"):
        raise UsageError(f"unknown tie {tie!r}: total or by:NAME[,NAME…] (key columns the tables share)")
    wanted = {w.strip().casefold() for w in tie[3:].split(",") if w.strip()} if tie != "total" else set()
    tied = [k for k, t in enumerate(tset.tables) if wanted <= {n.casefold() for n in t.key_names}]
    if len(tied) < 2:
        raise UsageError(f"tie {tie!r}: fewer than two tables have those key columns "
                         f"({'; '.join(f'{n}: ' + ', '.join(t.key_names) for n, t in zip(tset.names, tset.tables, strict=True))})")
    totals = []
    for k in tied:
        t = tset.tables[k]
        axes = [[n.casefold() for n in t.key_names].index(w) for w in sorted(wanted)]
        rows, groups = _grouped_rows(t, axes, lambda g: g)  # labelled by the group's key values
        totals.append((k, {g: i for i, g in enumerate(groups)}, _placed(tset, k, rows)))
    first, first_groups, first_rows = totals[0]
    parts, labels = [], []
    for k, groups, rows in totals[1:]:
        if set(groups) != set(first_groups):
            odd = next(iter(set(groups) ^ set(first_groups)))
            raise InputError(f"tie {tie!r}: {tset.names[first]} and {tset.names[k]} do not have the same groups "
                             f"({'|'.join(odd)} is in one only)")
        order = list(first_groups)
        parts.append(first_rows[[first_groups[g] for g in order]] - rows[[groups[g] for g in order]])
        labels += [f"tie {'total' if not wanted else ', '.join(f'{w}={v}' for w, v in zip(sorted(wanted), g, strict=True))}: "
                   f"{tset.names[first]} = {tset.names[k]}" for g in order]
    A = sparse.vstack(parts, format="csr")
    if tset.x is not None:
        broken = [lab for lab, value in zip(labels, _row_values(as_sparse(A), tset.x), strict=True) if value != 0]
        if broken:
            raise InfeasibleError(f"the tables disagree where they are tied ({len(broken)} of {len(labels)} ties, "
                                  f"e.g. {broken[0]!r}): they cannot be released as one consistent set")
    return A, labels


def constraint_matrix(table: Table | TableSet, families=(), constraint_file=None,
                      ties=()) -> tuple[sparse.csr_array, list[str]]:
    """The invariants as a sparse matrix A (rows without repeats) with a label per row.

    For a :class:`TableSet` each family applies to every table (``FAMILY@NAME``: to one), ``ties``
    add the rows that make the tables agree, and a constraint file names cells ``NAME|key…``.
    """
    several = isinstance(table, TableSet)
    if ties and not several:
        raise UsageError("--tie joins tables released together: give two tables or more")
    parts, labels = [], []
    for family in families:
        r, lab = _set_family_rows(table, family) if several else _family_rows(table, family)
        parts.append(r)
        labels += lab
    for tie in ties:
        r, lab = _tie_rows(table, tie)
        parts.append(r)
        labels += lab
    if constraint_file is not None:
        r, lab = read_constraint_file(constraint_file, table)
        parts.append(sparse.csr_array(np.array(r, dtype=np.int64).reshape(len(r), len(table.keys))))
        labels += lab
    if not labels:
        raise UsageError("no invariants: give --invariant (total, row-margins, column-margins, all-margins, "
                         "by:NAME[,NAME…]) and/or --constraints FILE")
    A = as_sparse(sparse.vstack(parts, format="csr"))
    seen, keep = set(), []
    for i in range(A.shape[0]):
        lo, hi = A.indptr[i], A.indptr[i + 1]
        key = (A.indices[lo:hi].tobytes(), A.data[lo:hi].tobytes())
        if key not in seen:
            seen.add(key)
            keep.append(i)
    return A[keep], [labels[i] for i in keep]


def _row_values(A: sparse.csr_array, x: np.ndarray) -> list[int]:
    """A x exactly, in Python integers (no int64 wrap-around)."""
    out = []
    for i in range(A.shape[0]):
        lo, hi = A.indptr[i], A.indptr[i + 1]
        out.append(sum(int(c) * int(v) for c, v in zip(A.data[lo:hi], x[A.indices[lo:hi]], strict=True)))
    return out


# --------------------------------------------------------------------------- exact route


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


def independent_rows(A: np.ndarray) -> np.ndarray:
    """Positions (sorted) of a maximal set of linearly independent rows of A: the pivots of a
    rank-revealing QR of Aᵀ (LAPACK; any maximal set gives the same Λ(A), and the sampler checks
    every row exactly)."""
    from scipy.linalg import qr

    if A.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    R, pivots = qr(np.asarray(A, dtype=float).T, mode="r", pivoting=True)
    diag = np.abs(np.diag(R))
    rank = int(np.sum(diag > 1e-9 * max(diag[0], 1.0))) if diag.size else 0
    return np.sort(pivots[:rank]).astype(np.int64)


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


def _bernoulli_exp(gamma: Fraction, rng: IntegerSource) -> bool:
    return bernoulli_exp(gamma.numerator, gamma.denominator, rng)


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
                if not _bernoulli_exp(eps * int(np.abs(solved[row][self.in_norm]).sum()), rng):
                    continue
                u = np.zeros(self.A.shape[1], dtype=np.int64)
                u[self.free], u[self.solved] = free[row], solved[row]
                normed = np.concatenate([free[row], solved[row][self.in_norm]])
                if sigma is None or _bernoulli_exp(sum((abs(int(v)) - sigma) ** 2 for v in normed) / (2 * sigma**2),
                                                   rng):
                    if np.any(self.A @ u != 0):
                        raise AssertionError("exact sampler left Λ(A); this is a bug in isdp")
                    yield u, attempt
            batch = min(2 * batch, 1024)


def implied_by_partition(A: sparse.csr_array) -> np.ndarray:
    """Rows that are the sum of other rows with disjoint supports and the same coefficients (a
    nation's total of its states', a state's of its counties'): implied, so dropping them keeps
    Λ(A) and lets the rest fall into blocks. Rows are taken widest first; a row of a repeated
    support is never dropped for its twin."""
    A = as_sparse(A)
    width = np.diff(A.indptr)
    support = [frozenset(A.indices[A.indptr[i]:A.indptr[i + 1]].tolist()) for i in range(A.shape[0])]
    rows_of_cell: dict[int, list[int]] = {}
    for i in np.argsort(width, kind="stable"):
        for j in support[i]:
            rows_of_cell.setdefault(j, []).append(int(i))
    dropped = np.zeros(A.shape[0], dtype=bool)
    for i in np.argsort(-width, kind="stable"):
        coef = dict(zip(A.indices[A.indptr[i]:A.indptr[i + 1]].tolist(), A.data[A.indptr[i]:A.indptr[i + 1]].tolist(),
                        strict=True))
        covered: set[int] = set()
        for j in sorted(support[i]):
            if j in covered:
                continue
            part = next((r for r in rows_of_cell[j] if r != i and not dropped[r] and width[r] < width[i]
                         and support[r] <= support[i] and not (support[r] & covered)
                         and all(coef[c] == v for c, v in zip(A.indices[A.indptr[r]:A.indptr[r + 1]].tolist(),
                                                             A.data[A.indptr[r]:A.indptr[r + 1]].tolist(), strict=True))),
                        None)
            if part is None:
                break
            covered |= support[part]
        else:
            dropped[i] = True
    return np.flatnonzero(dropped)


def blocks(A) -> list[tuple[np.ndarray, np.ndarray]]:
    """The invariants' independent blocks: (cells, rows) of each connected component of the graph
    joining a cell to every invariant it enters, rows :func:`implied_by_partition` set aside (they
    hold on every block's noise). Λ(A) is the direct sum of the blocks' lattices and exp(−ε‖u‖)
    (ℓ1, and the Gaussian's ‖u‖₂²) factorizes over them, so each block is drawn on its own — one
    total per state is 52 small problems, not one of 3,221 cells, also with the nation's total
    beside them. A cell in no invariant is a block without rows (one double geometric draw)."""
    from scipy.sparse.csgraph import connected_components

    A = as_sparse(A)
    m, n = A.shape
    kept = np.setdiff1d(np.arange(m), implied_by_partition(A))
    rows, cols = A[kept].nonzero()
    rows = kept[rows]
    graph = sparse.coo_array((np.ones(len(rows)), (cols, n + rows)), shape=(n + m, n + m))
    _, label = connected_components(graph, directed=False)
    cell_order = np.argsort(label[:n], kind="stable")
    row_label = np.full(m, -1)
    row_label[kept] = label[n + kept]
    row_order = np.argsort(row_label, kind="stable")
    out = []
    for comp in dict.fromkeys(label[:n].tolist()):  # in the order of the cells
        cells = cell_order[np.searchsorted(label[:n][cell_order], comp, "left"):
                           np.searchsorted(label[:n][cell_order], comp, "right")]
        in_comp = row_order[np.searchsorted(row_label[row_order], comp, "left"):
                            np.searchsorted(row_label[row_order], comp, "right")]
        out.append((np.sort(cells), np.sort(in_comp)))
    return out


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
             accept: bool = True, progress: bool = False) -> tuple[np.ndarray | None, int]:
        """(noise, attempts in all); None when a block accepts nothing within ``max_attempts`` (each
        block has its own budget). Without ``accept``, the free-cell route's noise. Progress counts
        blocks, which says nothing about the counts."""
        u = np.zeros(self.n, dtype=np.int64)
        total = 0
        bar = Progress(len(self.parts), "exact sampler (blocks)", progress)
        try:
            for cells, sub in self.parts:
                noise, attempts = sub.draw(eps, rng, max_attempts=max_attempts, sigma=sigma, accept=accept)
                total += attempts
                if noise is None:
                    return None, total
                u[cells] = noise
                bar.update()
        finally:
            bar.close()
        return u, total


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
        """The certificate for the statement; its run time goes to the audit record (a timing is not published)."""
        summary = self.certificate.summary(burn_in=self.iterations)
        summary.pop("certify_seconds")
        return {"method": "L-lag coupling (Biswas, Jacob & Vanetti 2019), pairs started at u = 0, as the chain",
                "iterations": self.iterations, "proposal_eps": self.proposal_eps, "tv_certified": self.eta, **summary}


def certify_chain(lattice: IntegerLattice, target, *, tv: float, pairs: int, max_iter: int, seed: int,
                  progress: bool = False) -> ChainCertificate:
    """The first t at which the 95 % upper confidence bound on the chain's TV bound is at most ``tv``
    (:func:`isdp.certify`, docs/method.md §4).

    Pairs start at u = 0, as the release chain does (:func:`isdp.certification.certify_searching_lag`:
    one term, the lag fixed by a pilot before the pairs run, within ``max_iter``). Raises
    :class:`UncertifiableError` when ``pairs`` cannot resolve ``tv`` at all, when a pilot pair has
    not met within ``max_iter`` iterations, or when the bound never reaches ``tv``.
    """
    if pairs < pairs_needed(tv):
        raise UncertifiableError(f"a TV bound of {tv:.3g} is below what {pairs} coupled pairs can resolve at 95 % "
                                 f"({pairs_needed(tv)} are needed): raise --pairs")
    bar = Progress(2, f"certifying the chain ({pairs} coupled pairs)", progress)
    try:
        _, proposal_eps = tune_proposal(lattice, target, _PROPOSAL_GRID, n_chains=2, n_iter=1000, seed=seed)
        bar.update()
        try:
            cert = certify_searching_lag(lattice, target, proposal_eps=proposal_eps, start=None, n_pairs=pairs,
                                         seed=seed + 1, threshold=tv, max_iter=max_iter)
        except CertificationError as err:
            raise UncertifiableError(f"cannot certify the chain within --max-iter {max_iter}: {err}; raise "
                                     "--max-iter, use the l1 norm (exact sampler) or fewer cells") from None
        bar.update()
    finally:
        bar.close()
    if not cert.certified:
        raise UncertifiableError(f"cannot certify the chain within --max-iter {max_iter}: {cert.status}; raise "
                                 "--max-iter, use the l1 norm (exact sampler) or fewer cells")
    return ChainCertificate(iterations=max(cert.t_cert, 1), proposal_eps=float(proposal_eps), certificate=cert)




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
        options = ["--norm l1 (its exact sampler accepts far more often than the Gaussian's), or --norm l1 --free-cells"]
    options += ["fewer invariants (one margin, or totals over blocks of cells)", "a larger --epsilon", "a smaller table",
                "a study run with --allow-chain --delta D --seed N --reproducible-not-for-publication (a certified "
                "chain; about 6 x 6 cells with both margins at most)"]
    return (f"the exact sampler would need {need} proposals for one draw of a block of {block.A.shape[1]:,} cells "
            f"(estimated from {PILOT_PROPOSALS:,} proposals: a function of the invariants and epsilon, never of the "
            f"counts), beyond --max-attempts {req.max_attempts:,}: nothing is released. What would work: "
            + "; ".join(options))


MECHANISMS = {"l1": "generalized Laplace, l1 norm (ISDP Def. 9)", "l2": "generalized Laplace, l2 norm (ISDP Def. 9)",
              "gaussian": "generalized Gaussian (ISDP Eq. 8)",
              "free-cells": "free-cell double geometric: i.i.d. noise on the lattice's coordinates (docs/method.md §11)"}


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
    in_norm: tuple[bool, ...] = (True,)  # per table released: whether it enters the norm (norm_tables)

    @classmethod
    def make(cls, A: np.ndarray, labels: list[str], req: Request, groups: list[np.ndarray] | None = None) -> Plan:
        """Check the request and choose the route; raises a :class:`ReleaseError` before any count is read.
        ``groups``: each table's cells, when several tables are released together."""
        req.check()
        A = as_sparse(A)
        if groups is not None and len(groups) > 1 and req.chain_possible:
            raise UsageError("several tables are released by the exact routes only (--norm l1, --norm gaussian, "
                             "--free-cells): the certified chain takes one table")
        if req.norm == "l2" and A.shape[0] >= A.shape[1] and np.linalg.matrix_rank(A.toarray().astype(float)) >= A.shape[1]:
            raise InfeasibleError("infeasible invariants: they fix every cell, so no noise can be added")
        in_norm = norm_tables(A, groups) if groups is not None and len(groups) > 1 else np.ones(1, dtype=bool)
        derived = np.zeros(A.shape[1], dtype=bool)
        for k in np.flatnonzero(~in_norm):
            derived[groups[k]] = True
        tables = int(in_norm.sum())
        delta_conversion, _ = req.delta_split()
        unit = (gaussian_sigma(float(req.epsilon_person), delta_conversion, tables) if req.norm == "gaussian"
                else unit_epsilon(req.epsilon_person, req.norm, tables))
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
        if len(in_norm) > 1 and not neighbours.one_person:
            # one person's change may touch every table at once: single-cell moves do not settle it
            neighbours = Neighbours(one_person=None, two_persons=None)
        plan = cls(req, A, labels, neighbours, exact, unit, attempts, tuple(bool(b) for b in in_norm))
        if req.chain_possible:
            plan.pairs()  # a chain that cannot be certified is refused before anything runs
        return plan

    @property
    def exact_feasible(self) -> bool | None:
        """Whether the exact sampler is expected to accept within --max-attempts per block (None: no
        exact sampler). A forecast from the invariants and ε only (:meth:`ExactSampler.expected_attempts`)."""
        if self.exact is None:
            return None
        return self.expected_attempts <= self.req.max_attempts

    def guarantee(self, eta: float | None = None, confidence: float | None = None) -> Guarantee:
        """The guarantee of the exact mechanism, or of the chain within TV ``eta`` of it."""
        return Guarantee(self.req.norm, self.unit, self.req.delta_split()[0], eta, confidence,
                         tables=sum(self.in_norm), released=len(self.in_norm))

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


def _route_record(plan: Plan, table: Table | TableSet, chain: ChainCertificate | None, lattice: IntegerLattice | None) -> dict:
    if plan.req.free_cells:
        v = plan.exact.variances(plan.unit)
        solved = plan.exact.solved
        return {"name": "free cells",
                "sampler": ("exact, in integer arithmetic: free cells i.i.d. double geometric (Canonne-Kamath-Steinke "
                            f"Alg. 2) with epsilon {plan.unit}, the invariants solved for the other cells; no "
                            "rejection. The free cells are the coordinates of the lattice of invariant-keeping "
                            "changes, so a change of l1 size d moves them by at most d: the same epsilon per "
                            "person as the l1 route, with the noise not spread evenly"),
                "solved_cells": [table.cell_labels[i] for i in solved],
                "noise_variance": {"free_cell": dg_variance(float(plan.unit)),
                                   "solved_cells": {table.cell_labels[i]: float(v[i]) for i in solved}}}
    if chain is None:
        eps = 1 / plan.unit if plan.req.norm == "gaussian" else plan.unit
        how = ("exact rejection in integer arithmetic: free cells i.i.d. double geometric (Canonne-Kamath-Steinke "
               f"Alg. 2) with epsilon {eps}, the invariants solved for the other cells, accepted with probability "
               f"exp(-{eps}·sum |u_solved|)" + ("" if all(plan.in_norm) else
                                                 " (the sum over the tables in the norm; a derived table's cells "
                                                 "are solved and do not enter it)"))
        if plan.req.norm == "gaussian":
            how += f", then kept with probability exp(-sum (|u_i| - {plan.unit})^2 / (2·{plan.unit}^2))"
        return {"name": "exact", "sampler": how, "solved_cells": [table.cell_labels[i] for i in plan.exact.solved]}
    return {"name": "certified chain",
            "sampler": ("compiled Gibbs-within-Metropolis (ISDP Alg. 1), one chain from u = 0, run "
                        f"{chain.iterations} iterations; double geometric jumps from a 2**-52-rounded alias table"),
            "basis": {"kind": lattice.basis_name, "vectors": lattice.basis.T.tolist()},
            "certificate": {**chain.record(), "tv_target": plan.eta_target()}}


def privacy_statement(plan: Plan, table: Table | TableSet, guarantee: Guarantee, route: dict,
                      invariant_values: np.ndarray | None) -> dict:
    """The publishable statement: derived from A, the options, the labels and the invariants'
    values (disclosed by the release itself), never from anything else in the table."""
    req = plan.req
    several = isinstance(table, TableSet)
    return {
        "isdp_privacy_statement": 1,
        "publishable": req.seed is None,
        "mechanism": plan.mechanism(),
        "route": route,
        "requested": {"epsilon_per_person": req.epsilon, "delta_per_person": req.delta, "norm": req.norm,
                      "allow_chain": req.allow_chain, "free_cells": req.free_cells, "nonnegative": req.nonnegative},
        "neighbouring_relation": (
            "two tables with the same invariants (A x = A x') that differ in the records of k persons, each added, "
            "removed, or moved from one cell to another (at most 2k in l1 and sqrt(2)·k in l2); stated for k = 1 "
            "(per person) and k = 2" if not several else
            f"two inputs of the {len(plan.in_norm)} tables together with the same invariants (A x = A x', the ties "
            "included) that differ in the records of k persons, each person counted in at most one cell of each "
            "table and added, removed, or moved between cells in every table at once (at most 2k per table in l1 "
            "and sqrt(2)·k in l2; only the tables in the norm count: a derived table's change follows from the "
            "others'); stated for k = 1 (per person) and k = 2"),
        **({"tables": [{"name": name, "cells": len(t.keys), "in_norm": in_norm,
                        **({} if in_norm else {"derived": "its cells are determined by the other tables' through "
                                               "the invariants: its noise is theirs, summed"})}
                       for name, t, in_norm in zip(table.names, table.tables, plan.in_norm, strict=True)]}
           if several else {}),
        "guarantee": guarantee.to_dict(plan.neighbours),
        "post_processing": (
            "non-negative: the integer l1 projection onto {z >= 0, A z = A x} (HiGHS MILP), a function of the "
            "noisy table and the invariants only, so the guarantee is unchanged" if req.nonnegative else None),
        "invariants": [{"label": lab,
                        "coefficients": {table.cell_labels[j]: int(c) for j, c in zip(
                            plan.A.indices[plan.A.indptr[i]:plan.A.indptr[i + 1]],
                            plan.A.data[plan.A.indptr[i]:plan.A.indptr[i + 1]], strict=True)},
                        **({} if invariant_values is None else {"value": int(invariant_values[i])})}
                       for i, lab in enumerate(plan.labels)],
        "cells": table.cell_labels,
        "randomness": ("seeded: reproducible, NOT for publication" if req.seed is not None
                       else "operating-system entropy (Python secrets.SystemRandom)"),
        "seed": req.seed,
        "package": {"name": "isdp", "version": __version__},
        "checks": ["integer", "every invariant exact (A·release = A·x)", "input shape and labels",
                   "guarantee at least as strong as requested", *(["non-negative"] if req.nonnegative else [])],
    }


def dry_run(table: Table | TableSet, A: np.ndarray, labels: list[str], req: Request) -> dict:
    """The statement a run with these options would carry, from the labels and the options only.

    The route is the one that would be tried first; on the chain route the δ stated is the most a
    run may reach (its certificate is computed at run time, from the invariants and fresh random
    numbers only).
    """
    plan = Plan.make(A, labels, req, getattr(table, "groups", None))
    if plan.exact is not None and plan.exact_feasible:
        route = _route_record(plan, table, None, None)
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
    exact = _row_values(A, x)
    for label, value in zip(labels, exact, strict=True):
        if abs(value) > COUNT_LIMIT:
            raise InputError(f"{table.path}: the invariant {label!r} is {value}, beyond ±2**53: counts and every "
                             "invariant's value must lie within ±2**53 (exact in int64 and float arithmetic)")
    invariants = np.array(exact, dtype=np.int64)
    rng = seeded_source(req.seed) if req.seed is not None else system_source()
    audit: dict = {}
    noise, chain, lattice = None, None, None
    if plan.exact is not None and plan.exact_feasible:
        sigma = plan.unit if req.norm == "gaussian" else None
        noise, attempts = plan.exact.draw(1 / sigma if sigma is not None else plan.unit, rng,
                                          max_attempts=req.max_attempts, sigma=sigma, accept=not req.free_cells,
                                          progress=req.progress)
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
        chain = certify_chain(lattice, plan.chain_target(), tv=plan.eta_target(), pairs=plan.pairs(),
                              max_iter=req.max_iter, seed=seed, progress=req.progress)
        res = sample(lattice, plan.chain_target(), n_chains=1, n_draws=1, burn_in=chain.iterations - 1, thin=1,
                     proposal_eps=chain.proposal_eps, seed=seed + 3, progress=False)
        noise = res.draws[0, -1]
        audit["certificate_seconds"] = round(chain.certificate.seconds, 3)
    values = x + noise
    if req.nonnegative:
        values = _nonnegative(values, A)
    if values.dtype != np.int64 or values.shape != x.shape or _row_values(A, values) != exact:
        raise AssertionError("release failed its checks (integer, every invariant exact); this is a bug in isdp")
    guarantee = plan.guarantee(chain.eta, LEVEL) if chain is not None else plan.guarantee()
    plan.check_not_weaker(guarantee)
    statement = privacy_statement(plan, table, guarantee, _route_record(plan, table, chain, lattice), invariants)
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


AUDIT_NOTE = ("CONFIDENTIAL: derived from the confidential table (its path, hash, attempt counts and timings can "
              "reveal counts). Keep it with the table; never publish it. The publishable file is the statement.")


def _write_tmp(directory: Path, name: str, write) -> str:
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            write(fh)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return tmp


def _json_writer(payload: dict):
    def write(fh):
        json.dump(payload, fh, indent=1)
        fh.write("\n")
    return write


def write_release(release: Release, output, statement, audit, *, force: bool = False) -> None:
    """Write the table, its statement and its audit record; on any failure none of them is left behind.

    Without ``force`` each file is created exclusively (a hard link from its temporary file, which
    fails if the name exists, also when another run created it meanwhile: :class:`UsageError`);
    with ``force`` it replaces what is there. Several tables (a :class:`TableSet`) take one output
    each, in order, and share the statement and the audit record.
    """
    tables = release.table.tables if isinstance(release.table, TableSet) else (release.table,)
    outputs = [Path(o) for o in (output if isinstance(output, list | tuple) else [output])]
    statement, audit = Path(statement), Path(audit)
    if len(outputs) != len(tables):
        raise UsageError(f"{len(tables)} tables need {len(tables)} outputs (one -o each, in order); got {len(outputs)}")
    contents = []
    for t, values in zip(tables, np.split(release.values, np.cumsum([len(t.keys) for t in tables])[:-1]), strict=True):
        lines, expected = t.lines(values), t.lines(t.x)
        if len(lines) != len(expected) or any(len(a) != len(b) or a[0] != b[0]
                                              for a, b in zip(lines, expected, strict=True)):
            raise AssertionError("release layout differs from the input's; this is a bug in isdp")
        contents.append(lines)
    record = {"note": AUDIT_NOTE, **release.audit,
              "files": {"release": str(outputs[0]) if len(outputs) == 1 else [str(o) for o in outputs],
                        "statement": str(statement)}}
    # one writer at a time per release name, also with --force: two runs replacing the three files
    # concurrently could leave one run's table beside the other's statement
    output = outputs[0]
    lock = output.with_name(f".{output.name}.lock")
    try:
        os.close(os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except FileExistsError:
        raise UsageError(f"another run is writing {output} ({lock} exists; remove it if no run is): "
                         "nothing written") from None
    temps, done = [], []
    try:
        for out, lines in zip(outputs, contents, strict=True):
            temps.append((_write_tmp(out.parent, out.name,
                                     lambda fh, lines=lines: csv.writer(fh, lineterminator="\n").writerows(lines)), out))
        temps.append((_write_tmp(statement.parent, statement.name, _json_writer(release.statement)), statement))
        temps.append((_write_tmp(audit.parent, audit.name, _json_writer(record)), audit))
        for tmp, final in temps:
            if force:
                os.replace(tmp, final)
            else:
                try:
                    os.link(tmp, final)
                except FileExistsError:
                    raise UsageError(f"{final} exists (written by another run meanwhile?): nothing written; "
                                     "remove it or pass --force") from None
            done.append(final)
    except BaseException:
        for path in done:
            path.unlink(missing_ok=True)
        raise
    finally:
        for tmp, _ in temps:
            Path(tmp).unlink(missing_ok=True)
        lock.unlink(missing_ok=True)
