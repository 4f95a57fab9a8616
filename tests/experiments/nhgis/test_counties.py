"""Tests of :mod:`isdp_papers.nhgis.counties`: reading a vintage's zip (the vintage from the member's name, the
H7V columns of older vintages), the tidy table and its identity checks (a corrupted file is refused and nothing is
written), a DAS file breaking a state total kept and flagged for the registry, and the committed county file
re-derived from the real zip byte for byte and matching its provenance.

Tests that need the real NHGIS zip read its path from ``ISDP_NHGIS_ZIP`` (default: the data folder next to the
repository) and skip when it is absent.
"""

import hashlib
import io
import logging
import zipfile
from pathlib import Path

import pandas as pd
import pytest
from census_support import EMBEDDED, requires_zip
from conftest import NHGIS_ZIP as SHARED_ZIP
from isdp_papers.nhgis.counties import (
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

MEMBER = "nhgis_ppdd_20210608_county.csv"


@pytest.fixture(scope="module")
def raw_subset() -> pd.DataFrame:
    """The real county CSV reduced to the columns extract() reads (strings, as in the file)."""
    if not SHARED_ZIP.exists():
        pytest.skip(f"real NHGIS zip not found at {SHARED_ZIP}")
    return read_county_csv(SHARED_ZIP)


def write_zip(path: Path, df: pd.DataFrame, member: str = MEMBER) -> Path:
    """A zip holding ``df`` as a Latin-1 CSV, like an NHGIS download."""
    buf = io.StringIO()
    df.to_csv(buf, index=False, lineterminator="\n")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(member, buf.getvalue().encode("latin-1"))
    return path


def set_value(df: pd.DataFrame, gisjoin: str, column: str, delta: int) -> pd.DataFrame:
    out = df.copy()
    row = out["gisjoin"] == gisjoin
    assert row.sum() == 1
    out.loc[row, column] = str(int(out.loc[row, column].iloc[0]) + delta)
    return out


def test_vintage_inference():
    assert infer_vintage("/x/nhgis_ppdd_20200527_county.zip") == "20200527"
    assert infer_vintage("counties.zip") is None


@requires_zip
def test_extract_reproduces_committed_csv(tmp_path):
    out = tmp_path / "counties.csv"
    tidy = extract(SHARED_ZIP, out)
    assert out.read_bytes() == EMBEDDED.read_bytes()
    assert list(tidy.columns) == COLUMNS


def test_committed_csv_loads_and_matches_provenance():
    df = load_counties(EMBEDDED)
    assert list(df.columns) == COLUMNS
    assert df["sf1_pop"].dtype == "int64" and df["dp_pop"].dtype == "int64"
    assert (df["state_fips"].str.len() == 2).all() and (df["county_fips"].str.len() == 3).all()
    assert df.loc[df["gisjoin"] == "G0100010", ["state_fips", "county_fips"]].values.tolist() == [["01", "001"]]
    assert df["gisjoin"].is_monotonic_increasing
    assert set(df["vintage"]) == {"20210608"}
    assert set(df["state_abbr"]) == set(STATE_ABBR.values())
    assert "Doña Ana County" in set(df["name"])
    digest = hashlib.sha256(EMBEDDED.read_bytes()).hexdigest()
    assert digest in (EMBEDDED.parent / "PROVENANCE.md").read_text()


def test_embedded_has_no_windows_line_endings():
    assert b"\r" not in EMBEDDED.read_bytes()


@requires_zip
def test_vintage_mismatch_is_an_error():
    with pytest.raises(DataValidationError, match="vintage"):
        read_county_csv(SHARED_ZIP, vintage="20201116")


@requires_zip
def test_h7v_columns_and_vintage_from_member_name(tmp_path, raw_subset):
    old = raw_subset.rename(columns={"H72001_sf": "H7V001_sf", "H72001_dp": "H7V001_dp"})
    zpath = write_zip(tmp_path / "download.zip", old, member="nhgis_ppdd_20200527_county.csv")
    tidy = extract(zpath, tmp_path / "out.csv")
    assert set(tidy["vintage"]) == {"20200527"}
    assert tidy["sf1_pop"].sum() == NATIONAL_SF1


def test_tidy_uses_statea_countya_and_checks_state_column():
    raw = pd.DataFrame(
        {
            "gisjoin": ["G4803010", "G1700310"],
            "STATEA": ["48", "17"],
            "COUNTYA": ["301", "031"],
            "state": ["48", "17"],
            "name": [" Loving County", "Cook County"],
            "H72001_sf": ["82", "5194675"],
            "H72001_dp": ["80", "5194677"],
        }
    )
    tidy = tidy_extract(raw, "20201116")
    assert tidy["gisjoin"].tolist() == ["G1700310", "G4803010"]
    assert tidy["state_abbr"].tolist() == ["IL", "TX"]
    assert tidy["name"].tolist() == ["Cook County", "Loving County"]
    with pytest.raises(DataValidationError, match="state code"):
        tidy_extract(raw.assign(state=["17", "17"]), "20201116")
    with pytest.raises(DataValidationError, match="columns"):
        tidy_extract(raw.drop(columns="H72001_dp"), "20201116")
    with pytest.raises(DataValidationError, match="gisjoin format"):
        tidy_extract(raw.assign(gisjoin=["G480301", "G1700310"]), "20201116")


def _drop_illinois_rows(df):
    return df.drop(df.index[df["gisjoin"].str.startswith("G17")][:3])


def _break_vermont_dp(df):
    return set_value(df, "G5000010", "H72001_dp", 5)


def _cook_changed(df):
    return set_value(set_value(df, "G1700310", "H72001_sf", 1), "G1700310", "H72001_dp", 1)


def _blank_dp(df):
    out = df.copy()
    out.loc[out["gisjoin"] == "G0100010", "H72001_dp"] = ""
    return out


def _duplicate_row(df):
    return pd.concat([df, df.iloc[[5]]], ignore_index=True)


@requires_zip
@pytest.mark.parametrize(
    ("corrupt", "checks"),
    [
        (_drop_illinois_rows, ["row count", "Illinois county count", "national SF1 sum"]),
        (_cook_changed, ["Cook County IL (G1700310) SF1", "national SF1 sum"]),
        (_blank_dp, ["missing values", "G0100010"]),
        (_duplicate_row, ["unique gisjoin"]),
    ],
)
def test_corrupted_data_is_rejected_and_nothing_written(tmp_path, raw_subset, corrupt, checks):
    zpath = write_zip(tmp_path / "bad.zip", corrupt(raw_subset))
    outdir = tmp_path / "out"
    outdir.mkdir()
    with pytest.raises(DataValidationError) as err:
        extract(zpath, outdir / "counties.csv")
    for check in checks:
        assert check in str(err.value)
    assert list(outdir.iterdir()) == []


@requires_zip
def test_a_das_file_breaking_a_state_total_is_kept_for_the_registry(tmp_path, raw_subset, caplog):
    """The DAS's state totals are a claim under test, not a mark of a valid file: the extraction keeps a file that
    breaks them and says so, and the stored file shows it (the registry's rows count it)."""
    out = tmp_path / "counties.csv"
    with caplog.at_level(logging.WARNING, logger="isdp_papers.nhgis"):
        extract(write_zip(tmp_path / "vt.zip", _break_vermont_dp(raw_subset)), out)
    assert "VT (dp-sf1 = +5)" in caplog.text
    stored = pd.read_csv(out, dtype={"state_fips": str, "county_fips": str})
    assert das_claims_broken(stored) == ["state totals not kept: VT (dp-sf1 = +5)"]
    assert das_claims_broken(pd.read_csv(EMBEDDED, dtype={"state_fips": str})) == []


@requires_zip
def test_unmodified_subset_passes(tmp_path, raw_subset):
    """Control for the corruption tests: the rewritten zip itself is fine."""
    extract(write_zip(tmp_path / "ok.zip", raw_subset), tmp_path / "ok.csv")
    assert (tmp_path / "ok.csv").read_bytes() == EMBEDDED.read_bytes()


@requires_zip
def test_truncated_zip_keeps_previous_output(tmp_path):
    zpath = tmp_path / "nhgis_ppdd_20210608_county.zip"
    data = SHARED_ZIP.read_bytes()
    zpath.write_bytes(data[: len(data) // 2])
    out = tmp_path / "out" / "counties.csv"
    out.parent.mkdir()
    out.write_text("previous\n")
    with pytest.raises(DataValidationError, match="zip archive"):
        extract(zpath, out)
    assert out.read_text() == "previous\n"
    assert list(out.parent.iterdir()) == [out]


def test_zip_without_county_csv(tmp_path):
    zpath = tmp_path / "nhgis_ppdd_20210608_state.zip"
    with zipfile.ZipFile(zpath, "w") as zf:
        zf.writestr("nhgis_ppdd_20210608_state.csv", "gisjoin\n")
    with pytest.raises(DataValidationError, match="zip contents"):
        read_county_csv(zpath)


def test_load_counties_rejects_tampered_csv(tmp_path):
    text = EMBEDDED.read_text(encoding="utf-8")
    tampered = tmp_path / "tampered.csv"
    tampered.write_text(text.replace("G4803010,48,TX,301,Loving County,82,", "G4803010,48,TX,301,Loving County,83,"))
    with pytest.raises(DataValidationError, match=r"Loving County TX \(G4803010\) SF1: expected 82, got 83"):
        load_counties(tampered)
