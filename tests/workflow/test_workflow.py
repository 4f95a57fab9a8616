"""Checks on the outputs of a CI-profile workflow run (``make test`` runs it into $ISDP_CI_RESULTS)."""

from __future__ import annotations

import json
import os
import platform
import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import REGISTRY
from isdp_papers.claims import COLUMNS, STATUSES, load_registry, paper_value
from isdp_papers.config import load_config
from isdp_papers.problems import Problem

from isdp.convergence import load_draws

pytestmark = pytest.mark.workflow
ROOT = Path(__file__).resolve().parents[2]
CI_CONFIG = load_config(ROOT / "config" / "config.yaml", ROOT / "config" / "ci.yaml")
EXPERIMENT_IDS = sorted((k for k in CI_CONFIG if re.fullmatch(r"e\d+", k)), key=lambda k: int(k[1:]))


@pytest.fixture(scope="module")
def registry(run_dir) -> pd.DataFrame:
    """The workflow's experiment registry (common.smk), as the run wrote it."""
    return pd.read_csv(run_dir / "results" / "tables" / "experiments.csv").set_index("experiment")


def test_registry_rule_all_summary_and_report_agree(run_dir, registry):
    """One list drives everything: the config's experiment blocks, the registry, the outputs that
    `rule all` asked for, the reproduction summary and the report's categories."""
    assert list(registry.index) == EXPERIMENT_IDS
    full = pd.read_csv(run_dir / "results" / "tables" / "reproduction_summary.csv", keep_default_na=False)
    assert list(dict.fromkeys(full["experiment"])) == [e.upper() for e in registry.index]
    report = (run_dir / "results" / "report.html").read_text(errors="ignore")
    for exp, row in registry.iterrows():
        as_json = json.dumps(row["title"])[1:-1]  # the report embeds its categories as JSON (× is \u00d7)
        assert row["title"].startswith(exp.upper()) and as_json in report, row["title"]


@pytest.mark.parametrize("experiment", EXPERIMENT_IDS)
def test_experiment_outputs_and_summary(run_dir, registry, experiment):
    """Every registered output exists (figures as real PDF + PNG), the executed review notebook
    with all its checks passed, and the experiment's summary rows."""
    row = registry.loc[experiment]
    for rel in row["outputs"].split(";"):
        f = run_dir / rel
        assert f.stat().st_size > (1000 if "/figures/" in rel else 0), f
    assert (run_dir / "results" / "notebooks" / f"{row['notebook']}.ipynb").exists()
    checks = pd.read_csv(run_dir / "results" / "tables" / f"{experiment}_review_checks.csv")
    assert checks["passed"].all(), checks
    rows = pd.read_csv(run_dir / "results" / "tables" / "summary" / f"{experiment}.csv", keep_default_na=False)
    assert list(rows.columns) == COLUMNS and set(rows["status"]) <= set(STATUSES)
    assert (rows["experiment"] == experiment.upper()).all() and len(rows) >= 1
    assert (rows["reproduced_value"] != "").all()
    full = pd.read_csv(run_dir / "results" / "tables" / "reproduction_summary.csv", keep_default_na=False)
    assert (full["experiment"] == experiment.upper()).sum() == len(rows)
    ids = [c["id"] for c in load_registry(REGISTRY) if c["experiment"] == experiment.upper()]
    assert list(rows["id"]) == ids


def test_report_exists_without_error_boxes(run_dir):
    """The report renders every caption cleanly: docutils puts its errors (e.g. ``|x|`` read as a
    substitution) into the page as "System Message" boxes."""
    report = (run_dir / "results" / "report.html").read_text(errors="ignore")
    assert len(report) > 10_000
    assert "System Message" not in report, "a caption does not render as reStructuredText"


def test_e1_draws_are_integer_and_invariant(run_dir):
    problem = Problem.from_json(run_dir / "results" / "e1" / "problem.json")
    for norm in ("l1", "l2"):
        d = load_draws(run_dir / "results" / "e1" / f"draws_{norm}.nc")
        assert d.dtype == np.int64 and d.shape[-1] == 14
        assert np.all(d.reshape(-1, 14) @ problem.A.T == 0)
        assert np.abs(d).sum() > 0  # real noise, not zeros


