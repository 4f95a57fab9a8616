"""Tests of E6 (isdp.experiments.e6_spatiotemporal_gaussian.spatiotemporal, the §5.2 constraint builder and
the E6 measures).

The exact laws are checked against simulation with fixed seeds: Kolmogorov–Smirnov p-values
above 1e-3 for the right law, below 1e-6 for a wrong one (the control), and empirical CDFs
within 4 binomial standard errors.
"""

from __future__ import annotations

import functools
import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from isdp.baselines import projected_gaussian, projection_sd, row_space_basis
from isdp.experiments.claims import Run
from isdp.experiments.e6_spatiotemporal_gaussian import measures
from isdp.experiments.e6_spatiotemporal_gaussian import spatiotemporal as st
from isdp.experiments.e6_spatiotemporal_gaussian.problem import group_hour_building_constraints
from isdp.lattice import InvariantError

G, H, B = 4, 5, 3  # small enough for many studies; one building's cells are a 4 × 5 table


@pytest.fixture(scope="module")
def problem():
    A, labels = group_hour_building_constraints(G, H, B)
    return A, row_space_basis(A)


def test_constraints_are_the_two_margin_families_of_each_building():
    A, labels = group_hour_building_constraints(G, H, B)
    assert A.shape == (B * (H + G), G * H * B) and len(labels) == A.shape[0]
    assert np.linalg.matrix_rank(A) == B * (G + H - 1)
    x = np.random.default_rng(0).integers(0, 50, (G, H, B))
    expected = np.concatenate([x.sum(axis=0).ravel(), x.sum(axis=1).ravel()])  # (hour, building), (group, building)
    np.testing.assert_array_equal(A @ x.ravel(), expected)
    with pytest.raises(InvariantError, match="hours"):
        group_hour_building_constraints(G, 0, B)


def test_reading_statistics_follow_their_definitions():
    err = np.array([[1.0, -1.0, 2.0, 0.0], [3.0, 1.0, -2.0, -2.0], [0.0, 0.0, 1.0, -1.0]])
    out = st.reading_statistics(err, [0.25])
    cell_sd = [np.std(err[:, j], ddof=1) for j in range(4)]
    rep_var = [np.var(err[i], ddof=1) for i in range(3)]
    assert out["cell_sd_median"] == pytest.approx(np.median(cell_sd))
    assert out["cell_sd_q25"] == pytest.approx(np.quantile(cell_sd, 0.25))
    assert out["rep_var_median"] == pytest.approx(np.median(rep_var))
    assert out["rep_sd_q25"] == pytest.approx(np.quantile(np.sqrt(rep_var), 0.25))
    assert st.stat_names([0.05, 0.95]) == ["median", "q05", "q95"]


def test_exact_laws_match_simulated_releases(problem):
    A, Q = problem
    n, k, studies = A.shape[1], 10, 2000
    null_dim = n - Q.shape[1]
    err = projected_gaussian(np.zeros(n), A, 1.3, studies * k, np.random.default_rng(1), basis=Q)
    sd = projection_sd(A, 1.3, basis=Q)
    # one release's variance over the cells: 1.3² χ²_d / (n − 1), d = null_dim (not n: control)
    rep_var = err.var(axis=1, ddof=1)
    assert stats.kstest(rep_var, stats.chi2(null_dim, scale=1.3**2 / (n - 1)).cdf).pvalue > 1e-3
    assert stats.kstest(rep_var, stats.chi2(n - 1, scale=1.3**2 / (n - 1)).cdf).pvalue < 1e-6
    # one cell's SD over k releases, one value per independent study: s √(χ²_{k−1}/(k−1))
    cell0 = err[:, 0].reshape(studies, k).std(axis=1, ddof=1)
    assert stats.kstest((k - 1) * cell0**2 / sd[0] ** 2, stats.chi2(k - 1).cdf).pvalue > 1e-3
    assert stats.kstest((k - 1) * cell0**2 / 1.3**2, stats.chi2(k - 1).cdf).pvalue < 1e-6
    # the quantiles of those laws, as returned
    ex = st.exact_reading_quantiles(sd, k, null_dim, 1.3, [0.05, 0.95])
    for name, p in (("median", 0.5), ("q05", 0.05), ("q95", 0.95)):
        se = np.sqrt(p * (1 - p) / rep_var.size)
        assert abs(np.mean(rep_var <= ex[f"rep_var_{name}"]) - p) < 4 * se
        assert abs(np.mean(np.sqrt(rep_var) <= ex[f"rep_sd_{name}"]) - p) < 4 * se
        assert abs(np.mean(cell0 <= ex[f"cell_sd_{name}"]) - p) < 4 * np.sqrt(p * (1 - p) / cell0.size)


