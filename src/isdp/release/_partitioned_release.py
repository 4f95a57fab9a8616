"""A release of a large Parquet table made one part at a time, with the statement of the whole table.

See docs/release.md, "Scale".

:func:`isdp.release.make_release` holds the whole table, its invariants A and its noise at once: at
10⁸ cells that is tens of GB. Under families of totals whose blocks lie within one value of a
partition key (:meth:`isdp.tables.PartitionLayout.of`), each part of whole partitions is read and
released on its own as a whole table is (:func:`release_part`: the plan, draw and checks of
:func:`isdp.release._release.release_cells`, the one path of every release), and what the statement
says of the whole table is joined from the parts in table order (:func:`release_partitioned`):

- every block is the whole table's (a block never crosses a partition), so the solved cells, the
  samplers and Klein's blocks are the same, and so is the law of the noise;
- a family on fewer columns than the key (the nation's total) is the sum of its partitions'
  totals: the part checks that each partition's total is implied by its own invariants, as the
  whole table's search sets it aside (:func:`isdp.lattice.implied_by_partition`);
- a change of one person keeps the invariants in the whole table if and only if it does within one
  part (two cells of different partitions never share an invariant column).

The statement is the one :func:`isdp.release.make_release` would write for the same table and
options, byte for byte; memory is bounded by a part, not by the table. Each part draws from its own
source: operating-system entropy, or with a seed a stream of its own (:func:`part_seed`), so a
seeded release is the same however its parts are run. Nothing is published unless every part
passed its checks; only then are the parts' files joined into the output, or (for a dataset)
moved whole into place as its files, all three files or none (``isdp._atomic_files.write_all``, the publisher of
every release).
"""

from __future__ import annotations

import functools
import math
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import ClassVar

import numpy as np
from scipy import sparse

from .._parquet_files import DATASET_FILE, is_dataset, write_parquet
from .._rng import text_seed
from .._sparse import as_sparse, first_rows, row_values
from .._validate import COUNT_LIMIT
from ..errors import InfeasibleError, InputError, NotPartitionable, UsageError
from ..exact import seeded_source, system_source
from ..files import atomic_write
from ..lattice import implied_by_partition
from ..privacy import UNCERTAINTY_COLUMNS, Neighbours, uncertainty_record
from ..tables import PartitionLayout, Table, constraint_matrix
from ._files import audit_record, input_clash, json_writer, output_path, write_files
from ._local_parts import LocalParts
from ._plan import Plan, calibrate
from ._release import input_sha256, release_cells
from ._request import Request
from ._same_invariants import built_once
from ._statement import ExactPieces, exact_route, invariant_entry, privacy_statement

#: the cells of a part, at least (whole partitions): a few MB of working memory per part
PART_CELLS = 1 << 20

#: the fewest cells whose parts the local engine runs on every core by default: eight parts or more. A worker's
#: start (importing isdp anew) and the parts' transfer cost more than they save below: on two cores, two workers
#: were slower than one process at 2²² cells and faster at 2²³ (benchmarks/engine_crossover.py, docs/performance.md)
POOL_CELLS = 8 * PART_CELLS

#: the fewest cells released partition by partition: below, two persons' changes are decided from all of A
#: (:meth:`isdp.privacy.Neighbours.of` compares the pairwise sums of up to 2·10⁷ entries), which no part sees
MIN_CELLS = math.isqrt(2 * 20_000_000) + 1


def part_seed(seed: int, part: int) -> int:
    """Return the seed of part ``part``'s stream in a seeded release: SHA-256 of ``"seed/part"``, 64 bits.

    Parameters
    ----------
    seed : int
        The release's seed.
    part : int
        The part's position.

    Returns
    -------
    int
        A seed for :func:`isdp.exact.seeded_source`, distinct per part.

    Examples
    --------
    >>> from isdp.release._partitioned_release import part_seed
    >>> part_seed(7, 0) == part_seed(7, 0), part_seed(7, 0) == part_seed(7, 1)
    (True, False)
    """
    return text_seed(seed, part)