def test_e1_convergence_table(run_dir):
    conv = pd.read_csv(run_dir / "results" / "tables" / "e1_convergence.csv")
    assert set(conv["target"]) == {"l1", "l2"}
    assert (conv["converged_at"] > 0).all()
    # lags were chosen so the bound at t = 0 is non-vacuous yet informative
    assert conv["tv_bound_t0"].between(0.5, 3).all()


def test_e2_noise_tables_have_zero_margins_and_come_from_the_draws(run_dir):
    for norm, name in (("l1", "e2_table1_l1_draw"), ("l2", "e2_table3_l2_draw")):
        table = pd.read_csv(run_dir / "results" / "tables" / f"{name}.csv", index_col=0)
        assert (table["Total"] == 0).all() and (table.loc["Total"] == 0).all()
        cells = table.drop(index="Total", columns="Total").to_numpy().ravel()
        first = load_draws(run_dir / "results" / "e2" / f"draws_{norm}.nc")[0, 0]
        assert np.array_equal(cells, first) and np.abs(cells).sum() > 0


def test_reproduction_summary_is_well_formed(run_dir):
    df = pd.read_csv(run_dir / "results" / "tables" / "reproduction_summary.csv", keep_default_na=False)
    assert list(df.columns) == COLUMNS
    assert set(df["status"]) <= set(STATUSES)
    assert set(df["experiment"]) == {e.upper() for e in EXPERIMENT_IDS}


def test_summary_has_exactly_the_registry_claims(run_dir):
    """Every row comes from the registry, in its order, and every registry claim has a row."""
    df = pd.read_csv(run_dir / "results" / "tables" / "reproduction_summary.csv", keep_default_na=False)
    registry = load_registry(REGISTRY)
    assert list(df["id"]) == [c["id"] for c in registry]
    by_id = {c["id"]: c for c in registry}
    for row in df.itertuples():
        c = by_id[row.id]
        assert row.experiment == c["experiment"] and row.claim == c["claim"]
        assert row.criterion.endswith(f"Why: {c['why']}")
        allowed = {"calibrated": {"calibrated", "differs"}, "not-comparable": {"not-comparable"}}.get(
            c["criterion"]["kind"], {"match", "differs"}
        )
        if c["reading"]["basis"] == "chosen by fit":  # agreement under a fit-chosen reading is calibration
            allowed = allowed - {"match"} | ({"calibrated"} if "match" in allowed else set())
        assert row.status in allowed, row
        assert row.kind == c["kind"] and row.cause == c.get("cause", "")
        if row.status in ("differs", "not-comparable"):
            assert row.cause, f"{row.id} is {row.status} without a cause in the registry"


def test_headline_counts_are_the_summary_counted(run_dir):
    from isdp_papers import reporting

    summary = pd.read_csv(run_dir / "results" / "tables" / "reproduction_summary.csv", dtype=str, keep_default_na=False)
    counts = pd.read_csv(run_dir / "results" / "tables" / "claim_counts.csv", keep_default_na=False)
    assert counts["count"].sum() == (summary["same_fact_as"] == "").sum()
    expected = reporting.claim_counts(summary)
    assert counts[["kind", "status", "cause", "count"]].astype(str).equals(expected.astype(str))
    md = (run_dir / "results" / "claim_counts.md").read_text(encoding="utf-8")
    assert md.startswith(reporting.counts_markdown(expected, "").split("<sub>")[0])


def test_netcdf_is_arviz_readable(run_dir):
    from isdp.convergence._arviz_compat import from_netcdf

    idata = from_netcdf(run_dir / "results" / "e1" / "draws_l1.nc")
    assert idata["posterior"]["noise"].dims == ("chain", "draw", "cell")
    assert json.dumps(dict(idata["posterior"].attrs), default=str)


