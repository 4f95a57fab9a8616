"""The steps E1 and E2 share (ISDP §5, App. E.2–E.3).

What the rules in ``workflow/rules/lattice.smk`` call (``lattice_pilot`` → :func:`pilot`, ``lattice_proposals`` →
:func:`proposals`, ``lattice_coupling`` → :func:`coupling`, ``lattice_draws`` → :func:`draws`, ``lattice_unbiasedness``
→ :func:`unbiasedness`, ``lattice_boxplots`` → :func:`boxplots`, ``lattice_certificate`` → :func:`certificate`), and
``e1_tv`` / ``e2_tv`` in ``e1.smk`` / ``e2.smk`` → :func:`tv_bounds`. Each runs for one experiment (wildcard ``exp``)
and, where it has one, one target (wildcard ``norm``: ``l1`` or ``l2``).
"""

import json
from pathlib import Path

import pandas as pd

from isdp.convergence import load_draws, save_draws
from isdp.files import write_json, write_table
from isdp.lattice import IntegerLattice, generalized_laplace
from isdp.mcmc import tune_proposal
from isdp_papers.jobs import Job
from isdp_papers.lattice_study.studies import (
    convergence_by_lag,
    coupling_study,
    proposals_table,
    retained_draws,
    tv_curves,
)
from isdp_papers.problems import Problem
from isdp_papers.unbiasedness import unbiasedness_table

# Drawing steps import matplotlib (and their figures) when they run, so that a job that only
# computes does not pay that import at start-up (docs/performance.md, "Imports where they are used").


def pilot(job: Job) -> None:
    """Pilot runs over a grid of proposal ε for one target: acceptance and MSJD per value.

    Params: ``eps``, ``pilot`` (``grid``, ``n_chains``, ``n_iter``, ``acceptance_range``), ``seed``;
    wildcard ``norm``; input ``problem``; output ``table``.
    """
    cfg = job.params.pilot
    problem = Problem.from_json(job.input.problem)
    target = generalized_laplace(job.params.eps, job.wildcards.norm)
    table, chosen = tune_proposal(
        problem.lattice(),
        target,
        cfg["grid"],
        n_chains=cfg["n_chains"],
        n_iter=cfg["n_iter"],
        seed=job.seed(),
        acceptance_range=tuple(cfg["acceptance_range"]),
    )
    table.insert(0, "target", job.wildcards.norm)
    job.log.info("%s pilot: chosen proposal eps %g\n%s", target.label, chosen, table.to_string())
    write_table(table, job.output.table)


def proposals(job: Job) -> None:
    """Tuned proposal parameters: the configured value per target beside the pilot's choice.

    Params: ``norms``, ``targets`` (per norm: ``proposal_eps``, ``lags``), ``acceptance_range``;
    input ``pilots`` (one pilot table per norm); output ``table``.
    """
    lo, hi = job.params.acceptance_range
    table = proposals_table(
        [pd.read_csv(path) for path in job.input.pilots],
        job.params.norms,
        job.params.targets,
        job.params.acceptance_range,
    )
    for row in table.itertuples():
        if not row.in_acceptance_range:
            job.log.warning(
                "%s: configured proposal eps %g has pilot acceptance %s, outside [%g, %g]",
                row.target,
                row.proposal_eps,
                row.pilot_acceptance_at_configured,
                lo,
                hi,
            )
    write_table(table, job.output.table)


def coupling(job: Job) -> None:
    """L-lag coupling meeting times for one target at each configured lag.

    Params: ``eps``, ``target`` (``lags``, ``proposal_eps``), ``coupling`` (``n_pairs``, ``max_iter``),
    ``seed``; wildcard ``norm``; input ``problem``; output ``meetings``.
    """
    problem = Problem.from_json(job.input.problem)
    target = generalized_laplace(job.params.eps, job.wildcards.norm)
    cfg = job.params.coupling
    meetings = coupling_study(
        problem.lattice(),
        target,
        lags=job.params.target["lags"],
        n_pairs=cfg["n_pairs"],
        proposal_eps=job.params.target["proposal_eps"],
        seed=job.seed(),
        max_iter=cfg["max_iter"],
    )
    meetings.insert(0, "target", job.wildcards.norm)
    write_table(meetings, job.output.meetings)


