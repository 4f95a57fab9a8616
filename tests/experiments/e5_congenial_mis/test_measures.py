"""Tests of :mod:`isdp_papers.e5_congenial_mis.measures`: the measures of E5's registry rows (Congenial DP §1.2's
sensitivity, §2.3's raw double geometric noise, rejection sampler and Algorithm 1, §3's table against SF1's P12, the
MIS releases against the exact conditional law, the best proposal ε, §2.2's constrained posterior against record-level
enumeration, §3's effective γ after Fig 1 against the exact raw L1), each against an independent computation, and
each row's status both ways (it can match and it can differ)."""

from __future__ import annotations

import itertools
import types

import numpy as np
import pandas as pd
import pytest
from census_support import A6, CONFIG
from census_support import results_run as _run
from conftest import REGISTRY, ROOT, row_verdict
from criteria_support import judge
from isdp_papers import claims
from isdp_papers.e5_congenial_mis import measures as e5
from isdp_papers.e5_congenial_mis import small_lattice as sl
from isdp_papers.e5_congenial_mis.measures import best_proposal_steps
from isdp_papers.e5_congenial_mis.mis_study import sex_by_age_problem
from isdp_papers.evidence import Run

import isdp.mcmc
from isdp.mcmc import DoubleGeometric, mis_exact_sample, mis_sample
from isdp.tables import read_table_csv


@pytest.fixture
def run(tmp_path) -> Run:
    """A run holding only E5's problem (Table 1 top, the paper's index set), as the workflow writes it."""
    (tmp_path / "results" / "e5").mkdir(parents=True)
    e5_config = CONFIG["e5"]
    values, rows, cols = read_table_csv(ROOT / e5_config["table"])
    problem = sex_by_age_problem(values, rows, cols, e5_config["voting_age_from"], e5_config["index_complement"])
    problem.to_json(tmp_path / "results" / "e5" / "problem.json")
    return Run(tmp_path, {"seed": CONFIG["seed"], "e5": e5_config}, repo=ROOT)


# --------------------------------------------------------------------------- §2.3 rejection with q = p


def test_raw_dg_in_invariant_set_against_enumeration():
    """On a 2 × 3 table, P(A U = 0) over a box of the 3 free coordinates, and P(x + U ∈ S*) summed over S*."""
    eps, x = 0.7, np.array([1, 0, 2, 0, 1, 1])
    n, female, voting = int(x.sum()), int(x[:3].sum()), int(x[[1, 2, 4, 5]].sum())
    equalities, accepted = e5.raw_dg_in_invariant_set(A6, x, eps)
    tables = sl.invariant_tables(n, female, voting)
    assert accepted == pytest.approx(DoubleGeometric(eps).pmf(tables - x).prod(axis=1).sum(), rel=1e-12)
    free = np.array(list(itertools.product(range(-40, 41), repeat=3)))  # U on cells 0, 1, 4 (0-based)
    u0, u1, u4 = free.T
    # female row u0 + u1 + u2 = 0; voting u1 + u2 + u4 + u5 = 0 with the total forces u3 = −u0; male row gives u5
    u = np.stack([u0, u1, -u0 - u1, -u0, u4, u0 - u4], axis=1)
    assert np.all(u @ A6.T == 0)
    assert equalities == pytest.approx(DoubleGeometric(eps).pmf(u).prod(axis=1).sum(), rel=1e-9)


def test_rejection_row_matches_at_table1_and_differs_where_rejection_is_cheap(run):
    status, m = row_verdict("CDP-E5-rejection-inefficient", run)
    assert status == "match" and 0 < m.value < 1e-4
    # the row's benchmark is the printed acceptance of CDP-E5-acceptance
    row = claims.claim("CDP-E5-rejection-inefficient", REGISTRY)
    assert row["args"]["mis_acceptance"] == claims.claim("CDP-E5-acceptance", REGISTRY)["paper_value"]
    status, m = row_verdict("CDP-E5-rejection-inefficient", run, eps=5.0)  # nearly noiseless cells
    assert m.value > 0.5 and status == "differs"


# --------------------------------------------------------------------------- §2.3 Algorithm 1: the target


def test_stationarity_row_matches_as_printed_and_differs_without_q(run):
    status, m = row_verdict("CDP-E5-algorithm1-stationary", run)
    assert status == "match" and m.value < 1e-14
    status, m = row_verdict("CDP-E5-algorithm1-stationary", run, rule="metropolis")
    assert m.value > 0.01 and status == "differs"


