"""A release made part by part: the whole table's statement byte for byte, every invariant kept, all or none."""

import json
import math
import stat

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import sparse, stats

from isdp._sparse import as_sparse, row_values
from isdp.cli import main
from isdp.errors import NotPartitionable, UsageError
from isdp.lattice import blocks
from isdp.privacy import UNCERTAINTY_COLUMNS
from isdp.privacy._neighbours import _PAIR_SUM_LIMIT
from isdp.release import Request, make_release, write_release
from isdp.release._partitioned_release import (
    MIN_CELLS,
    _widened_totals,
    part_seed,
    release_part,
    release_partitioned,
)
from isdp.tables import PartitionLayout, constraint_matrix, load_table
from isdp.tables._parquet_tables import read_parquet_arrow

CELLS = 12_000


def _blocks():
    g = np.arange(CELLS)
    return {"group": g // 100, "cell": g}


def _nested():
    state, rest = np.divmod(np.arange(CELLS), CELLS // 4)
    county, age = np.divmod(rest, 50)
    return {"state": np.char.add("s", state.astype(str)), "county": np.char.add("c ", county.astype(str)), "age": age}


def _table(tmp_path, columns, seed=1):
    counts = np.random.default_rng(seed).poisson(5, CELLS)
    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({**columns, "count": counts}), path, row_group_size=5_000)
    return path


def _both(tmp_path, path, rules, part_cells, **options):
    """The whole table's release and the parts' release of ``path``: (statement bytes, released counts) each."""
    req = Request(epsilon="1", rules=tuple(rules), progress=False, **options)
    table = load_table(path)
    A, labels = constraint_matrix(table, rules)
    write_release(
        make_release(table, A, labels, req), tmp_path / "w.parquet", tmp_path / "w.json", tmp_path / "wa.json"
    )
    done = release_partitioned(
        path, rules, req, tmp_path / "p.parquet", tmp_path / "p.json", tmp_path / "pa.json", part_cells=part_cells
    )
    released = pq.read_table(tmp_path / "p.parquet")
    assert released.schema.field("count").type == pa.int64()
    meta = pq.ParquetFile(tmp_path / "p.parquet").metadata  # the parts' scratch files had none; the join writes them
    assert all(meta.row_group(g).column(0).is_stats_set for g in range(meta.num_row_groups))
    added = list(UNCERTAINTY_COLUMNS) if req.uncertainty is not None else []
    assert released.drop(["count", *added]).equals(pq.read_table(path).drop(["count"]))
    if added:  # the whole table's columns: the same noise sd and interval offsets cell by cell
        whole = pq.read_table(tmp_path / "w.parquet")
        for written in (released, whole):
            assert written.column_names[-3:] == added
        values = released.column("count").to_numpy()
        whole_values = whole.column("count").to_numpy()
        assert np.array_equal(released.column("noise_sd").to_numpy(), whole.column("noise_sd").to_numpy())
        for end in ("lower", "upper"):
            assert np.array_equal(values - released.column(end).to_numpy(), whole_values - whole.column(end).to_numpy())
    values = released.column("count").to_numpy()
    assert row_values(A, values) == row_values(A, table.x)  # every invariant, the spanning ones included
    return (tmp_path / "w.json").read_bytes(), (tmp_path / "p.json").read_bytes(), done, table.x, values


@pytest.mark.parametrize(
    "shape, rules, options",
    [
        ("blocks", ["by:group"], {}),
        ("blocks", ["total", "by:group"], {"norm": "gaussian", "delta": 1e-6}),
        ("blocks", ["by:group"], {"free_cells": True}),
        ("blocks", ["by:group"], {"nonnegative": True}),
        ("nested", ["total", "by:state", "by:state,county", "by:state,age"], {"norm": "gaussian", "delta": 1e-6}),
        ("nested", ["by:state,age", "total", "by:state,county"], {"free_cells": True}),
        ("nested", ["by:state,county"], {}),
        ("blocks", ["total", "by:group"], {"uncertainty": 0.9}),
        ("nested", ["by:state,age", "by:state,county"], {"free_cells": True, "uncertainty": 0.8}),
    ],
)
def test_the_statement_is_the_whole_table_s_byte_for_byte(tmp_path, shape, rules, options):
    path = _table(tmp_path, _blocks() if shape == "blocks" else _nested())
    whole, parts, done, _, _ = _both(tmp_path, path, rules, 2_500, seed=5, **options)
    assert parts == whole
    listed = done.audit["partitions"]
    assert listed["parts"] == len(listed["each"]) > 1  # the audit lists the parts: rows, partitions, attempts
    assert sum(p["attempts"] for p in listed["each"]) == done.audit["exact_sampler"]["attempts"]
    assert [p["rows"][0] for p in listed["each"]][1:] == [p["rows"][1] for p in listed["each"]][:-1]
    assert listed["each"][-1]["rows"][1] == CELLS and listed["each"][-1]["partitions"][1] == listed["partitions"]
    statement = json.loads(parts)
    assert statement["cells"]["count"] == done.cells == CELLS and len(statement["invariants"]) == done.invariants


def test_the_noise_has_the_whole_table_s_law(tmp_path):
    """Blocks of 100 under one total: the parts' noise and the whole table's, from independent seeds, pass a
    two-sample chi-square test (the same sampler per block: a part drawing from a wrong stream or block fails)."""
    path = _table(tmp_path, _blocks())
    _, _, _, x, values = _both(tmp_path, path, ["by:group"], 2_500, seed=11)
    whole = pq.read_table(tmp_path / "w.parquet").column("count").to_numpy() - x
    parts = values - x
    edges = np.array([-np.inf, -6, -4, -2, -1, 0, 1, 2, 4, 6, np.inf])
    table = np.array([np.histogram(whole, edges)[0], np.histogram(parts, edges)[0]])
    assert stats.chi2_contingency(table)[1] > 1e-3
    assert math.isclose(parts.var(), whole.var(), rel_tol=0.1)


def test_a_seeded_release_is_the_same_however_its_parts_are_run(tmp_path):
    path = _table(tmp_path, _blocks())
    req = Request(epsilon="1", rules=("by:group",), seed=3, progress=False)

    def backwards(release_one, parts):  # the parts run last first, their results given back in order
        return list(reversed([release_one(k) for k in reversed(list(parts))]))

    outs = []
    for name, run_parts in (("a", None), ("b", backwards)):
        release_partitioned(
            path,
            ["by:group"],
            req,
            tmp_path / f"{name}.parquet",
            tmp_path / f"{name}.json",
            tmp_path / f"{name}a.json",
            part_cells=3_000,
            run_parts=run_parts,
        )
        outs.append(pq.read_table(tmp_path / f"{name}.parquet").column("count").to_numpy())
    assert np.array_equal(*outs)
    assert part_seed(3, 0) != part_seed(3, 1) != part_seed(4, 1)


def test_a_dataset_in_and_out_holds_the_parts_files_and_the_file_s_release(tmp_path, umask):
    """A dataset input (three files) released to a dataset: the same statement and seeded counts as the file to a
    file; the output's files are the parts' (modes as the umask says), read back in name order as the table's rows."""
    path = _table(tmp_path, _nested())
    rows = pq.read_table(path)
    (tmp_path / "in").mkdir()
    for k, start in enumerate(range(0, CELLS, 4_000)):
        pq.write_table(rows.slice(start, 4_000), tmp_path / "in" / f"{k}.parquet")
    rules = ("by:state,county", "by:state,age", "total")
    req = Request(epsilon="1", norm="gaussian", delta=1e-6, rules=rules, seed=4, progress=False)
    release_partitioned(
        path, rules, req, tmp_path / "f.parquet", tmp_path / "f.json", tmp_path / "fa.json", part_cells=2_500
    )
    done = release_partitioned(
        tmp_path / "in", rules, req, f"{tmp_path}/out/", tmp_path / "d.json", tmp_path / "da.json", part_cells=2_500
    )
    out = tmp_path / "out"
    names = sorted(p.name for p in out.iterdir())
    assert names == [f"part-{k:06d}.parquet" for k in range(done.audit["partitions"]["parts"])] and len(names) == 4
    assert {stat.S_IMODE(p.stat().st_mode) for p in out.iterdir()} == {0o644}  # publishable: as the umask says
    assert all(pq.ParquetFile(p).metadata.row_group(0).column(0).is_stats_set for p in out.iterdir())  # not scratch
    assert stat.S_IMODE(out.stat().st_mode) == 0o755
    assert [stat.S_IMODE((tmp_path / f).stat().st_mode) for f in ("d.json", "da.json", "f.parquet")] == [
        0o644,
        0o600,
        0o644,
    ]
    assert (tmp_path / "d.json").read_bytes() == (tmp_path / "f.json").read_bytes()
    assert read_parquet_arrow(out).equals(pq.read_table(tmp_path / "f.parquet"))
    assert done.audit["files"]["release"] == str(out)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["t.parquet", "in", "out", "f.parquet", "f.json", "fa.json", "d.json", "da.json"]
    )


