"""The committed per-state support of the 2010 SF1 ethnicity × race × voting-age histogram that TDA-E8-problem-size
reads, re-derived from the NHGIS zip when it is present (a wrong table mapping is refused) and checked against the
county extract. The row itself is tested in tests/experiments/e8_privacy_accounting/measures/test_topdown_data.py."""

from __future__ import annotations

import pandas as pd
import pytest
import yaml
from conftest import NHGIS_ZIP as SHARED_ZIP
from conftest import ROOT

from isdp.experiments import nhgis
from isdp.experiments.nhgis import histograms

CONFIG = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
needs_zip = pytest.mark.skipif(
    not SHARED_ZIP.exists(), reason=f"real NHGIS zip not found at {SHARED_ZIP} (set ISDP_NHGIS_ZIP)"
)


@needs_zip
@pytest.mark.parametrize(
    ("swap", "error"),
    [
        ({"all": "H74", "adult": "H72"}, "non-negative"),  # P8 and P10 swapped: same labels, the cells go negative
        ({"adult": "H75", "adult_not_hispanic": "H74"}, "codebook"),  # P10 and P11 swapped: the labels disagree
    ],
)
def test_a_wrong_table_mapping_is_refused(tmp_path, monkeypatch, swap, error):
    monkeypatch.setattr(histograms, "_RACE_TABLES", {**histograms._RACE_TABLES, **swap})
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