def test_rejection_row_matches_as_printed_and_differs_without_the_envelope(run):
    status, m = row_verdict("CDP-E5-rejection-exact", run)
    assert status == "match" and m.value < 1e-14
    status, m = row_verdict("CDP-E5-rejection-exact", run, rule="no-R")
    assert m.value > 0.05 and status == "differs"


def test_continuous_row_matches_as_printed_and_differs_without_q(run):
    status, m = row_verdict("CDP-E5-algorithm1-continuous", run)
    assert status == "match"
    status, m = row_verdict("CDP-E5-algorithm1-continuous", run, rule="metropolis")  # targets Laplace(ε + ε̃)
    assert m.value.max() < 1e-10 and status == "differs"


# --------------------------------------------------------------------------- §1.2 sensitivity


def test_sensitivity_by_record_level_enumeration():
    """Def 1.1 over all databases of 3 records in the 2 × 3 table, X* those with the totals (3, 1, 2): the largest L1
    change of the histogram between neighbours (one record changed) is 2 both over X and over X*."""
    x = np.array(list(itertools.product(range(6), repeat=3)))
    h = np.stack([(x == c).sum(axis=1) for c in range(6)], axis=1)
    star = np.all(h @ A6.T == (3, 1, 2), axis=1)
    neighbours = (x[:, None, :] != x[None, :, :]).sum(axis=2) == 1
    change = np.abs(h[:, None, :] - h[None, :, :]).sum(axis=2)
    assert change[neighbours].max() == 2
    assert change[neighbours & star[:, None] & star[None, :]].max() == 2


def test_sensitivity_row_differs_under_bounded_and_matches_under_add_remove_neighbours(run):
    status, m = row_verdict("CDP-E5-sensitivity-constrained", run)
    assert m.value == 1.0 and status == "differs"
    status, m = row_verdict("CDP-E5-sensitivity-constrained", run, neighbours="add_remove")
    assert m.value == 0.0 and status == "match"


# --------------------------------------------------------------------------- §2.3 rank of B, choice of I


def test_inequality_rank_differs_as_listed_and_holds_on_the_invariant_subspace(run):
    status, m = row_verdict("CDP-E5-inequality-rank", run)
    assert m.value == 0 and status == "differs" and m.note.startswith("46 of the 46")
    status, m = row_verdict("CDP-E5-inequality-rank", run, encoding="nullspace")
    assert m.value == 3 and status == "match"


def test_index_set_choices_both_halves_and_each_can_fail(run):
    status, m = row_verdict("CDP-E5-index-set-choices", run)
    assert m.value == {"not_unique": True, "affects_efficiency": True} and status == "match"
    A = e5._problem(run).A
    subsets = np.array(list(itertools.combinations(range(A.shape[1]), 3)))
    ranks = np.linalg.matrix_rank(A[:, subsets].transpose(1, 0, 2).astype(float))
    assert f"{int((ranks == 3).sum()):,} of the 15,180" in m.text and "[1, 23, 46] among them: True" in m.text
    # invariants fixing three cells outright: one valid I
    status, m = row_verdict("CDP-E5-index-set-choices", run, matrix=np.eye(4, dtype=int)[:3].tolist())
    assert m.value == {"not_unique": False, "affects_efficiency": True} and status == "differs"
    # S* a single table (3 children, 1 female): every I proposes it with probability q(s_I) = DG(0; ε̃)³
    status, m = row_verdict("CDP-E5-index-set-choices", run, lattice=[3, 1, 0])
    assert m.value == {"not_unique": True, "affects_efficiency": False} and status == "differs"
    assert len(sl.invariant_tables(3, 1, 0)) == 1
    rates = e5._small_lattice_acceptance((3, 1, 0), CONFIG["e5"]["eps"], CONFIG["e5"]["proposal_eps"])
    assert rates == pytest.approx(np.full(12, DoubleGeometric(CONFIG["e5"]["proposal_eps"]).pmf(0) ** 3), rel=1e-12)


def test_small_lattice_acceptance_against_mis_runs():
    """The note's exact stationary acceptance of one I against this project's MIS chains (4 SE)."""
    lattice, complement = (5, 2, 3), (0, 2, 5)
    subsets, det = e5._valid_complements(A6)
    valid = subsets[det != 0]
    exact = e5._small_lattice_acceptance(lattice, 0.5, 0.6)[np.flatnonzero(np.all(valid == complement, axis=1))[0]]
    tables = sl.invariant_tables(*lattice)
    res = mis_sample(
        A6,
        A6 @ tables[0],
        tables[0],
        epsilon=0.5,
        proposal_eps=0.6,
        index_set=[1, 3, 4],
        n_chains=16,
        n_draws=1,
        thin=50_000,
        seed=7,
        B=np.eye(6),
        b=np.zeros(6),
        progress=False,
    )
    se = res.acceptance.std(ddof=1) / np.sqrt(len(res.acceptance))
    assert abs(res.acceptance.mean() - exact) < 4 * se


