"""Tests of :mod:`isdp_papers.e4_projection_comparison.comparison`: the metrics with known answers, the integer
and invariant flags, the concentration of a projection's discrepancy, the spread ratios and their standard errors,
one state's releases by every method end to end (their streams, the interior-point LP, reproducibility and storage),
a one-county state, and the state overview."""

from __future__ import annotations

import numpy as np
import pytest
from isdp_papers.e4_projection_comparison import comparison as cmp
from isdp_papers.e4_projection_comparison.comparison import discrepancy_concentration

from isdp.baselines import dg_l1_projection
from isdp.exact import sample_sum_constraint_l1
from isdp.lattice import sum_constraint
from isdp.mcmc import derive_seed


def _state(releases, noisy=None, sf1=(10, 100, 1000, 10000), dp=None):
    sf1 = np.asarray(sf1, dtype=np.int64)
    dp = sf1 if dp is None else np.asarray(dp, dtype=np.int64)
    names = [f"c{i}" for i in range(len(sf1))]
    return cmp.StateReleases("ZZ", names, names, sf1, dp, releases, noisy or {})


def test_discrepancy_concentration():
    assert discrepancy_concentration([1.5, 0, 0], [0, 0, 0]) == 1.0
    assert discrepancy_concentration([0, 0, 0], [-0.5, -0.5, -0.5]) == pytest.approx(1 / 3)
    assert np.isnan(discrepancy_concentration([1, 2], [1, 2]))
    np.testing.assert_allclose(discrepancy_concentration([[0, 0], [0, 0]], [[1, 3], [2, 2]]), [0.75, 0.5])
    with pytest.raises(ValueError):
        discrepancy_concentration([1, 2], [1, 2, 3])


def test_metrics_known_answer():
    sf1 = np.array([10, 100, 1000, 10000])
    noise = np.array([[1, -1, 2, -2], [-1, 1, -2, 2]])
    rel = _state({"generalized_laplace": sf1 + noise}, dp=sf1 + np.array([3, 1, -1, -3]))
    t = cmp.metrics_table(rel).set_index("method")
    gl = t.loc["generalized_laplace"]
    assert gl["mean_bias"] == 0 and gl["mean_abs_county_bias"] == 0
    assert gl["mean_abs_error"] == pytest.approx(1.5)
    assert gl["sd"] == pytest.approx(np.std(noise, ddof=1))
    assert gl["median_county_sd"] == pytest.approx(np.median(np.std(noise, axis=0, ddof=1)))
    assert gl["integer_valued"] == "yes" and gl["invariant_exact"] == "yes"
    assert gl["invariant_max_residual"] == 0
    das = t.loc["das"]
    assert das["n_releases"] == 1 and das["mean_abs_error"] == pytest.approx(2.0)
    assert das["slope_log_pop"] < 0  # DAS errors fall with size here
    assert das["invariant_exact"] == "yes"


def test_slope_on_log_population_recovers_a_known_slope():
    sf1 = np.array([5, 50, 500, 5000, 50000])
    errors = np.tile(-2.0 * np.log(sf1) + 7.0, (3, 1))
    slope, stderr, p = cmp.slope_on_log_population(errors, sf1)
    assert slope == pytest.approx(-2.0) and stderr == pytest.approx(0, abs=1e-9) and p < 1e-6
    flat = np.zeros((3, 5))
    assert cmp.slope_on_log_population(flat, sf1)[0] == pytest.approx(0.0)


def test_integer_and_invariant_flags_flip_when_a_release_breaks_them():
    sf1 = np.array([10, 20, 30, 40])
    good = np.array([[11, 19, 30, 40], [10, 20, 31, 39]])
    rel = _state({"dg_l1_milp": good.copy(), "projected_laplace": good + np.array([0.25, -0.25, 0, 0])}, sf1=sf1)
    t = cmp.metrics_table(rel).set_index("method")
    assert t.loc["dg_l1_milp", "integer_valued"] == "yes" and t.loc["dg_l1_milp", "invariant_exact"] == "yes"
    assert t.loc["projected_laplace", "integer_valued"] == "no"
    assert t.loc["projected_laplace", "invariant_exact"] == "yes"
    # an integer release that misses the total by one
    bad = good.copy()
    bad[1, 0] += 1
    # a real release off by 1e-3, and a non-integer entry in an "integer" method
    rel = _state(
        {
            "dg_l1_milp": bad,
            "projected_laplace": good + np.array([1e-3, 0, 0, 0]),
            "generalized_laplace": good + np.array([0.5, -0.5, 0, 0]),
        },
        sf1=sf1,
    )
    t = cmp.metrics_table(rel).set_index("method")
    assert t.loc["dg_l1_milp", "invariant_exact"] == "no" and t.loc["dg_l1_milp", "invariant_max_residual"] == 1
    assert t.loc["projected_laplace", "invariant_exact"] == "no"
    assert t.loc["generalized_laplace", "integer_valued"] == "no"
    assert t.loc["generalized_laplace", "invariant_exact"] == "no"  # integer method with non-integers
    # real rounding-level residuals pass
    assert cmp.invariant_exact(good + np.array([1e-9, 0, 0, -1e-10]), 100, integer=False)


