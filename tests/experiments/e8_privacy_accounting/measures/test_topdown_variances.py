"""Tests of :mod:`isdp_papers.e8_privacy_accounting.measures.topdown_variances`: the TopDown talk's noise
variance tables and δ — which zCDP conversions reproduce the Gaussian tables (the fitted one set beside the rows), the
conservative table's δ, Gaussian larger than Laplace on the printed cells, fewer outliers on each scale, δ as the
chance of a random record, and the privacy-loss tail of the printed tables against an exact Gaussian."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from accounting_support import CONFIG, E8, e8_run
from conftest import REGISTRY, ROOT, row_verdict
from isdp_papers import claims
from isdp_papers.e8_privacy_accounting.accounting import CONVERSIONS, dp_to_zcdp
from isdp_papers.e8_privacy_accounting.tables import variance_table
from isdp_papers.evidence import Run

GAUSSIAN_ROWS = ("TDA-E8-gaussian-variance-d14", "TDA-E8-gaussian-variance-d9", "TDA-E8-gaussian-variance-d6")


@pytest.mark.parametrize(
    "conversion, expected",
    [
        ("integer-orders", ("match", "match", "differs")),
        ("standard", ("match",) * 3),
        ("cks", ("differs",) * 3),
        ("gaussian-exact", ("differs",) * 3),
    ],
)
def test_gaussian_variance_claims_tell_the_conversions_apart(tmp_path, conversion, expected):
    """The rows' own reading (integer orders, the moments accountant) misses only the δ = 1e-6 table; real orders
    reproduce all three (the fitted conversion, beside the rows); the tighter conversions reproduce none."""
    run = e8_run(tmp_path)
    table = variance_table(
        pd.read_csv(ROOT / E8["printed"]["tda_variance"]),
        E8["tda"]["levels"],
        E8["tda"]["changed_cells"],
        list(CONVERSIONS),
    )
    table.to_csv(run.path("tables/e8_tda_variance.csv"), index=False)
    for cid, status in zip(GAUSSIAN_ROWS, expected, strict=True):
        assert row_verdict(cid, run, conversion=conversion)[0] == status, cid
    assert row_verdict("TDA-E8-laplace-variance", run)[0] == "match"


@pytest.mark.parametrize("conversion", ["integer-orders", "standard"])
def test_the_conservative_table_is_not_at_the_conservative_delta_but_at_its_header_delta(tmp_path, conversion):
    """At the first slide's 10⁻¹⁴/4 no conversion that reproduces the table at its header's 10⁻¹⁴ stays within the
    rounding; at 10⁻¹⁴ the row would match."""
    run = e8_run(tmp_path)
    status, m = row_verdict("TDA-E8-conservative-delta-table", run, conversion=conversion)
    assert status == "differs" and m.value > 10, m.text
    status, m = row_verdict("TDA-E8-conservative-delta-table", run, conversion=conversion, delta=1e-14)
    assert status == "match", m.text


def _variance_run(tmp_path, printed=None):
    """A run holding the variance table of the configured and the competing conversion; ``printed`` replaces the
    printed tables' file."""
    run = e8_run(tmp_path)
    if printed is not None:
        path = tmp_path / "paper_tda_variance.csv"
        printed.to_csv(path, index=False)
        run.config["e8"] = {**run.config["e8"], "printed": {**E8["printed"], "tda_variance": str(path)}}
    variance_table(
        pd.read_csv(ROOT / E8["printed"]["tda_variance"]),
        E8["tda"]["levels"],
        E8["tda"]["changed_cells"],
        ["standard", "integer-orders"],
    ).to_csv(run.path("tables/e8_tda_variance.csv"), index=False)
    return run


def test_gaussian_variance_rows_set_the_fitted_conversion_beside_them(tmp_path):
    run = _variance_run(tmp_path)
    for cid, status in zip(GAUSSIAN_ROWS, ("match", "match", "differs"), strict=True):
        row = claims.evaluate_claim(claims.claim(cid, REGISTRY), run)
        assert row["status"] == status, cid
        assert row["reproduced_value"].startswith("integer-orders:"), cid
        assert "beside it, standard: max gap" in row["reproduced_value"] and "(within" in row["reproduced_value"], cid


def test_gaussian_larger_is_judged_on_the_printed_cells(tmp_path):
    run = _variance_run(tmp_path)
    assert row_verdict("TDA-E8-gaussian-larger", run)[0] == "match"
    printed = pd.read_csv(ROOT / E8["printed"]["tda_variance"])
    last = printed.index[-1]
    printed.loc[last, "gaussian_variance"] = printed.loc[last, "laplace_variance"]  # one printed cell not larger
    assert row_verdict("TDA-E8-gaussian-larger", _variance_run(tmp_path, printed))[0] == "differs"


def test_fewer_outliers_depends_on_the_scale_and_fails_below_the_crossing_cut(tmp_path):
    run = _variance_run(tmp_path)
    status, m = row_verdict("TDA-E8-gaussian-fewer-outliers", run)  # the registered one-yardstick reading
    assert status == "differs" and "MORE Gaussian outliers" in m.text and "beside it, beyond 3 of its own SDs" in m.text
    assert row_verdict("TDA-E8-gaussian-fewer-outliers", run, scale="own")[0] == "match"
    assert row_verdict("TDA-E8-gaussian-fewer-outliers", run, scale="own", k=1)[0] == "differs"  # 2Φ(−1) > exp(−√2)


def test_random_record_delta_matches_and_fails_when_the_failure_chance_is_read_as_delta(run):
    status, m = row_verdict("TDA-E8-random-record-delta", run)
    assert status == "match" and m.value["delta_is_p_over_n"]
    # δ read as the failure probability itself: one person's record, not a random one of the population's
    assert row_verdict("TDA-E8-random-record-delta", run, people=1.0)[0] == "differs"


def test_less_privacy_probability_holds_for_the_printed_tables_not_for_an_exact_gaussian(run, tmp_path):
    status, m = row_verdict("TDA-E8-less-privacy-probability", run)
    assert status == "match" and m.value < claims.paper_value("TDA-E8-less-privacy-probability", REGISTRY)
    # The same (ε, δ) met by the exact Gaussian privacy profile: the smallest variance (ε, δ)-DP allows
    tda = CONFIG["e8"]["tda"]
    printed = pd.read_csv(ROOT / CONFIG["e8"]["printed"]["tda_variance"])
    rho = [dp_to_zcdp(e, d, "gaussian-exact") for e, d in zip(printed["epsilon"], printed["delta"], strict=True)]
    printed["gaussian_variance"] = tda["levels"] * tda["changed_cells"] / (2 * np.array(rho))
    path = tmp_path / "exact_gaussian.csv"
    printed.to_csv(path, index=False)
    e8 = {**CONFIG["e8"], "printed": {**CONFIG["e8"]["printed"], "tda_variance": str(path)}}
    exact = Run(tmp_path, {"e8": e8, "data": CONFIG["data"]}, repo=ROOT)
    status, m = row_verdict("TDA-E8-less-privacy-probability", exact)
    assert status == "differs" and m.value > 2 * claims.paper_value("TDA-E8-less-privacy-probability", REGISTRY)
