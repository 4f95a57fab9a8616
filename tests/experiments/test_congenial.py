"""Congenial DP Example 4.1: releases, exact moments and noise laws, privacy levels, App. B, Example 5.2."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import ALPHA, Z_TOL, row_verdict
from scipy import integrate, stats

from isdp.double_geometric import dg_cdf
from isdp.experiments.e7_congenial_histogram import congenial as cg

X = np.array([12.0, 35.0])
N = 80_000
CASES = [("conditional", None), ("l2", None), ("l1", 0.0), ("l1", 0.3), ("l1", 0.5), ("l1", 0.9)]


def _draws(mechanism, beta, eps, seed, size=N):
    return cg.release(mechanism, X, eps, size, np.random.default_rng(seed), beta)


# --------------------------------------------------------------------------- releases


def test_every_release_keeps_the_total_and_the_projections_are_optimal():
    eps, n = 0.8, X.sum()
    m = cg.unconstrained(X, eps, 5000, np.random.default_rng(1))
    l2 = cg.project_l2(m, n)
    # L2: the residual m − f is orthogonal to the line (parallel to (1, 1))
    np.testing.assert_allclose((m - l2) @ np.array([1.0, -1.0]), 0, atol=1e-9)
    for beta in (0.0, 0.3, 1.0):
        l1 = cg.project_l1(m, n, beta)
        np.testing.assert_allclose(np.abs(m - l1).sum(axis=1), np.abs(m.sum(axis=1) - n), atol=1e-9)
    # a point off the segment is farther in L1: the optimality check above can fail
    off = cg.project_l1(m, n, 1.5)
    assert np.any(np.abs(m - off).sum(axis=1) > np.abs(m.sum(axis=1) - n) + 1e-6)
    for mech, beta in CASES:
        r = _draws(mech, beta, eps, 2, 1000)
        np.testing.assert_allclose(r.sum(axis=1), n, rtol=0, atol=1e-9)


@pytest.mark.parametrize(("mechanism", "beta"), CASES)
def test_simulated_moments_match_the_exact_formulas(mechanism, beta):
    eps = 0.6
    r = _draws(mechanism, beta, eps, 3)
    m1 = r[:, 0]
    mean, var = cg.exact_mean(mechanism, X, eps, beta), cg.exact_variance(mechanism, eps, beta)
    se_mean = np.sqrt(var / N)
    c = m1 - m1.mean()
    se_var = np.sqrt((np.mean(c**4) - np.mean(c**2) ** 2) / N)
    assert abs(m1.mean() - mean[0]) < Z_TOL * se_mean
    assert abs(m1.var(ddof=1) - var) < Z_TOL * se_var
    # the bins of the post-processed releases are not unbiased for the average (s1 + s2) / 2
    assert abs(m1.mean() - X.mean()) > 20 * se_mean


@pytest.mark.parametrize(("mechanism", "beta"), CASES)
def test_simulated_noise_follows_the_closed_form_law(mechanism, beta):
    eps = 1.3
    noise = _draws(mechanism, beta, eps, 4)[:, 0] - X[0]
    assert stats.kstest(noise, lambda t: cg.noise_cdf(t, mechanism, eps, beta)).pvalue > ALPHA
    # and rejects a wrong law (Laplace with the same variance) where the shapes differ most (β near 1/2)
    if mechanism == "l2" or beta in (0.3, 0.5):
        wrong = stats.laplace(scale=np.sqrt(cg.exact_variance(mechanism, eps, beta) / 2)).cdf
        assert stats.kstest(noise, wrong).pvalue < ALPHA


def test_variance_range_of_f_l1_is_attained_at_the_midpoint_and_the_ends():
    eps = 0.9
    betas = np.linspace(0, 1, 1001)
    v = np.array([cg.exact_variance("l1", eps, b) for b in betas])
    lo, hi = cg.l1_variance_range(eps)
    assert np.isclose(v.min(), lo) and np.isclose(v.max(), hi)
    assert betas[v.argmin()] == 0.5 and v.argmax() in (0, len(betas) - 1)
    assert np.isclose(cg.exact_variance("l2", eps), lo)
    assert cg.exact_variance("conditional", eps) < lo


# --------------------------------------------------------------------------- laws, independently of the closed forms


@pytest.mark.parametrize("beta", [0.0, 0.2, 0.5, 0.5 + 2e-5, 0.75])
def test_noise_density_is_the_numerical_convolution(beta):
    """(A.1)/(A.2) against the density of β u1 + (1 − β) u2 by direct numerical integration."""
    eps = 0.7
    b = 2 / eps
    lap = stats.laplace(scale=b).pdf

    def conv(t):
        if beta in (0.0, 1.0):
            return lap(t)
        hi = 1.0 - beta  # density of βU1 + hi·U2 = ∫ f(u/β) f((t − u)/hi) / (β hi) du
        reach = 80 * b + abs(t)  # the integrand is below e^-40 of its peak beyond
        return integrate.quad(lambda u: lap(u / beta) * lap((t - u) / hi) / (beta * hi), -reach, reach,
                              points=sorted({0.0, t}), limit=400, epsabs=0)[0]

    for t in (-7.0, -0.4, 0.0, 1.1, 6.0, 25.0):
        np.testing.assert_allclose(cg.noise_pdf(t, "l1", eps, beta), conv(t), rtol=1e-6)
    tot = integrate.quad(lambda t: cg.noise_pdf(t, "l1", eps, beta), -np.inf, np.inf)[0]
    var = integrate.quad(lambda t: t * t * cg.noise_pdf(t, "l1", eps, beta), -np.inf, np.inf)[0]
    assert np.isclose(tot, 1, atol=1e-8) and np.isclose(var, cg.exact_variance("l1", eps, beta), rtol=1e-6)
    for t in (-3.0, 0.5, 9.0):
        cdf = integrate.quad(lambda s: cg.noise_pdf(s, "l1", eps, beta), -np.inf, t)[0]
        assert np.isclose(cg.noise_cdf(t, "l1", eps, beta), cdf, atol=1e-8)


def test_signed_weights_sum_to_one_with_opposite_signs():
    for beta in (0.1, 0.3, 0.8):
        w = cg.signed_weights(beta)
        assert np.isclose(sum(w), 1) and w[0] > 1 and w[1] < 0
    with pytest.raises(ValueError, match="0/0"):
        cg.signed_weights(0.5)


def test_mixture_of_laplace_and_signed_gamma_is_the_sum_of_two_laplace():
    eps = 1.7
    half = [{"law": "laplace", "weight": 0.5, "scale": 1 / eps},
            {"law": "signed_gamma", "weight": 0.5, "shape": 2, "scale": 1 / eps}]
    t = np.linspace(-20, 20, 4001)
    np.testing.assert_allclose(cg.mixture(t, half), cg.laplace_sum_pdf(t, 1 / eps), atol=1e-12)
    np.testing.assert_allclose(cg.mixture(t, half, cdf=True), cg.noise_cdf(t, "l2", eps), atol=1e-12)
    assert np.isclose(cg.mixture_variance(half), cg.exact_variance("l2", eps))
    # the signed Gamma(2) alone is not a sum of two Laplace: more spread, other density
    sg = [{"law": "signed_gamma", "weight": 1.0, "shape": 2, "scale": 1 / eps}]
    assert cg.mixture_variance(sg) > cg.exact_variance("l2", eps) * 1.4
    assert np.abs(cg.mixture(t, sg) - cg.laplace_sum_pdf(t, 1 / eps)).max() > 0.1
    rng = np.random.default_rng(5)
    g = rng.gamma(2, 1 / eps, 20000) * rng.choice([-1.0, 1.0], 20000)
    assert stats.kstest(g, lambda v: cg.mixture(v, sg, cdf=True)).pvalue > ALPHA
    with pytest.raises(ValueError, match="unknown mixture component"):
        cg.mixture(t, [{"law": "normal", "weight": 1, "scale": 1}])


def test_conditioning_on_a_thin_slab_gives_the_conditional_law():
    eps = 0.5
    u1 = cg.condition_on_zero_sum(eps, 0.05, 20000, np.random.default_rng(6), chunk=400_000)
    assert len(u1) == 20000
    assert stats.kstest(u1, lambda t: cg.noise_cdf(t, "conditional", eps)).pvalue > ALPHA
    assert stats.kstest(u1, stats.laplace(scale=cg.base_scale(eps)).cdf).pvalue < ALPHA  # not the base law


# --------------------------------------------------------------------------- privacy


@pytest.mark.parametrize("beta", [0.0, 0.2, 0.5, 0.7, 1.0])
def test_numerical_privacy_level_matches_app_a(beta):
    eps = 0.8
    level, _ = cg.privacy_level("l1", eps, beta)
    assert abs(level - cg.l1_privacy_level(eps, beta)) < 1e-5 * eps
    # the level is a supremum approached in the tail: a short grid falls visibly short at β = 1/2
    short, _ = cg.privacy_level("l1", eps, beta, t_max=60.0)
    if beta == 0.5:
        assert cg.l1_privacy_level(eps, beta) - short > 1e-3 * eps


def test_privacy_level_of_the_conditional_mechanism_is_eps():
    for eps in (0.3, 2.0):
        level, _ = cg.privacy_level("conditional", eps)
        assert np.isclose(level, eps, rtol=1e-9)
        assert np.isclose(cg.privacy_level("l2", eps)[0], eps, rtol=1e-5)


def test_worst_log_ratio_finds_the_largest_ratio():
    logpdf = stats.norm.logpdf  # unbounded ratio: grows with t
    r, t = cg.worst_log_ratio(logpdf, np.linspace(-5, 5, 101))
    assert np.isclose(t, 5) and np.isclose(r, logpdf(5.0) - logpdf(6.0))


# --------------------------------------------------------------------------- App. B and Example 5.2


@pytest.mark.parametrize("eps", [-np.log(0.1), 0.5, -np.log(0.97)])
def test_app_b_quantile_is_the_generalized_inverse(eps):
    v = np.random.default_rng(7).uniform(size=50_000)
    assert cg.dg_inverse_check(v, eps).all()
    # against a brute-force search on the support
    ks = np.arange(-400, 401)
    brute = ks[np.searchsorted(dg_cdf(ks, eps), v[:2000])]
    np.testing.assert_array_equal(cg.dg_quantile(v[:2000], eps), brute)
    # the check is not vacuous: shifted quantiles fail it
    q = cg.dg_quantile(v[:2000], eps)
    assert not ((dg_cdf(q, eps) < v[:2000]) & (v[:2000] <= dg_cdf(q + 1, eps))).any()


def test_rounding_secrecy_singleton_and_a_wider_range():
    res = cg.rounding_secrecy(21, 30, 10, 0.7)
    assert res["s_star"] == [3] and res["level"] == 0 and res["gamma"] == -1
    eps = 0.9
    res = cg.rounding_secrecy(18, 33, 10, eps)
    assert res["s_star"] == [2, 3, 4]
    # brute force: conditional pmf on S* for each sum, largest log ratio between consecutive sums
    worst = 0.0
    for s in range(18, 33):
        p = [np.exp(-eps * abs(m - -(-s // 10))) for m in (2, 3, 4)]
        q = [np.exp(-eps * abs(m - -(-(s + 1) // 10))) for m in (2, 3, 4)]
        worst = max(worst, *(abs(np.log(pi / sum(p)) - np.log(qi / sum(q))) for pi, qi in zip(p, q, strict=True)))
    assert np.isclose(res["level"], worst) and 0 < res["level"] <= 2 * eps


def test_bad_arguments_are_rejected():
    with pytest.raises(ValueError, match="unknown mechanism"):
        cg.exact_variance("l3", 1.0)
    with pytest.raises(ValueError, match="weight β"):
        cg.exact_variance("l1", 1.0, 1.2)
    with pytest.raises(ValueError, match="positive finite"):
        cg.release("conditional", X, 0.0, 10, np.random.default_rng(0))


@pytest.mark.parametrize("eps", [-np.log(0.1), -np.log(0.6), -np.log(0.95)])
def test_dg_chisquare_accepts_the_law_and_rejects_a_shift(eps):
    d = cg.dg_quantile(np.random.default_rng(8).uniform(size=100_000), eps)
    stat, dof, p = cg.dg_chisquare(d, eps)
    assert p > ALPHA and dof >= 2
    assert cg.dg_chisquare(d + 1, eps)[2] < ALPHA


def test_closed_form_levels():
    assert cg.closed_form_level("conditional", 0.4) == 0.4
    assert cg.closed_form_level("l2", 0.4) == pytest.approx(0.4)
    assert cg.closed_form_level("l1", 0.4, 0.0) == pytest.approx(0.2)
    assert cg.closed_form_level("l1", 0.4, 0.25) == cg.closed_form_level("l1", 0.4, 0.75)


# --------------------------------------------------------------------------- E7 measures


def _e7_run(tmp_path, x):
    import pandas as pd

    from isdp.experiments.claims import Run

    tables = tmp_path / "results" / "tables"
    tables.mkdir(parents=True, exist_ok=True)
    pd.DataFrame({"mechanism": list(cg.MECHANISMS), "mean_m1": x[0], "mean_m2": x[1]}).to_csv(
        tables / "e7_table2.csv", index=False)
    pd.DataFrame({"mechanism": ["l2"], "mean_m1": [x[0] + 0.01], "se_mean_m1": [0.01], "z_mean": [1.0]}).to_csv(
        tables / "e7_simulation.csv", index=False)
    return Run(tmp_path, config={"e7": {"x": list(x)}, "e5": {"simulation": {"nb_n": 10, "nb_p": 0.5}}})


def test_e7_expectation_measure_names_the_symbol_the_exact_mean_equals(tmp_path):
    from isdp.experiments.claims import judge
    from isdp.experiments.e7_congenial_histogram import measures as e7

    run = _e7_run(tmp_path, (3, 9))
    m = e7.expectation(run, {"m1": "sbar", "m2": "sbar"}, mechanism="l2")
    assert m.value == {"m1": "s1", "m2": "s2"}
    assert judge({"kind": "equal"}, {"m1": "sbar", "m2": "sbar"}, m) == "differs"
    assert judge({"kind": "equal"}, {"m1": "s1", "m2": "s2"}, m) == "match"
    with pytest.raises(ValueError, match="cannot be told apart"):
        e7.expectation(_e7_run(tmp_path, (4, 4)), {"m1": "s1", "m2": "s2"}, mechanism="l2")


def test_e7_negbin_measure_uses_the_e5_parametrisation(tmp_path):
    from isdp.experiments.e7_congenial_histogram import measures as e7

    m = e7.negbin_moments(_e7_run(tmp_path, (3, 9)), None)
    assert m.value == pytest.approx({"mean": 10.0, "variance": 20.0})  # r (1 − p) / p and r (1 − p) / p²


@pytest.mark.parametrize("eps", [0.5, 1.0, 3.0])
def test_unconstrained_release_has_level_eps_and_moves_a_posterior_by_at_most_eps(eps):
    """Example 5.1 (no restricting invariant: level ε) and Theorem 1.3 (posterior within e^±ε of
    the prior, approached as the prior of the other value goes to 1)."""
    from isdp.experiments.e7_congenial_histogram import congenial as cg

    assert cg.unconstrained_level(eps) == pytest.approx(eps, rel=1e-9)
    assert cg.posterior_shift(eps, [0.1, 0.5, 0.9]) < eps
    assert cg.posterior_shift(eps, [1e-6]) == pytest.approx(eps, rel=1e-5)


# --------------------------------------------------------------------------- rows from the coverage audit


def _config_run(tmp_path, eps_grid=(0.5, 2.0), betas=(0.0, 0.25, 0.5, 1.0), l1_gap=0.0, level=1.0):
    import pandas as pd

    from isdp.experiments.claims import Run

    tables = tmp_path / "results" / "tables"
    tables.mkdir(parents=True, exist_ok=True)
    pd.DataFrame({"mechanism": ["l1"], "max_optimality_gap": [l1_gap], "max_total_error": [0.0]}).to_csv(
        tables / "e7_simulation.csv", index=False)
    pd.DataFrame({"mechanism": ["conditional"] * len(eps_grid), "eps": list(eps_grid),
                  "level_over_eps": [level] * len(eps_grid)}).to_csv(tables / "e7_privacy.csv", index=False)
    return Run(tmp_path, config={"e7": {"x": [12, 35], "eps_grid": list(eps_grid), "betas": list(betas),
                                        "dg_check": {"eps": [0.6]}}})


def test_dg_level_is_eps_and_a_scale_that_ignores_the_sensitivity_is_not(tmp_path, monkeypatch):
    run = _config_run(tmp_path)
    status, m = row_verdict("CDP-E7-dg-level", run)
    assert status == "match" and m.value == pytest.approx(1.0, abs=1e-12)  # attained, not only bounded
    orig = cg.dg_logpmf_printed
    monkeypatch.setattr(cg, "dg_logpmf_printed", lambda u, eps, sensitivity=1.0: orig(u, eps))  # a = exp(−ε)
    assert row_verdict("CDP-E7-dg-level", run)[0] == "differs"


def test_posterior_bound_holds_with_the_other_records_fixed_and_not_for_a_linked_record(tmp_path):
    run = _config_run(tmp_path)
    status, m = row_verdict("CDP-E7-posterior-bound", run)
    assert status == "match" and 0.99 < m.value <= 1, m.text  # approached at the extreme priors
    status, m = row_verdict("CDP-E7-posterior-bound", run, linked=2)
    assert status == "differs" and m.value > 1.9, m.text


def test_printed_dg_cdf_is_the_cdf_and_an_off_by_one_is_caught(tmp_path, monkeypatch):
    run = _config_run(tmp_path)
    u = np.arange(-30, 31)
    np.testing.assert_allclose(cg.dg_cdf_printed(u, 0.8),
                               np.cumsum(np.exp(cg.dg_logpmf_printed(np.arange(-400, 31), 0.8)))[-len(u):], atol=1e-12)
    assert row_verdict("CDP-E7-dg-cdf", run)[0] == "match"
    orig = cg.dg_cdf_printed
    monkeypatch.setattr(cg, "dg_cdf_printed", lambda u, eps: np.where(  # a^u in place of a^(u+1)
        np.asarray(u) > 0, 1 - np.exp(-eps) ** np.asarray(u, float) / (1 + np.exp(-eps)), orig(u, eps)))
    status, m = row_verdict("CDP-E7-dg-cdf", run)
    assert status == "differs" and m.value > 1e-3


def test_remark1_weights_sum_to_one_with_opposite_signs_and_unsigned_weights_fail(tmp_path, monkeypatch):
    run = _config_run(tmp_path)
    assert row_verdict("CDP-E7-remark1-weights", run)[0] == "match"
    for beta in (0.2, 0.8):  # the printed weights at β and those of signed_weights (at max(β, 1 − β)) give one law
        assert sorted(cg.a1_weights(beta)) == pytest.approx(sorted(cg.signed_weights(beta)))
    monkeypatch.setattr(cg, "a1_weights", lambda b: (b**2 / abs(2 * b - 1), (1 - b) ** 2 / abs(2 * b - 1)))
    assert row_verdict("CDP-E7-remark1-weights", run)[0] == "differs"


def test_theorem_a1_ratio_printed_exponent_lacks_eps(tmp_path):
    x = np.linspace(-40, 40, 801)
    for eps in (0.3, 1.0, 2.5):
        for beta in (0.6, 0.8):
            exact = cg.a1_g_log_ratio(x, 0.0, 2.0, beta, eps)
            np.testing.assert_allclose(cg.a1_g_log_ratio_closed(x, 0.0, 2.0, beta, cg.a1_tau(beta) * eps), exact,
                                       atol=1e-12)
    # at ε = 1 the printed form is right, so the row can match; elsewhere it differs
    assert row_verdict("CDP-E7-theorem-a1-ratio", _config_run(tmp_path / "a", eps_grid=(1.0,)))[0] == "match"
    status, m = row_verdict("CDP-E7-theorem-a1-ratio", _config_run(tmp_path / "b"))
    assert status == "differs" and m.value > 0.01
    assert float(m.note.split(": ")[1].split(";")[0]) < 1e-12  # the τε form agrees


def test_l1_printed_point_leaves_the_segment_at_the_exact_rate(tmp_path):
    eps, n_grid = 0.9, 300
    u = cg.laplace_quantile_grid(eps, n_grid)
    lo, hi = np.minimum(u[:, 0], -u[:, 1]), np.maximum(u[:, 0], -u[:, 1])  # the segment, as noise of the first bin
    for beta in (0.0, 0.25, 0.5, 0.75):
        point = beta * u[:, 0] + (1 - beta) * u[:, 1]
        share = np.mean((point < lo - 1e-9) | (point > hi + 1e-9))
        assert abs(share - (3 - beta) / 4) < 5 / n_grid  # the exact rate, within the grid's quadrature error
    status, m = row_verdict("CDP-E7-l1-literal-point", _config_run(tmp_path))
    assert status == "differs" and abs(m.value - 3 / 4) < 5 / n_grid  # β = 0 has the largest share
    assert "reversed (the segment's own point, f_L1 here): 0" in m.text
    # at β = 1 the printed point is the segment's end m1: the row can match
    assert row_verdict("CDP-E7-l1-literal-point", _config_run(tmp_path / "b", betas=(1.0,)))[0] == "match"


def test_l1_solution_set_is_the_segment_and_a_gap_or_a_unique_solution_fails(tmp_path, monkeypatch):
    status, m = row_verdict("CDP-E7-l1-solution-set", _config_run(tmp_path))
    assert status == "match" and m.value["segment_gap"] < 1e-9
    assert row_verdict("CDP-E7-l1-solution-set", _config_run(tmp_path / "b", l1_gap=1e-3))[0] == "differs"
    # a mirror-symmetric grid has pairs with u1 + u2 = 0: one solution only, which the row must see
    def symmetric(eps, n):
        u = stats.laplace.ppf((np.arange(n) + 0.5) / n, scale=cg.base_scale(eps))
        return np.column_stack([np.repeat(u, n), np.tile(u, n)])
    monkeypatch.setattr(cg, "laplace_quantile_grid", symmetric)
    status, m = row_verdict("CDP-E7-l1-solution-set", _config_run(tmp_path / "c"))
    assert status == "differs" and m.value["unique"] > 0


def test_rounding_sensitivity_and_neighbour_counts_against_enumeration(tmp_path):
    run = _config_run(tmp_path)
    x = cg.binary_databases(12)
    for j in range(12):
        y = x.copy()
        y[:, j] ^= 1
        assert np.abs(np.ceil(x.sum(1) / 10) - np.ceil(y.sum(1) / 10)).max() <= cg.rounding_sensitivity(10, 12) == 1
    assert row_verdict("CDP-E7-rounding-sensitivity", run)[0] == "match"
    assert row_verdict("CDP-E7-rounding-sensitivity", run, group=0.5)[0] == "differs"  # ⌈2Σx⌉ moves by 2
    x = cg.binary_databases(6)
    star = x[(x.sum(1) >= 3) & (x.sum(1) <= 5)]
    ham = (star[:, None, :] != star[None, :, :]).sum(2)
    assert cg.invariant_pairs(3, 5, 6) == {"size": len(star), "distinct": int((ham > 0).sum()) // 2,
                                           "d1": int((ham == 1).sum()) // 2}
    assert row_verdict("CDP-E7-rounding-neighbours", run)[0] == "match"
    assert row_verdict("CDP-E7-rounding-neighbours", run, lo=50, hi=50)[0] == "differs"  # X* = {all ones}


def test_theorem21_quantities_against_brute_force_and_a_wrong_gamma_fails(tmp_path, monkeypatch):
    from isdp.double_geometric import dg_logpmf

    lo, hi, group, eps = 2, 6, 3, 0.7
    for k in (1, 2):
        res = cg.rounding_secrecy(lo, hi, group, eps, k)
        x = cg.binary_databases(hi + k)
        star = x[(x.sum(1) >= lo) & (x.sum(1) <= hi)]
        s = np.ceil(star.sum(1) / group).astype(int)
        logp = dg_logpmf(np.array(res["s_star"])[None, :] - s[:, None], eps)
        log_in = np.logaddexp.reduce(logp, axis=1)
        i, j = np.nonzero((star[:, None, :] != star[None, :, :]).sum(2) == k)
        assert np.isclose(res["level"], np.abs((logp - log_in[:, None])[i] - (logp - log_in[:, None])[j]).max())
        assert np.isclose(res["gamma_star"], (log_in[j] - log_in[i]).max() / (k * eps))
    run = _config_run(tmp_path)
    assert row_verdict("CDP-E7-theorem21-gamma", run)[0] == "match"
    orig = cg.rounding_secrecy
    monkeypatch.setattr(cg, "rounding_secrecy", lambda *a: {**orig(*a), "gamma_star": 0.0})  # M* as private as M
    status, m = row_verdict("CDP-E7-theorem21-gamma", run)
    assert status == "differs" and m.value == {"gamma_star_in_0_1": True, "level_within_bound": False}


def test_example41_neighbours_and_gamma_follow_the_neighbour_definition(tmp_path, monkeypatch):
    run = _config_run(tmp_path)
    status, m = row_verdict("CDP-E7-example41-neighbours", run)
    assert (m.value, status) == (1, "differs")
    status, m = row_verdict("CDP-E7-gamma-example41", run)
    assert m.value == pytest.approx(0.0) and status == "differs"
    # under add/remove neighbours (the reading §1.3 sets aside) both rows would match the paper
    orig = cg.example41_nearest
    monkeypatch.setattr(cg, "example41_nearest", lambda n, neighbours="bounded": orig(n, "add/remove"))
    assert row_verdict("CDP-E7-example41-neighbours", run)[0] == "match"
    assert row_verdict("CDP-E7-gamma-example41", run)[0] == "match"


def test_binary_sensitivity_depends_on_the_neighbours_and_the_norm(tmp_path, monkeypatch):
    run = _config_run(tmp_path)
    status, m = row_verdict("CDP-E7-sensitivity-binary", run)
    assert m.value == {"count": 1.0, "histogram": 2.0} and status == "differs"
    assert cg.sensitivity("histogram", 4, norm=np.inf) == cg.sensitivity("histogram", 4, neighbours="add/remove") == 1
    orig = cg.sensitivity
    monkeypatch.setattr(cg, "sensitivity", lambda q, n, norm=1, neighbours="bounded": orig(q, n, norm=norm,
                                                                                         neighbours="add/remove"))
    assert row_verdict("CDP-E7-sensitivity-binary", run)[0] == "match"