@pytest.mark.parametrize("interruption", [KeyboardInterrupt, SystemExit, MemoryError])
@pytest.mark.parametrize("dataset", [False, True], ids=["file", "dataset"])
def test_a_failing_part_publishes_nothing_and_keeps_the_earlier_release(tmp_path, dataset, interruption):
    """Interrupted after two parts are written (Ctrl-C; a signal the command line turns into an exit): no scratch
    part is left behind, and the earlier files are as they were."""
    path = _table(tmp_path, _blocks())
    req = Request(epsilon="1", rules=("by:group",), progress=False)
    files = [f"{tmp_path}/out/" if dataset else tmp_path / "o.parquet", tmp_path / "o.json", tmp_path / "oa.json"]
    if dataset:  # an earlier dataset of four part files
        release_partitioned(path, ["by:group"], req, *files, part_cells=3_000)
    else:
        for f in files:
            f.write_text("earlier")
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}

    def dies(release_one, parts):
        for k in parts:
            if k == 2:
                raise interruption
            yield release_one(k)

    with pytest.raises(interruption):
        release_partitioned(path, ["by:group"], req, *files, force=True, part_cells=3_000, run_parts=dies)
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["t.parquet", "out" if dataset else "o.parquet", "o.json", "oa.json"]
    )


@pytest.mark.parametrize("where", ["output", "statement", "audit", "inside", "holds"])
def test_no_output_overwrites_the_input_also_with_force(tmp_path, where):
    """The output, the statement or the audit record on the input, an output inside the input dataset, or a
    dataset output that holds the input: refused before any part is read, the input untouched."""
    data = tmp_path / "data"
    data.mkdir()
    path = _table(data, _blocks())
    if where == "inside":  # the input is a dataset: its directory holds the table's file
        path = data
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    files = {"output": tmp_path / "o.parquet", "statement": tmp_path / "o.json", "audit": tmp_path / "oa.json"}
    if where in files:
        files[where] = path
    elif where == "inside":
        files["output"] = data / "released.parquet"
    else:
        files["output"] = f"{data}/"
    req = Request(epsilon="1", rules=("by:group",), progress=False)
    with pytest.raises(UsageError, match="an input is never overwritten; nothing written"):
        release_partitioned(path, ["by:group"], req, *files.values(), force=True, part_cells=3_000)
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["data", "t.parquet"]