def test_cell_sd_quantile_of_unequal_cells_is_the_mixture_quantile():
    sd, k, N = np.array([0.5, 0.5, 2.0]), 6, 200_000
    rng = np.random.default_rng(2)
    draws = rng.choice(sd, N) * np.sqrt(rng.chisquare(k - 1, N) / (k - 1))
    ex = st.exact_reading_quantiles(sd, k, null_dim=1, sigma=1.0, probs=[0.1, 0.9])
    for name, p in (("median", 0.5), ("q10", 0.1), ("q90", 0.9)):
        assert abs(np.mean(draws <= ex[f"cell_sd_{name}"]) - p) < 4 * np.sqrt(p * (1 - p) / N)


def test_run_studies_is_reproducible_and_each_study_has_its_own_stream(problem):
    A, Q = problem
    x = np.arange(A.shape[1]) % 7
    two = st.run_studies(x, A, 1.0, 8, 2, seed=5, probs=[0.05], basis=Q)
    three = st.run_studies(x, A, 1.0, 8, 3, seed=5, probs=[0.05], basis=Q)
    pd.testing.assert_frame_equal(two.studies, three.studies.iloc[:2])
    np.testing.assert_array_equal(two.first_errors, three.first_errors)
    assert not np.allclose(three.studies.iloc[1, 1:], three.studies.iloc[2, 1:])
    assert two.max_residual < 1e-12 and two.max_rep_mean < 1e-12  # the grand total is invariant
    # per-cell summaries over all releases agree with the per-release squared errors
    assert three.repetitions.shape[0] == 24
    first = three.first_errors
    np.testing.assert_allclose(three.repetitions["sq_error"].iloc[:8], (first**2).sum(axis=1))
    np.testing.assert_allclose(three.studies.loc[0, "rep_var_median"], np.median(first.var(axis=1, ddof=1)))


def test_readings_table_combines_the_spread_of_one_study_and_the_error_of_the_mean(problem):
    A, Q = problem
    res = st.run_studies(np.zeros(A.shape[1]), A, 1.0, 6, 5, seed=9, probs=[0.05], basis=Q)
    ex = st.exact_reading_quantiles(projection_sd(A, 1.0, Q), 6, A.shape[1] - Q.shape[1], 1.0, [0.05])
    tab = st.readings_table(res.studies, ex, [0.05], {"median": 0.5}).set_index(["reading", "statistic"])
    r = tab.loc[("rep_var", "median")]
    col = res.studies["rep_var_median"]
    assert r["mean"] == pytest.approx(col.mean()) and r["study_sd"] == pytest.approx(col.std(ddof=1))
    assert r["se"] == pytest.approx(np.sqrt(col.var(ddof=1) * (1 + 1 / 5)))
    assert r["paper"] == 0.5 and np.isnan(tab.loc[("rep_var", "q05"), "paper"])


