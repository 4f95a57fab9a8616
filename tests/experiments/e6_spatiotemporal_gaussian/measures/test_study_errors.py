"""Tests of :mod:`isdp_papers.e6_spatiotemporal_gaussian.measures.study_errors`: the reading measures use the
spread of one study and the printed rounding, and the projected sensitivity (SDP-E6-projected-sensitivity) is at most
the query's unless the basis is not orthonormal."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from conftest import row_verdict
from isdp_papers.e6_spatiotemporal_gaussian.measures import study_errors
from isdp_papers.evidence import Run


def test_reading_measures_use_the_spread_of_one_study_and_the_printed_rounding(tmp_path):
    tables = tmp_path / "results" / "tables"
    tables.mkdir(parents=True)
    (tmp_path / "results" / "e6").mkdir()
    (tmp_path / "results" / "e6" / "info.json").write_text(json.dumps({"n_reps": 50}))
    sd = 0.01 / (1.1**0.5)  # one study's spread over 10 studies whose se = √(sd² + sd²/10) is 0.01
    rows = [
        {
            "reading": "rep_var",
            "statistic": s,
            "exact": m,
            "mean": m,
            "study_sd": sd,
            "se_mean": sd / 10**0.5,
            "se": 0.01,
            "n_studies": 10,
        }
        for s, m in (("median", 0.50), ("q05", 0.40), ("q95", 0.60))
    ]
    pd.DataFrame(rows).to_csv(tables / "e6_readings.csv", index=False)
    run = Run(tmp_path)
    m = study_errors.reading_statistic(run, 0.5, reading="rep_var", statistic="q05")
    assert m.value == pytest.approx(0.40) and m.se == pytest.approx(0.01)
    # gaps: median 0, q05 (0.045 − 0.005)/0.01 = 4, q95 0 → the largest is 4 SE
    gap = study_errors.reading_gap(run, {"median": 0.5, "q05": 0.445, "q95": 0.6}, reading="rep_var", rounding=0.005)
    assert gap.value == pytest.approx(4.0)
    assert study_errors.reading_gap(run, {"median": 0.504}, reading="rep_var", rounding=0.005).value == 0.0


def test_projected_sensitivity_is_at_most_the_querys_and_a_basis_not_orthonormal_raises_it(run, monkeypatch):
    from isdp_papers.e6_spatiotemporal_gaussian import null_space_noise

    status, m = row_verdict("SDP-E6-projected-sensitivity", run)
    assert status == "match" and m.value < 1, m.text
    real = null_space_noise.null_space_blocks
    monkeypatch.setattr(null_space_noise, "null_space_blocks", lambda A: [(c, 1.5 * Q) for c, Q in real(A)])
    status, m = row_verdict("SDP-E6-projected-sensitivity", run)
    assert status == "differs" and m.value > 1.4, m.text