@pytest.mark.parametrize(
    "change, argument",
    [
        ({"output": None}, "output"),
        ({"statement_path": 5}, "statement_path"),
        ({"audit_path": "."}, "audit_path"),
        ({"part_cells": 0}, "part_cells"),
        ({"part_cells": 2.5}, "part_cells"),
        ({"part_cells": "10"}, "part_cells"),
        ({"count_column": None}, "count_column"),
        ({"path": None}, "path"),
    ],
)
def test_an_argument_that_is_not_a_name_or_a_size_is_refused_naming_it(tmp_path, change, argument):
    args = {
        "path": _table(tmp_path, _blocks()),
        "families": ["by:group"],
        "req": Request(epsilon="1", rules=("by:group",), progress=False),
        "output": tmp_path / "o.parquet",
        "statement_path": tmp_path / "s.json",
        "audit_path": tmp_path / "a.json",
        "part_cells": 3_000,
        **change,
    }
    with pytest.raises(UsageError, match=f"^{argument} ") as err:
        release_partitioned(**args)
    assert err.value.argument == argument
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.parquet"]


def test_no_metadata_of_the_input_reaches_the_parts_or_a_dataset_whose_files_differ_in_nulls(tmp_path):
    """A dataset whose files carry metadata about the counts, one of them declaring its columns never null: the
    released file and every part of a released dataset carry none of it, and the release is the one file's."""
    rows = pq.read_table(_table(tmp_path, _blocks()))
    note = {"confidential_note": "true counts: A=8,B=10"}
    strict = pa.schema([pa.field(f.name, f.type, nullable=False, metadata=note) for f in rows.schema], metadata=note)
    (tmp_path / "in").mkdir()
    for k, start in enumerate(range(0, CELLS, 4_000)):
        part = rows.slice(start, 4_000)
        part = part.cast(strict) if k == 1 else part.replace_schema_metadata(note)
        pq.write_table(part, tmp_path / "in" / f"{k}.parquet")
    req = Request(epsilon="1", rules=("by:group",), seed=5, progress=False)
    release_partitioned(
        tmp_path / "t.parquet",
        ["by:group"],
        req,
        tmp_path / "f.parquet",
        tmp_path / "f.json",
        tmp_path / "fa.json",
        part_cells=3_000,
    )
    for output in (tmp_path / "o.parquet", f"{tmp_path}/d/"):
        release_partitioned(
            tmp_path / "in",
            ["by:group"],
            req,
            output,
            tmp_path / "s.json",
            tmp_path / "a.json",
            force=True,
            part_cells=3_000,
        )
    files = [tmp_path / "o.parquet", *sorted((tmp_path / "d").iterdir())]
    assert len(files) == 5
    for file in files:
        schema = pq.read_schema(file)
        assert b"true counts" not in file.read_bytes() and set(schema.metadata or {}) <= {b"ARROW:schema"}
        assert all(f.metadata is None for f in schema)
    assert pq.read_table(tmp_path / "o.parquet").equals(pq.read_table(tmp_path / "f.parquet"))


