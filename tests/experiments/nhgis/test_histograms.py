"""Tests of :mod:`isdp_papers.nhgis.histograms`: the committed histogram extracts (the per-county cell summary,
the per-state support, Illinois's county histograms) are re-derived from the real zip byte for byte, the cell
summary lists the county file's counties, Illinois's histograms add up to its counties' populations, and their
loader refuses a file of another state; the per-state support that TDA-E8-problem-size reads refuses a wrong table
mapping of the zip and agrees with the county extract (the row itself is tested in
tests/experiments/e8_privacy_accounting/measures/test_topdown_data.py)."""

import pandas as pd
import pytest
from census_support import CONFIG, EMBEDDED, assert_rederived, assert_the_county_files_counties, requires_zip
from conftest import NHGIS_ZIP as SHARED_ZIP
from conftest import ROOT
from isdp_papers.nhgis import histograms
from isdp_papers.nhgis.counties import DataValidationError, load_counties
from isdp_papers.nhgis.histograms import (
    HISTOGRAM_CELLS_EXTRACT,
    HISTOGRAM_SUPPORT_EXTRACT,
    N_RACES,
    NATION,
    STATE_HISTOGRAMS_EXTRACT,
    STATE_HISTOGRAMS_SOURCE,
    STATE_HISTOGRAMS_STATE,
    extract_histogram_cells,
    extract_histogram_support,
    extract_state_histograms,
    load_histogram_cells,
    load_state_histograms,
)


@requires_zip
@pytest.mark.parametrize(
    "extractor, path",
    [
        (extract_histogram_cells, HISTOGRAM_CELLS_EXTRACT),
        (extract_histogram_support, HISTOGRAM_SUPPORT_EXTRACT),
        (extract_state_histograms, STATE_HISTOGRAMS_EXTRACT),
    ],
)
def test_committed_extract_is_rederived_byte_for_byte(tmp_path, extractor, path):
    assert_rederived(extractor, path, tmp_path)


def test_count_extract_has_the_county_files_counties():
    assert_the_county_files_counties(HISTOGRAM_CELLS_EXTRACT, load_histogram_cells)


def test_state_histograms_are_illinois_and_add_up_to_its_population():
    cells = load_state_histograms(ROOT / STATE_HISTOGRAMS_EXTRACT)
    counties = load_counties(EMBEDDED)
    il = counties[counties["state_abbr"] == STATE_HISTOGRAMS_STATE]
    assert list(cells["gisjoin"]) == list(il["gisjoin"])
    assert (cells[STATE_HISTOGRAMS_SOURCE].sum(axis=1).to_numpy() == il["sf1_pop"].to_numpy()).all()


def test_state_histograms_loader_refuses_another_state(tmp_path):
    cells = pd.read_csv(ROOT / STATE_HISTOGRAMS_EXTRACT, dtype=str)
    bad = tmp_path / "bad.csv"
    cells.iloc[:-1].to_csv(bad, index=False)
    with pytest.raises(DataValidationError, match="102 counties of IL"):
        load_state_histograms(bad)


# ------------------------------------------------------------------------- the per-state support (TDA-E8-problem-size)


@requires_zip
@pytest.mark.parametrize(
    ("swap", "error"),
    [
        ({"all": "H74", "adult": "H72"}, "non-negative"),  # P8 and P10 swapped: same labels, the cells go negative
        ({"adult": "H75", "adult_not_hispanic": "H74"}, "codebook"),  # P10 and P11 swapped: the labels disagree
    ],
)
def test_a_wrong_table_mapping_is_refused(tmp_path, monkeypatch, swap, error):
    monkeypatch.setattr(histograms, "_RACE_TABLES", {**histograms._RACE_TABLES, **swap})
    with pytest.raises(DataValidationError, match=error):
        extract_histogram_support(SHARED_ZIP, tmp_path / "support.csv")
    assert not (tmp_path / "support.csv").exists()  # nothing is written


def test_support_table_agrees_with_the_county_extract():
    support = pd.read_csv(ROOT / HISTOGRAM_SUPPORT_EXTRACT).set_index("state_abbr")
    counties = load_counties(ROOT / CONFIG["data"]["embedded"])
    states = support.drop(index=NATION)
    per_state = counties.groupby("state_abbr")
    assert states["counties"].to_dict() == per_state.size().to_dict()
    assert states["sf1_pop"].to_dict() == per_state["sf1_pop"].sum().to_dict()
    us = states.drop(index="PR")
    assert support.loc[NATION, "sf1_pop"] == us["sf1_pop"].sum()
    assert support.loc[NATION, "counties"] == us["counties"].sum()
    cells = 4 * N_RACES
    assert ((states["nonzero_cells"] > 0) & (states["nonzero_cells"] <= support.loc[NATION, "nonzero_cells"])).all()
    assert support.loc[NATION, "nonzero_cells"] <= cells
