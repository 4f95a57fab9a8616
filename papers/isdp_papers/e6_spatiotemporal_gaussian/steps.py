"""E6's steps (Subspace DP §5.2): what the rules in ``workflow/rules/e6.smk`` call."""

import json
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from isdp.baselines import row_space_basis
from isdp.files import write_json, write_table
from isdp_papers.claims import paper_value
from isdp_papers.e6_spatiotemporal_gaussian import spatiotemporal as st
from isdp_papers.e6_spatiotemporal_gaussian.null_space_noise import projection_sd
from isdp_papers.e6_spatiotemporal_gaussian.problem import group_hour_building_constraints
from isdp_papers.jobs import Job
from isdp_papers.plot_style import save_figure


def studies(job: Job) -> None:
    """Write E6's study: exact per-cell error SDs, repeated studies of the projected Gaussian, readings and checks.

    Each study is ``n_reps`` releases; the readings are the paper's three readings of its error statistics, the checks
    the mechanism checks; the figure is written too.

    Params: ``e6`` (the config block), ``seed``; input ``registry``; outputs ``readings``,
    ``mechanism``, ``studies``, ``repetitions``, ``cells``, ``info``, ``fig_pdf``, ``fig_png``.
    """
    cfg = job.params.e6
    G, H, B, sigma, probs = cfg["groups"], cfg["hours"], cfg["buildings"], cfg["sigma"], cfg["quantiles"]
    A, _ = group_hour_building_constraints(G, H, B)
    n = A.shape[1]
    t0 = time.perf_counter()
    Q = row_space_basis(A)
    rank = Q.shape[1]
    job.log.info("A: %d x %d, rank %d (basis in %.2f s)", *A.shape, rank, time.perf_counter() - t0)

    x_rng = np.random.default_rng(job.seed("x"))
    x = x_rng.poisson(cfg["poisson_mean"], n)
    x_other = x_rng.poisson(cfg["poisson_mean"], n)
    sd = projection_sd(A, sigma, basis=Q)
    t0 = time.perf_counter()
    res = st.run_studies(x, A, sigma, cfg["n_reps"], cfg["n_studies"], job.seed("studies"), probs, basis=Q)
    job.log.info("%d studies x %d releases in %.1f s", cfg["n_studies"], cfg["n_reps"], time.perf_counter() - t0)
    if res.max_rep_mean > 1e-9:
        raise RuntimeError(
            f"a release's mean error over the cells is {res.max_rep_mean:.3g}, not 0: the grand total "
            "is not implied by the invariants, so the exact per-release variance law does not apply"
        )

    exact = st.exact_reading_quantiles(sd, cfg["n_reps"], n - rank, sigma, probs)
    registry = str(job.input.registry)
    paper = {name: paper_value(f"SDP-E6-{name}", registry) for name in st.stat_names(probs)}
    write_table(st.readings_table(res.studies, exact, probs, paper), job.output.readings)
    write_table(res.studies, job.output.studies)
    write_table(res.repetitions, job.output.repetitions)

    g, h, b = np.unravel_index(np.arange(n), (G, H, B))
    n_total = cfg["n_studies"] * cfg["n_reps"]
    z = res.cell_mean / (sd / np.sqrt(n_total))
    cells = pd.DataFrame(
        {
            "cell": np.arange(n),
            "group": g,
            "hour": h,
            "building": b,
            "x": x,
            "exact_sd": sd,
            "first_study_sd": res.first_errors.std(axis=0, ddof=1),
            "mean_error": res.cell_mean,
            "sd_error": res.cell_sd,
            "z": z,
        }
    )
    write_table(cells, job.output.cells)

    sq = res.repetitions["sq_error"].to_numpy()
    extended = st.extended_errors(x, A, sigma, cfg["n_reps"], cfg["n_studies"], job.seed("extended"))
    job.log.info(
        "extended Gaussian: σ_N = %.4f, mean ‖error‖² %.1f",
        extended["extended_sigma"],
        extended["extended_sq_error_mean"],
    )
    info = {
        "cells": n,
        "constraint_rows": int(A.shape[0]),
        "rank": rank,
        "null_dim": n - rank,
        "sigma": sigma,
        "n_reps": cfg["n_reps"],
        "n_studies": cfg["n_studies"],
        **st.exact_sd_summary(A, sigma, G, H, basis=Q),
        "sq_error_mean": float(sq.mean()),
        "sq_error_se": float(sq.std(ddof=1) / np.sqrt(sq.size)),
        "sq_error_expected": float((n - rank) * sigma**2),
        "max_abs_z": float(np.abs(z).max()),
        "max_invariant_residual": res.max_residual,
        "max_abs_invariant": float(np.abs(A @ x).max()),
        "max_release_mean_error": res.max_rep_mean,
        "conditioning_gap": st.conditioning_gap(
            A, sigma, Q, cfg["n_probes"], np.random.default_rng(job.seed("probes"))
        ),
        "data_independence_gap": st.data_independence_gap(
            x, x_other, A, sigma, cfg["n_reps"], job.seed("independence"), basis=Q
        ),
        **extended,
    }
    write_json(info, job.output.info, indent=1)
    job.log.info("%s", json.dumps(info, indent=1))

    rows = [
        ("cells", n, G * H * B, "groups x hours x buildings"),
        (
            "constraint rows",
            A.shape[0],
            B * (H + G),
            "hourly totals over groups + per-group totals over hours, per building",
        ),
        ("constraint rank", rank, B * (H + G - 1), "each building's two margin families share its grand total"),
        ("per-cell error SD, min", info["exact_sd_min"], info["closed_form_sd"], "σ √(1 − Σ_k Q_ik²) from the basis"),
        ("per-cell error SD, max", info["exact_sd_max"], info["closed_form_sd"], "closed form σ √((G−1)(H−1)/(G H))"),
        (
            "mean ‖error‖² per release",
            info["sq_error_mean"],
            info["sq_error_expected"],
            f"(n − rank) σ²; SE of this run {info['sq_error_se']:.2f}",
        ),
        (
            "mean ‖error‖² per release, extended Gaussian",
            info["extended_sq_error_mean"],
            info["extended_sq_error_expected"],
            f"(n − rank) σ_N², σ_N = {info['extended_sigma']:.4f} (Cor 3.6); SE of "
            f"this run {info['extended_sq_error_se']:.2f}",
        ),
        ("max |z| of the per-cell mean error", info["max_abs_z"], np.nan, f"{n} cells, {n_total} releases each"),
        ("max |A y − A x|", info["max_invariant_residual"], 0.0, f"invariants up to {info['max_abs_invariant']:.0f}"),
        ("max |conditional − projected covariance|", info["conditioning_gap"], 0.0, f"{cfg['n_probes']} probe vectors"),
        ("max |error(x) − error(x')| (same noise)", info["data_independence_gap"], 0.0, "two stand-in tables"),
    ]
    write_table(pd.DataFrame(rows, columns=["quantity", "this_run", "exact", "note"]), job.output.mechanism)

    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    st.plot_readings(
        res.first_errors.std(axis=0, ddof=1),
        cfg["n_reps"],
        res.repetitions,
        info["exact_sd_median"],
        n - rank,
        sigma,
        paper,
        probs,
        axes=axes,
    )
    fig.suptitle(
        f"E6: projected Gaussian errors, {n:,} cells, σ = {sigma:g} (Subspace DP §5.2; red: the paper's "
        "printed statistics)",
        fontsize=10,
    )
    save_figure(fig, job.output.fig_pdf, job.output.fig_png)
