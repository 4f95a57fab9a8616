"""E5's study (Congenial DP §3 Table 1, Fig 1; App. C Figs 2–3).

The sex × age problem, MIS runs under non-negativity, and the tables built from them. The steps in :mod:`.steps` wire
these to files.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from isdp.baselines import nnl2_projection
from isdp.convergence import Certificate, certify_mis, convergence_table, summarize_convergence
from isdp.errors import CertificationError
from isdp.lattice import check_release
from isdp.mcmc import DoubleGeometric, mis_exact_sample, mis_sample
from isdp_papers.e5_congenial_mis.problem import sex_by_age_constraints
from isdp_papers.problems import Problem, index_set_from_complement

TRACE_CELLS = (1, 0)
"""The cells of the Fig 3 traces: the paper's cells 2 and 1 (0-based), the first in I, the second not."""


def sex_by_age_problem(values: np.ndarray, rows, cols, voting_age_from: str, index_complement) -> Problem:
    """Return the E5 problem of a 2 × k sex × age table.

    Invariants (1)–(3) and the proposal index set I given by its complement I^c (as many indices as equality
    constraints).
    """
    A, labels = sex_by_age_constraints(rows, cols, voting_age_from)
    n = values.size
    index_set, complement = index_set_from_complement(index_complement, n, key="e5.index_complement")
    if len(complement) != A.shape[0]:
        raise ValueError(f"e5.index_complement: {len(complement)} indices for {A.shape[0]} equality constraints")
    problem = Problem(
        "e5",
        A,
        values.ravel(),
        tuple(f"{r}|{c}" for r in rows for c in cols),
        labels,
        {
            "rows": rows,
            "cols": cols,
            "index_set": index_set,
            "index_complement": complement,
            "voting_age_from": voting_age_from,
        },
    )
    assert np.linalg.matrix_rank(A) == A.shape[0]
    return problem


def run_mis(A, a, x, index_set, *, eps: float, proposal_eps: float, seed: int, **sizes):
    """MIS chains (FODS-20 Algorithm 1) centred on ``x`` under ``A s = a`` and s ≥ 0.

    ``sizes`` are ``mis_sample``'s ``n_chains``, ``n_draws``, ``burn_in``, ``thin`` and ``init`` (default: every chain
    starts at ``x``, as Algorithm 1).
    """
    d = len(x)
    return mis_sample(
        A,
        a,
        x,
        epsilon=eps,
        proposal_eps=proposal_eps,
        index_set=index_set,
        **sizes,
        B=np.eye(d),
        b=np.zeros(d),
        seed=seed,
    )


ACCEPTANCE_START = "exact draws of p*"
"""How the Fig 2 chains start (the ``start`` column of the acceptance table, read by its figure and measures)."""


def exact_starts(A, a, x, index_set, *, eps: float, n_chains: int, seed: int) -> np.ndarray:
    """``n_chains`` independent exact draws (n_chains × d) of the MIS target p*.

    DG(ε) per cell centred on ``x``, restricted to ``A s = a`` and s ≥ 0 — by :func:`isdp.mcmc.mis_exact_sample`
    (rejection from the MIS proposal at ε̃ = ε). p* does not depend on the proposal's ε̃, so the same law starts a chain
    at any ε̃.
    """
    d = len(x)
    return mis_exact_sample(
        A, a, x, epsilon=eps, index_set=index_set, size=n_chains, seed=seed, B=np.eye(d), b=np.zeros(d)
    )


def acceptance_chains(
    A, a, x, index_set, *, eps: float, proposal_eps: float, n_chains: int, n_iter: int, seed: int, start_seed: int
):
    """Fig 2's chains at one ε̃.

    ``n_chains`` MIS chains of ``n_iter`` proposals each, each started at its own exact draw of the target
    (:func:`exact_starts`, seed ``start_seed``). p* is stationary for the MIS, so every state of such a chain — its
    first included — has law p*, and the share of accepted proposals estimates the stationary acceptance rate without a
    burn-in or a certificate. (A chain started at s*, the point of largest importance weight p/q when ε̃ < ε, rarely
    leaves it, which depresses the rate there.) Returns (the :class:`isdp.mcmc.MISResult`, the starts).
    """
    starts = exact_starts(A, a, x, index_set, eps=eps, n_chains=n_chains, seed=start_seed)
    res = run_mis(
        A,
        a,
        x,
        index_set,
        eps=eps,
        proposal_eps=proposal_eps,
        n_chains=n_chains,
        n_draws=0,
        burn_in=n_iter,
        init=starts,
        seed=seed,
    )
    return res, starts


