"""Tests of :mod:`isdp.experiments.nhgis.steps`: the workflow's ``extract`` rule (``extract_step``), run by Snakemake
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
    subprocess.run([sys.executable, "-m", "snakemake", target, "--snakefile", str(ROOT / "Snakefile"),
                    "--directory", str(tmp_path), "--configfile", str(ROOT / "config" / "ci.yaml"),
                    "--cores", "1", "--quiet", "all"], check=True, capture_output=True)
    committed = ROOT / "data" / "nhgis" / "county_population_v20210608.csv"
    assert (tmp_path / target).read_bytes() == committed.read_bytes()
