"""The design rows (ISDP-E1/E2/E3/E4-design-counts, ISDP-E2-thinning): counted in a run's outputs, they match a
run that kept the printed numbers and differ from one that kept others."""

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


def _lattice_run(tmp_path, exp, *, chains, per_chain, thin, pairs):
    (tmp_path / "results" / exp).mkdir(parents=True)
    (tmp_path / "results" / "tables").mkdir()
    for norm in ("l1", "l2"):
        save_draws(tmp_path / "results" / exp / f"draws_{norm}.nc", np.zeros((chains, per_chain, 3), dtype=np.int64),
                   attrs={"thin": thin})
    rows = [{"target": norm, "lag": lag, "pairs": n}
            for norm in ("l1", "l2") for lag, n in zip((10, 20), pairs, strict=True)]
    pd.DataFrame(rows).to_csv(tmp_path / "results" / "tables" / f"{exp}_convergence.csv", index=False)
    return claims.Run(tmp_path, {exp: {"targets": {"l1": {}, "l2": {}}}})


def test_e2_design_matches_the_printed_counts_and_fails_on_others(tmp_path):
    per_target = _paper("ISDP-E2-design-counts")["l1 draws"]
    pairs = _paper("ISDP-E2-design-counts")["l1 pairs per lag"]
    run = _lattice_run(tmp_path, "e2", chains=4, per_chain=per_target // 4, thin=100, pairs=(pairs, pairs))
    assert row_verdict("ISDP-E2-design-counts", run)[0] == "match"
    assert row_verdict("ISDP-E1-design-counts", _lattice_run(tmp_path / "e1", "e1", chains=4,
                                                             per_chain=per_target // 4, thin=100,
                                                             pairs=(1, 1)))[0] == "match"


@pytest.mark.parametrize("change", ["fewer draws", "fewer pairs at one lag"])
def test_e2_design_differs_when_the_run_kept_other_numbers(tmp_path, change):
    n = _paper("ISDP-E2-design-counts")["l1 draws"]
    pairs = _paper("ISDP-E2-design-counts")["l1 pairs per lag"]
    per_chain = n // 4 - (change == "fewer draws")
    run = _lattice_run(tmp_path, "e2", chains=4, per_chain=per_chain, thin=100,
                       pairs=(pairs, pairs - (change == "fewer pairs at one lag")))
    status, m = row_verdict("ISDP-E2-design-counts", run)
    assert status == "differs", m.text


def test_thinning_row_reads_the_draws_record(tmp_path):
    keep_one_in = round(1 / _paper("ISDP-E2-thinning"))
    as_printed = _lattice_run(tmp_path / "a", "e2", chains=1, per_chain=5, thin=keep_one_in, pairs=(1, 1))
    assert row_verdict("ISDP-E2-thinning", as_printed)[0] == "match"
    ours = _lattice_run(tmp_path / "b", "e2", chains=1, per_chain=5, thin=100, pairs=(1, 1))
    status, m = row_verdict("ISDP-E2-thinning", ours)
    assert status == "differs" and m.value == pytest.approx(0.01)


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
