"""E5 Fig 1 (FODS-20 §3): 20 simulated confidential tables, 100 releases each by four methods.

(a) raw DG ε = eps_raw; (b) (a) then NNL2 onto S* (1)-(4); (c) the MIS conditional mechanism
(ε₀ = eps_mis, proposal ε̃); (d) raw DG ε = eps_mis. MIS chains start at the confidential
table (Algorithm 1); per table, n_chains chains give R-hat/ESS (ArviZ), and the releases are
evenly spaced among the stored states of all chains. The step fails when a table's chains have
not converged (max split R-hat ≥ e5.simulation.mis.r_hat_max), so no release comes from them.
"""
import numpy as np
import pandas as pd

from isdp import check_release, convergence_table, derive_seed, mis_sample, summarize_convergence
from isdp.baselines import nnl2_projection
from isdp.distributions import dg_rvs
from isdp.experiments.jobs import start
from isdp.experiments.problems import Problem
from isdp.mis import release_distances

log = start(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
problem = Problem.from_json(smk.input.problem)
cfg = smk.params.simulation
mis_cfg = cfg["mis"]
A, d = problem.A, problem.x.size
n_rel = cfg["n_releases"]
stored = mis_cfg["n_chains"] * mis_cfg["draws_per_chain"]
if stored % n_rel:
    raise ValueError(f"n_chains x draws_per_chain = {stored} must be a multiple of n_releases = {n_rel}")
table_rng = np.random.default_rng(derive_seed(*smk.params.seed, "tables"))
X = table_rng.negative_binomial(cfg["nb_n"], cfg["nb_p"], size=(cfg["n_tables"], d)).astype(np.int64)
methods = smk.params.methods
dist_rows, conv_rows = [], []
releases = {m: np.zeros((cfg["n_tables"], n_rel, d)) for m in methods}
for k, x in enumerate(X):
    a = A @ x
    rng = np.random.default_rng(derive_seed(*smk.params.seed, "noise", k))
    raw_a = x + dg_rvs(np.exp(-cfg["eps_raw"]), (n_rel, d), rng)
    raw_d = x + dg_rvs(np.exp(-cfg["eps_mis"]), (n_rel, d), rng)
    nnl2 = np.array([nnl2_projection(m, A, a) for m in raw_a])
    assert np.allclose(nnl2 @ A.T, a, atol=1e-6) and nnl2.min() >= 0
    res = mis_sample(A, a, x, eps=cfg["eps_mis"], proposal_eps=smk.params.proposal_eps,
                     index_set=problem.meta["index_set"], n_chains=mis_cfg["n_chains"],
                     n_draws=mis_cfg["draws_per_chain"], burn_in=mis_cfg["burn_in"], thin=mis_cfg["thin"],
                     B=np.eye(d), b=np.zeros(d), seed=derive_seed(*smk.params.seed, "mis", k))
    check_release(res.draws, A, a, what=f"E5 Fig 1 MIS draws, table {k}")
    assert res.draws.min() >= 0
    conv = summarize_convergence(convergence_table(res.draws - x))
    mis = res.draws.reshape(-1, d)[:: stored // n_rel]  # evenly spaced over all chains
    conv_rows.append({"table": k, "n_chains": mis_cfg["n_chains"], "draws_per_chain": mis_cfg["draws_per_chain"],
                      "thin": mis_cfg["thin"], "burn_in": mis_cfg["burn_in"],
                      "acceptance": float(res.acceptance.mean()), **conv, "seconds": res.seconds})
    log.info("table %d (total %d): MIS acceptance %.4f, %s, %.1f s", k, x.sum(), res.acceptance.mean(), conv,
             res.seconds)
    if not conv["max_r_hat"] < mis_cfg["r_hat_max"]:
        raise RuntimeError(f"E5 Fig 1, table {k}: MIS chains not converged (max R-hat {conv['max_r_hat']:.4f} >= "
                           f"e5.simulation.mis.r_hat_max = {mis_cfg['r_hat_max']}); raise burn_in, draws_per_chain "
                           "or thin")
    for name, rel in zip(methods, (raw_a, nnl2, mis, raw_d), strict=True):
        releases[name][k] = rel
        l1, l2 = release_distances(rel, x)
        dist_rows.append({"table": k, "method": name, "avg_l1": l1.mean(), "avg_l2": l2.mean(),
                          "n_releases": len(rel)})
pd.DataFrame(dist_rows).to_csv(smk.output.distances, index=False, lineterminator="\n")
pd.DataFrame(conv_rows).to_csv(smk.output.convergence, index=False, lineterminator="\n")
np.savez_compressed(smk.output.releases, x=X, A=A, **{m: releases[m] for m in methods})
