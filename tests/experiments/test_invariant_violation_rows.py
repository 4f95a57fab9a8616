"""Left for the lattice study's tests (E1): the E1 half of the censored-coupling-pairs test (its E3 half moved to
e3_census_counties/test_measures.py). ISDP-E1-coupling-met is measured by
:func:`isdp.experiments.lattice_study.measures.run_tables.coupling_censored`."""

from __future__ import annotations

import json

import pytest
import yaml
from conftest import ROOT, row_verdict

from isdp.experiments.evidence import Run

CONFIG = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())


def _run(tmp_path, config: dict) -> Run:
    for sub in ("tables", "data", "e3", "e4", "e5", "e1"):
        (tmp_path / "results" / sub).mkdir(parents=True, exist_ok=True)
    return Run(tmp_path, {"seed": CONFIG["seed"], **config}, repo=ROOT)


# --------------------------------------------------------------------------- E1: censored coupling pairs


@pytest.mark.parametrize("censored", [0, 3])
def test_a_censored_pair_fails_the_e1_coupling_row(tmp_path, censored):
    run = _run(tmp_path, {"e1": {"targets": {"l1": {}}}})
    summary = {"censored": censored, "pairs": 400, "lag": 100, "max_iter": 1000, "tau_minus_lag_max": 900}
    run.path("e1/certificate_l1.json").write_text(json.dumps({"summary": summary}))
    expected = "match" if censored == 0 else "differs"
    assert row_verdict("ISDP-E1-coupling-met", run)[0] == expected