@dataclass
class PartResult:
    """What one part's release tells the whole: its invariants, its partitions' totals, its blocks' pieces.

    Parameters
    ----------
    invariants : dict
        Per family within partitions (its position), its invariants' labels and values, in table order.
    run_totals, run_released : list of int
        Per partition of the part: its total in the counts and in the release (kept equal).
    pieces : isdp.release._statement.ExactPieces
        The solved cells, the free-cell variances, Klein's blocks.
    repeated : bool
        Whether two of the part's cells have the same invariant column.
    attempts : int
        The exact sampler's proposals.
    free : int
        The part's free cells (its lattice's dimension).
    cells : int
        The part's cells.
    draws : tuple of int, default (0, 0)
        With ``Request.uncertainty``, the fewest and the most simulated draws of a block shape ((0, 0): exact
        laws).
    """

    invariants: dict[int, tuple[list[str], list[int]]]
    run_totals: list[int]
    run_released: list[int]
    pieces: ExactPieces
    repeated: bool
    attempts: int
    free: int
    cells: int
    draws: tuple[int, int] = (0, 0)


def release_part(layout: PartitionLayout, part: int, req: Request, output, *, scratch: bool = False) -> PartResult:
    """Release one part of the table: read its rows, release them and write them.

    The rows are released as every release is made (:func:`isdp.release._release.release_cells`).

    The part's rows get the checks of :func:`isdp.tables.load_table` and its families' invariants
    (:func:`isdp.tables.constraint_matrix` of the families within partitions: the whole table's rows that lie
    in the part, in their order), and each partition's total is checked to be implied by them. The part is
    written to ``output`` (the input's schema, the counts int64) atomically: a part that Dask runs again (its
    worker lost) replaces the file.

    Parameters
    ----------
    layout : PartitionLayout
        The table's layout (:meth:`isdp.tables.PartitionLayout.of`).
    part : int
        The part's position in ``layout.parts``.
    req : Request
        The request, its ``rules`` the layout's families.
    output : str or os.PathLike
        The part's released rows (Parquet).
    scratch : bool, default False
        ``output`` is read back once by the join of a ``.parquet`` output and removed: written without
        statistics or sync (:func:`isdp._parquet_files.write_parquet`).

    Returns
    -------
    PartResult
        What the statement needs of the part.

    Raises
    ------
    isdp.errors.NotPartitionable
        Columns that need the row-by-row reading, or a partition total its invariants do not imply.
    isdp.errors.ReleaseError
        As :func:`isdp.release.make_release`.
    """
    table, source = layout.read_part(part)
    x, (_, _, first_run, end_run) = table.x, layout.parts[part]
    A, labels, rules = _rows_by_family(table, [layout.families[i] for i in layout.within])
    runs = None
    if layout.spanning:  # each partition's total is a sum of its own invariants, as in the whole table
        runs, _ = constraint_matrix(table, ["by:" + ",".join(layout.key)])
        if runs.shape[0] != end_run - first_run:
            raise NotPartitionable("a part's partitions differ from the layout's")
        # a spanning total is set aside in the whole table iff the search covers each of its partitions with the
        # partition's own rows, its total among them: a partition's total with one cell of its own more (covered
        # by a row of that cell alone) is wider than every row of the partition, as a spanning total is
        runs_key = (runs.indptr.tobytes(), runs.indices.tobytes())  # a part's, as its sampler (``_same_invariants``)
        if not built_once("partition totals implied", A, runs_key, lambda: _totals_implied(A, runs)):
            raise NotPartitionable("a partition's total is not implied by its own invariants")
    rng = seeded_source(part_seed(req.seed, part)) if req.seed is not None else system_source()
    drawn = release_cells(table, A, labels, req, rng, part=True, rules=rules)
    plan = drawn.plan
    invariants: dict[int, tuple[list[str], list[int]]] = {}
    family = {rule: i for i, rule in reversed(list(enumerate(layout.families)))}  # a rule's first family
    for rule, label, value in zip(rules, labels, drawn.kept.tolist(), strict=True):
        got = invariants.setdefault(family[rule], ([], []))
        got[0].append(label)
        got[1].append(value)
    atomic_write(
        output,
        lambda tmp: write_parquet(tmp, source, layout.count_column, drawn.values, drawn.columns, scratch=scratch),
    )
    assert plan.exact is not None and drawn.attempts is not None  # parts are drawn by the exact routes only
    return PartResult(
        invariants,
        row_values(runs, x) if runs is not None else [],
        row_values(runs, drawn.values) if runs is not None else [],
        ExactPieces.of(plan.exact, plan.unit, plan.cell_labels, req),
        bool(plan.neighbours.one_person),  # two equal columns of A ∪ {0}: Neighbours.of decides it so
        drawn.attempts,
        plan.exact.n_free,
        len(x),
        drawn.draws,
    )