def tv_bounds(job: Job) -> None:
    """TV upper bound curves from the meeting times, the convergence table and the TV figure(s).

    One output figure gets a panel per target; one figure per target otherwise (E2: Fig 1 and Fig 6).
    Next to the paper's estimated curves each panel shows the 95 % upper confidence bound of that
    target's certificate (input ``certificates``, one JSON per norm from :func:`certificate`).
    Params: ``norms``, ``eps``, ``threshold``, ``title``; inputs ``meetings`` and ``certificates``
    (one file per norm); outputs ``curves``, ``table``, ``fig_pdf`` and ``fig_png`` (one path, or one
    per norm).
    """
    import matplotlib.pyplot as plt

    from isdp_papers.lattice_study.figures import plot_tv_bounds
    from isdp_papers.plot_style import NORM_LABELS, save_figure

    threshold = job.params.threshold
    norms = job.params.norms
    pdfs, pngs = job.outputs("fig_pdf"), job.outputs("fig_png")
    panels = len(pdfs) == 1
    if panels:
        fig, axes = plt.subplots(1, len(norms), figsize=(6 * len(norms), 4.2), squeeze=False)
        axes = list(axes[0])
    else:
        figs, axes = zip(*(plt.subplots(figsize=(6.5, 4.2)) for _ in norms), strict=True)
    curves, tables = [], []
    for i, (ax, norm, path, cert_path) in enumerate(
        zip(axes, norms, job.input.meetings, job.input.certificates, strict=True)
    ):
        meetings = pd.read_csv(path)
        table = convergence_by_lag(meetings, threshold)
        table.insert(0, "target", norm)
        c = tv_curves(meetings)
        c.insert(0, "target", norm)
        curves.append(c)
        tables.append(table)
        cert = json.loads(Path(cert_path).read_text())
        t_max = int(max(table["converged_at"].max(), cert["summary"]["t_cert"]) * 1.3) + 10
        plot_tv_bounds(
            c,
            ax,
            title=f"{job.params.title}: {NORM_LABELS[norm]}, ε = {job.params.eps:g}",
            threshold=threshold,
            t_max=t_max,
            converged=dict(zip(table["lag"], table["converged_at"], strict=True)),
            certificate=cert,
        )
        job.log.info("%s convergence by lag:\n%s", norm, table.to_string())
        if not panels:
            save_figure(figs[i], pdfs[i], pngs[i])
    if panels:
        save_figure(fig, pdfs[0], pngs[0])
    write_table(pd.concat(curves), job.output.curves)
    write_table(pd.concat(tables), job.output.table)


#: where every chain of E1's and E2's draws starts, and so X of every certificate pair (``sample``'s default)
CHAIN_START = "u = 0"


def _chain(lattice, target, proposal_eps: float) -> dict:
    """Return what a certificate certifies.

    The chain its pairs run, as the draws' chains run it (the paper's sweep on the lattice's basis,
    :data:`CHAIN_START`), recorded in its file and checked by :func:`draws` before it is used.
    """
    return {
        "sampler": "isdp.mcmc.sample (Metropolis sweep, Algorithm 1)",
        "basis": lattice.basis_name,
        "target": target.label,
        "proposal_eps": float(proposal_eps),
        "start": CHAIN_START,
    }


def certificate(job: Job) -> None:
    """Certify one target's chain (:func:`isdp.convergence.certify_searching_lag`).

    ``coupling.certificate_pairs`` pairs from u = 0, where the chains start (docs/method.md §4). Fails
    (:class:`isdp.errors.CertificationError`) when the chain cannot be certified.

    Params: ``eps``, ``target`` (``proposal_eps``), ``coupling`` (``certificate_pairs``,
    ``tv_threshold``, ``max_iter``), ``seed``; wildcard ``norm``; input ``problem``; output
    ``certificate`` (JSON: :meth:`isdp.convergence.Certificate.to_dict`, the chain it certifies (``chain``:
    sampler, basis,
    target, proposal ε, start, seed), its summary, and its 95 % bound and point estimate on a grid of iterations
    for the TV figure).
    """
    import numpy as np

    from isdp.convergence import certify_searching_lag

    problem = Problem.from_json(job.input.problem)
    coupling = job.params.coupling
    target = generalized_laplace(job.params.eps, job.wildcards.norm)
    lattice = problem.lattice()
    chain = _chain(lattice, target, job.params.target["proposal_eps"])
    cert = certify_searching_lag(
        lattice,
        target,
        proposal_eps=chain["proposal_eps"],
        start=None,
        n_pairs=coupling["certificate_pairs"],
        seed=job.seed("certificate"),
        threshold=coupling["tv_threshold"],
        max_iter=coupling["max_iter"],
    ).require()
    t = np.unique(np.linspace(0, 2 * cert.t_cert, 200).astype(np.int64))
    write_json(
        {
            **cert.to_dict(),
            "chain": {**chain, "seed": job.seed("certificate")},
            "summary": cert.summary(),
            "curve_t": t.tolist(),
            "curve_bound": cert.bound(t).tolist(),
            "curve_estimate": cert.estimate(t).tolist(),
        },
        job.output.certificate,
    )
    job.log.info("%s: %s (%.1f s)", target.label, cert.status, cert.seconds)


