"""Tests of :mod:`isdp_papers.nhgis.steps`: the workflow's ``extract`` rule (``extract_step``), run by Snakemake
on the real zip, remakes the committed county file byte for byte."""

import pytest
from conftest import ROOT


def test_extract_rule_reproduces_the_committed_extract(tmp_path):
    """The workflow's `extract` rule, run on the real zip, remakes data/nhgis/'s CSV byte for byte."""
    import subprocess
    import sys

    zip_path = ROOT.parent / "shared" / "data" / "nhgis" / "nhgis_ppdd_20210608_county.zip"
    if not zip_path.exists():
        pytest.skip(f"{zip_path} is absent (the shared data folder is not beside the repository)")
    (tmp_path / "results" / "data").mkdir(parents=True)
    (tmp_path / "results" / "data" / zip_path.name).symlink_to(zip_path)
    target = "results/data/counties_v20210608.csv"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "snakemake",
            target,
            "--snakefile",
            str(ROOT / "Snakefile"),
            "--directory",
            str(tmp_path),
            "--configfile",
            str(ROOT / "config" / "ci.yaml"),
            "--cores",
            "1",
            "--quiet",
            "all",
        ],
        check=True,
        capture_output=True,
    )
    committed = ROOT / "data" / "nhgis" / "county_population_v20210608.csv"
    assert (tmp_path / target).read_bytes() == committed.read_bytes()


def _fetch_job(tmp_path, embedded, verify):
    from isdp_papers.jobs import Job

    params = {
        "vintage": "20201116",
        "source": "embedded",
        "dest_zip": str(tmp_path / "z.zip"),
        "timeout": 1,
        "retries": 1,
        "backoff": 0,
    }
    return Job(
        input={"embedded": str(embedded)},
        params=params,
        output={"csv": str(tmp_path / "counties.csv"), "info": str(tmp_path / "source.json")},
        config={"data": {"verify_committed": verify}},
    )


@pytest.mark.parametrize("verify", [True, False])
def test_fetch_step_checks_the_committed_extract_unless_the_config_opts_out(tmp_path, verify):
    """A committed extract whose bytes are not the ones data/nhgis/PROVENANCE.md publishes is refused naming it;
    with ``data: {verify_committed: false}`` it is used and source.json says so."""
    import json
    import shutil

    from isdp_papers.evidence import EvidenceError
    from isdp_papers.nhgis.steps import fetch_step

    shutil.copytree(ROOT / "data" / "nhgis", tmp_path / "nhgis")
    embedded = tmp_path / "nhgis" / "county_population_v20210608.csv"
    embedded.write_text(embedded.read_text().replace(",Autauga County,", ",Autauga  County,", 1))  # one byte more
    job = _fetch_job(tmp_path, embedded, verify)
    if verify:
        with pytest.raises(EvidenceError, match="county_population_v20210608.csv: sha256"):
            fetch_step(job)
        assert not (tmp_path / "counties.csv").exists()
    else:
        fetch_step(job)
        assert "used unverified" in json.loads((tmp_path / "source.json").read_text())["reason"]


def test_fetch_step_uses_the_committed_extract_as_published(tmp_path):
    import json

    from isdp_papers.nhgis.steps import fetch_step

    fetch_step(_fetch_job(tmp_path, ROOT / "data" / "nhgis" / "county_population_v20210608.csv", True))
    assert "unverified" not in json.loads((tmp_path / "source.json").read_text())["reason"]
