"""Tests of :mod:`isdp_papers.evidence_checks`: every kind refuses NaN, infinities and values outside its range;
a table's keys are checked for repeats, missing and unexpected rows; a stored derived value against its
recomputation; the count a paper value states; a JSON file's fields; and the committed inputs against the SHA-256
their PROVENANCE.md publishes (line endings aside), with the opt-out noted."""

from __future__ import annotations

import json
import math
import shutil

import numpy as np
import pandas as pd
import pytest
from conftest import ROOT
from isdp_papers import evidence_checks as ec
from isdp_papers.evidence import EvidenceError, Run

BAD = {  # kind -> values each of which it refuses
    "finite": [math.nan, math.inf, -math.inf],
    "nonnegative": [-1e-300, math.nan, math.inf],
    "positive": [0.0, -1.0, math.nan],
    "probability": [-0.1, 1.5, math.nan],
    "rate": [0.0, 1.0, math.nan],
    "integer": [0.5, math.nan, math.inf],
    "count": [-1.0, 2.5, math.nan],
}
GOOD = {
    "finite": -3.5,
    "nonnegative": 0.0,
    "positive": 1e-9,
    "probability": 1.0,
    "rate": 0.5,
    "integer": -4,
    "count": 0,
}


@pytest.mark.parametrize("kind", sorted(ec.KINDS))
def test_every_kind_refuses_non_finite_and_out_of_range_values(kind):
    assert ec.check_values([GOOD[kind]], "f.csv", "x", kind).tolist() == [GOOD[kind]]
    for bad in BAD[kind]:
        with pytest.raises(EvidenceError, match=r"f\.csv: x = .* is not"):
            ec.check_values([GOOD[kind], bad], "f.csv", "x", kind)


def test_values_that_are_not_numbers_or_are_too_many_are_refused():
    for values in (["a"], [True], np.array([], dtype=float)):
        with pytest.raises(EvidenceError, match="f.csv"):
            ec.check_values(values, "f.csv", "x")
    with pytest.raises(EvidenceError, match="3 values, the claim covers 4"):
        ec.check_values([1, 2, 3], "f.csv", "x", size=4)
    assert np.isnan(ec.check_values([1.0, math.nan], "f.csv", "x", "positive", allow_missing=True)[1])
    with pytest.raises(EvidenceError):
        ec.check_values([1.0, math.inf], "f.csv", "x", "positive", allow_missing=True)


def test_a_frame_is_checked_for_columns_repeats_and_the_rows_the_claim_covers():
    t = pd.DataFrame({"b": [10, 10, 20], "p": [0.1, 0.5, 0.1], "eps": [1.0, 2.0, 3.0]})
    assert ec.check_frame(t, "t.csv", key=["b", "p"], keys=[(10, 0.1), (10, 0.5), (20, 0.1)], positive=["eps"]) is t
    with pytest.raises(EvidenceError, match="no column 'gap'"):
        ec.check_frame(t, "t.csv", finite=["gap"])
    with pytest.raises(EvidenceError, match=r"repeated row\(s\) 10"):
        ec.check_frame(t, "t.csv", key="b")
    with pytest.raises(EvidenceError, match=r"missing \(20, 0.5\)"):
        ec.check_frame(t, "t.csv", key=["b", "p"], keys=[(10, 0.1), (10, 0.5), (20, 0.1), (20, 0.5)])
    with pytest.raises(EvidenceError, match=r"unexpected \(20, 0.1\)"):
        ec.check_frame(t, "t.csv", key=["b", "p"], keys=[(10, 0.1), (10, 0.5)])
    with pytest.raises(EvidenceError, match="3 rows, the claim covers 4"):
        ec.check_frame(t, "t.csv", rows=4)
    with pytest.raises(EvidenceError, match="'label' is empty"):
        ec.check_frame(t.assign(label=["a", "", "c"]), "t.csv", filled=["label"])


