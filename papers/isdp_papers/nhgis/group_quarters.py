"""The per-county group-quarters extract (the seven leaf types of SF1 table P42, SF1 and DAS).

The committed file (:data:`GROUP_QUARTERS_EXTRACT`), how it is made from the county zip (:func:`extract_group_quarters`)
and read (:func:`load_group_quarters`).

Used by E3's claims measures (the group-quarters facilities invariant, the DAS's logical relationships).
"""

from __future__ import annotations

import os

import pandas as pd

from isdp_papers.nhgis.counties import COUNT_IDS, _extract_county_counts, _load_county_counts

#: The committed group-quarters extract (repository path), made by :func:`extract_group_quarters`.
GROUP_QUARTERS_EXTRACT = "data/nhgis/county_group_quarters_v20210608.csv"
#: The seven leaf group-quarters types of SF1 table P42 (NHGIS H80; universe: population in group quarters) and
#: their NHGIS columns; the three-digit GQ codes each covers are in the zip's codebook.
GROUP_QUARTERS_TYPES = {
    "correctional": "H80003",
    "juvenile": "H80004",
    "nursing": "H80005",
    "other_institutional": "H80006",
    "college": "H80008",
    "military": "H80009",
    "other_noninstitutional": "H80010",
}
#: Columns of the group-quarters extract after the identifiers: the population of each type, SF1 then DAS.
GROUP_QUARTERS_SOURCE = {
    f"{src}_gq_{name}": f"{code}_{suffix}"
    for src, suffix in (("sf1", "sf"), ("dp", "dp"))
    for name, code in GROUP_QUARTERS_TYPES.items()
}
GROUP_QUARTERS_COLUMNS = [*COUNT_IDS, *GROUP_QUARTERS_SOURCE]


def extract_group_quarters(
    zip_path: str | os.PathLike, out_csv: str | os.PathLike, vintage: str | None = None
) -> pd.DataFrame:
    """Extract the per-county group-quarters population of each of the seven P42 types (SF1 and DAS).

    Written as a deterministic CSV of :data:`GROUP_QUARTERS_COLUMNS` sorted by gisjoin: the evidence for the TopDown
    invariant on occupied group-quarters facilities per type and block. Counties and identifiers as :func:`extract`'s;
    nothing is written when a check fails. Returns the frame.
    """
    return _extract_county_counts(zip_path, out_csv, vintage, GROUP_QUARTERS_SOURCE, "group-quarters population")


def load_group_quarters(csv_path: str | os.PathLike) -> pd.DataFrame:
    """Read an extract written by :func:`extract_group_quarters` (identifiers as strings, counts as integers)."""
    return _load_county_counts(csv_path, GROUP_QUARTERS_COLUMNS, GROUP_QUARTERS_SOURCE)