def test_concentration_single_county_and_spread():
    m = np.array([[10, 20, 30, 40], [12, 20, 30, 40], [10, 20, 30, 40]])
    y = np.array([[10, 20, 27, 40], [12, 20, 28, 40], [10, 20, 30, 40]])  # county 2 absorbs; last: none
    c = cmp.concentration(y, m)
    assert c["n_with_discrepancy"] == 2 and c["single_county_share"] == 1.0
    assert c["absorbing_county_index"] == 2 and c["absorbing_county_share"] == 1.0
    assert c["mean_max_share"] == 1.0
    spread = cmp.concentration(np.array([[9, 19, 29, 39], [10, 20, 30, 42]]), np.array([[10, 20, 30, 40]] * 2))
    assert spread["single_county_share"] == 0.5 and spread["absorbing_county_index"] == 3
    assert spread["absorbing_county_share"] == 0.5 and spread["mean_max_share"] == pytest.approx((0.25 + 1) / 2)
    even = cmp.concentration(np.array([[9, 19, 29, 39]]), np.array([[10, 20, 30, 40]]))
    assert even["single_county_share"] == 0.0 and even["absorbing_county_index"] == -1
    assert even["mean_max_share"] == 0.25


def test_spread_ratios_known_answer():
    rng = np.random.default_rng(3)
    base = rng.normal(size=(400, 4))
    base -= base.mean(axis=1, keepdims=True)
    wide = base * np.array([2.0, 2.0, 2.0, 8.0])
    rel = _state(
        {
            "generalized_laplace": np.array([10, 100, 1000, 10000]) + base,
            "projected_laplace": np.array([10, 100, 1000, 10000]) + wide,
        }
    )
    r = cmp.spread_ratios(rel).iloc[0]
    assert r["median_sd_ratio"] == pytest.approx(2.0) and r["max_sd_ratio"] == pytest.approx(8.0)
    assert r["max_ratio_county"] == "c3" and r["median_sd_ratio_others"] == pytest.approx(2.0)


@pytest.fixture(scope="module")
def end_to_end():
    """A five-county state's releases by every method (40 of each), from 60 generalized Laplace draws in 3 chains."""
    sf1 = np.array([30, 400, 5000, 60000, 700000])
    dp = sf1 + np.array([4, 2, 0, -2, -4])
    gl = sample_sum_constraint_l1(5, 0.192, 60, seed=5).reshape(3, 20, 5)
    rel = cmp.releases_for_state("ZZ", sf1, dp, gl, eps=0.192, n_releases=40, seed=9)
    return sf1, dp, gl, rel


def test_releases_for_state_holds_every_method(end_to_end):
    sf1, _, gl, rel = end_to_end
    assert set(rel.releases) == set(cmp.METHODS) and set(rel.noisy) == set(cmp.L1_PROJECTIONS)
    np.testing.assert_array_equal(rel.releases["generalized_laplace"], sf1 + gl.reshape(-1, 5)[:40])
    assert rel.releases["dg_l1_milp"].dtype == np.int64 and rel.attrs["gl_draws_per_chain"] == 20


def test_releases_for_state_keys_each_baselines_stream_by_its_name(end_to_end):
    """Adding a method leaves the others unchanged."""
    sf1, _, _, rel = end_to_end
    rng = np.random.default_rng(derive_seed(9, "dg_l1_lp"))
    np.testing.assert_array_equal(
        rel.releases["dg_l1_lp"], dg_l1_projection(sf1, sum_constraint(5), 0.192, 40, rng, integer=False)
    )


def test_releases_for_state_interior_point_lp_spreads_the_discrepancy_evenly(end_to_end):
    """The interior-point LP's release is the analytic centre of the optimal face."""
    sf1, _, _, rel = end_to_end
    m = rel.noisy["dg_l1_lp_interior"]
    np.testing.assert_allclose(
        rel.releases["dg_l1_lp_interior"], m - m.mean(axis=1, keepdims=True) + sf1.mean(), atol=1e-8
    )


