"""Tests of :mod:`isdp_papers.nhgis.group_quarters`: the committed per-county group-quarters extract is
re-derived from the real zip byte for byte and lists the county file's counties."""

from census_support import assert_rederived, assert_the_county_files_counties, requires_zip
from isdp_papers.nhgis.group_quarters import GROUP_QUARTERS_EXTRACT, extract_group_quarters, load_group_quarters


@requires_zip
def test_committed_extract_is_rederived_byte_for_byte(tmp_path):
    assert_rederived(extract_group_quarters, GROUP_QUARTERS_EXTRACT, tmp_path)


def test_count_extract_has_the_county_files_counties():
    assert_the_county_files_counties(GROUP_QUARTERS_EXTRACT, load_group_quarters)