def test_e3_data_source_is_reported(run_dir):
    info = json.loads((run_dir / "results" / "data" / "source.json").read_text())
    source = pd.read_csv(run_dir / "results" / "tables" / "e3_data_source.csv", dtype=str)
    assert source["vintage_used"].iloc[0] == info["vintage_used"]
    assert info["source_used"] in {"embedded", "download"}


def test_e3_audit(run_dir):
    reg = pd.read_csv(run_dir / "results" / "tables" / "e3_das_audit.csv")
    assert (reg["n_counties"] > CI_CONFIG["e3"]["audit"]["min_counties"]).all()
    counts = pd.read_csv(run_dir / "results" / "tables" / "e3_audit_counts.csv")
    assert counts["this_run"].iloc[0] == len(reg)
    assert counts["this_run"].iloc[1] == int((reg["slope"] < 0).sum())
    assert counts["this_run"].iloc[2] == int((reg["p_value"] < 0.01).sum())
    selected = pd.read_csv(run_dir / "results" / "tables" / "e3_selected_states.csv")
    assert "IL" in set(selected["state_abbr"])


def test_e3_draws_keep_state_totals_and_converged(run_dir):
    from isdp_papers.nhgis.counties import load_counties

    counties = load_counties(run_dir / "results" / "data" / "counties.csv")
    conv = pd.read_csv(run_dir / "results" / "tables" / "e3_convergence.csv")
    mcmc = CI_CONFIG["e3"]["mcmc"]
    one = conv["n_counties"] == 1  # DC: the state total fixes its county, no chain, R-hat undefined
    assert one.any(), "the CI profile includes a one-county state"
    assert (conv.loc[~one, "max_r_hat"] < mcmc["r_hat_max"]).all() and conv.loc[one, "max_r_hat"].isna().all()
    assert (conv["n_chains"] == mcmc["n_chains"]).all()
    for state, n in zip(conv["state"], conv["n_counties"], strict=True):
        d = load_draws(run_dir / "results" / "e3" / f"draws_{state}.nc")
        assert n == int((counties["state_abbr"] == state).sum())
        assert d.dtype == np.int64 and d.shape[0] == 4 and d.shape[2] == n and np.all(d.sum(axis=2) == 0)
        assert (np.abs(d).sum() > 0) == (n > 1)  # real noise, except where the invariant fixes everything


def test_e3_every_state_certified_before_sampling(run_dir):
    """Every multi-county state is certified at its burn-in (95 % bound at most the threshold, burn-in
    at least t_cert); one-county areas say they have nothing to certify; the draws carry it."""
    from isdp.convergence._draws_io import draws_attrs

    certs = pd.read_csv(run_dir / "results" / "tables" / "e3_certificates.csv")
    conv = pd.read_csv(run_dir / "results" / "tables" / "e3_convergence.csv")
    assert list(certs["state"]) == list(conv["state"])
    one = certs["counties"] == 1
    assert certs.loc[one, "status"].str.contains("nothing to certify").all()
    multi = certs[~one]
    assert (multi["censored"] == 0).all() and (multi["t_cert"] > 0).all()
    assert (multi["burn_in"] >= multi["t_cert"]).all() and (multi["certified_at_burn_in"] == 1).all()
    assert (multi["tv_bound_at_burn_in"] <= multi["threshold"]).all() and (multi["basis"] == "pair heat-bath").all()
    for row in multi.itertuples():
        attrs = draws_attrs(run_dir / "results" / "e3" / f"draws_{row.state}.nc")
        assert attrs["certificate_t_cert"] == row.t_cert and attrs["burn_in"] == row.burn_in


def test_e5_mis_chains_certified(run_dir):
    for name in ("e5_fig1_convergence.csv", "e5_trace_diagnostics.csv"):
        t = pd.read_csv(run_dir / "results" / "tables" / name)
        assert (t["certificate_certified_at_burn_in"] == 1).all(), name
        assert (t["burn_in"] >= t["certificate_t_cert"]).all(), name
        assert (t["certificate_tv_bound_at_burn_in"] <= t["certificate_threshold"]).all(), name


