"""Tests of :mod:`isdp_papers.e4_projection_comparison.measures`: rounding a projected Laplace release breaks
the state total in a large state and never in a two-county state (ISDP-E4-rounding-breaks-invariant), on hand-made
runs; the stylised non-negativity bias (SDP-E4-inequality-invariants-bias, SDP-E4-nonnegativity-control), the
non-negative projection's bias and data dependence (ISDP-E4-nonnegative-projection-bias, -projection-data-dependent)
and the design check (ISDP-E4-design-counts: the county spread table against the run's config) — each row matching
under its own arguments and differing under a plausibly wrong setting."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from census_support import CONFIG
from census_support import results_run as _run
from conftest import row_verdict
from isdp_papers.e4_projection_comparison import comparison as cmp
from isdp_papers.evidence import Run

from isdp.baselines import projected_laplace
from isdp.lattice import sum_constraint


def _e4_run(tmp_path, n_counties: int) -> Run:
    run = _run(tmp_path, {"e4": CONFIG["e4"]})
    sf1 = np.geomspace(100, 1e5, n_counties).astype(np.int64)
    rng = np.random.default_rng(5)
    rel = cmp.StateReleases(
        "TX",
        [f"G{i}" for i in range(n_counties)],
        [f"c{i}" for i in range(n_counties)],
        sf1,
        sf1,
        {"projected_laplace": projected_laplace(sf1, sum_constraint(n_counties), CONFIG["e3"]["eps"], 1000, rng)},
    )
    cmp.save_releases(run.path("e4/releases_TX.nc"), rel)
    run.path("e3/selection.json").write_text(json.dumps({"selected_states": ["TX"]}))
    pd.DataFrame({"state": ["TX"], "method": ["projected_laplace"], "n_counties": [n_counties]}).to_csv(
        run.path("tables/e4_metrics.csv"), index=False
    )
    return run


def test_rounding_breaks_the_total_in_a_large_state_and_never_in_a_two_county_state(tmp_path):
    status, m = row_verdict("ISDP-E4-rounding-breaks-invariant", _e4_run(tmp_path, 50))
    assert m.value > 0.7 and status == "match"
    status, m = row_verdict("ISDP-E4-rounding-breaks-invariant", _e4_run(tmp_path, 2))  # the two errors cancel
    assert m.value == 0 and status == "differs"


# --------------------------------------------------------------------------- non-negativity (stylised)


def _status(claim_id: str, **override) -> tuple[str, object]:
    """The row's verdict from its own measure (on a run in the working directory), with ``override`` replacing some of
    its args, and the value."""
    status, m = row_verdict(claim_id, Run("."), **override)
    return status, m.value


def test_nonnegativity_rows_match_and_swap_when_the_floor_is_moved():
    assert _status("SDP-E4-inequality-invariants-bias")[0] == "match"
    assert _status("SDP-E4-nonnegativity-control")[0] == "match"
    assert _status("SDP-E4-inequality-invariants-bias", nonnegative=False)[0] == "differs"
    assert _status("SDP-E4-nonnegativity-control", nonnegative=True)[0] == "differs"


def test_inequality_invariant_biases_the_projection_and_equality_alone_does_not(run):
    assert row_verdict("SDP-E4-inequality-invariants-bias", run)[0] == "match"
    status, m = row_verdict("SDP-E4-inequality-invariants-bias", run, nonnegative=False)
    assert status == "differs" and m.value > 0.01


# --------------------------------------------------------------------------- non-negative projection


def test_nonnegative_projection_bias_row_fails_without_the_nonnegativity(run):
    status, m = row_verdict("ISDP-E4-nonnegative-projection-bias", run)
    assert status == "match", m.text
    status, m = row_verdict("ISDP-E4-nonnegative-projection-bias", run, nonnegative=False)
    assert status == "differs", m.text


def test_projection_data_dependence_row_fails_for_a_projection_whose_error_ignores_the_counts(run):
    status, m = row_verdict("ISDP-E4-projection-data-dependent", run)
    assert status == "match", m.text
    status, m = row_verdict("ISDP-E4-projection-data-dependent", run, nonnegative=False)
    assert status == "differs", m.text


# --------------------------------------------------------------------------- the design check


def _spread_run(tmp_path, releases: dict, *, selected=("IL", "TX")) -> Run:
    """A run whose county spread table holds, per (state, method) of ``releases``, one county with that many
    releases; E3 selected ``selected``; configured as the repository's E4."""
    (tmp_path / "results" / "tables").mkdir(parents=True)
    (tmp_path / "results" / "e3").mkdir(parents=True)
    (tmp_path / "results" / "e3" / "selection.json").write_text(json.dumps({"selected_states": list(selected)}))
    pd.DataFrame([{"state": s, "county": "1", "method": m, "n_releases": n} for (s, m), n in releases.items()]).to_csv(
        tmp_path / "results" / "tables" / "e4_county_spread.csv", index=False
    )
    return Run(tmp_path, {"e4": CONFIG["e4"]})


@pytest.mark.parametrize(
    "change", ["none", "fewer releases", "a method missing", "a state missing", "a state not selected"]
)
def test_e4_design_check_fails_when_a_state_method_or_release_is_missing(tmp_path, change):
    n = CONFIG["e4"]["n_releases"]
    releases = {(s, m): n for s in ("IL", "TX") for m in cmp.METHODS}
    if change == "fewer releases":
        releases["TX", cmp.METHODS[1]] = n - 1
    elif change == "a method missing":
        del releases["IL", cmp.METHODS[-1]]
    elif change == "a state missing":
        releases = {k: v for k, v in releases.items() if k[0] == "IL"}
    elif change == "a state not selected":
        releases |= {("DC", m): n for m in cmp.METHODS}
    status, m = row_verdict("ISDP-E4-design-counts", _spread_run(tmp_path, releases))
    assert (status, m.value == 0) == (("match", True) if change == "none" else ("differs", False)), m.text