def test_projection_equals_conditioning_and_errors_do_not_depend_on_the_data(problem):
    A, Q = problem
    rng = np.random.default_rng(3)
    assert st.conditioning_gap(A, 2.0, Q, 5, rng) < 1e-12
    # control: dropping one basis vector gives a projector that is not the conditional covariance
    assert st.conditioning_gap(A, 2.0, Q[:, 1:], 5, rng) > 1e-3
    x1 = np.arange(A.shape[1])
    assert st.data_independence_gap(x1, 3 * x1 + 11, A, 1.0, 4, seed=4, basis=Q) < 1e-12


def test_exact_sd_summary_matches_the_closed_form(problem):
    A, Q = problem
    s = st.exact_sd_summary(A, 0.7, G, H, basis=Q)
    assert s["closed_form_sd"] == pytest.approx(0.7 * np.sqrt((G - 1) * (H - 1) / (G * H)))
    assert s["max_gap_to_closed_form"] < 1e-12 and s["exact_sd_min"] == pytest.approx(s["exact_sd_max"])


def test_reading_measures_use_the_spread_of_one_study_and_the_printed_rounding(tmp_path):
    tables = tmp_path / "results" / "tables"
    tables.mkdir(parents=True)
    (tmp_path / "results" / "e6").mkdir()
    (tmp_path / "results" / "e6" / "info.json").write_text(json.dumps({"n_reps": 50}))
    rows = [{"reading": "rep_var", "statistic": s, "exact": m, "mean": m, "study_sd": 0.01, "se": 0.01,
             "n_studies": 10} for s, m in (("median", 0.50), ("q05", 0.40), ("q95", 0.60))]
    pd.DataFrame(rows).to_csv(tables / "e6_readings.csv", index=False)
    run = Run(tmp_path)
    m = measures.reading_statistic(run, 0.5, reading="rep_var", statistic="q05")
    assert m.value == pytest.approx(0.40) and m.se == pytest.approx(0.01)
    # gaps: median 0, q05 (0.045 − 0.005)/0.01 = 4, q95 0 → the largest is 4 SE
    gap = measures.reading_gap(run, {"median": 0.5, "q05": 0.445, "q95": 0.6}, reading="rep_var", rounding=0.005)
    assert gap.value == pytest.approx(4.0)
    assert measures.reading_gap(run, {"median": 0.504}, reading="rep_var", rounding=0.005).value == 0.0


def test_conditioning_reference_cuts_the_rounding_eigenvalues_of_a_rank_deficient_gram():
    """At the paper's size A Aᵀ (760 rows, rank 740) has 20 eigenvalues of ~1e-14: NumPy's default
    pinv cutoff inverted them and the 'conditional' missed the invariants by 0.2 (gap 1.4e-2)."""
    from isdp.baselines import row_space_basis
    from isdp.experiments.e6_spatiotemporal_gaussian.problem import group_hour_building_constraints

    A, _ = group_hour_building_constraints(14, 24, 20)
    assert st.conditioning_gap(A, 1.0, row_space_basis(A), 5, np.random.default_rng(1)) < 1e-10


# --------------------------------------------------------------------------- registry rows: each matches and can fail

@functools.lru_cache(maxsize=1)
def _registry() -> list[dict]:
    from pathlib import Path

    from isdp.experiments.claims import load_registry

    return load_registry(Path(__file__).resolve().parents[2] / "config" / "claims.yaml")


def _row(claim_id: str) -> dict:
    from isdp.experiments.claims import claim

    return claim(claim_id, _registry())


def _status(claim_id: str, run=None, **override) -> str:
    """The row's verdict from its own measure, with ``override`` replacing some of its args."""
    from isdp.experiments.claims import judge, resolve_measure

    row = _row(claim_id)
    m = resolve_measure(row["measure"])(run or Run("."), row["paper_value"], **{**row.get("args", {}), **override})
    return judge(row["criterion"], row["paper_value"], m)


