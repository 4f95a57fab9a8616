"""The design rows of E3 and E4 (ISDP-E3/E4-design-counts): counted in a run's outputs, they match a run that kept
the printed numbers and differ from one that kept others. (The E1/E2 design rows moved to
tests/experiments/lattice_study/measures/test_run_tables.py.)"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from conftest import REGISTRY, row_verdict

from isdp.draws_io import save_draws
from isdp.experiments import claims


def _paper(claim_id):
    return claims.claim(claim_id, REGISTRY)["paper_value"]


def _e3_run(tmp_path, shapes):
    (tmp_path / "results" / "e3").mkdir(parents=True)
    (tmp_path / "results" / "e3" / "selection.json").write_text(json.dumps({"selected_states": list(shapes)}))
    for state, (chains, per_chain) in shapes.items():
        save_draws(tmp_path / "results" / "e3" / f"draws_{state}.nc", np.zeros((chains, per_chain, 2), dtype=np.int64))
    return claims.Run(tmp_path, {})


def test_e3_design_matches_only_when_every_state_kept_the_printed_design(tmp_path):
    p = _paper("ISDP-E3-design-counts")
    chains, per_chain = p["chains per state"], p["draws per state"] // p["chains per state"]
    assert row_verdict("ISDP-E3-design-counts", _e3_run(tmp_path / "a", {"IL": (chains, per_chain),
                                                                          "TX": (chains, per_chain)}))[0] == "match"
    status, m = row_verdict("ISDP-E3-design-counts", _e3_run(tmp_path / "b", {"IL": (chains, per_chain),
                                                                               "TX": (chains - 1, per_chain)}))
    assert status == "differs", m.text


@pytest.mark.parametrize("releases, expected", [("printed", "match"), ("one state short", "differs")])
def test_e4_design_counts(tmp_path, releases, expected):
    n = _paper("ISDP-E4-design-counts")
    (tmp_path / "results" / "tables").mkdir(parents=True)
    pd.DataFrame({"state": ["IL", "TX"], "county": ["1", "2"], "method": ["m", "m"],
                  "n_releases": [n, n - (releases != "printed")]}).to_csv(
        tmp_path / "results" / "tables" / "e4_county_spread.csv", index=False)
    assert row_verdict("ISDP-E4-design-counts", claims.Run(tmp_path, {}))[0] == expected
