"""Tests of :mod:`isdp_papers.lattice_study.measures.run_tables`: the rows read from a run's outputs and config.
Each matches a run that kept the printed numbers and differs from one that kept others: ISDP-E1-lag-tau-stable
(τ − L stable across lags beyond mixing, not below it), the `*-lost` rows (they report the project's own value from
the config), the checks ISDP-E1/E2-design-counts (the draws and convergence files against the run's config: a
missing chain, draw, lag, pair or target fails them) and ISDP-E2-thinning (counted in the draws files),
ISDP-E1-coupling-met (read from the coupling certificate: a censored pair fails it)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from census_support import results_run as _run
from conftest import ROOT, row_verdict
from isdp_papers.config import load_config
from isdp_papers.evidence import EvidenceError, Run
from isdp_papers.lattice_study.measures import run_tables
from lattice_support import CONFIG, registry_row, row_status

from isdp.convergence import Certificate, save_draws
from isdp.lattice import IntegerLattice, generalized_laplace, sum_constraint
from isdp.mcmc import meeting_times

# --------------------------------------------------------------------------- ISDP-E1-lag-tau-stable


def _lag_study(tmp_path, lags):
    """A run directory holding E1's lag-study file for one target, from pairs started far from the mode on a total
    of 3 cells (their chains mix in about 50 iterations)."""
    lattice = IntegerLattice.from_constraints(sum_constraint(3))
    target, far = generalized_laplace(0.5), lattice.basis @ np.array([30, -30])
    frames = []
    for lag in lags:
        mt = meeting_times(lattice, target, lag=lag, n_pairs=300, proposal_eps=0.5, seed=7 + lag, init=far)
        frames.append(pd.DataFrame({"target": "l1", "lag": lag, "pair": np.arange(300), "tau": mt.tau}))
    (tmp_path / "results" / "e1").mkdir(parents=True, exist_ok=True)
    pd.concat(frames).to_csv(tmp_path / "results" / "e1" / "meeting_times_l1.csv", index=False)
    return Run(tmp_path, {"e1": {"targets": {"l1": {}}}})


def test_tau_minus_lag_is_stable_across_lags_beyond_mixing_and_differs_below_it(tmp_path):
    c = registry_row("ISDP-E1-lag-tau-stable")
    assert row_status(c, run_tables.lag_tau_ks(_lag_study(tmp_path / "mixed", [100, 200]), None, exp="e1")) == "match"
    # at lag 1 the two chains start a step apart, far from the mode, and meet at once; at 100, X has mixed
    m = run_tables.lag_tau_ks(_lag_study(tmp_path / "short", [1, 100]), None, exp="e1")
    assert m.value.min() < 1e-10 and row_status(c, m) == "differs"


# --------------------------------------------------------------------------- values lost in our copy

LOST = [
    "ISDP-E1-eps-lost",
    "ISDP-E1-proposal-lost",
    "ISDP-E1-gaussian-privacy-lost",
    "ISDP-E2-eps-lost",
    "ISDP-E3-demonstration-eps-lost",
    "ISDP-E3-eps-lost",
    "ISDP-E3-protocol-lost",
    "ISDP-E3-pl94-budgets-lost",
]


@pytest.mark.parametrize("row", LOST)
def test_lost_value_rows_report_the_projects_own_value(run, row):
    c = registry_row(row)
    assert c["cause"] == "value lost" and c["kind"] == "claim"
    status, m = row_verdict(row, run)
    assert status == "not-comparable", m.text
    for key in c["args"]["keys"]:
        node = CONFIG
        for part in key.split("."):
            node = node[part]
        assert f"{key} = {node}" in m.text


# --------------------------------------------------------------------------- the design checks of E1 and E2


def _paper(claim_id):
    return registry_row(claim_id)["paper_value"]


def _lattice_run(tmp_path, exp, *, chains, per_chain, thin, pairs, lags=(10, 20), config=None, targets=("l1", "l2")):
    """A run whose draws files hold ``chains`` × ``per_chain`` draws per target of ``targets`` and whose convergence
    table has ``pairs`` pairs at each of ``lags``; its config is ``config`` (by default E1/E2's own shape, these
    targets and lags)."""
    (tmp_path / "results" / exp).mkdir(parents=True)
    (tmp_path / "results" / "tables").mkdir()
    for norm in targets:
        save_draws(
            tmp_path / "results" / exp / f"draws_{norm}.nc",
            np.zeros((chains, per_chain, 3), dtype=np.int64),
            attrs={"thin": thin},
        )
    rows = [
        {"target": norm, "lag": lag, "pairs": n} for norm in ("l1", "l2") for lag, n in zip(lags, pairs, strict=True)
    ]
    pd.DataFrame(rows).to_csv(tmp_path / "results" / "tables" / f"{exp}_convergence.csv", index=False)
    return Run(tmp_path, config or {exp: {"targets": {"l1": {"lags": list(lags)}, "l2": {"lags": list(lags)}}}})


def _kept(tmp_path, exp, **change):
    """A run of the repository's config for ``exp`` whose outputs keep its design, but for ``change``."""
    cfg = CONFIG[exp]
    chains, per_chain = cfg["draws"]["n_chains"], cfg["draws"]["n_draws"] // cfg["draws"]["n_chains"]
    lags = cfg["targets"]["l1"]["lags"]  # both targets' files get these lags: configured alike
    config = {exp: {**cfg, "targets": {n: {**t, "lags": lags} for n, t in cfg["targets"].items()}}}
    design = {
        "chains": chains,
        "per_chain": per_chain,
        "thin": cfg["draws"]["thin"],
        "lags": lags,
        "pairs": [cfg["coupling"]["n_pairs"]] * len(lags),
        "config": config,
    }
    return _lattice_run(tmp_path, exp, **(design | change))


