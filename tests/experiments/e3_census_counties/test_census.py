"""Tests of :mod:`isdp_papers.e3_census_counties.census`: over-dispersed starts, the per-state run (certified,
converged and statistically exact; failing loudly naming the state; a one-county state's point mass), its certificate
record, typed settings and summary row, non-negativity counts and the MCMC vs exact comparison."""

from __future__ import annotations

import numpy as np
import pytest
from isdp_papers.e3_census_counties.census import (
    CONVERGENCE_COLUMNS,
    STATE_SUMMARY_COLUMNS,
    ConvergenceError,
    StateSettings,
    StateSummary,
    certificate_attrs,
    certificate_record,
    compare_with_exact,
    nonnegativity,
    overdispersed_starts,
    run_state,
)

from isdp.errors import CertificationError
from isdp.exact import sample_sum_constraint_l1
from isdp.lattice import IntegerLattice, sum_constraint

CERTIFICATE = {"pairs": 400, "threshold": 0.01, "max_iter": 100_000, "margin": 0.5}
MCMC = {
    "n_chains": 4,
    "n_draws": 400,
    "draws_per_chain": 500,
    "thin": 10,
    "draw_basis": "smith",
    "certificate": CERTIFICATE,
    "proposal_eps": 0.1,
    "overdispersion": {"factor": 0.1, "n_iter": 500},
    "r_hat_max": 1.01,
}
SETTINGS = StateSettings.from_config(0.192, MCMC)


def test_overdispersed_starts_are_in_lattice_and_wide():
    lattice = IntegerLattice.from_constraints(sum_constraint(20))
    starts = overdispersed_starts(lattice, 0.192, n_chains=4, factor=0.1, n_iter=500, proposal_eps=0.1, seed=1)
    assert starts.shape == (4, 20) and lattice.contains(starts)
    # the target's mean |u_i| is about 2a/(1-a^2) ~ 5.2 at eps = 0.192; the starts are several times wider
    assert np.abs(starts).mean() > 15
    assert len({tuple(s) for s in starts}) == 4  # independent chains


def test_run_state_converges_and_is_statistically_exact():
    run = run_state(12, SETTINGS, seed=3, label="XX")
    assert run.draws.shape == (4, 100, 12) and run.draws.dtype == np.int64
    assert np.all(run.draws.sum(axis=2) == 0)
    assert run.summary.max_r_hat < 1.01
    assert run.summary.retained_thin == 10 * 5
    cert = run.certificate
    assert cert.basis == "pair heat-bath" and run.summary.burn_in_sampler == "pair heat-bath"
    assert cert.n_pairs == 400 and cert.lag is None and cert.n_censored == 0 and cert.certified
    assert run.summary.burn_in == int(np.ceil(cert.t_cert * 1.5)) and run.summary.t_cert == cert.t_cert
    assert cert.bound(run.summary.burn_in)[0] <= 0.01
    assert len(run.diagnostics) == 12
    exact = sample_sum_constraint_l1(12, 0.192, 4000, seed=4)
    # marginal variance of one cell: MCMC (pooled retained) vs exact, within MC error
    v_mcmc = run.draws.reshape(-1, 12).astype(float).var(axis=0).mean()
    v_exact = exact.astype(float).var(axis=0).mean()
    assert abs(v_mcmc - v_exact) / v_exact < 0.1
    table = compare_with_exact(run.draws, exact[:400], np.arange(1, 13))
    assert (table["p_chi2"] > 1e-3).all(), table


def test_run_state_fails_loudly_naming_state_and_county():
    """The second gate: 100 stored draws one iteration apart are too few for R-hat < 1.01 on 30
    counties, even after a certified burn-in."""
    bad = {**MCMC, "thin": 1, "draws_per_chain": 100, "n_draws": 400, "certificate": {**CERTIFICATE, "margin": 0.0}}
    names = [f"c{i}" for i in range(30)]
    with pytest.raises(ConvergenceError, match=r"ZZ: split R-hat .* worst c\d+"):
        run_state(30, StateSettings.from_config(0.192, bad), seed=5, label="ZZ", cell_names=names)