def certify_chains(
    A, a, x, index_set, *, eps: float, proposal_eps: float, certificate: Mapping, seed: int, label: str
) -> Certificate:
    """Certify the MIS chains of :func:`run_mis` from their start (:func:`isdp.convergence.certify_mis`).

    The chains start from the confidential ``x`` and are compared with exact draws of the target; ``certificate`` is the
    config block (``pairs``, ``threshold``, ``max_iter``). Raises :class:`isdp.errors.CertificationError` naming
    ``label`` when it certifies nothing.
    """
    d = len(x)
    cert = certify_mis(
        A,
        a,
        x,
        epsilon=eps,
        proposal_eps=proposal_eps,
        index_set=index_set,
        n_pairs=int(certificate["pairs"]),
        threshold=float(certificate["threshold"]),
        max_iter=int(certificate["max_iter"]),
        B=np.eye(d),
        b=np.zeros(d),
        seed=seed,
    )
    if not cert.certified:
        raise CertificationError(f"{label}: {cert.status}; raise e5.certificate.pairs or max_iter")
    return cert


def certificate_columns(cert: Certificate, burn_in: int) -> dict:
    """Return a certificate's scalars at the burn-in used as ``certificate_*`` columns or attributes.

    Columns of tables, attributes of netCDF files.
    """
    return {f"certificate_{k}": v for k, v in cert.summary(burn_in=burn_in).items()}


def acceptance_row(proposal_eps: float, res, start: str = ACCEPTANCE_START) -> dict:
    """One row of the Fig 2 table.

    The mean acceptance rate over chains with its SE (spread of the chains) and how the chains started (``start``).
    """
    acc = res.acceptance
    return {
        "proposal_eps": proposal_eps,
        "acceptance": acc.mean(),
        "se": acc.std(ddof=1) / np.sqrt(len(acc)) if len(acc) > 1 else np.nan,
        "infeasible": res.infeasible.mean(),
        "n_chains": len(acc),
        "proposals_per_chain": res.n_iterations,
        "start": start,
        "seconds": res.seconds,
    }


def mark_best(table: pd.DataFrame) -> pd.DataFrame:
    """Return the acceptance table with a ``best`` column: the ε̃ of the highest rate."""
    table["best"] = table["acceptance"] == table["acceptance"].max()
    return table


def trace_row(res, x: np.ndarray, cfg: Mapping, thin: int) -> tuple[dict, dict]:
    """Diagnostics of one Fig 3 run (thinning ``thin``).

    Convergence of the errors s − x and the share of retained draws that changed. Returns (the row, the convergence
    summary).
    """
    summary = summarize_convergence(convergence_table(res.draws - x))
    moves = (np.diff(res.draws, axis=1) != 0).any(axis=2).mean()
    row = {
        "thin": thin,
        "n_chains": cfg["n_chains"],
        "n_draws": cfg["n_draws"],
        "burn_in": res.burn_in,
        "proposals_per_chain": res.n_iterations,
        "acceptance": float(res.acceptance.mean()),
        "share_draws_changed": float(moves),
        **summary,
        "seconds": res.seconds,
    }
    return row, summary


def _block(name: str, s, rows, cols, first_voting: int) -> pd.DataFrame:
    """One table of Table 1 with its margins: totals, under-18 and voting-age sums."""
    t = pd.DataFrame(np.asarray(s).reshape(2, -1), index=rows, columns=cols)
    t.loc["Total"] = t.sum(axis=0)
    t["Total"] = t.sum(axis=1)
    t["under 18"] = t[cols[:first_voting]].sum(axis=1)
    t["voting age"] = t[cols[first_voting:]].sum(axis=1)
    t.index = pd.MultiIndex.from_product([[name], t.index], names=["table", "sex"])
    return t