@pytest.mark.parametrize(
    "change, reason",
    [
        ({"norm": "l2", "delta": 1e-6, "seed": 1, "allow_chain": True}, "exact routes"),
        ({"output": "o.csv"}, "written as Parquet"),
        ({"cells": MIN_CELLS - 1}, "fewer than"),
    ],
)
def test_what_the_parts_cannot_serve_is_left_to_the_whole_table(tmp_path, change, reason):
    cells = change.pop("cells", CELLS)
    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"group": np.arange(cells) // 100, "count": np.ones(cells, dtype=np.int64)}), path)
    output = tmp_path / change.pop("output", "o.parquet")
    req = Request(epsilon="1", rules=("by:group",), progress=False, **change)
    with pytest.raises(NotPartitionable, match=reason):
        release_partitioned(path, ["by:group"], req, output, tmp_path / "s.json", tmp_path / "a.json")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.parquet"]


def test_isdp_release_runs_a_large_parquet_table_in_parts(tmp_path, monkeypatch, capsys):
    import isdp.release

    monkeypatch.setattr(isdp.release.PartitionedRelease, "PART_CELLS", 3_000)  # the command's parts
    path = _table(tmp_path, _nested())

    def release(table, out):
        return main(
            [
                "release",
                str(table),
                "--invariant",
                "by:state,county",
                "--invariant",
                "by:state,age",
                "--norm",
                "gaussian",
                "--delta",
                "1e-6",
                "--epsilon",
                "1",
                "-o",
                f"{tmp_path}/{out}",
                "--quiet",
            ]
        )

    assert release(path, "o.parquet") == 0
    assert "(12,000 cells, 440 invariants kept exactly, in 4 parts)" in capsys.readouterr().out
    assert release(path, "d/") == 0  # a dataset: the parts' files
    assert f"released {tmp_path}/d/ (12,000 cells, 440 invariants kept exactly, in 4 parts)" in capsys.readouterr().out
    assert len(list((tmp_path / "d").iterdir())) == 4
    # a table whose partitions are not contiguous is released whole
    pq.write_table(pq.read_table(path).take(np.random.default_rng(0).permutation(CELLS)), tmp_path / "s.parquet")
    assert release(tmp_path / "s.parquet", "s.parquet.out.parquet") == 0
    assert "(12,000 cells, 440 invariants kept exactly)" in capsys.readouterr().out