# --------------------------------------------------------------------------- §3 the table against SF1's P12


def _problem_with_columns(tmp_path, cols) -> Run:
    (tmp_path / "results" / "e5").mkdir(parents=True)
    values = np.ones((2, len(cols)), dtype=np.int64)
    complement = [1, len(cols), 2 * len(cols)]  # one index per invariant, as the paper's choice
    sex_by_age_problem(values, ["Female", "Male"], list(cols), "18-19", complement).to_json(
        tmp_path / "results" / "e5" / "problem.json"
    )
    return Run(tmp_path, {}, repo=ROOT)


def test_p12_row_differs_on_the_printed_labels_and_names_the_four_columns(run):
    status, m = row_verdict("CDP-E5-p12-categories", run)
    assert status == "differs" and m.value["age categories unlike P12"] == 4 and "6-10 (P12: 5 to 9 years)" in m.text


def test_p12_row_matches_a_table_labelled_with_p12s_categories_and_fails_one_short(tmp_path):
    p12 = [
        "<=4",
        "5-9",
        "10-14",
        "15-17",
        "18-19",
        "20",
        "21",
        "22-24",
        "25-29",
        "30-34",
        "35-39",
        "40-44",
        "45-49",
        "50-54",
        "55-59",
        "60-61",
        "62-64",
        "65-66",
        "67-69",
        "70-74",
        "75-79",
        "80-84",
        "85+",
    ]
    assert row_verdict("CDP-E5-p12-categories", _problem_with_columns(tmp_path / "a", p12))[0] == "match"
    assert row_verdict("CDP-E5-p12-categories", _problem_with_columns(tmp_path / "b", p12[:-1]))[0] == "differs"


def test_age_buckets_row_reads_the_printed_columns(run):
    """CDP-E5-age-buckets (a reading chosen by fit: the evaluator turns this match into calibrated)."""
    status, m = row_verdict("CDP-E5-age-buckets", run)
    assert status == "match" and m.value == {"mean width": 4, "finer at the key ages": True} and "median 5" in m.text


def test_five_year_buckets_fail_the_age_reading(tmp_path):
    five = [f"{a}-{a + 4}" for a in range(0, 85, 5)] + ["85+"]
    (tmp_path / "results" / "e5").mkdir(parents=True)
    sex_by_age_problem(
        np.ones((2, len(five)), dtype=np.int64), ["Female", "Male"], five, "20-24", [1, len(five), 2 * len(five)]
    ).to_json(tmp_path / "results" / "e5" / "problem.json")
    status, m = row_verdict("CDP-E5-age-buckets", Run(tmp_path, {}, repo=ROOT))
    assert status == "differs" and m.value == {"mean width": 5, "finer at the key ages": False}


# --------------------------------------------------------------------------- the raw DG noise and the MIS releases


def _e5_problem(run: Run):
    e5 = CONFIG["e5"]
    values, rows, cols = read_table_csv(ROOT / e5["table"])
    problem = sex_by_age_problem(values, rows, cols, e5["voting_age_from"], e5["index_complement"])
    problem.to_json(run.path("e5/problem.json"))
    return problem