def test_releases_for_state_metrics_flag_integers_invariants_and_concentration(end_to_end):
    *_, rel = end_to_end
    t = cmp.metrics_table(rel).set_index("method")
    assert (t.loc[list(cmp.METHODS), "invariant_exact"] == "yes").all()
    assert t.loc["generalized_laplace", "integer_valued"] == "yes"
    assert t.loc["dg_l1_milp", "integer_valued"] == "yes"
    assert t.loc["projected_laplace", "integer_valued"] == "no"
    # HiGHS puts the whole discrepancy on one county (isdp.baselines docstring)
    assert t.loc["dg_l1_lp", "single_county_share"] == 1.0
    assert t.loc["dg_l1_milp", "single_county_share"] == 1.0
    assert t.loc["dg_l1_lp_interior", "single_county_share"] == 0.0
    assert t.loc["dg_l1_lp_interior", "mean_max_share"] == pytest.approx(1 / 5)
    assert t.loc["dg_l1_lp_interior", "absorbing_county"] == "" and t.loc["dg_l1_lp", "absorbing_county"] != ""
    assert t.loc["dg_l1_lp_interior", "integer_valued"] == "no"


def test_releases_for_state_are_reproducible_and_round_trip_through_storage(end_to_end, tmp_path):
    """The storage round trip keeps values and dtypes."""
    sf1, dp, gl, rel = end_to_end
    again = cmp.releases_for_state("ZZ", sf1, dp, gl, eps=0.192, n_releases=40, seed=9)
    for m in cmp.L1_PROJECTIONS:
        np.testing.assert_array_equal(again.releases[m], rel.releases[m])
    path = tmp_path / "r.nc"
    cmp.save_releases(path, rel)
    back = cmp.load_releases(path)
    for m in cmp.METHODS:
        np.testing.assert_array_equal(back.releases[m], rel.releases[m])
        assert back.releases[m].dtype == rel.releases[m].dtype
    np.testing.assert_array_equal(back.noisy["dg_l1_lp"], rel.noisy["dg_l1_lp"])
    assert back.state == "ZZ" and back.attrs["n_releases"] == 40 and set(back.seconds) >= set(cmp.PROJECTIONS)


def test_log_sd_se_matches_the_spread_of_log_sd_over_replications():
    # 4000 columns of R = 200 i.i.d. draws each: the SD over columns of log(sd) is the true SE, known
    # to ±4 · √(1/(2 · 4000)) ≈ 4.5 % (relative SE of a sample SD); 3 % more for the delta method at
    # R = 200. The per-column SEs are compared by their root mean square (the plug-in kurtosis of
    # Laplace draws is skewed and biased low at this R, see the docstring).
    rng = np.random.default_rng(12)
    for draws, kurtosis in ((rng.laplace(size=(200, 4000)), 6.0), (rng.normal(size=(200, 4000)), 3.0)):
        true = np.log(draws.std(axis=0, ddof=1)).std(ddof=1)
        predicted = np.sqrt(np.mean(cmp.log_sd_se(draws) ** 2))
        assert predicted == pytest.approx(true, rel=0.075)
        assert predicted == pytest.approx(np.sqrt((kurtosis - 1) / (4 * 200)), rel=0.075)
    # control: the normal-theory √(1/(2(R−1))) misses the Laplace SE by far more than that
    assert np.sqrt(1 / (2 * 199)) / np.log(rng.laplace(size=(200, 4000)).std(axis=0, ddof=1)).std() < 0.7


def test_squared_error_ess_on_ar1_chains():
    # Gaussian AR(1) with coefficient ρ: (x − μ)² has autocorrelation ρ^(2k), so its ESS is R (1 − ρ²)/(1 + ρ²).
    rng = np.random.default_rng(4)
    rho, chains, per_chain, cols = 0.6, 4, 250, 1500
    x = np.empty((chains, per_chain, cols))
    x[:, 0] = rng.normal(size=(chains, cols))
    for t in range(1, per_chain):
        x[:, t] = rho * x[:, t - 1] + np.sqrt(1 - rho**2) * rng.normal(size=(chains, cols))
    errors = x.reshape(-1, cols)
    R = len(errors)
    ess = cmp.squared_error_ess(errors, per_chain)
    assert np.median(ess) == pytest.approx(R * (1 - rho**2) / (1 + rho**2), rel=0.1)
    true = np.log(errors.std(axis=0, ddof=1)).std(ddof=1)  # ±4·√(1/3000) ≈ 7 %
    assert np.sqrt(np.mean(cmp.log_sd_se(errors, ess) ** 2)) == pytest.approx(true, rel=0.1)
    assert np.median(cmp.log_sd_se(errors)) / true < 0.8  # control: i.i.d. ESS = R is too small an SE
    # an incomplete last chain is left out and the ESS rescaled; i.i.d. columns get about R, capped at R
    iid = rng.normal(size=(450, 300))
    e = cmp.squared_error_ess(iid, 200)
    assert e.max() <= 450 and np.median(e) == pytest.approx(450, rel=0.1)


