"""E5's steps (Congenial DP §3 Table 1, Fig 1; App. C Figs 2–3).

What the rules in ``workflow/rules/e5.smk`` call — :func:`problem` (rule ``e5_problem``), :func:`acceptance`
(``e5_acceptance``), :func:`trace` (``e5_trace``), :func:`table1` (``e5_table1``), :func:`simulation`
(``e5_simulation``) and :func:`fig1` (``e5_fig1``). The study's logic is in :mod:`.mis_study`, its plots in
:mod:`.figures`.
"""

import time

import numpy as np
import pandas as pd

from isdp.convergence import load_draws, save_draws
from isdp.files import write_table, write_text
from isdp.lattice import check_release
from isdp_papers.claims import paper_value
from isdp_papers.e5_congenial_mis import mis_study as ms
from isdp_papers.jobs import Job
from isdp_papers.problems import Problem, read_table_csv

# Drawing steps import matplotlib (and their figures) when they run, so that a job that only
# computes does not pay that import at start-up (docs/performance.md, "Imports where they are used").


def problem(job: Job) -> None:
    """Write the confidential 2 × 23 sex-by-age table (FODS-20 Table 1 top) and its invariants (1)–(3).

    Params: ``voting_age_from``, ``index_complement``; input ``table``; output ``problem`` (JSON).
    """
    values, rows, cols = read_table_csv(job.input.table)
    prob = ms.sex_by_age_problem(values, rows, cols, job.params.voting_age_from, job.params.index_complement)
    job.log.info(
        "E5: %d cells, invariants %s = %s; I^c (0-based) %s",
        values.size,
        prob.constraint_labels,
        prob.invariants.tolist(),
        prob.meta["index_complement"],
    )
    prob.to_json(job.output.problem)


def acceptance(job: Job) -> None:
    """Fig 2 (FODS-20 App. C): the stationary MIS acceptance rate against the proposal parameter ε̃.

    At each ε̃ the chains start at exact draws of the target p* (:func:`.mis_study.acceptance_chains`), not
    at s*, so the rate over all their proposals is the stationary one (the table's ``start`` column says so).
    Params: ``eps``, ``acceptance`` (``grid``, ``n_chains``, ``n_iter``), ``seed``; inputs ``problem``,
    ``registry``; outputs ``table``, ``fig_pdf``, ``fig_png``.
    """
    import matplotlib.pyplot as plt

    from isdp_papers.e5_congenial_mis.figures import plot_acceptance
    from isdp_papers.plot_style import save_figure

    prob = Problem.from_json(job.input.problem)
    cfg = job.params.acceptance
    rows = []
    for eps_q in cfg["grid"]:
        tick = time.perf_counter()
        res, starts = ms.acceptance_chains(
            prob.A,
            prob.invariants,
            prob.x,
            prob.meta["index_set"],
            eps=job.params.eps,
            proposal_eps=eps_q,
            n_chains=cfg["n_chains"],
            n_iter=cfg["n_iter"],
            seed=job.seed(eps_q),
            start_seed=job.seed("start", eps_q),
        )
        rows.append(ms.acceptance_row(eps_q, res))
        job.log.info(
            "eps~ %.3f: acceptance %.5f (chains %s), infeasible %.3f; starts: %s, L1 to s* %s; %.1f s (chains %.1f s)",
            eps_q,
            res.acceptance.mean(),
            np.round(res.acceptance, 5).tolist(),
            res.infeasible.mean(),
            ms.ACCEPTANCE_START,
            np.abs(starts - prob.x).sum(axis=1).tolist(),
            time.perf_counter() - tick,
            res.seconds,
        )
    table = ms.mark_best(pd.DataFrame(rows))
    write_table(table, job.output.table)

    registry = str(job.input.registry)
    fig, ax = plt.subplots(figsize=(6, 4))
    plot_acceptance(
        table,
        paper_value("CDP-E5-best-proposal", registry),
        paper_value("CDP-E5-acceptance", registry),
        job.params.eps,
        cfg,
        ax,
    )
    save_figure(fig, job.output.fig_pdf, job.output.fig_png)


