"""Tests of :mod:`isdp.experiments.e4_projection_comparison.measures`: rounding a projected Laplace release breaks
the state total in a large state and never in a two-county state (ISDP-E4-rounding-breaks-invariant), on hand-made
runs."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
from census_support import CONFIG
from census_support import results_run as _run
from conftest import row_verdict

from isdp.baselines import projected_laplace
from isdp.experiments.e4_projection_comparison import comparison as cmp
from isdp.experiments.evidence import Run
from isdp.lattice import sum_constraint


def _e4_run(tmp_path, n_counties: int) -> Run:
    run = _run(tmp_path, {"e4": CONFIG["e4"]})
    sf1 = np.geomspace(100, 1e5, n_counties).astype(np.int64)
    rng = np.random.default_rng(5)
    rel = cmp.StateReleases("TX", [f"G{i}" for i in range(n_counties)], [f"c{i}" for i in range(n_counties)], sf1,
                            sf1, {"projected_laplace": projected_laplace(sf1, sum_constraint(n_counties),
                                                                         CONFIG["e3"]["eps"], 1000, rng)})
    cmp.save_releases(run.path("e4/releases_TX.nc"), rel)
    run.path("e3/selection.json").write_text(json.dumps({"selected_states": ["TX"]}))
    pd.DataFrame({"state": ["TX"], "method": ["projected_laplace"], "n_counties": [n_counties]}).to_csv(
        run.path("tables/e4_metrics.csv"), index=False)
    return run


def test_rounding_breaks_the_total_in_a_large_state_and_never_in_a_two_county_state(tmp_path):
    status, m = row_verdict("ISDP-E4-rounding-breaks-invariant", _e4_run(tmp_path, 50))
    assert m.value > 0.7 and status == "match"
    status, m = row_verdict("ISDP-E4-rounding-breaks-invariant", _e4_run(tmp_path, 2))  # the two errors cancel
    assert m.value == 0 and status == "differs"