def test_e3_nonnegativity_and_exact_agreement(run_dir):
    nn = pd.read_csv(run_dir / "results" / "tables" / "e3_nonnegativity.csv")
    assert (nn["n_noisy_counts"] == nn["n_counties"] * nn["n_draws"]).all()
    ex = pd.read_csv(run_dir / "results" / "tables" / "e3_mcmc_vs_exact.csv")
    assert set(ex["statistic"]) == {"largest county", "smallest county", "l1 norm"}
    assert ex["p_chi2"].between(0, 1).all()
    checks = pd.read_csv(run_dir / "results" / "tables" / "e3_review_checks.csv")
    assert checks["passed"].all(), checks


def test_e3_summary_rows(run_dir):
    """On a vintage other than the paper's, each audit row says so."""
    df = pd.read_csv(run_dir / "results" / "tables" / "summary" / "e3.csv", keep_default_na=False).set_index("id")
    info = json.loads((run_dir / "results" / "data" / "source.json").read_text())
    for cid in ("SDP-E3-audit-negative", "SDP-E3-audit-significant-negative"):
        assert f"v{info['vintage_used']}" in df.loc[cid, "note"]


def test_e4_releases_reuse_e3_and_keep_totals(run_dir):
    from isdp_papers.e4_projection_comparison.comparison import METHODS, load_releases

    selected = pd.read_csv(run_dir / "results" / "tables" / "e3_selected_states.csv")
    for state in selected["state_abbr"]:
        rel = load_releases(run_dir / "results" / "e4" / f"releases_{state}.nc")
        n = len(rel.sf1)
        gl = load_draws(run_dir / "results" / "e3" / f"draws_{state}.nc").reshape(-1, n)
        r = rel.releases["generalized_laplace"]
        assert np.array_equal(r, rel.sf1 + gl[: len(r)])  # E3's draws, not resampled
        assert set(rel.releases) == set(METHODS)
        for m in ("generalized_laplace", "dg_l1_milp"):
            assert np.issubdtype(rel.releases[m].dtype, np.integer)
            assert np.all(rel.releases[m].sum(axis=1) == rel.sf1.sum())
        assert np.allclose(rel.releases["projected_laplace"].sum(axis=1), rel.sf1.sum(), rtol=0, atol=1e-6)


def test_e4_metrics_table(run_dir):
    m = pd.read_csv(run_dir / "results" / "tables" / "e4_metrics.csv", keep_default_na=False, na_values=[""])
    selected = pd.read_csv(run_dir / "results" / "tables" / "e3_selected_states.csv")
    assert set(m["state"]) == set(selected["state_abbr"])
    assert set(m["method"]) == {
        "generalized_laplace",
        "projected_laplace",
        "dg_l1_lp",
        "dg_l1_milp",
        "dg_l1_lp_interior",
        "das",
    }
    assert (m.loc[m["method"] != "das", "invariant_exact"] == "yes").all()
    m = m[m["n_counties"] > 1]  # a one-county state's releases are all exact, so integral; its slopes undefined
    mech = m[m["method"] != "das"]
    assert (m.loc[m["method"].isin(["generalized_laplace", "dg_l1_milp"]), "integer_valued"] == "yes").all()
    assert (m.loc[m["method"] == "projected_laplace", "integer_valued"] == "no").all()
    for col in ("mean_bias", "sd", "mean_abs_error", "slope_log_pop", "slope_p_value"):
        assert mech[col].notna().all(), col
    proj = m[m["method"].isin(["dg_l1_lp", "dg_l1_milp"])]
    assert proj["single_county_share"].between(0, 1).all() and proj["absorbing_county"].notna().all()
    interior = m[m["method"] == "dg_l1_lp_interior"]
    assert (interior["single_county_share"] == 0).all() and interior["absorbing_county"].isna().all()
    assert (m.loc[m["method"] == "dg_l1_lp_interior", "integer_valued"] == "no").all()
    spread = pd.read_csv(run_dir / "results" / "tables" / "e4_spread.csv")
    assert set(spread["method"]) == {"projected_laplace", "dg_l1_lp", "dg_l1_milp", "dg_l1_lp_interior"}