def _totals_implied(A: sparse.csr_array, runs: sparse.csr_array) -> bool:
    """Whether the search sets aside every partition's total, widened by a cell of its own, among ``A``'s rows."""
    implied = implied_by_partition(_widened_totals(A, runs))
    return not np.setdiff1d(np.arange(A.shape[0], A.shape[0] + runs.shape[0]), implied).size


def _widened_totals(A: sparse.csr_array, runs: sparse.csr_array) -> sparse.csr_array:
    """Return ``[[A, 0], [runs, I], [0, I]]`` in canonical form: each partition's total one cell of its own wider.

    Filled from the CSR arrays into arrays made once (SciPy's ``block_array`` takes seconds per million cells); each
    new cell comes after the table's, so every row's cells stay ascending.
    """
    n, r, m = A.shape[1], runs.shape[0], A.nnz
    own = n + np.arange(r, dtype=np.int64)
    indices = np.empty(m + runs.nnz + 2 * r, dtype=np.int64)
    data = np.empty_like(indices)
    indices[:m], data[:m] = A.indices, A.data
    # each partition's total, then its own cell (after the table's cells, so the row stays ascending)
    at = m + np.arange(runs.nnz) + np.repeat(np.arange(r), np.diff(runs.indptr))
    indices[at], data[at] = runs.indices, runs.data
    ends = m + runs.indptr[1:] + np.arange(r)
    indices[ends], data[ends] = own, 1
    indices[m + runs.nnz + r :], data[m + runs.nnz + r :] = own, 1
    indptr = np.concatenate(
        [A.indptr, m + runs.indptr[1:] + np.arange(1, r + 1), m + runs.nnz + r + np.arange(1, r + 1)]
    ).astype(np.int64)
    return as_sparse(sparse.csr_array((data, indices, indptr), shape=(A.shape[0] + 2 * r, n + r)))


def _release_into(layout: PartitionLayout, req: Request, outputs: list[Path], scratch: bool, k: int) -> PartResult:
    """Release part ``k`` into its file ``outputs[k]`` (:func:`release_part`)."""
    return release_part(layout, k, req, outputs[k], scratch=scratch)


def _rows_by_family(table: Table, families: list[str]) -> tuple[sparse.csr_array, list[str], list[str]]:
    """Return the part's invariants, with the family that made each row.

    As :func:`isdp.tables.constraint_matrix` makes them: each family's rows in order, a row equal to an earlier one
    dropped.
    """
    parts, labels, rules = [], [], []
    for family in families:
        R, got = constraint_matrix(table, [family])
        parts.append(R)
        labels += got
        rules += [family] * len(got)
    A = as_sparse(sparse.vstack(parts, format="csr"))
    keep = first_rows(A)  # canonical: equal rows have equal indices and data
    if len(keep) == A.shape[0]:
        return A, labels, rules
    return A[keep], [labels[i] for i in keep], [rules[i] for i in keep]


@dataclass
class PartitionedRelease:
    """A release made part by part (:func:`release_partitioned`), already written.

    Parameters
    ----------
    statement : dict
        The publishable privacy statement, as written.
    audit : dict
        The confidential audit record, as written.
    cells : int
        The cells released.
    invariants : int
        The invariants kept exactly.

    Attributes
    ----------
    PART_CELLS : int
        The cells of a part, at least (whole partitions): 2²⁰, a few MB of working memory per part; ``isdp
        release`` releases a Parquet table of as many rows or more part by part (a class attribute).

    See Also
    --------
    release_partitioned : Makes one.

    Examples
    --------
    >>> from isdp.release import PartitionedRelease
    >>> done = PartitionedRelease({"route": {"name": "exact"}}, {"partitions": {"parts": 3}}, 12_000, 120)
    >>> done.statement["route"]["name"], done.audit["partitions"]["parts"], done.cells
    ('exact', 3, 12000)
    >>> PartitionedRelease.PART_CELLS
    1048576
    """

    statement: dict
    audit: dict
    cells: int
    invariants: int

    PART_CELLS: ClassVar[int] = PART_CELLS


