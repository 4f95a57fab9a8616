"""Tests of :mod:`isdp_papers.lattice_study.measures.printed_draws`: the paper's printed noise tables (ISDP
App. E.3 Table 3) judged as draws of the run's laws, on E2's ℓ1 and ℓ2 draws from this project's sampler.
ISDP-E2-l1/l2-printed-draw-shape match and fail for a stuck chain's table; ISDP-E2-printed-draws-same-eps matches
and fails for tables drawn eight-fold apart in ε."""

from __future__ import annotations

import pytest
from conftest import ROOT, row_verdict
from isdp_papers.evidence import Run
from isdp_papers.problems import contingency_table_problem
from lattice_support import CONFIG, registry_row

from isdp.convergence import save_draws
from isdp.lattice import generalized_laplace
from isdp.mcmc import _samplers as samplers
from isdp.tables import read_table_csv


@pytest.fixture(scope="module")
def e2_run(tmp_path_factory) -> Run:
    """A run holding E2's ℓ1 and ℓ2 draws (4 chains × 500, from this project's sampler at E2's config)."""
    root = tmp_path_factory.mktemp("e2run")
    (root / "results" / "e2").mkdir(parents=True)
    cells, rows, cols = read_table_csv(ROOT / CONFIG["e2"]["table"])
    lattice = contingency_table_problem("e2", cells, rows, cols).lattice()
    for i, (norm, target) in enumerate(CONFIG["e2"]["targets"].items()):
        result = samplers.sample(
            lattice,
            generalized_laplace(CONFIG["e2"]["eps"], norm),
            n_chains=4,
            n_draws=500,
            proposal_eps=target["proposal_eps"],
            seed=5 + i,
            burn_in=2000,
            thin=20,
            progress=False,
        )
        save_draws(root / "results" / "e2" / f"draws_{norm}.nc", result.draws)
    return Run(root, CONFIG, repo=ROOT)


@pytest.mark.parametrize(
    ("row", "swap"), [("ISDP-E2-l1-printed-draw-shape", 11), ("ISDP-E2-l2-printed-draw-shape", 20)]
)
def test_printed_draw_shape_rows_fail_for_a_stuck_chains_table(e2_run, tmp_path, row, swap):
    status, m = row_verdict(row, e2_run)
    assert status == "match", m.text
    stuck = tmp_path / "stuck.csv"  # the whole norm on one 2 × 2 swap, about the printed table's norm
    stuck.write_text(
        f"county,Low,Medium,High,Very High\nAlpha,{swap},-{swap},0,0\nBeta,-{swap},{swap},0,0\nGamma,0,0,0,0\n"
        "Delta,0,0,0,0\n"
    )
    status, m = row_verdict(row, e2_run, file=str(stuck))
    assert status == "differs", m.text


@pytest.mark.parametrize("scale", [8, 1 / 8])
def test_printed_draws_same_eps_row_fails_for_tables_drawn_eight_fold_apart_in_eps(e2_run, tmp_path, scale):
    """The ℓ2 table scaled by 8 (or 1/8) is what a draw at ε/8 (or 8ε) looks like; the printed pair matches."""
    c = registry_row("ISDP-E2-printed-draws-same-eps")
    status, m = row_verdict(c["id"], e2_run)
    assert status == "match", m.text
    table = read_table_csv(ROOT / c["args"]["files"]["l2"], counts=False)[0]
    scaled = tmp_path / "scaled.csv"
    lines = ["county,a,b,c,d"] + [
        f"r{i}," + ",".join(str(round(v * scale)) for v in row) for i, row in enumerate(table)
    ]
    scaled.write_text("\n".join(lines) + "\n")
    status, m = row_verdict(c["id"], e2_run, files={**c["args"]["files"], "l2": str(scaled)})
    assert status == "differs", m.text