def test_e4_county_spread_table(run_dir):
    from isdp_papers.e4_projection_comparison.comparison import METHODS

    t = pd.read_csv(run_dir / "results" / "tables" / "e4_county_spread.csv", dtype={"county": str})
    selected = pd.read_csv(run_dir / "results" / "tables" / "e3_selected_states.csv")
    assert set(t["state"]) == set(selected["state_abbr"]) and set(t["method"]) == set(METHODS)
    assert not t.duplicated(["state", "county", "method"]).any()
    assert (t.groupby(["state", "method"]).size().unstack().nunique(axis=1) == 1).all()  # every county, every method
    t = t[t.groupby("state")["county"].transform("nunique") > 1]  # a one-county state has no spread
    gl = t[t["method"] == "generalized_laplace"]
    assert (gl["sd_ratio"] == 1).all() and gl["se_log_sd_ratio"].isna().all()
    assert (gl["ess"] <= gl["n_releases"]).all() and (gl["ess"] > 0).all()
    base = t[t["method"] != "generalized_laplace"]
    assert (base["se_log_sd_ratio"] > 0).all() and (base["ess"] == base["n_releases"]).all()


def test_e5_table1_shows_the_invariant_margins(run_dir):
    md = (run_dir / "results" / "tables" / "e5_table1.md").read_text()
    invariants = Problem.from_json(run_dir / "results" / "e5" / "problem.json").invariants
    assert all(f"**{v}**" in md for v in invariants)


def test_e5_mis_draws_in_feasible_set(run_dir):
    problem = Problem.from_json(run_dir / "results" / "e5" / "problem.json")
    printed = paper_value("CDP-E5-table-totals", REGISTRY)
    assert problem.invariants.tolist() == [printed["total"], printed["female"], printed["voting_age"]]
    for path in sorted((run_dir / "results" / "e5").glob("trace_thin*.nc")):
        d = load_draws(path)
        flat = d.reshape(-1, 46)
        assert d.dtype == np.int64 and np.all(flat @ problem.A.T == problem.invariants) and flat.min() >= 0
    rel = np.load(run_dir / "results" / "e5" / "fig1_releases.npz")
    for x, r in zip(rel["x"], rel["mis_conditional"], strict=True):
        assert np.all(r @ problem.A.T == problem.A @ x) and r.min() >= 0


def test_e5_acceptance_and_ordering(run_dir):
    acc = pd.read_csv(run_dir / "results" / "tables" / "e5_fig2_acceptance.csv")
    assert sorted(acc["proposal_eps"]) == sorted(CI_CONFIG["e5"]["acceptance"]["grid"])
    assert acc["acceptance"].between(0, 1).all() and acc["best"].sum() >= 1
    df = pd.read_csv(run_dir / "results" / "tables" / "summary" / "e5.csv", keep_default_na=False)
    assert list(df.columns) == COLUMNS and set(df["status"]) <= set(STATUSES)
    assert (df["experiment"] == "E5").all() and len(df) >= 8 and (df["reproduced_value"] != "").all()


def test_e7_tables_cover_the_grid_and_keep_the_total(run_dir):
    e7 = CI_CONFIG["e7"]
    sim = pd.read_csv(run_dir / "results" / "tables" / "e7_simulation.csv")
    assert sorted(sim["eps"].unique()) == sorted(e7["eps_grid"])
    assert len(sim) == len(e7["eps_grid"]) * (2 + len(e7["betas"]))
    assert (sim["max_total_error"] < 1e-9).all() and (sim["n_draws"] == e7["n_draws"]).all()
    noise = np.load(run_dir / "results" / "e7" / "noise.npz")
    assert noise["l2"].shape == (len(e7["eps_grid"]), e7["n_draws"])
    assert noise["l1"].shape == (len(e7["betas"]), e7["n_draws"])
    privacy = pd.read_csv(run_dir / "results" / "tables" / "e7_privacy.csv")
    assert (privacy["level_over_eps"] <= privacy["closed_form_over_eps"] + 1e-9).all()
    table2 = pd.read_csv(run_dir / "results" / "tables" / "e7_table2.csv")
    assert list(table2["mechanism"]) == ["conditional", "l2", "l1"]
    assert np.allclose(table2[["mean_m1", "mean_m2"]], e7["x"])