def test_the_docs_state_the_sizes_the_code_uses():
    from pathlib import Path

    from isdp.release import PartitionedRelease

    page = (Path(__file__).resolve().parents[3] / "docs" / "release.md").read_text()
    assert PartitionedRelease.PART_CELLS == 2**20 and "2²⁰ cells or more" in page and "about 2²⁰ cells each" in page
    assert f"at least {MIN_CELLS:,} cells" in page


def test_the_fewest_cells_released_in_parts_are_those_whose_pair_sums_neighbours_of_compares():
    """Below MIN_CELLS, Neighbours.of compares all pairwise sums of A's columns, which no part sees."""
    assert MIN_CELLS == math.isqrt(2 * _PAIR_SUM_LIMIT) + 1


def test_a_partition_total_the_search_cannot_set_aside_is_not_partitioned(tmp_path):
    """Within a state, the ``b`` totals and the ``c`` totals each cover its cells, but the widest-first search
    takes c{0,1}, then b{2}, then b{3,4}, and finds nothing for cell 5: the whole table keeps the nation's total,
    which joins the states into one block. The parts cannot give that statement, so the part refuses."""
    b = ["z", "z", "y1", "y2", "y2", "z"]
    c = ["x", "x", "y", "y", "w", "w"]
    path = tmp_path / "t.parquet"
    columns = {"state": np.repeat(["s1", "s2"], 6), "b": np.array(b * 2), "c": np.array(c * 2), "id": np.arange(12)}
    pq.write_table(pa.table({**columns, "count": np.ones(12, dtype=np.int64)}), path, row_group_size=7)
    families = ["total", "by:state,b", "by:state,c"]
    A, _ = constraint_matrix(load_table(path), families)
    assert len(blocks(A)) == 1  # the whole table: one block across both states
    layout = PartitionLayout.of(path, families, part_cells=6)
    assert len(layout.parts) == 2
    req = Request(epsilon="1", free_cells=True, rules=tuple(families))
    with pytest.raises(NotPartitionable, match="not implied"):
        release_part(layout, 0, req, tmp_path / "part.parquet")


@settings(max_examples=100, deadline=None)
@given(
    st.integers(1, 6).flatmap(
        lambda n: st.tuples(
            arrays(np.int64, st.tuples(st.integers(1, 4), st.just(n)), elements=st.integers(-1, 2)),
            arrays(np.int64, st.tuples(st.integers(1, 4), st.just(n)), elements=st.integers(0, 1)),
        )
    )
)
def test_the_widened_totals_are_the_block_matrix_they_stand_for(matrices):
    """Each partition's total one cell of its own wider, built from the CSR arrays: SciPy's block matrix, canonical."""
    A, runs = (as_sparse(m) for m in matrices)
    eye = sparse.identity(runs.shape[0], dtype=np.int64, format="csr")
    expected = as_sparse(sparse.block_array([[A, None], [runs, eye], [None, eye]], format="csr"))
    got = _widened_totals(A, runs)
    assert got.shape == expected.shape and got.has_canonical_format
    assert np.array_equal(got.toarray(), expected.toarray())