def trace(job: Job) -> None:
    """Fig 3 (FODS-20 App. C): MIS traces of cell 2 (in I) and cell 1 (not in I) at the chosen ε̃.

    One run per thinning: thin 1 is Algorithm 1's output at every iteration (n_draws draws =
    n_draws proposals); a larger thin keeps every thin-th state (about one accepted move per
    retained draw). The chains are certified first (:func:`.mis_study.certify_chains`, from s*),
    and their burn-in is max(``trace.burn_in``, t_cert · (1 + margin)); the certificate is in the
    table and the draws' attributes. Params: ``eps``, ``proposal_eps``, ``trace`` (``thins``,
    ``n_chains``, ``n_draws``, ``burn_in``), ``certificate``, ``seed``; input ``problem``; outputs ``draws``
    (one per thinning), ``table``, ``fig_pdf``, ``fig_png``.
    """
    import matplotlib.pyplot as plt

    from isdp_papers.e5_congenial_mis.figures import plot_trace
    from isdp_papers.plot_style import save_figure

    prob = Problem.from_json(job.input.problem)
    cfg = job.params.trace
    cells = ms.TRACE_CELLS
    assert cells[0] in prob.meta["index_set"] and cells[1] not in prob.meta["index_set"]
    rows = []
    fig, axes = plt.subplots(2, len(cfg["thins"]), figsize=(5.5 * len(cfg["thins"]), 5), squeeze=False, sharey="row")
    cert = ms.certify_chains(
        prob.A,
        prob.invariants,
        prob.x,
        prob.meta["index_set"],
        eps=job.params.eps,
        proposal_eps=job.params.proposal_eps,
        certificate=job.params.certificate,
        seed=job.seed("certificate"),
        label="E5 Fig 3 chains",
    )
    burn_in = cert.burn_in(cfg["burn_in"], job.params.certificate["margin"])
    job.log.info("%s (%.1f s)", cert.verdict(burn_in), cert.seconds)
    for j, (thin, out) in enumerate(zip(cfg["thins"], job.outputs("draws"), strict=True)):
        res = ms.run_mis(
            prob.A,
            prob.invariants,
            prob.x,
            prob.meta["index_set"],
            eps=job.params.eps,
            proposal_eps=job.params.proposal_eps,
            n_chains=cfg["n_chains"],
            n_draws=cfg["n_draws"],
            burn_in=burn_in,
            thin=thin,
            seed=job.seed(thin),
        )
        save_draws(
            out,
            res.draws,
            prob.cell_labels,
            {
                "what": "MIS states s (releases), not noise",
                "eps": res.epsilon,
                "proposal_eps": res.proposal_eps,
                "burn_in": res.burn_in,
                "thin": thin,
                "seed": res.seed,
                "acceptance": float(res.acceptance.mean()),
                **ms.certificate_columns(cert, burn_in),
            },
        )
        row, summary = ms.trace_row(res, prob.x, cfg, thin)
        rows.append({**row, **ms.certificate_columns(cert, burn_in)})
        job.log.info(
            "thin %d: acceptance %s, %.1f s, %s", thin, np.round(res.acceptance, 4).tolist(), res.seconds, summary
        )
        for i, cell in enumerate(cells):
            plot_trace(axes[i, j], res.draws, prob, cell, thin, first_column=j == 0)
    axes[0, 0].legend(fontsize=8)
    fig.suptitle(
        f"E5 Fig 3: MIS traces, {cfg['n_draws']:,} draws, ε = {job.params.eps}, "
        f"ε̃ = {job.params.proposal_eps} (chain 1 of {cfg['n_chains']})",
        fontsize=10,
    )
    fig.tight_layout()
    save_figure(fig, job.output.fig_pdf, job.output.fig_png)
    write_table(pd.DataFrame(rows), job.output.table)


def table1(job: Job) -> None:
    """Table 1 (FODS-20 §3).

    The confidential table and one constrained release (the last retained state of chain 1 of the most thinned trace
    run), with the invariant margins.

    Params: ``eps``, ``proposal_eps``; inputs ``problem``, ``draws``, ``paper_release``; outputs
    ``csv`` (with its MultiIndex) and ``md``.
    """
    prob = Problem.from_json(job.input.problem)
    # after burn-in, fixed by the base seed; every stored state integer with A s = A s*
    release = load_draws(job.input.draws, A=prob.A, invariants=prob.invariants)[0, -1]
    check_release(release, prob.A, prob.invariants, what="E5 Table 1 release")
    assert release.min() >= 0
    paper_release = read_table_csv(job.input.paper_release)[0].ravel()
    table = ms.table1(prob, release, paper_release)
    write_table(table, job.output.csv, index=True)
    write_text(
        ms.table1_markdown(table, prob, release, paper_release, job.params.eps, job.params.proposal_eps), job.output.md
    )
    job.log.info("release L1 distance %d", np.abs(release - prob.x).sum())


