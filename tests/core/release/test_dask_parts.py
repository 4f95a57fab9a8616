"""A release's parts on a Dask cluster: the single process's statement and, seeded, its very counts; a worker
that dies publishes nothing and keeps the earlier release."""

import os
import signal

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from isdp.cli import main
from isdp.errors import ReleaseError
from isdp.release import DaskParts, Request, release_partitioned

pytest.importorskip("distributed")

CELLS = 12_000


@pytest.fixture
def table(tmp_path):
    state, rest = np.divmod(np.arange(CELLS), CELLS // 4)
    county, age = np.divmod(rest, 50)
    counts = np.random.default_rng(2).poisson(5, CELLS)
    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"state": state, "county": county, "age": age, "count": counts}), path)
    return path


RULES = ("total", "by:state,county", "by:state,age")


def _release(table, out, run_parts, **options):
    req = Request(epsilon="1", rules=RULES, progress=False, **options)
    files = [out.with_suffix(".parquet"), out.with_suffix(".json"), out.with_suffix(".audit.json")]
    release_partitioned(table, RULES, req, *files, part_cells=3_000, run_parts=run_parts)
    return files[1].read_bytes(), pq.read_table(files[0]).column("count").to_numpy()


def test_the_cluster_gives_the_single_process_s_statement_and_seeded_counts(table, tmp_path):
    options = {"norm": "gaussian", "delta": 1e-6, "seed": 9}
    local = _release(table, tmp_path / "local", None, **options)
    on_dask = _release(table, tmp_path / "dask", DaskParts(workers=2, progress=False), **options)
    assert on_dask[0] == local[0]
    assert np.array_equal(on_dask[1], local[1])


def test_a_running_scheduler_is_joined_by_its_address(table, tmp_path):
    from distributed import LocalCluster

    local = _release(table, tmp_path / "local", None, free_cells=True, seed=2)
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        joined = _release(table, tmp_path / "joined", DaskParts(scheduler=cluster.scheduler_address, progress=False),
                          free_cells=True, seed=2)
        assert cluster.scheduler.status.name == "running"  # joined, not closed: the cluster is the caller's
    assert joined[0] == local[0] and np.array_equal(joined[1], local[1])


@pytest.mark.parametrize("dataset", [False, True], ids=["file", "dataset"])
def test_a_worker_that_dies_publishes_nothing_and_keeps_the_earlier_release(table, tmp_path, dataset):
    files = [f"{tmp_path}/o/" if dataset else tmp_path / "o.parquet", tmp_path / "o.json", tmp_path / "o.audit.json"]
    req = Request(epsilon="1", rules=RULES, free_cells=True, progress=False)
    if dataset:  # an earlier dataset of four part files
        release_partitioned(table, RULES, req, *files, part_cells=3_000)
    else:
        for f in files:
            f.write_text("earlier")
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    dask = DaskParts(workers=2, progress=False)

    def killing(release_one, parts):
        def one(k):
            if k == 2:  # the worker drawing part 2 is killed mid-release
                os.kill(os.getpid(), signal.SIGKILL)
            return release_one(k)

        return dask(one, parts)

    with pytest.raises(ReleaseError, match=r"lost part \d .KilledWorker"):
        release_partitioned(table, RULES, req, *files, force=True, part_cells=3_000, run_parts=killing)
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["t.parquet", "o" if dataset else "o.parquet",
                                                                 "o.json", "o.audit.json"])


def test_isdp_release_engine_dask(table, tmp_path, capsys, monkeypatch):
    import isdp.release._partitioned_release as partitioned

    monkeypatch.setattr(partitioned, "PART_CELLS", 3_000)
    args = ["release", str(table), *[a for r in RULES for a in ("--invariant", r)], "--epsilon", "1", "--free-cells",
            "-o", str(tmp_path / "o.parquet"), "--quiet"]
    assert main([*args, "--engine", "dask", "--workers", "2"]) == 0
    assert "(12000 cells, 441 invariants kept exactly, in 4 parts)" in capsys.readouterr().out
    assert main([*args, "--workers", "2"]) == 2
    assert "add --engine dask" in capsys.readouterr().err
    csv = tmp_path / "t.csv"
    csv.write_text("state,age,count\nA,1,2\nA,2,3\n")
    assert main(["release", str(csv), "--invariant", "total", "--epsilon", "1", "-o", str(tmp_path / "c.csv"),
                 "--engine", "dask"]) == 2
    assert "releases one Parquet table" in capsys.readouterr().err
