"""ISDP rows on §2's privacy properties, §3.2's lattice-point count, §4's kernels and App. E.4's projection,
non-negativity and block-level statements (exact on small lattices), and the rows registering values our copy of
the paper lost: ISDP-E1-composition-relations, -composition-delta, -post-processing-randomized,
-smooth-dp-equivalence(-l2), -projection-privacy, -nonnegative-unbiased-impossible, -lattice-point-volume,
-joint-update-stationary, -maximal-coupling, ISDP-E3-block-truncation-bias and the `*-lost` rows. Each criterion
matches on the right law and differs on a plausibly wrong one."""

from __future__ import annotations

import numpy as np
import pytest
import yaml
from conftest import REGISTRY, ROOT, row_verdict

from isdp.experiments import claims
from isdp.experiments.lattice_study.dp_audits import joint_update_matrix, log_ratio_on_grid, unbiased_dp_exists
from isdp.lattice import IntegerLattice, table_margins
from isdp.targets import generalized_laplace

CONFIG = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())


@pytest.fixture(scope="module")
def run() -> claims.Run:
    """The rows read only the config and committed inputs."""
    return claims.Run(ROOT, CONFIG, repo=ROOT)


# --------------------------------------------------------------------------- helpers


def test_log_ratio_on_grid_is_the_brute_force_loss():
    rng = np.random.default_rng(3)
    logp = rng.normal(size=(5, 5, 5))
    v = np.array([1, -2, 0])
    brute = max(
        logp[y] - logp[tuple(np.subtract(y, v))]
        for y in np.ndindex(5, 5, 5)
        if all(0 <= c < 5 for c in np.subtract(y, v))
    )
    assert log_ratio_on_grid(logp, v) == pytest.approx(brute, abs=1e-12)


def test_joint_update_matrix_is_row_stochastic():
    lattice = IntegerLattice.from_constraints(table_margins(2, 3))
    P, w = joint_update_matrix(lattice, generalized_laplace(1.0), 1.0, 4)
    assert P.shape == (len(w), len(w)) and np.all(P >= 0)
    assert np.allclose(P.sum(axis=1), 1.0, atol=1e-12)


def test_unbiased_dp_lp_finds_the_known_mechanisms():
    """Without non-negativity and with a wide range, a symmetric mechanism exists at any ε; with it, none does."""
    assert unbiased_dp_exists(4, 2.0, nonnegative=False, margin=60)
    assert not unbiased_dp_exists(4, 2.0, nonnegative=True, margin=0)


# --------------------------------------------------------------------------- §2: composition and post-processing


@pytest.mark.parametrize("row", ["ISDP-E1-composition-relations", "ISDP-E1-composition-delta"])
def test_composition_rows_fail_when_the_budgets_do_not_add(run, row):
    status, m = row_verdict(row, run)
    assert status == "match", m.text
    status, m = row_verdict(row, run, rule="max")
    assert status == "differs", m.text


# a row and the plausibly wrong law under which it must differ (its `why` says why each is plausible)
FLIPS = {
    "ISDP-E1-post-processing-randomized": {"reads_data": True},  # the map adds the confidential cell
    "ISDP-E1-projection-privacy": {"reads_data": True},  # the projection looks at x itself
    "ISDP-E3-block-truncation-bias": {"counts": [1000]},  # county-sized counts: truncation is vacuous
    "ISDP-E1-lattice-point-volume": {"covolume": "one"},  # the lattice taken as Z^r (no √det)
    "ISDP-E1-joint-update-stationary": {"tilt": 0.2},  # an asymmetric joint proposal
    "ISDP-E1-maximal-coupling": {"coupling": "independent"},  # independent proposals meet rarely
}


@pytest.mark.parametrize("row", FLIPS)
def test_row_matches_and_differs_under_a_plausibly_wrong_law(run, row):
    status, m = row_verdict(row, run)
    assert status == "match", m.text
    status, m = row_verdict(row, run, **FLIPS[row])
    assert status == "differs", m.text


def test_smooth_dp_equivalence_holds_in_l1_and_fails_in_l2(run):
    status, m = row_verdict("ISDP-E1-smooth-dp-equivalence", run)
    assert status == "match", m.text
    status, m = row_verdict("ISDP-E1-smooth-dp-equivalence", run, norm="l2")
    assert status == "differs" and m.value == pytest.approx(np.sqrt(3), rel=1e-9), m.text


# --------------------------------------------------------------------------- App. E.4: projection, non-negativity


def test_nonnegative_unbiased_row_fails_without_non_negativity(run):
    status, m = row_verdict("ISDP-E1-nonnegative-unbiased-impossible", run)
    assert status == "match", m.text
    status, m = row_verdict("ISDP-E1-nonnegative-unbiased-impossible", run, nonnegative=False, margin=200)
    assert status == "differs" and all(m.value.values()), m.text


# --------------------------------------------------------------------------- §3.2, §4: lattice points, kernels


# --------------------------------------------------------------------------- values lost in our copy

LOST = [
    "ISDP-E1-eps-lost",
    "ISDP-E1-proposal-lost",
    "ISDP-E1-gaussian-privacy-lost",
    "ISDP-E2-eps-lost",
    "ISDP-E3-demonstration-eps-lost",
    "ISDP-E3-eps-lost",
    "ISDP-E3-protocol-lost",
    "ISDP-E3-pl94-budgets-lost",
]


@pytest.mark.parametrize("row", LOST)
def test_lost_value_rows_report_the_projects_own_value(run, row):
    c = claims.claim(row, REGISTRY)
    assert c["cause"] == "value lost" and c["kind"] == "claim"
    status, m = row_verdict(row, run)
    assert status == "not-comparable", m.text
    for key in c["args"]["keys"]:
        node = CONFIG
        for part in key.split("."):
            node = node[part]
        assert f"{key} = {node}" in m.text


# --------------------------------------------------------------------------- E2: the printed tables' shapes


@pytest.fixture(scope="module")
def e2_run(tmp_path_factory) -> claims.Run:
    """A run holding E2's ℓ1 and ℓ2 draws (4 chains × 500, from this project's sampler at E2's config)."""
    from isdp import samplers
    from isdp.draws_io import save_draws
    from isdp.experiments.problems import contingency_table_problem, read_table_csv

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
    return claims.Run(root, CONFIG, repo=ROOT)


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
    from isdp.experiments.problems import read_table_csv

    c = next(c for c in claims.load_registry(REGISTRY) if c["id"] == "ISDP-E2-printed-draws-same-eps")
    status, m = row_verdict(c["id"], e2_run)
    assert status == "match", m.text
    table = read_table_csv(ROOT / c["args"]["files"]["l2"], counts=False)[0]
    scaled = tmp_path / "scaled.csv"
    lines = ["county,a,b,c,d"] + [f"r{i}," + ",".join(str(round(v * scale)) for v in row)
                                  for i, row in enumerate(table)]
    scaled.write_text("\n".join(lines) + "\n")
    status, m = row_verdict(c["id"], e2_run, files={**c["args"]["files"], "l2": str(scaled)})
    assert status == "differs", m.text