def simulation(job: Job) -> None:
    """Fig 1 (FODS-20 §3): simulated confidential tables, ``n_releases`` releases each by four methods.

    (a) raw DG ε = eps_raw; (b) (a) then NNL2 onto S* (1)-(4); (c) the MIS conditional mechanism
    (ε₀ = eps_mis, proposal ε̃); (d) raw DG ε = eps_mis. MIS chains start at the confidential
    table (Algorithm 1); per table, n_chains chains give R-hat/ESS (ArviZ), and the releases are
    evenly spaced among the stored states of all chains. Chains whose max split R-hat reaches
    e5.simulation.mis.r_hat_max run on by blocks of draws_per_chain draws; the step fails when a table's
    chains have not converged after e5.simulation.mis.max_blocks blocks, so no release comes from them.

    Each table's chains are certified first (:func:`.mis_study.simulate_table`).
    Params: ``simulation``, ``certificate``, ``proposal_eps``, ``methods``, ``seed``; input ``problem``; outputs
    ``distances``, ``convergence``, ``releases`` (npz).
    """
    prob = Problem.from_json(job.input.problem)
    cfg = job.params.simulation
    mis_cfg = cfg["mis"]
    A, d = prob.A, prob.x.size
    n_rel = cfg["n_releases"]
    stored = mis_cfg["n_chains"] * mis_cfg["draws_per_chain"]
    if stored % n_rel:
        raise ValueError(f"n_chains x draws_per_chain = {stored} must be a multiple of n_releases = {n_rel}")
    X = ms.simulated_tables(cfg, d, job.seed("tables"))
    methods = job.params.methods
    dist_rows, conv_rows = [], []
    releases = {m: np.zeros((cfg["n_tables"], n_rel, d)) for m in methods}
    for k, x in enumerate(X):
        rels, row, conv = ms.simulate_table(
            k,
            x,
            A,
            prob.meta["index_set"],
            cfg,
            job.params.proposal_eps,
            certificate=job.params.certificate,
            noise_seed=job.seed("noise", k),
            mis_seed=job.seed("mis", k),
            certificate_seed=job.seed("certificate", k),
        )
        conv_rows.append(row)
        job.log.info(
            "table %d (total %d): MIS acceptance %.4f, %s, %d block(s) of draws, %.1f s",
            k,
            x.sum(),
            row["acceptance"],
            conv,
            row["blocks"],
            row["seconds"],
        )
        ms.check_converged(k, conv, mis_cfg["r_hat_max"])
        for name, rel in zip(methods, rels, strict=True):
            releases[name][k] = rel
        dist_rows.extend(ms.distance_rows(k, methods, rels, x))
    write_table(pd.DataFrame(dist_rows), job.output.distances)
    write_table(pd.DataFrame(conv_rows), job.output.convergence)
    np.savez_compressed(job.output.releases, x=X, A=A, **{m: releases[m] for m in methods})


def fig1(job: Job) -> None:
    """Fig 1 (FODS-20 §3).

    Box plots over the tables of the average L1 and L2 distances per method, and their summary table.

    Params: ``methods``, ``labels``; input ``distances``; outputs ``table``, ``fig_pdf``, ``fig_png``.
    """
    import matplotlib.pyplot as plt

    from isdp_papers.e5_congenial_mis.figures import plot_distances
    from isdp_papers.plot_style import save_figure

    dist = pd.read_csv(job.input.distances)
    fig, axes = plt.subplots(2, 1, figsize=(7, 7), sharex=True)
    plot_distances(dist, job.params.methods, job.params.labels, axes)
    save_figure(fig, job.output.fig_pdf, job.output.fig_png)
    write_table(ms.distance_summary(dist, job.params.methods, job.params.labels), job.output.table)
