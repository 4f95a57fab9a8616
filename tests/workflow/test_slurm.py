"""The CI profile through a real one-node SLURM cluster gives the same tables as the local run.

The test starts a cluster in its own scratch directory (``scripts/slurm-local.sh``), submits the
subset of the CI profile listed in ``slurm_subset.txt`` with ``--profile profiles/slurm``, compares
every table it makes with the local CI run of ``make test`` (wall-clock columns excepted), checks
that the jobs really went through SLURM (their SLURM job ids and logs), and stops the daemons it
started whatever happens. Skipped with a reason where SLURM or root is missing (a laptop).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from ci_runs import TIMING_COLUMNS, ci_run_dir

# Two job levels only (E1's problem, then its two pilot runs, which run the sampler; an E7 and an E8 table
# beside them), five jobs of a few seconds: the SLURM plugin backs off by 10 s more per status check that
# finds nothing finished, so every level of a deeper DAG adds about 30 s, and each cluster job re-reads the
# workflow (about 5 s of CPU) in competition with the tests running beside this one (11 jobs cost 150 CPU-s).
# The deeper sampler-coupling-draws chain is rerun locally instead (ci_subset.txt, test_reproducibility.py).
SUBSET = Path(__file__).with_name("slurm_subset.txt").read_text().split()

pytestmark = pytest.mark.workflow
ROOT = Path(__file__).resolve().parents[2]
TOOLS = ("slurmctld", "slurmd", "sbatch", "squeue", "munged", "mungekey")


@pytest.fixture(scope="module")
def slurm_cluster(tmp_path_factory):
    missing = [t for t in TOOLS if shutil.which(t) is None]
    if missing:
        pytest.skip(f"SLURM is not installed ({', '.join(missing)} missing): apt-get install slurm-wlm munge")
    if os.geteuid() != 0:
        pytest.skip("the test cluster's daemons need root")
    if Path("/etc/slurm/slurm.conf").exists():
        pytest.skip("/etc/slurm/slurm.conf exists: a real cluster is configured here; not starting a test one")
    scratch = tmp_path_factory.mktemp("slurm") / "cluster"
    script = ROOT / "scripts" / "slurm-local.sh"
    try:
        out = subprocess.run(["bash", str(script), "start", str(scratch)], capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        conf = out.stdout.strip().split("SLURM_CONF=")[-1]
        yield conf
    finally:
        subprocess.run(["bash", str(script), "stop", str(scratch)], timeout=120)
        assert not scratch.exists() and not Path("/etc/slurm/slurm.conf").is_symlink()


def test_ci_profile_on_slurm_matches_the_local_run(slurm_cluster, tmp_path):
    local = ci_run_dir("ISDP_CI_RESULTS")
    run = tmp_path / "run"
    env = {**os.environ, "SLURM_CONF": slurm_cluster}
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "snakemake",
            "--snakefile",
            str(ROOT / "Snakefile"),
            "--directory",
            str(run),
            "--configfile",
            str(ROOT / "config" / "ci.yaml"),
            "--profile",
            str(ROOT / "profiles" / "slurm"),
            "--slurm-status-command",
            "squeue",
            "--slurm-no-account",
            "--slurm-init-seconds-before-status-checks",
            "1",
            "--seconds-between-status-checks",
            "2",
            "--slurm-keep-successful-logs",
            "--default-resources",
            "slurm_partition=local",
            "--",
            *SUBSET,
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=3000,
    )
    assert out.returncode == 0, (out.stdout + out.stderr)[-3000:]
    # The jobs went through SLURM: one SLURM log per job, named by its SLURM job id.
    logs = list((run / ".snakemake" / "slurm_logs").rglob("*.log"))
    assert len(logs) > len(SUBSET) and all(p.stem.isdigit() for p in logs), [p.name for p in logs][:5]
    tables = sorted(p.relative_to(run) for p in (run / "results" / "tables").rglob("*.csv"))
    assert len(tables) >= len(SUBSET) and all((run / target).is_file() for target in SUBSET)
    for rel in tables:
        a = pd.read_csv(local / rel, keep_default_na=False)
        b = pd.read_csv(run / rel, keep_default_na=False)
        keep = [c for c in a.columns if c not in TIMING_COLUMNS]
        pd.testing.assert_frame_equal(a[keep], b[keep], check_exact=True, obj=str(rel))


def test_a_release_runs_on_a_dask_slurm_cluster(slurm_cluster, tmp_path, monkeypatch):
    """``dask-jobqueue``'s SLURMCluster starts two Dask workers as SLURM jobs; a release whose parts run on them
    gives the single process's statement and, seeded, its very counts."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    from isdp.release import DaskParts, Request, release_partitioned

    jobqueue = pytest.importorskip("dask_jobqueue")
    from distributed import Client

    monkeypatch.setenv("SLURM_CONF", slurm_cluster)
    cells = np.arange(12_000)
    table = tmp_path / "t.parquet"
    pq.write_table(pa.table({"group": cells // 100, "cell": cells, "count": cells % 7}), table)
    rules = ("total", "by:group")
    req = Request(epsilon="1", rules=rules, seed=4, progress=False)

    def release(name, run_parts):
        out = tmp_path / name
        release_partitioned(
            table, rules, req, out / "o.parquet", out / "s.json", out / "a.json", part_cells=3_000, run_parts=run_parts
        )
        return (out / "s.json").read_bytes(), pq.read_table(out / "o.parquet").column("count").to_numpy()

    local = release("local", None)
    with jobqueue.SLURMCluster(
        queue="local",
        cores=1,
        processes=1,
        memory="2GB",
        walltime="00:10:00",
        python=sys.executable,
        log_directory=str(tmp_path / "logs"),
        scheduler_options={"dashboard_address": None},
    ) as cluster:
        cluster.scale(jobs=2)
        with Client(cluster) as client:
            client.wait_for_workers(2, timeout=300)
            jobs = client.run(lambda: os.environ.get("SLURM_JOB_ID"))
            on_slurm = release("slurm", DaskParts(client=client, progress=False))
    assert len(jobs) == 2 and all(str(job).isdigit() for job in jobs.values())  # the workers are SLURM jobs
    assert on_slurm[0] == local[0] and np.array_equal(on_slurm[1], local[1])