def table1(problem: Problem, release: np.ndarray, paper_release: np.ndarray) -> pd.DataFrame:
    """Table 1: the confidential table, this run's release and the paper's, each with its margins.

    Asserts that the invariant margins agree exactly in every block.
    """
    rows, cols = problem.meta["rows"], problem.meta["cols"]
    first_voting = cols.index(problem.meta["voting_age_from"])
    table = pd.concat(
        [
            _block("confidential", problem.x, rows, cols, first_voting),
            _block("release (this run)", release, rows, cols, first_voting),
            _block("release (paper)", paper_release, rows, cols, first_voting),
        ]
    )
    for name in table.index.get_level_values(0).unique():
        t = table.loc[name]
        assert t.loc[rows[0], "Total"] == problem.invariants[1] and t.loc["Total", "Total"] == problem.invariants[0]
        assert t.loc["Total", "voting age"] == problem.invariants[2]
    return table


def table1_markdown(
    table: pd.DataFrame,
    problem: Problem,
    release: np.ndarray,
    paper_release: np.ndarray,
    eps: float,
    proposal_eps: float,
) -> str:
    """Return Table 1 as Markdown, the invariants in bold as the paper prints them.

    With the L1 distances of both releases to the confidential table.
    """
    rows = problem.meta["rows"]
    md = table.astype(str)
    for name in md.index.get_level_values(0).unique():
        for r, c in (
            (rows[0], "Total"),
            (rows[1], "Total"),
            ("Total", "Total"),
            ("Total", "under 18"),
            ("Total", "voting age"),
        ):
            md.loc[(name, r), c] = f"**{md.loc[(name, r), c]}**"
    dist = np.abs(release - problem.x).sum()
    return (
        "Table 1 (FODS-20 §3): confidential sex × age table and constrained releases "
        f"(ε = {eps}, ε̃ = {proposal_eps}); invariants in bold\n\n"
        + md.reset_index().to_markdown(index=False)
        + "\n\n"
        + f"L1 distance to the confidential table: this run {int(dist)}, "
        f"paper {int(np.abs(paper_release - problem.x).sum())}\n"
    )


def simulated_tables(cfg: Mapping, d: int, seed: int) -> np.ndarray:
    """Return the Fig 1 confidential tables: ``n_tables`` rows of ``d`` negative binomial cells."""
    rng = np.random.default_rng(seed)
    return rng.negative_binomial(cfg["nb_n"], cfg["nb_p"], size=(cfg["n_tables"], d)).astype(np.int64)