def test_run_state_with_censored_pairs_stops_naming_the_state():
    bad = {**MCMC, "certificate": {**CERTIFICATE, "max_iter": 5}}
    with pytest.raises(CertificationError, match=r"YY: not certified: \d+ of 400 pairs did not meet within 5 coupled"):
        run_state(30, StateSettings.from_config(0.192, bad), seed=5, label="YY")


def test_one_county_has_nothing_to_certify():
    run = run_state(1, SETTINGS, seed=1, label="DC")
    assert run.certificate is None and np.all(run.draws == 0)
    record = certificate_record(run, "DC")
    assert "nothing to certify" in record["status"] and record["curve_t"] == []


def test_certificate_record_and_attrs():
    run = run_state(8, SETTINGS, seed=2, label="XX")
    record = certificate_record(run, "XX")
    cert = run.certificate
    assert record["t_star"] == cert.t_estimate and record["burn_in"] == run.summary.burn_in
    assert record["counties"] == 8 and record["pairs"] == 400 and record["censored"] == 0 and record["lag"] == -1
    assert record["confidence_level"] == 0.95 and record["t_cert"] == cert.t_cert
    assert record["certified_at_burn_in"] == 1
    assert record["tv_bound_at_burn_in"] == cert.bound(record["burn_in"])[0] <= 0.01
    assert record["status"].startswith("certified at burn-in")
    assert len(record["curve_t"]) == len(record["curve_estimate"]) == len(record["curve_bound"]) > 1
    assert record["curve_estimate"][-1] == 0 and np.all(np.array(record["curve_bound"]) >= record["curve_estimate"])
    attrs = certificate_attrs(record)
    assert attrs["certificate_t_cert"] == record["t_cert"] and attrs["certificate_basis"] == "pair heat-bath"
    assert all(isinstance(v, (int, float, str)) for v in attrs.values())


def test_settings_check_divisibility():
    with pytest.raises(ValueError, match="multiple"):
        StateSettings.from_config(0.192, {**MCMC, "n_draws": 402})
    with pytest.raises(ValueError, match="multiple"):
        StateSettings.from_config(0.192, {**MCMC, "draws_per_chain": 137})


def test_settings_are_typed_from_the_config():
    assert SETTINGS.certificate.pairs == 400 and SETTINGS.certificate.margin == 0.5
    assert SETTINGS.overdispersion.factor == 0.1 and SETTINGS.overdispersion.n_iter == 500
    assert SETTINGS.retained_per_chain == 100 and SETTINGS.r_hat_max == 1.01
    with pytest.raises(KeyError, match="r_hat_max"):
        StateSettings.from_config(0.192, {k: v for k, v in MCMC.items() if k != "r_hat_max"})


def test_summary_record_round_trips_and_holds_the_convergence_columns():
    run = run_state(1, SETTINGS, seed=1, label="DC")
    row = run.summary.as_row()
    assert tuple(row) == STATE_SUMMARY_COLUMNS and set(CONVERGENCE_COLUMNS) <= set(STATE_SUMMARY_COLUMNS)
    assert StateSummary(**row).convergence_row()["n_retained"] == 400


def test_nonnegativity_counts():
    sf1 = np.array([3, 100, 1000])
    draws = np.array([[[-4, 2, 2], [1, -1, 0]], [[0, 40, -40], [-3, 3, 0]]])
    res = nonnegativity(sf1, draws, band=30)
    assert res["n_noisy_counts"] == 12 and res["n_draws"] == 4
    assert res["n_negative"] == 1 and res["n_draws_with_negative"] == 1
    assert res["min_noisy_count"] == -1 and res["min_sf1"] == 3
    assert res["share_within_30"] == pytest.approx(10 / 12)
    assert res["max_abs_noise"] == 40


def test_one_county_state_is_the_exact_point_mass():
    """DC: the state total fixes its only county, so the noise law is the point mass at 0."""
    run = run_state(1, SETTINGS, seed=3, label="DC")
    assert run.draws.shape == (4, 100, 1) and run.draws.dtype == np.int64 and not run.draws.any()
    assert run.summary.sampler.startswith("point mass") and np.isnan(run.summary.max_r_hat)
    table = compare_with_exact(run.draws, run.draws, np.array([601_723]))
    assert table.empty and "p_chi2" in table.columns
    assert nonnegativity(np.array([601_723]), run.draws)["n_negative"] == 0