def test_truncated_geometric_law_is_the_clamped_double_geometric():
    from isdp.double_geometric import dg_pmf
    from isdp.experiments.e6_spatiotemporal_gaussian import subspace_exact as se

    law = se.truncated_geometric((0, 1, 2, 0), 1.0, 0, 3)
    assert law.probs.sum() == pytest.approx(1, abs=1e-14) and law.outside == 0
    # independent check: clamp a wide window of DG(ε/2) noise cell by cell
    e = np.arange(-60, 61)
    w = dg_pmf(e, 0.5)
    for cell, hi in enumerate((0, 1, 2, 0)):
        direct = np.bincount(np.clip(hi + e, 0, 3), weights=w, minlength=4)
        marginal = np.bincount(law.points[:, cell], weights=law.probs, minlength=4)
        np.testing.assert_allclose(marginal, direct, atol=1e-12)


def test_subspaces_neighbours_and_fast_divergences_are_what_the_rows_say():
    from isdp.experiments.e6_spatiotemporal_gaussian import subspace_exact as se
    from isdp.privacy_audit import hockey_stick, hockey_stick_divergence, max_privacy_loss

    S = se.SUBSPACES
    assert not (se.C_ODD @ S["N(C)"]).any() and not (se.C_TOTAL @ S["N(1ᵀ)"]).any()
    assert not (np.vstack([se.C_ODD, se.C_TOTAL]) @ S["N(C) ∩ N(1ᵀ)"]).any()
    rank = np.linalg.matrix_rank
    for big, small in se.NESTED:
        assert rank(np.hstack([S[big], S[small]])) == rank(S[big]) > rank(S[small])
    assert rank(np.hstack([S["N(C)"], S["N(1ᵀ)"]])) > rank(S["N(C)"])  # N(1ᵀ) is not inside N(C)
    pairs = se.neighbours()
    assert len(set(pairs)) == len(pairs) and all((b, a) in pairs for a, b in pairs)
    assert all(sorted(np.subtract(b, a)) == [-1, 0, 0, 1] for a, b in pairs)
    # the aligned divergences are privacy_audit's on the same laws
    h, g = pairs[5]
    p, q = (se.project(se.invariant_respecting(se.truncated_geometric(k, 1.0, 0, 3), k, se.C_ODD), S["N(C)"])
            for k in (h, g))
    v = se.aligned({h: p, g: q})
    assert hockey_stick_divergence(v[h], v[g], 0.5) == pytest.approx(hockey_stick(p, q, 0.5), abs=1e-15)
    assert se.level(v[h], v[g]) == pytest.approx(max_privacy_loss(p, q), abs=1e-12)
    # Thm 3.1's release meets the invariant on every support point, whatever the direction of projection
    for along in (None, [1, 1, 0, 0]):
        z = se.invariant_respecting(se.truncated_geometric(h, 1.0, 0, 3), h, se.C_ODD, along).points
        assert np.all(z @ se.C_ODD == (se.C_ODD @ (se.C_ODD if along is None else along)) * (se.C_ODD @ h))