def draws(job: Job) -> None:
    """Post-convergence draws for one target, from a certified burn-in.

    The burn-in is the later of the paper's reading — the slowest lag's convergence iteration, where
    the *estimated* TV bound drops below the threshold — and the certificate's t_cert (input
    ``certificate``, from :func:`certificate`), so the 95 % bound at the burn-in is at most the
    threshold. Params: ``eps``, ``target`` (``proposal_eps``), ``draws`` (``n_draws``, ``n_chains``,
    ``thin``), ``seed``; wildcard ``norm``; inputs ``problem``, ``convergence``, ``certificate``;
    outputs ``draws`` (NetCDF) and ``ess`` (the convergence diagnostics per cell, with the
    certificate's ``certificate_*`` columns).
    """
    from isdp.convergence import Certificate

    norm = job.wildcards.norm
    problem = Problem.from_json(job.input.problem)
    convergence = pd.read_csv(job.input.convergence)
    estimated = int(convergence.loc[convergence["target"] == norm, "converged_at"].max())
    cfg = job.params.draws
    target = generalized_laplace(job.params.eps, norm)
    lattice, proposal_eps = problem.lattice(), job.params.target["proposal_eps"]
    record = json.loads(Path(job.input.certificate).read_text())
    expected = _chain(lattice, target, proposal_eps)
    recorded = {k: record.get("chain", {}).get(k) for k in expected}
    if recorded != expected:  # a certificate of another chain certifies nothing about these draws
        raise ValueError(f"{job.input.certificate} certifies the chain {recorded}, not the draws' {expected}")
    cert = Certificate.from_dict(record)
    burn_in = max(estimated, cert.burn_in())
    columns = {f"certificate_{k}": v for k, v in cert.summary(burn_in=burn_in).items()}
    job.log.info("%s: %s; the estimate's crossing %d", target.label, cert.verdict(burn_in), estimated)
    res, table, worst = retained_draws(
        lattice,
        target,
        n_draws=cfg["n_draws"],
        n_chains=cfg["n_chains"],
        burn_in=burn_in,
        thin=cfg["thin"],
        proposal_eps=proposal_eps,
        seed=job.seed(),
        invariants_A=problem.A,
        label=norm,
    )
    job.log.info(
        "%s: burn-in %d, thin %d, acceptance %s, %s",
        target.label,
        burn_in,
        cfg["thin"],
        res.acceptance.round(3).tolist(),
        worst,
    )
    save_draws(
        job.output.draws,
        res.draws,
        problem.cell_labels,
        {
            "target": target.label,
            "burn_in": burn_in,
            "thin": cfg["thin"],
            "seed": res.seed,
            "proposal_eps": res.proposal_eps,
            **columns,
        },
    )
    table.insert(0, "target", norm)
    table["burn_in"] = burn_in
    table["thin"] = cfg["thin"]
    table["acceptance"] = float(res.acceptance.mean())
    for k, v in columns.items():
        table[k] = v
    write_table(table, job.output.ess)


def _target_draws(job: Job, problem: Problem, norm: str, path):
    """Return the ``norm`` target's stored draws, refused naming the file unless they are as configured.

    They must be integer, on Λ(A) and of the target this experiment configures (:func:`isdp.convergence.load_draws`).
    """
    return load_draws(path, A=problem.A, target=generalized_laplace(job.config[job.wildcards.exp]["eps"], norm).label)


def unbiasedness(job: Job) -> None:
    """Mean noise per cell and target with its Monte Carlo standard error (the unbiasedness table).

    Params: ``norms``; inputs ``problem``, ``draws`` and ``ess`` (one file per norm each); output
    ``unbiasedness``.
    """
    problem = Problem.from_json(job.input.problem)
    fixed = ~IntegerLattice.from_constraints(problem.A).basis.any(axis=1)  # cells no lattice vector moves
    tables = []
    for norm, path, ess_path in zip(job.params.norms, job.input.draws, job.input.ess, strict=True):
        ess = pd.read_csv(ess_path)["ess_bulk"].to_numpy()
        table = unbiasedness_table(_target_draws(job, problem, norm, path), ess, problem.cell_labels, fixed)
        table.insert(0, "target", norm)
        tables.append(table)
    write_table(pd.concat(tables), job.output.unbiasedness)


def boxplots(job: Job) -> None:
    """Per-cell box plots of the retained draws for every target (ISDP Figs 5 and 7).

    Params: ``norms``; inputs ``problem``, ``draws`` (one file per norm); outputs ``fig_pdf``, ``fig_png``.
    """
    import matplotlib.pyplot as plt

    from isdp_papers.lattice_study.figures import plot_noise_boxplots
    from isdp_papers.plot_style import save_figure

    problem = Problem.from_json(job.input.problem)
    by_norm = {
        norm: _target_draws(job, problem, norm, path)
        for norm, path in zip(job.params.norms, job.input.draws, strict=True)
    }
    n = sum(d.shape[0] * d.shape[1] for d in by_norm.values()) // len(by_norm)
    fig, ax = plt.subplots(figsize=(max(8, 0.6 * len(problem.cell_labels)), 4.5))
    plot_noise_boxplots(by_norm, problem.cell_labels, ax)
    ax.set_title(f"{problem.name.upper()}: {n} noise draws per cell after convergence")
    save_figure(fig, job.output.fig_pdf, job.output.fig_png)