def test_a_stored_derived_value_must_be_its_recomputation():
    ec.check_consistent([1.0, 2.0], [1.0, 2.0 + 1e-12], "t.csv", "gap = a − b")
    with pytest.raises(EvidenceError, match=r"t\.csv: gap = a − b does not hold \(stored 3, recomputed 2"):
        ec.check_consistent([1.0, 3.0], [1.0, 2.0], "t.csv", "gap = a − b")
    with pytest.raises(EvidenceError):
        ec.check_consistent([math.nan], [1.0], "t.csv", "x")


def test_the_count_a_paper_value_states():
    assert ec.claimed_count("4 values (data/e8/paper_swap_ma1940.csv)") == 4
    assert ec.claimed_count("12 values") == 12
    with pytest.raises(ValueError, match="does not say how many"):
        ec.claimed_count("ln 19 ≈ 2.944 in every row")


def test_json_fields_are_checked_by_kind(tmp_path):
    (tmp_path / "results").mkdir()
    run = Run(tmp_path)
    (tmp_path / "results" / "info.json").write_text(json.dumps({"r": 1e-13, "n": 50, "s": "x"}))
    assert ec.json_values(run, "info.json", nonnegative=["r"], count=["n"])["n"] == 50
    for kinds, reason in (({"nonnegative": ["s"]}, "'s' = 'x'"), ({"finite": ["missing"]}, "no field 'missing'")):
        with pytest.raises(EvidenceError, match=reason):
            ec.json_values(run, "info.json", **kinds)
    (tmp_path / "results" / "info.json").write_text('{"r": NaN}')
    with pytest.raises(EvidenceError, match="'r' = nan"):
        ec.json_values(run, "info.json", finite=["r"])
    with pytest.raises(EvidenceError, match="missing"):
        ec.json_values(run, "other.json")


@pytest.fixture
def copy(tmp_path):
    """A copy of data/nhgis with its PROVENANCE.md."""
    shutil.copytree(ROOT / "data" / "nhgis", tmp_path / "nhgis")
    return tmp_path / "nhgis"


def test_the_published_hashes_are_read_per_file(copy):
    published = {p.name: ec.published_sha256(p) for p in sorted(copy.glob("*.csv"))}
    assert len(published) == 6 and all(v is not None for v in published.values())
    assert ec.published_sha256(ROOT / "data" / "e2" / "delinquent_children.csv") is not None  # its own section
    assert ec.published_sha256(copy / "PROVENANCE.md") is None  # a file no section names
    assert "3a85a873" not in str(published)  # the zip's hash belongs to no CSV


def test_a_changed_committed_input_is_refused_and_the_opt_out_says_so(copy):
    path = copy / "state_histogram_support_v20210608.csv"
    assert ec.verify_committed(path) is None
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))  # a checkout converting line endings
    assert ec.verify_committed(path) is None
    path.write_bytes(path.read_bytes().replace(b"US,", b"US ,", 1))
    with pytest.raises(EvidenceError, match="state_histogram_support_v20210608.csv: sha256 .*verify_committed: false"):
        ec.verify_committed(path)
    assert "used unverified" in ec.verify_committed(path, verify=False)
    path.unlink()
    with pytest.raises(EvidenceError, match="missing"):
        ec.verify_committed(path)


def test_a_measure_that_read_an_unverified_input_says_so(copy, tmp_path):
    path = copy / "county_housing_v20210608.csv"
    path.write_bytes(path.read_bytes() + b"\n")

    @ec.reads_committed
    def measure(run, paper):
        ec.committed(run, "nhgis/county_housing_v20210608.csv")
        from isdp_papers.evidence import Measurement

        return Measurement(1, "one", note="as measured")

    with pytest.raises(EvidenceError, match="published"):
        measure(Run(tmp_path, {}, repo=tmp_path), None)
    run = Run(tmp_path, {"data": {"verify_committed": False}}, repo=tmp_path)
    m = measure(run, None)
    assert m.note.startswith("as measured; ") and "used unverified" in m.note
    assert ec.committed_note(Run(tmp_path, {}, repo=tmp_path)) == ""