def test_section_23_and_theorem_31_rows_match_and_fail_on_wrong_mechanisms(monkeypatch):
    from isdp.experiments.claims import Measurement, judge
    from isdp.experiments.e6_spatiotemporal_gaussian import subspace_exact as se

    ids = ["SDP-E6-subspace-dp", "SDP-E6-projection-privacy", "SDP-E6-nestedness", "SDP-E6-composition",
           "SDP-E6-post-processing", "SDP-E6-mixture"]
    assert all(_status(i) == "match" for i in ids)
    original = {name: getattr(se, name) for name in
                ("dp_implies_subspace_dp", "projection_privacy", "nestedness", "post_processing", "mixture")}
    wrong = {
        # a base mechanism at the scale of Δ₁ = 1: level 2ε
        "SDP-E6-subspace-dp": ("dp_implies_subspace_dp",
                               lambda eps: original["dp_implies_subspace_dp"](eps, sensitivity=1)),
        # a projection onto N along (1, 1, 0, 0), not the row space: the invariant holds, privacy on N does not
        "SDP-E6-projection-privacy": ("projection_privacy", lambda eps: original["projection_privacy"](
            eps, along={"C = (1,0,1,0)": [1, 1, 0, 0]})),
        # a subspace that is not inside N(C)
        "SDP-E6-nestedness": ("nestedness", lambda eps: original["nestedness"](eps, nested=(("N(C)", "N(1ᵀ)"),))),
        # a map that writes the invariant component into N
        "SDP-E6-post-processing": ("post_processing", lambda eps: original["post_processing"](
            eps, maps={"reads C z": lambda a, c: a + c * np.array([0, 1, 0])})),
        # a choice between the two mechanisms that depends on the data
        "SDP-E6-mixture": ("mixture", lambda eps, lam: original["mixture"](
            eps, lambda h: 0.2 if (h[0] + h[2]) % 2 == 0 else 0.8)),
    }
    for claim_id, (name, replacement) in wrong.items():
        with monkeypatch.context() as m:
            m.setattr(se, name, replacement)
            assert _status(claim_id) == "differs", claim_id
    # composition claimed at max(ε₁, ε₂) instead of ε₁ + ε₂
    row = _row("SDP-E6-composition")
    out = se.composition(*row["args"]["eps"])
    assert out["level"] == pytest.approx(sum(row["args"]["eps"]))
    assert judge(row["criterion"], row["paper_value"], Measurement(out["delta_max"], "")) == "differs"


def test_example_24_row_checks_the_neighbours_and_the_event():
    args = _row("SDP-E6-example-24")["args"]
    assert _status("SDP-E6-example-24") == "match"
    x = list(args["x"])
    assert _status("SDP-E6-example-24", x_prime=[*args["x_prime"], x[0]]) == "differs"  # not of the same size
    two_apart = [args["x_prime"][0], x[1] + 1, *x[2:]]  # two rows changed
    assert _status("SDP-E6-example-24", x_prime=two_apart) == "differs"
    odd_again = [x[0] + 2, *x[1:]]  # one row changed, but to another odd value: C hist unchanged
    assert _status("SDP-E6-example-24", x_prime=odd_again) == "differs"


def test_gaussian_corollaries_inherit_lemma_34_and_pass_where_the_constant_suffices():
    assert _status("SDP-E6-gaussian-corollaries-privacy") == "differs"
    assert _row("SDP-E6-gaussian-corollaries-privacy")["same_fact_as"] == "SDP-E6-lemma34"
    assert _status("SDP-E6-gaussian-corollaries-privacy", eps=[0.5, 1.0], delta=[1e-3]) == "match"


def test_conditioning_slab_row_fails_where_projection_is_not_conditioning(monkeypatch):
    assert _status("SDP-E6-conditioning-slab") == "match"
    original = st.conditioning_by_slab
    for noise in (lambda g, shape: g.laplace(0.0, 1.0, shape),  # not Gaussian
                  lambda g, shape: g.standard_normal(shape) * np.arange(1, shape[1] + 1)):  # not spherical
        with monkeypatch.context() as m:
            m.setattr(st, "conditioning_by_slab", lambda C, n, w, rng, noise=noise: original(C, n, w, rng, noise))
            assert _status("SDP-E6-conditioning-slab") == "differs"


def test_extended_invariants_row_fails_on_a_violated_invariant(tmp_path):
    (tmp_path / "results" / "e6").mkdir(parents=True)
    info = {"n_studies": 2, "n_reps": 5, "max_abs_invariant": 100.0}
    for residual, status in ((1e-13, "match"), (0.3, "differs")):
        (tmp_path / "results" / "e6" / "info.json").write_text(json.dumps({**info, "extended_max_residual": residual}))
        assert _status("SDP-E6-extended-invariants", run=Run(tmp_path)) == status