def release_partitioned(
    path,
    families,
    req: Request,
    output,
    statement_path,
    audit_path,
    *,
    force: bool = False,
    count_column: str = "count",
    part_cells: int = PART_CELLS,
    run_parts: Callable[[Callable, Iterable[int]], Iterable[PartResult]] | None = None,
) -> PartitionedRelease:
    r"""Release a large Parquet table part by part and write the three files, with the whole table's statement.

    What ``isdp release TABLE.parquet --invariant … -o OUT.parquet`` runs for a table of at least
    :attr:`PartitionedRelease.PART_CELLS` cells when it can (else :func:`isdp.release.make_release`). The table is
    cut into parts of whole partitions (:meth:`isdp.tables.PartitionLayout.of`), each
    released by :func:`release_part`; the statement is joined from the parts and is the one the
    whole-table release states, byte for byte. The output is written only when every part is done
    and checked, all three files or none (:func:`isdp.release.write_release`).

    Parameters
    ----------
    path : str or os.PathLike
        The table: a Parquet file, or a directory of them.
    families : sequence of str
        The invariant families: ``total`` and ``by:NAME[,NAME…]``.
    req : Request
        The request: an exact route (``l1``, ``gaussian``, ``free_cells``), no chain, no ties.
    output : str or os.PathLike
        The released table: a ``.parquet`` file, its parts joined, or a Parquet dataset (a name
        ending in ``/``, or an existing directory): the parts' files ``part-000000.parquet``, …,
        moved into place whole.
    statement_path, audit_path : str or os.PathLike
        The statement and the audit record.
    force : bool, default False
        Replace existing files.
    count_column : str, default "count"
        The count column's name.
    part_cells : int, default :attr:`PartitionedRelease.PART_CELLS`
        The cells of a part, at least.
    run_parts : callable, optional
        ``run_parts(release_one, parts)`` releases each part (``release_one(k)`` returns its
        :class:`PartResult`) and yields the results in the parts' order, reporting its own progress
        (:class:`~isdp.release.DaskParts`); the default runs them in ``req.workers`` worker processes of this
        machine (None: one per core on a table of 2²³ cells or more, else one after the other in this process).

    Returns
    -------
    PartitionedRelease
        The statement and the audit record written, and the counts of cells and invariants.

    Raises
    ------
    isdp.errors.NotPartitionable
        The table or the request cannot be released part by part with the whole table's
        statement (the caller releases the whole table). Nothing is written.
    isdp.errors.UsageError
        An output, statement or audit path that is the input, lies inside it (a dataset) or holds
        it, also with ``force``: refused before any part is read.
    isdp.errors.ReleaseError
        As :func:`isdp.release.make_release` and :func:`isdp.release.write_release`.

    Examples
    --------
    Nested geography: 2 states × 60 counties × 100 ages under the states', the counties' and
    each state's age totals, in parts of one state (seeded to show a result):

    >>> import json, tempfile
    >>> from pathlib import Path
    >>> import numpy as np, pyarrow as pa, pyarrow.parquet as pq
    >>> from isdp.release import Request
    >>> from isdp.release._partitioned_release import release_partitioned
    >>> tmp = Path(tempfile.mkdtemp())
    >>> state, rest = np.divmod(np.arange(12_000), 6_000)
    >>> county, age = np.divmod(rest, 100)
    >>> pq.write_table(pa.table({"state": state, "county": county, "age": age, "count": np.full(12_000, 5)}),
    ...                tmp / "t.parquet")
    >>> req = Request(epsilon="1", norm="gaussian", delta=1e-6, seed=3,
    ...               rules=("by:state", "by:state,county", "by:state,age"))
    >>> done = release_partitioned(tmp / "t.parquet", req.rules, req, tmp / "out.parquet", tmp / "s.json",
    ...                            tmp / "a.json", part_cells=6_000)
    >>> done.cells, done.invariants, done.audit["partitions"]["parts"]
    (12000, 322, 2)
    >>> released = pq.read_table(tmp / "out.parquet").column("count").to_numpy()
    >>> int(released[:6_000].sum()), released.dtype.name
    (30000, 'int64')
    """
    started = time.perf_counter()
    path = output_path("path", path)  # a file name (the table is read by PartitionLayout.of)
    output_path("output", output)
    dataset = is_dataset(output)  # the name as given: a trailing / names a dataset
    output, statement_path, audit_path = (
        Path(output),
        output_path("statement_path", statement_path),
        output_path("audit_path", audit_path),
    )
    for name in (output, statement_path, audit_path):  # before any work: the input is never overwritten
        clash = input_clash(name, [path])
        if clash is not None:
            raise UsageError(f"{name} {clash}: an input is never overwritten; nothing written")
    req.check()
    if tuple(req.rules) != tuple(families):  # each part states its invariants by the family that made them
        req = replace(req, rules=tuple(families))
    if req.norm not in ("l1", "gaussian") or req.allow_chain or req.ties:
        raise NotPartitionable("only the exact routes of one table are released part by part")
    if not dataset and output.suffix.lower() != ".parquet":
        raise NotPartitionable("a table released part by part is written as Parquet: a .parquet file or a dataset")
    layout = PartitionLayout.of(path, families, count_column, part_cells)
    taken = [c for c in UNCERTAINTY_COLUMNS if c.casefold() in {h.casefold() for h in layout.header}]
    if req.uncertainty is not None and taken:
        raise UsageError(
            f"--uncertainty adds the columns {', '.join(UNCERTAINTY_COLUMNS)}; {layout.path} has {taken[0]!r} already"
        )
    if layout.cells < MIN_CELLS:
        raise NotPartitionable(f"fewer than {MIN_CELLS:,} cells")
    unit = calibrate(req)
    output.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{output.name}.", suffix=".parts", dir=output.parent))
    try:
        outputs = [scratch / DATASET_FILE.format(k) for k in range(len(layout.parts))]
        # picklable: it travels to workers; a file's parts are scratch, read once by the join
        release_one = functools.partial(_release_into, layout, req, outputs, not dataset)
        if run_parts is None:  # the cores of this machine, where starting their processes pays
            workers = req.workers if req.workers is not None else None if layout.cells >= POOL_CELLS else 1
            run_parts = LocalParts(workers, progress=req.progress)
        done = run_parts(release_one, range(len(layout.parts)))  # each reports its own progress
        joined = scratch / "joined.parquet"
        # a file's rows are joined while later parts are drawn; a dataset's parts are its files
        results = list(done) if dataset else _join_as_done(done, outputs, joined)
        statement = _statement(layout, req, unit, results)
        audit = {
            "exact_sampler": {"attempts": sum(r.attempts for r in results), "accepted": True},
            "input": {"path": str(layout.path), "sha256": input_sha256(layout.path), "cells": layout.cells},
            "seconds": round(time.perf_counter() - started, 3),
            "route": statement["route"]["name"],
            "partitions": {
                "key": list(layout.key),
                "parts": len(layout.parts),
                "partitions": layout.runs,
                "each": [
                    {"rows": [start, end], "partitions": [first, last], "attempts": r.attempts}
                    for (start, end, first, last), r in zip(layout.parts, results, strict=True)
                ],
            },
        }
        record = audit_record(audit, [output], statement_path)

        if dataset:  # the parts' files are the dataset: published whole, never copied
            for stray in set(scratch.iterdir()) - set(outputs):  # a lost worker's unfinished file
                stray.unlink()
            scratch.chmod(0o777 & ~_umask())  # its owner's alone while parts were drawn; published, as the umask says
        write_files(
            [
                (output, scratch if dataset else joined),
                (statement_path, json_writer(statement)),
                (audit_path, json_writer(record, private=True)),
            ],
            force=force,
            inputs=[path],
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return PartitionedRelease(statement, record, layout.cells, len(statement["invariants"]))


def _statement(layout: PartitionLayout, req: Request, unit, results: list[PartResult]) -> dict:
    """Return the whole table's statement, joined from the parts' results in table order."""
    if sum(r.cells for r in results) != layout.cells:
        raise AssertionError("the parts do not cover the table; this is a bug in isdp")
    if sum(r.free for r in results) == 0:
        raise InfeasibleError("infeasible invariants: they fix every cell, so no noise can be added")
    totals = np.array([t for r in results for t in r.run_totals], dtype=np.int64)
    released = np.array([t for r in results for t in r.run_released], dtype=np.int64)
    entries = []
    for i, family in enumerate(layout.families):
        spanning = dict(layout.spanning).get(i)
        if spanning is None:
            for r in results:
                part_labels, part_values = r.invariants.get(i, ([], []))
                entries += [
                    invariant_entry(lab, family, None, v) for lab, v in zip(part_labels, part_values, strict=True)
                ]
            continue
        # a spanning family's totals from its partitions' (int64: at most 2**53 each, checked below)
        values = np.zeros(len(spanning.labels), dtype=np.int64)
        np.add.at(values, spanning.members, totals)
        check = np.zeros_like(values)
        np.add.at(check, spanning.members, released)
        if not np.array_equal(values, check):
            raise AssertionError("release failed its checks (an invariant across parts); this is a bug in isdp")
        if values.size and np.abs(values).max() > COUNT_LIMIT:
            label = spanning.labels[int(np.argmax(np.abs(values)))]
            raise InputError(
                f"{layout.path}: the invariant {label!r} is beyond ±2**53: counts and every "
                "invariant's value must lie within ±2**53 (exact in int64 and float arithmetic)"
            )
        entries += [
            invariant_entry(lab, family, None, int(v)) for lab, v in zip(spanning.labels, values.tolist(), strict=True)
        ]
    if any(r.repeated for r in results):
        neighbours = Neighbours(one_person=True, two_persons=True)
    else:  # as Neighbours.of decides for the whole A: too many columns to compare their pairwise sums
        neighbours = Neighbours(one_person=False, two_persons=None)
    # a plan that holds no A: the invariants are the parts'; every coefficient is 1 (families of totals)
    plan = Plan(req, sparse.csr_array((0, layout.cells), dtype=np.int64), [], neighbours, None, unit, 1.0)
    guarantee = plan.guarantee()
    plan.check_not_weaker(guarantee)
    pieces = results[0].pieces
    for r in results[1:]:
        pieces = pieces.join(r.pieces)
    statement = privacy_statement(
        plan,
        guarantee,
        exact_route(req, unit, plan.tables_in_norm, pieces),
        None,
        invariants=entries,
        cells=layout.cells,
    )
    if req.uncertainty is not None:
        statement["uncertainty"] = uncertainty_record(req.uncertainty, *(r.draws for r in results))
    return statement


def _umask() -> int:
    """Return the process's umask (set, then set back: a thread creating a file meanwhile gets the stricter 077)."""
    mask = os.umask(0o077)
    os.umask(mask)
    return mask


def _join_as_done(results: Iterable[PartResult], parts: list[Path], path: Path) -> list[PartResult]:
    """Return the parts' results, appending each part's rows to one Parquet file as its result comes, in order.

    The file is publishable: its mode as the umask says. Each part's file is removed once its rows are in.
    """
    import pyarrow.parquet as pq  # deferred: only a Parquet release comes here

    got = []
    with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), "wb") as fh:
        writer = None
        try:
            for part, result in zip(parts, results, strict=True):
                reader = pq.ParquetFile(part)
                if writer is None:
                    writer = pq.ParquetWriter(fh, reader.schema_arrow)
                for g in range(reader.num_row_groups):
                    writer.write_table(reader.read_row_group(g))
                part.unlink()
                got.append(result)
        finally:
            if writer is not None:
                writer.close()
        fh.flush()
        os.fsync(fh.fileno())
    return got