def test_software_versions_are_recorded(run_dir):
    table = pd.read_csv(run_dir / "results" / "tables" / "software_versions.csv")
    versions = dict(zip(table["software"], table["version"], strict=True))
    import numpy

    assert versions["numpy"] == numpy.__version__ and versions["python"] == platform.python_version()
    assert "not installed" not in versions.values()


def test_e6_readings_and_cells(run_dir):
    """Every reading × statistic from every study; one row per cell, each with the closed-form SD."""
    cfg = CI_CONFIG["e6"]
    readings = pd.read_csv(run_dir / "results" / "tables" / "e6_readings.csv")
    assert set(readings["reading"]) == {"cell_sd", "rep_sd", "rep_var"}
    assert len(readings) == 3 * (1 + len(cfg["quantiles"])) and (readings["n_studies"] == cfg["n_studies"]).all()
    cells = pd.read_csv(run_dir / "results" / "e6" / "cells.csv")
    G, H = cfg["groups"], cfg["hours"]
    assert len(cells) == G * H * cfg["buildings"]
    assert np.allclose(cells["exact_sd"], cfg["sigma"] * np.sqrt((G - 1) * (H - 1) / (G * H)))
    reps = pd.read_csv(run_dir / "results" / "e6" / "repetitions.csv")
    assert len(reps) == cfg["n_studies"] * cfg["n_reps"] and np.allclose(reps["sd"] ** 2, reps["var"])


#: noise that once filled the console or the job logs; none of it asks the user to do anything
LOG_NOISE = ("command not found", "Kernel is running over TCP", "arviz_base not installed")


def test_console_and_job_logs_are_clean(run_dir):
    """The run's console output (``make workflow-ci`` keeps it in snakemake.out) and every job log
    hold none of the known noise, and no job logged a traceback."""
    console = run_dir / "snakemake.out"
    if not console.exists():
        pytest.skip("the console output is kept only by `make workflow-ci`")
    texts = {console: console.read_text(errors="ignore")}
    texts |= {p: p.read_text(errors="ignore") for p in (run_dir / "results" / "logs").glob("*.log")}
    for path, text in texts.items():
        for noise in LOG_NOISE:
            assert noise not in text, f"{path.name}: {noise!r}"
    assert "Traceback" not in texts[console]


@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="the step server runs on Linux")
def test_every_step_ran_in_a_process_the_step_server_forked(run_dir):
    """Every step of the run (each on one thread) was run by the step server, not loaded anew by its job."""
    from isdp_papers.jobs import SERVED
    from isdp_papers.resources import RESOURCES_LINE

    logs = {p.stem: p.read_text(errors="ignore") for p in (run_dir / "results" / "logs").glob("*.log")}
    steps = {stem: text for stem, text in logs.items() if RESOURCES_LINE.search(text)}
    assert steps and not [stem for stem, text in steps.items() if SERVED not in text]


def test_every_job_is_timed(run_dir):
    """Every job of the run has its time: a step's log ends with its resources line, a notebook or
    copy job has its benchmark file; benchmarks/workflow_times.py counts each job once."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    try:
        import workflow_times
    finally:
        sys.path.pop(0)
    from isdp_papers.resources import RESOURCES_LINE

    logs = {p.stem: p.read_text(errors="ignore") for p in (run_dir / "results" / "logs").glob("*.log")}
    benchmarks = {p.stem for p in (run_dir / "results" / "benchmarks").glob("*.tsv")}
    steps = {stem for stem, text in logs.items() if RESOURCES_LINE.search(text)}
    assert steps and benchmarks and not steps & benchmarks
    assert set(logs) <= steps | benchmarks, f"jobs timed by neither: {sorted(set(logs) - steps - benchmarks)}"
    jobs = workflow_times.read_jobs(run_dir)
    assert sorted(jobs["job"]) == sorted(steps | benchmarks)
    assert (jobs["seconds"] > 0).all() and jobs.loc[jobs["job"].isin(steps), "cpu_seconds"].gt(0).all()
