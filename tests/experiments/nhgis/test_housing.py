"""Tests of :mod:`isdp_papers.nhgis.housing`: the committed per-county housing-unit extract is re-derived from
the real zip byte for byte and lists the county file's counties."""

from census_support import assert_rederived, assert_the_county_files_counties, requires_zip
from isdp_papers.nhgis.housing import HOUSING_EXTRACT, extract_housing, load_housing


@requires_zip
def test_committed_extract_is_rederived_byte_for_byte(tmp_path):
    assert_rederived(extract_housing, HOUSING_EXTRACT, tmp_path)


def test_count_extract_has_the_county_files_counties():
    assert_the_county_files_counties(HOUSING_EXTRACT, load_housing)