def test_county_spread_known_answer():
    rng = np.random.default_rng(6)
    sf1 = np.array([10, 100, 1000, 10000])
    base = rng.laplace(size=(300, 4))
    rel = _state({"generalized_laplace": sf1 + base, "projected_laplace": sf1 + 3 * base[::-1]})
    rel.attrs["gl_draws_per_chain"] = 100
    t = cmp.county_spread(rel)
    assert len(t) == 8 and list(t["method"].unique()) == ["generalized_laplace", "projected_laplace"]
    gl, pl = (t[t["method"] == m].reset_index(drop=True) for m in ("generalized_laplace", "projected_laplace"))
    np.testing.assert_allclose(gl["sd"], base.std(axis=0, ddof=1))
    np.testing.assert_allclose(gl["mean"], base.mean(axis=0))
    assert (gl["sd_ratio"] == 1).all() and gl["se_log_sd_ratio"].isna().all()
    np.testing.assert_allclose(pl["sd_ratio"], 3.0)
    np.testing.assert_allclose(pl["iqr_ratio"], 3.0)  # the same draws in reverse order, scaled by 3
    assert (pl["ess"] == 300).all() and (gl["ess"] <= 300).all()
    np.testing.assert_allclose(pl["se_log_sd_ratio"], np.hypot(pl["se_log_sd"], gl["se_log_sd"]))
    assert (pl["county"] == ["c0", "c1", "c2", "c3"]).all() and (pl["sf1"] == sf1).all()


def test_releases_for_state_rejects_too_few_draws():
    with pytest.raises(ValueError, match="fewer than"):
        cmp.releases_for_state("ZZ", [1, 2, 3], [1, 2, 3], np.zeros((5, 3), int), eps=0.2, n_releases=10, seed=1)
    with pytest.raises(ValueError, match="counties"):
        cmp.releases_for_state("ZZ", [1, 2, 3], [1, 2, 3], np.zeros((5, 4), int), eps=0.2, n_releases=2, seed=1)


def test_one_county_state_every_mechanism_releases_the_count_exactly():
    noise = np.zeros((2, 10, 1), dtype=np.int64)
    rel = cmp.releases_for_state(
        "DC",
        np.array([601_723]),
        np.array([601_723]),
        noise,
        eps=0.192,
        n_releases=20,
        seed=1,
        sensitivity=1,
        counties=["G1100010"],
        names=["DC"],
    )
    metrics = cmp.metrics_table(rel).set_index("method")
    assert (metrics.loc[list(cmp.METHODS), "invariant_exact"] == "yes").all()
    assert metrics.loc["generalized_laplace", "sd"] == 0
    assert np.isnan(metrics.loc["generalized_laplace", "slope_log_pop"])
    assert cmp.spread_ratios(rel)["median_sd_ratio"].isna().all()


def test_state_overview_joins_size_noise_audit_and_errors():
    import pandas as pd

    counties = pd.DataFrame({"state_abbr": ["IL", "IL", "IL", "DC"], "sf1_pop": [10, 20, 30, 5]})
    regressions = pd.DataFrame({"state_abbr": ["IL"], "slope": [-0.5], "stderr": [0.1], "p_value": [0.01]})
    noise = pd.DataFrame({"state": ["DC", "IL"], "mean_sd": [0.0, 7.2]})
    metrics = pd.DataFrame(
        {
            "state": ["IL", "IL", "DC", "DC"],
            "method": ["generalized_laplace", "das"] * 2,
            "sd": [7.0, 3.0, 0.0, 0.0],
            "mean_abs_error": [5.0, 2.0, 0.0, 0.0],
        }
    )
    table = cmp.state_overview(counties, regressions, noise, metrics, ["IL", "DC"])
    assert list(table["state"]) == ["IL", "DC"] and list(table["n_counties"]) == [3, 1]
    assert list(table["sf1_total"]) == [60, 5] and list(table["noise_sd"]) == [7.2, 0.0]
    assert table.loc[0, "das_slope"] == -0.5 and np.isnan(table.loc[1, "das_slope"])
    assert list(table["sd_generalized_laplace"]) == [7.0, 0.0] and list(table["mae_das"]) == [2.0, 0.0]
