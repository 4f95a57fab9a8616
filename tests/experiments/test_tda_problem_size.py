"""TopDown talk's 'Size of optimization problems decreases' (TDA-E8-problem-size), and the committed per-state support
of the 2010 SF1 ethnicity × race × voting-age histogram it reads, re-derived from the NHGIS zip when it is present.
The row differs on the real measure (variables per problem) and matches under the other reading (people per problem)."""

from __future__ import annotations

import pandas as pd
import pytest
import yaml
from conftest import NHGIS_ZIP as SHARED_ZIP
from conftest import REGISTRY, ROOT, row_verdict

from isdp.experiments import claims, nhgis

CONFIG = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
ROW = "TDA-E8-problem-size"
needs_zip = pytest.mark.skipif(
    not SHARED_ZIP.exists(), reason=f"real NHGIS zip not found at {SHARED_ZIP} (set ISDP_NHGIS_ZIP)"
)


@pytest.fixture(scope="module")
def run() -> claims.Run:
    """The row reads only committed inputs."""
    return claims.Run(ROOT, CONFIG, repo=ROOT)


@needs_zip
@pytest.mark.parametrize(
    ("swap", "error"),
    [
        ({"all": "H74", "adult": "H72"}, "non-negative"),  # P8 and P10 swapped: same labels, the cells go negative
        ({"adult": "H75", "adult_not_hispanic": "H74"}, "codebook"),  # P10 and P11 swapped: the labels disagree
    ],
)
def test_a_wrong_table_mapping_is_refused(tmp_path, monkeypatch, swap, error):
    monkeypatch.setattr(nhgis, "_RACE_TABLES", {**nhgis._RACE_TABLES, **swap})
    with pytest.raises(nhgis.DataValidationError, match=error):
        nhgis.extract_histogram_support(SHARED_ZIP, tmp_path / "support.csv")
    assert not (tmp_path / "support.csv").exists()  # nothing is written


def test_support_table_agrees_with_the_county_extract():
    support = pd.read_csv(ROOT / nhgis.HISTOGRAM_SUPPORT_EXTRACT).set_index("state_abbr")
    counties = nhgis.load_counties(ROOT / CONFIG["data"]["embedded"])
    states = support.drop(index=nhgis.NATION)
    per_state = counties.groupby("state_abbr")
    assert states["counties"].to_dict() == per_state.size().to_dict()
    assert states["sf1_pop"].to_dict() == per_state["sf1_pop"].sum().to_dict()
    us = states.drop(index="PR")
    assert support.loc[nhgis.NATION, "sf1_pop"] == us["sf1_pop"].sum()
    assert support.loc[nhgis.NATION, "counties"] == us["counties"].sum()
    cells = 4 * nhgis.N_RACES
    assert (
        (states["nonzero_cells"] > 0) & (states["nonzero_cells"] <= support.loc[nhgis.NATION, "nonzero_cells"])
    ).all()
    assert support.loc[nhgis.NATION, "nonzero_cells"] <= cells


def test_problem_size_differs_in_variables_and_matches_in_people(run):
    status, m = row_verdict(ROW, run)
    support = pd.read_csv(ROOT / nhgis.HISTOGRAM_SUPPORT_EXTRACT).set_index("state_abbr").drop(index="PR")
    states = support.drop(index=nhgis.NATION)
    assert m.value["nation_state"] == len(states) * support.loc[nhgis.NATION, "nonzero_cells"]
    assert m.value["largest_state_county"] == (states["counties"] * states["nonzero_cells"]).max()
    assert status == "differs" and claims.claim(ROW, REGISTRY)["cause"] == "reading"
    assert m.value["median_state_county"] > m.value["nation_state"]  # not one outlier state: the median is above too
    status, m = row_verdict(ROW, run, size="people")  # the other reading: the parent's population
    assert status == "match" and m.value["nation_state"] == support.loc[nhgis.NATION, "sf1_pop"]


def test_problem_size_rejects_an_unknown_size(run):
    with pytest.raises(ValueError, match="size must be"):
        row_verdict(ROW, run, size="cells")


def test_national_zero_cells_counts_the_nations_das_histogram(run, tmp_path):
    row = "TDA-E8-national-zero-cells"
    status, m = row_verdict(row, run)
    support = pd.read_csv(ROOT / nhgis.HISTOGRAM_SUPPORT_EXTRACT).set_index("state_abbr")
    assert status == "differs" and m.value == 4 * nhgis.N_RACES - support.loc[nhgis.NATION, "dp_nonzero_cells"]
    assert m.value == 0 and "2,602 in all" in m.note  # no national zero; the states' histograms have zeros
    support.loc[nhgis.NATION, "dp_nonzero_cells"] -= 3  # a national histogram with three zero cells
    (tmp_path / "data").mkdir()
    support.reset_index().to_csv(tmp_path / "data" / "support.csv", index=False)
    status, m = row_verdict(row, claims.Run(tmp_path, config=run.config, repo=tmp_path), file="data/support.csv")
    assert status == "match" and m.value == 3 and "drops 153 of" in m.text