def simulate_table(
    k: int,
    x: np.ndarray,
    A: np.ndarray,
    index_set,
    cfg: Mapping,
    proposal_eps: float,
    *,
    certificate: Mapping,
    noise_seed: int,
    mis_seed: int,
    certificate_seed: int,
) -> tuple[tuple[np.ndarray, ...], dict, dict]:
    """Fig 1's four releases of table ``k`` (``n_releases`` each).

    (a) raw DG at ``eps_raw``, (b) (a) then NNL2 onto S*, (c) MIS at ``eps_mis`` (evenly spaced over the stored states
    of all chains), (d) raw DG at ``eps_mis``. The MIS chains are certified first (:func:`certify_chains`); their
    burn-in is max(``mis.burn_in``, t_cert · (1 + ``certificate["margin"]``)). While their max split R-hat reaches
    ``mis.r_hat_max`` they run on, a block of ``draws_per_chain`` draws at a time, at most ``mis.max_blocks`` blocks
    (the row's ``blocks``). Returns the releases in that order, the MIS convergence row of the table (with the
    certificate) and its convergence summary (R-hat/ESS by ArviZ).
    """
    mis_cfg = cfg["mis"]
    n_rel, d = cfg["n_releases"], x.size
    stored = mis_cfg["n_chains"] * mis_cfg["draws_per_chain"]
    a = A @ x
    rng = np.random.default_rng(noise_seed)
    raw_a = x + DoubleGeometric(cfg["eps_raw"]).rvs((n_rel, d), rng)
    raw_d = x + DoubleGeometric(cfg["eps_mis"]).rvs((n_rel, d), rng)
    nnl2 = np.array([nnl2_projection(m, A, a) for m in raw_a])
    assert np.allclose(nnl2 @ A.T, a, atol=1e-6) and nnl2.min() >= 0
    cert = certify_chains(
        A,
        a,
        x,
        index_set,
        eps=cfg["eps_mis"],
        proposal_eps=proposal_eps,
        certificate=certificate,
        seed=certificate_seed,
        label=f"E5 Fig 1, table {k}",
    )
    burn_in = cert.burn_in(mis_cfg["burn_in"], certificate["margin"])
    sizes = {"n_chains": mis_cfg["n_chains"], "n_draws": mis_cfg["draws_per_chain"], "thin": mis_cfg["thin"]}
    law = {"eps": cfg["eps_mis"], "proposal_eps": proposal_eps}
    blocks = [run_mis(A, a, x, index_set, **law, **sizes, burn_in=burn_in, seed=mis_seed)]
    conv = summarize_convergence(convergence_table(blocks[0].draws - x))
    # a sticky table's chains run on, each block from where the last ended on a stream of its own, until R-hat
    # passes or max_blocks are drawn (check_converged then fails the step)
    while not conv["max_r_hat"] < mis_cfg["r_hat_max"] and len(blocks) < mis_cfg["max_blocks"]:
        seed = int(np.random.SeedSequence([mis_seed, len(blocks)]).generate_state(1, np.uint64)[0] >> np.uint64(1))
        blocks.append(run_mis(A, a, x, index_set, **law, **sizes, init=blocks[-1].final_state, seed=seed))
        conv = summarize_convergence(convergence_table(np.concatenate([b.draws for b in blocks], axis=1) - x))
    draws = np.concatenate([b.draws for b in blocks], axis=1)
    check_release(draws, A, a, what=f"E5 Fig 1 MIS draws, table {k}")
    assert draws.min() >= 0
    mis = draws.reshape(-1, d)[:: stored * len(blocks) // n_rel]  # evenly spaced over all chains
    row = {
        "table": k,
        "n_chains": mis_cfg["n_chains"],
        "draws_per_chain": mis_cfg["draws_per_chain"],
        "blocks": len(blocks),
        "thin": mis_cfg["thin"],
        "burn_in": burn_in,
        "acceptance": float(np.mean([b.acceptance.mean() for b in blocks])),
        **conv,
        "seconds": sum(b.seconds for b in blocks),
        **certificate_columns(cert, burn_in),
    }
    return (raw_a, nnl2, mis, raw_d), row, conv


def check_converged(k: int, conv: Mapping, r_hat_max: float) -> None:
    """RuntimeError when table ``k``'s MIS chains have not converged (max split R-hat ≥ ``r_hat_max``)."""
    if not conv["max_r_hat"] < r_hat_max:
        raise RuntimeError(
            f"E5 Fig 1, table {k}: MIS chains not converged (max R-hat {conv['max_r_hat']:.4f} >= "
            f"e5.simulation.mis.r_hat_max = {r_hat_max} after e5.simulation.mis.max_blocks blocks); raise burn_in, "
            "draws_per_chain, thin or max_blocks"
        )


def release_distances(releases, x) -> tuple[np.ndarray, np.ndarray]:
    """FODS-20 (3.1): L1 and L2 distances of each release (…, d) from the confidential ``x``."""
    diff = np.asarray(releases, dtype=float) - np.asarray(x, dtype=float)
    return np.abs(diff).sum(axis=-1), np.sqrt((diff**2).sum(axis=-1))


def distance_rows(k: int, methods: Sequence[str], releases: Sequence[np.ndarray], x: np.ndarray) -> list[dict]:
    """Average L1 and L2 distance to ``x`` of each method's releases of table ``k``."""
    rows = []
    for name, rel in zip(methods, releases, strict=True):
        l1, l2 = release_distances(rel, x)
        rows.append({"table": k, "method": name, "avg_l1": l1.mean(), "avg_l2": l2.mean(), "n_releases": len(rel)})
    return rows


def distance_summary(dist: pd.DataFrame, methods: Sequence[str], labels: Mapping[str, str]) -> pd.DataFrame:
    """Median, mean, min and max over the tables of each method's average L1 and L2 distances (Fig 1)."""
    summary = dist.groupby("method")[["avg_l1", "avg_l2"]].agg(["median", "mean", "min", "max"])
    summary.columns = [f"{a}_{b}" for a, b in summary.columns]
    summary = summary.loc[methods].reset_index()
    summary.insert(1, "label", summary["method"].map(labels))
    return summary
