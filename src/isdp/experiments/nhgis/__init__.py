"""IPUMS NHGIS Privacy-Protected 2010 Census Demonstration Data, county level: the input data of E3, E4 and E8 (and
the county populations of the lattice study of E1/E2), one module per concept:

* :mod:`.counties` — the county file: reading a vintage's zip, the tidy table of county populations (SF1 and DAS),
  its identity checks and the DAS state-total checks, :func:`~.counties.load_counties`,
  :func:`~.counties.state_counties`, state FIPS codes, abbreviations and names, the vintages;
* :mod:`.download` — downloading a zip: retries, a deadline per attempt (socket and signal watchdogs), an atomic
  write checked against a SHA-256;
* :mod:`.fallback` — the data policy: :func:`~.fallback.fetch_or_fallback` (a zip in place, a download, or loudly
  the committed extract);
* :mod:`.housing` — the per-county housing-unit extract (E3, E8);
* :mod:`.group_quarters` — the per-county group-quarters extract (E3);
* :mod:`.histograms` — the 252-cell ethnicity × race × voting-age histograms: the per-state support, the per-county
  cell summary and Illinois's county histograms (E3, E4, E8);
* :mod:`.steps` — the workflow steps ``fetch_step`` and ``extract_step`` (``workflow/rules/data.smk``).

Every module logs under the one logger ``isdp.experiments.nhgis``.
"""

# re-exports kept until every importer names its module
from isdp.experiments.nhgis.counties import (
    COLUMNS,
    NATIONAL_SF1,
    STATE_ABBR,
    DataValidationError,
    das_claims_broken,
    extract,
    infer_vintage,
    load_counties,
    read_county_csv,
    tidy_extract,
)
from isdp.experiments.nhgis.download import DownloadError, download, sha256sum, url_for
from isdp.experiments.nhgis.fallback import fetch_or_fallback
from isdp.experiments.nhgis.group_quarters import (
    GROUP_QUARTERS_EXTRACT,
    GROUP_QUARTERS_TYPES,
    extract_group_quarters,
    load_group_quarters,
)
from isdp.experiments.nhgis.histograms import (
    _RACE_TABLES,
    HISTOGRAM_CELLS,
    HISTOGRAM_CELLS_EXTRACT,
    HISTOGRAM_SUPPORT_EXTRACT,
    N_RACES,
    NATION,
    STATE_HISTOGRAMS_EXTRACT,
    STATE_HISTOGRAMS_SOURCE,
    STATE_HISTOGRAMS_STATE,
    _county_histograms,
    extract_histogram_cells,
    extract_histogram_support,
    extract_state_histograms,
    histogram_cells_summary,
    load_histogram_cells,
    load_state_histograms,
)
from isdp.experiments.nhgis.housing import HOUSING_EXTRACT, extract_housing, load_housing

# re-exports kept until every importer names its module
__all__ = [
    "COLUMNS",
    "GROUP_QUARTERS_EXTRACT",
    "GROUP_QUARTERS_TYPES",
    "HISTOGRAM_CELLS",
    "HISTOGRAM_CELLS_EXTRACT",
    "HISTOGRAM_SUPPORT_EXTRACT",
    "HOUSING_EXTRACT",
    "NATION",
    "NATIONAL_SF1",
    "N_RACES",
    "STATE_ABBR",
    "STATE_HISTOGRAMS_EXTRACT",
    "STATE_HISTOGRAMS_SOURCE",
    "STATE_HISTOGRAMS_STATE",
    "DataValidationError",
    "DownloadError",
    "_RACE_TABLES",
    "_county_histograms",
    "das_claims_broken",
    "download",
    "extract",
    "extract_group_quarters",
    "extract_histogram_cells",
    "extract_histogram_support",
    "extract_housing",
    "extract_state_histograms",
    "fetch_or_fallback",
    "histogram_cells_summary",
    "infer_vintage",
    "load_counties",
    "load_group_quarters",
    "load_histogram_cells",
    "load_housing",
    "load_state_histograms",
    "read_county_csv",
    "sha256sum",
    "tidy_extract",
    "url_for",
]