@pytest.mark.parametrize("exp", ["e1", "e2"])
def test_design_check_matches_a_run_that_kept_its_configured_design(tmp_path, exp):
    status, m = row_verdict(f"ISDP-{exp.upper()}-design-counts", _kept(tmp_path, exp))
    assert status == "match" and m.value == 0 and "all kept" in m.text, m.text


@pytest.mark.parametrize(
    "change",
    [
        "one chain short",
        "fewer draws",
        "fewer pairs at one lag",
        "a lag missing",
        "a lag not configured",
        "a target missing",
    ],
)
@pytest.mark.parametrize("exp", ["e1", "e2"])
def test_design_check_fails_when_a_chain_draw_lag_pair_or_target_is_missing(tmp_path, exp, change):
    cfg = CONFIG[exp]
    chains, per_chain = cfg["draws"]["n_chains"], cfg["draws"]["n_draws"] // cfg["draws"]["n_chains"]
    lags, n = cfg["targets"]["l1"]["lags"], cfg["coupling"]["n_pairs"]
    run = _kept(
        tmp_path,
        exp,
        **{
            "one chain short": {"chains": chains - 1},
            "fewer draws": {"per_chain": per_chain - 1},
            "fewer pairs at one lag": {"pairs": [n] * (len(lags) - 1) + [n - 1]},
            "a lag missing": {"lags": lags[:-1], "pairs": [n] * (len(lags) - 1)},
            "a lag not configured": {"lags": [*lags, lags[-1] + 1], "pairs": [n] * (len(lags) + 1)},
            "a target missing": {"targets": ("l1",)},
        }[change],
    )
    status, m = row_verdict(f"ISDP-{exp.upper()}-design-counts", run)
    assert status == "differs" and m.value >= 1, m.text


