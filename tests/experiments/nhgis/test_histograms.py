"""Tests of :mod:`isdp.experiments.nhgis.histograms`: the committed histogram extracts (the per-county cell summary,
the per-state support, Illinois's county histograms) are re-derived from the real zip byte for byte, the cell
summary lists the county file's counties, Illinois's histograms add up to its counties' populations, and their
loader refuses a file of another state."""

import pandas as pd
import pytest
from census_support import EMBEDDED, assert_rederived, assert_the_county_files_counties, requires_zip
from conftest import ROOT

from isdp.experiments.nhgis.counties import DataValidationError, load_counties
from isdp.experiments.nhgis.histograms import (
    HISTOGRAM_CELLS_EXTRACT,
    HISTOGRAM_SUPPORT_EXTRACT,
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
@pytest.mark.parametrize("extractor, path", [(extract_histogram_cells, HISTOGRAM_CELLS_EXTRACT),
                                             (extract_histogram_support, HISTOGRAM_SUPPORT_EXTRACT),
                                             (extract_state_histograms, STATE_HISTOGRAMS_EXTRACT)])
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