def test_raw_dg_breaks_the_total_but_keeps_it_at_a_large_eps(tmp_path):
    run = _run(tmp_path, {"e5": CONFIG["e5"]})
    x = _e5_problem(run).x
    status, m = row_verdict("CDP-E5-raw-total-broken", run)
    # P(Σ U = 0) by direct convolution of the 46 pmfs, independent of the characteristic-function route
    k = np.arange(-60, 61)
    law = np.array([1.0])
    for _ in range(x.size):
        law = np.convolve(law, DoubleGeometric(CONFIG["e5"]["eps"]).pmf(k))
    assert m.value == pytest.approx(law[law.size // 2], abs=1e-12)
    assert status == "match"
    # a per-cell ε eight times E5's keeps the total in about a third of the releases
    run.config["e5"] = {**CONFIG["e5"], "eps": 8 * CONFIG["e5"]["eps"]}
    status, m = row_verdict("CDP-E5-raw-total-broken", run)
    assert m.value > 0.3 and status == "differs"


def test_raw_dg_goes_negative_but_a_one_sided_noise_does_not(tmp_path, monkeypatch):
    run = _run(tmp_path, {"e5": CONFIG["e5"]})
    _e5_problem(run)
    status, m = row_verdict("CDP-E5-raw-negative-cells", run)
    assert m.value > 0.5 and status == "match"
    real = isdp.mcmc.DoubleGeometric.cdf
    monkeypatch.setattr(isdp.mcmc.DoubleGeometric, "cdf", lambda law, k: np.where(np.asarray(k) < 0, 0.0, real(law, k)))
    status, m = row_verdict("CDP-E5-raw-negative-cells", run)  # noise ≥ 0: no count can go negative
    assert m.value == 0 and status == "differs"


def test_mis_releases_drawn_from_the_conditional_law_match_and_at_a_wrong_eps_differ(tmp_path):
    eps = CONFIG["e5"]["simulation"]["eps_mis"]
    run = _run(tmp_path, {"e5": CONFIG["e5"]})
    problem = _e5_problem(run)
    x, A, d = problem.x, problem.A, problem.x.size

    def releases(at_eps, seed):
        draws = mis_exact_sample(
            A,
            A @ x,
            x,
            epsilon=at_eps,
            index_set=problem.meta["index_set"],
            size=100,
            seed=seed,
            B=np.eye(d),
            b=np.zeros(d),
        )
        np.savez(run.path("e5/fig1_releases.npz"), x=x[None], A=A, mis_conditional=draws[None])

    releases(eps, seed=11)
    assert row_verdict("CDP-E5-mis-exact", run)[0] == "match"
    releases(2 * eps, seed=12)  # the raw panel's ε (a) instead of ε₀: releases about half as far from x
    status, m = row_verdict("CDP-E5-mis-exact", run)
    assert m.value.min() < 1e-6 and status == "differs"


# --------------------------------------------------------------------------- Fig 2: the best proposal ε̃


def test_best_proposal_one_grid_step_away_is_within_one_step(tmp_path):
    """0.65 − 0.6 on a 0.05 grid is one step (floating point must not turn it into 1.0000000000000009)."""
    tables = tmp_path / "results" / "tables"
    tables.mkdir(parents=True)
    grid = np.round(np.arange(0.3, 1.0001, 0.05), 2)
    acc = np.where(np.isclose(grid, 0.65), 0.02, 0.01)
    pd.DataFrame({"proposal_eps": grid, "acceptance": acc}).to_csv(tables / "e5_fig2_acceptance.csv", index=False)
    m = best_proposal_steps(Run(tmp_path), 0.6)
    assert m.value == 1 and judge({"kind": "interval", "max": 1}, 0.6, m) == "match"
    assert judge({"kind": "interval", "max": 1}, 0.55, best_proposal_steps(Run(tmp_path), 0.55)) == "differs"


def test_fig2_rows_say_where_the_chains_started(tmp_path):
    """The two rows that read the Fig 2 curve say the chains' start, from the table's ``start`` column."""
    from isdp_papers.e5_congenial_mis.mis_study import ACCEPTANCE_START

    tables = tmp_path / "results" / "tables"
    tables.mkdir(parents=True)
    pd.DataFrame(
        {
            "proposal_eps": [0.55, 0.6, 0.65],
            "acceptance": [0.012, 0.015, 0.016],
            "se": [2e-4, 2e-4, 3e-4],
            "n_chains": 16,
            "proposals_per_chain": 250_000,
            "start": ACCEPTANCE_START,
        }
    ).to_csv(tables / "e5_fig2_acceptance.csv", index=False)
    for m in (best_proposal_steps(Run(tmp_path), 0.6), e5.acceptance_at(Run(tmp_path), 0.0168, proposal_eps=0.6)):
        assert "started at exact draws of p*" in m.text


# --------------------------------------------------------------------------- §2.2 constrained posterior


def _record_level(n, female, voting, eps0):
    """The same quantities by brute force over the 6^n record-level databases (cells 0-2 female, 3-5 male;
    cells 1, 2, 4, 5 of voting age)."""
    x = np.array(list(itertools.product(range(6), repeat=n)))
    h = np.stack([(x == c).sum(axis=1) for c in range(6)], axis=1)
    keep = (h[:, :3].sum(1) == female) & (h[:, [1, 2, 4, 5]].sum(1) == voting)
    x, h = x[keep], h[keep]
    s_star = np.unique(h, axis=0)
    logp = DoubleGeometric(eps0).logpmf(s_star[None, :, :] - h[:, None, :]).sum(axis=2)
    log_in = np.logaddexp.reduce(logp, axis=1)
    lik = np.exp(logp - log_in[:, None])  # P(M*(x) = m), [database, m]
    d1 = (x[:, None, :] != x[None, :, :]).sum(axis=2) == 1
    i, j = np.nonzero(d1)
    gamma_star = (log_in[j] - log_in[i]).max() / (2 * eps0)
    shift = 0.0
    for omega in range(6):
        has = x[:, 0] == omega  # record 1 (every record gives the same, by exchangeability)
        if has.any():
            prior = has.mean()
            post = lik[has].sum(axis=0) / lik.sum(axis=0)
            shift = max(shift, float(np.abs(np.log(post / prior)).max()))
    level = float(np.abs(np.log(lik[i]) - np.log(lik[j])).max())
    return {"gamma_star": gamma_star, "shift": shift, "m_star_level": level, "tables": len(s_star)}


@pytest.mark.parametrize(("lattice", "eps0"), [((3, 1, 2), 0.7), ((4, 2, 3), 1.5)])
def test_constrained_posterior_against_record_level_enumeration(lattice, eps0):
    exact = sl.constrained_posterior(*lattice, eps0)
    brute = _record_level(*lattice, eps0)
    for key in brute:
        assert exact[key] == pytest.approx(brute[key], rel=1e-10), key
    assert exact["eps"] == 2 * eps0 and 0 <= exact["gamma_star"] <= 1
    # Theorem 2.1 at k = 1 is attained here: the note's other reading (other records known) is bounded by it
    assert exact["m_star_level"] <= (1 + exact["gamma_star"]) * exact["eps"] + 1e-12


def test_constrained_posterior_row_differs_at_large_eps_and_matches_at_e5s(tmp_path, monkeypatch):
    run = Run(tmp_path, config={})
    status, m = row_verdict("CDP-E5-constrained-posterior", run)
    assert status == "differs" and m.value > 1.2
    status, m = row_verdict("CDP-E5-constrained-posterior", run, eps0=[0.25, 0.5])  # E5's ε₀ and below
    assert status == "match" and 0.5 < m.value < 1
    # a wrong ε (the per-cell ε₀ in place of M's level 2 ε₀) doubles the ratio and fails even at E5's ε₀
    orig = sl.constrained_posterior
    monkeypatch.setattr(sl, "constrained_posterior", lambda *a: {**(r := orig(*a)), "ratio": 2 * r["ratio"]})
    assert row_verdict("CDP-E5-constrained-posterior", run, eps0=[0.5])[0] == "differs"


# --------------------------------------------------------------------------- §3 after Fig 1: the effective γ


def _fig1_run(tmp_path, monkeypatch, conditional_eps):
    """A Fig 1 table whose raw panels and (c) sit at the exact expected L1 of raw DG at the given per-cell ε."""
    cells = 46
    monkeypatch.setattr(e5, "_problem", lambda run: types.SimpleNamespace(x=np.zeros(cells)))
    (tmp_path / "results" / "e5").mkdir(parents=True)
    methods = {"raw_dg_eps1": 1.0, "mis_conditional": conditional_eps, "raw_dg_eps05": 0.5}
    rows = [
        {"table": t, "method": k, "avg_l1": cells * e5._dg_mean_abs(e) * (1 + 0.01 * (t - 1))}
        for t in range(3)
        for k, e in methods.items()
    ]
    pd.DataFrame(rows).to_csv(tmp_path / "results" / "e5" / "fig1_distances.csv", index=False)
    return Run(tmp_path, config={"e5": {"simulation": {"eps_mis": 0.5, "eps_raw": 1.0}}})


def test_effective_gamma_inverts_the_exact_raw_l1_and_fails_outside_0_1(tmp_path, monkeypatch):
    eps = np.array([0.1, 0.5, 1.3, 4.0])
    np.testing.assert_allclose(e5._dg_eps_of_mean_abs([e5._dg_mean_abs(e) for e in eps]), eps, rtol=1e-12)
    u = np.arange(-400, 401)
    mean_abs = float(np.sum(np.abs(u) * np.exp(DoubleGeometric(0.7).logpmf(u))))
    assert e5._dg_mean_abs(0.7) == pytest.approx(mean_abs, rel=1e-12)
    status, m = row_verdict("CDP-E5-fig1-effective-gamma", _fig1_run(tmp_path / "a", monkeypatch, 0.6))
    assert status == "match" and m.value == pytest.approx(0.2, abs=1e-9)
    # (c) more accurate than (a) (γ > 1) or less accurate than (d) (γ < 0) fails
    assert row_verdict("CDP-E5-fig1-effective-gamma", _fig1_run(tmp_path / "b", monkeypatch, 1.2))[0] == "differs"
    assert row_verdict("CDP-E5-fig1-effective-gamma", _fig1_run(tmp_path / "c", monkeypatch, 0.45))[0] == "differs"