def test_design_check_reads_the_config_it_was_given_not_the_papers_numbers(tmp_path):
    """The CI profile's smaller sizes are kept when configured; the same outputs depart from config.yaml's."""
    ci = load_config(ROOT / "config" / "config.yaml", ROOT / "config" / "ci.yaml")["e2"]
    config = {"e2": {**ci, "targets": {n: {**t, "lags": [10, 20]} for n, t in ci["targets"].items()}}}
    shape = {
        "chains": ci["draws"]["n_chains"],
        "per_chain": ci["draws"]["n_draws"] // ci["draws"]["n_chains"],
        "thin": ci["draws"]["thin"],
        "pairs": (ci["coupling"]["n_pairs"],) * 2,
    }
    ci_run = _lattice_run(tmp_path / "ci", "e2", **shape, config=config)
    assert row_verdict("ISDP-E2-design-counts", ci_run)[0] == "match"
    paper = {"e2": {**CONFIG["e2"], "targets": config["e2"]["targets"]}}
    status, m = row_verdict("ISDP-E2-design-counts", _lattice_run(tmp_path / "paper", "e2", **shape, config=paper))
    assert status == "differs" and m.value == 2 * (1 + 2), m.text  # per target: its draws, its pairs at 2 lags


def test_thinning_row_reads_the_draws_record(tmp_path):
    keep_one_in = round(1 / _paper("ISDP-E2-thinning"))
    as_printed = _lattice_run(tmp_path / "a", "e2", chains=1, per_chain=5, thin=keep_one_in, pairs=(1, 1))
    assert row_verdict("ISDP-E2-thinning", as_printed)[0] == "match"
    ours = _lattice_run(tmp_path / "b", "e2", chains=1, per_chain=5, thin=100, pairs=(1, 1))
    status, m = row_verdict("ISDP-E2-thinning", ours)
    assert status == "differs" and m.value == pytest.approx(0.01)


# --------------------------------------------------------------------------- E1: censored coupling pairs


def _certificate_run(tmp_path, censored=0, tau=None, summary_changes=None):
    """A run with E1's ℓ1 certificate as the workflow writes it: its record (400 pairs of lag 100) and summary."""
    rng = np.random.default_rng(1)
    met = np.arange(400) >= censored
    times = np.where(met, 100 + rng.integers(1, 900, 400), 1000) if tau is None else np.asarray(tau)
    cert = (
        Certificate(
            basis="smith",
            lag=100,
            n_pairs=400,
            max_iter=1000,
            level=0.95,
            threshold=0.01,
            tau=times,
            met=met,
            seconds=1.0,
        )
        if tau is None
        else None
    )
    record = (
        cert.to_dict()
        if cert is not None
        else {
            "basis": "smith",
            "lag": 100,
            "n_pairs": 400,
            "max_iter": 1000,
            "level": 0.95,
            "threshold": 0.01,
            "tau": times.tolist(),
            "met": [True] * 400,
            "seconds": 1.0,
        }
    )
    summary = (
        cert.summary()
        if cert is not None
        else {"censored": 0, "pairs": 400, "lag": 100, "max_iter": 1000, "tau_minus_lag_max": 0}
    )
    run = _run(tmp_path, {"e1": {"targets": {"l1": {}}}})
    summary = {**summary, **(summary_changes or {})}
    run.path("e1/certificate_l1.json").write_text(json.dumps({**record, "summary": summary}))
    return run


@pytest.mark.parametrize("censored", [0, 3])
def test_a_censored_pair_fails_the_e1_coupling_row(tmp_path, censored):
    expected = "match" if censored == 0 else "differs"
    assert row_verdict("ISDP-E1-coupling-met", _certificate_run(tmp_path, censored))[0] == expected


def test_impossible_meeting_times_or_a_stale_summary_are_errors(tmp_path):
    """Every τ set to lag − 1 left ISDP-E1-coupling-met `match`, quoting the summary block."""
    with pytest.raises(EvidenceError, match="a meeting time of 99 is impossible at lag 100"):
        row_verdict("ISDP-E1-coupling-met", _certificate_run(tmp_path / "a", tau=np.full(400, 99)))
    with pytest.raises(EvidenceError, match="summary.censored = the meeting times' censored does not hold"):
        row_verdict(
            "ISDP-E1-coupling-met",
            _certificate_run(tmp_path / "b", censored=3, summary_changes={"censored": 0, "tau_minus_lag_max": 899}),
        )
