"""The per-county housing-unit extract (SF1 table H3, total and occupied units, SF1 and DAS).

The committed file (:data:`HOUSING_EXTRACT`), how it is made from the county zip (:func:`extract_housing`) and read
(:func:`load_housing`).

Used by E3's claims measures (the housing-units invariant, the DAS's logical relationships) and E8's measures.
"""

from __future__ import annotations

import os

import pandas as pd

from isdp_papers.nhgis.counties import COUNT_IDS, DataValidationError, _extract_county_counts, _load_county_counts

#: The committed housing-unit extract (repository path), made by :func:`extract_housing`.
HOUSING_EXTRACT = "data/nhgis/county_housing_v20210608.csv"
#: Columns of the housing-unit extract, in file order, and their NHGIS source (table H3, Occupancy Status, whose
#: universe is housing units: IFE001 total, IFE002 occupied; ``_sf`` 2010 SF1, ``_dp`` the DAS of the vintage).
HOUSING_SOURCE = {
    "sf1_housing_units": "IFE001_sf",
    "dp_housing_units": "IFE001_dp",
    "sf1_occupied_units": "IFE002_sf",
    "dp_occupied_units": "IFE002_dp",
}
HOUSING_COLUMNS = [*COUNT_IDS, *HOUSING_SOURCE]


def _occupied_within_total(housing: pd.DataFrame) -> None:
    if (housing["sf1_occupied_units"] > housing["sf1_housing_units"]).any():
        raise DataValidationError("occupied ≤ total: SF1 occupied units exceed the housing units")


def extract_housing(
    zip_path: str | os.PathLike, out_csv: str | os.PathLike, vintage: str | None = None
) -> pd.DataFrame:
    """Extract the per-county housing-unit counts of an NHGIS county zip (SF1 and DAS, total and occupied).

    Written as a deterministic CSV of :data:`HOUSING_COLUMNS` sorted by gisjoin: Subspace DP §1's 'counts of total
    housing units' invariant. The counties and their identifiers are :func:`extract`'s (validated the same way); nothing
    is written when a check fails (also: SF1 occupied ≤ total). Returns the frame.
    """
    return _extract_county_counts(zip_path, out_csv, vintage, HOUSING_SOURCE, "housing units", _occupied_within_total)


def load_housing(csv_path: str | os.PathLike) -> pd.DataFrame:
    """Read an extract written by :func:`extract_housing` (identifiers as strings, counts as integers)."""
    return _load_county_counts(csv_path, HOUSING_COLUMNS, HOUSING_SOURCE)
