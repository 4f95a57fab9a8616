"""Tests of :mod:`isdp_papers.e3_census_counties.measures`: the measures of E3's registry rows on hand-made runs
and on the committed county data — the audit's excluded areas, the DAS's state totals, the truncation's bias, ISDP App.
E.4's 'no instantiation triggers the truncation' (its tail bound against the brute-force marginal), the DAS histograms'
consistency and sparsity (TopDown talk), the censored coupling pairs, the housing-units and group-quarters invariants
(with their same-fact rows in other documents), noisy tabulation breaking the state totals (double geometric and
discrete Gaussian), the logical relationships between the county tables, App. E.4's block-level truncation bias, the
design check (the run's states, chains, draws and counties against its config) — each row matching on the right law or
data and differing on a plausibly wrong one."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pandas as pd
import pytest
from census_support import CONFIG, requires_zip
from census_support import EMBEDDED as COUNTIES
from census_support import results_run as _run
from conftest import NHGIS_ZIP as SHARED_ZIP
from conftest import REGISTRY, ROOT, row_verdict
from isdp_papers import claims
from isdp_papers.e3_census_counties import audit
from isdp_papers.e3_census_counties.measures import (
    negative_count_bound,
    relational_breaks,
    sum_constraint_l1_marginal,
    truncation_bias,
)
from isdp_papers.evidence import EvidenceError, Run
from isdp_papers.nhgis import group_quarters, histograms
from isdp_papers.nhgis.counties import load_counties
from isdp_papers.nhgis.group_quarters import GROUP_QUARTERS_EXTRACT, GROUP_QUARTERS_TYPES, load_group_quarters
from isdp_papers.nhgis.histograms import (
    HISTOGRAM_CELLS,
    HISTOGRAM_CELLS_EXTRACT,
    N_RACES,
    _county_histograms,
    histogram_cells_summary,
    load_histogram_cells,
)
from isdp_papers.nhgis.housing import HOUSING_EXTRACT, load_housing
from lattice_support import assert_row_flips

from isdp.convergence import save_draws
from isdp.exact import sample_sum_constraint_l1
from isdp.mcmc import DoubleGeometric

E3 = CONFIG["e3"]
ROW = "ISDP-E3-no-truncation-probable"


# --------------------------------------------------------------------------- audit set, DAS state totals, truncation


def _e3_run(tmp_path, counties: pd.DataFrame, states, eps=None, min_counties=5) -> Run:
    e3 = {**CONFIG["e3"], "eps": CONFIG["e3"]["eps"] if eps is None else eps}
    run = _run(tmp_path, {"e3": e3, "data": CONFIG["data"]})
    counties.to_csv(run.path("data/counties.csv"), index=False)
    run.path("data/source.json").write_text(
        json.dumps(
            {
                "vintage_used": CONFIG["data"]["vintage"],
                "reason": "",
                "sha256": hashlib.sha256(run.path("data/counties.csv").read_bytes()).hexdigest(),
            }
        )
    )
    run.path("e3/selection.json").write_text(json.dumps({"selected_states": list(states)}))
    audit.das_bias_regressions(counties, min_counties=min_counties).to_csv(
        run.path("tables/e3_das_audit.csv"), index=False
    )
    return run


def test_a_county_file_edited_after_its_fetch_is_an_error(tmp_path):
    """One county 90 → 60 in results/data/counties.csv turned six claims to differs: damage read as a finding.
    The fetch's record holds the file's SHA-256, which its readers compare."""
    counties = pd.read_csv(COUNTIES, dtype={"state_fips": str, "county_fips": str})
    run = _e3_run(tmp_path, counties, [])
    assert row_verdict("SDP-E3-audit-excluded", run)[0] == "match"
    edited = counties.copy()
    edited.loc[edited["sf1_pop"] == edited["sf1_pop"].min(), "sf1_pop"] += 1
    edited.to_csv(run.path("data/counties.csv"), index=False)
    with pytest.raises(EvidenceError, match="the county file was changed after it was fetched"):
        row_verdict("SDP-E3-audit-excluded", run)


def test_audit_leaves_out_the_four_areas_and_an_off_by_one_threshold_differs(tmp_path):
    counties = pd.read_csv(COUNTIES, dtype={"state_fips": str, "county_fips": str})
    assert row_verdict("SDP-E3-audit-excluded", _e3_run(tmp_path, counties, []))[0] == "match"
    status, m = row_verdict("SDP-E3-audit-excluded", _e3_run(tmp_path, counties, [], min_counties=4))
    assert m.value == ["DC", "DE"] and status == "differs"


@pytest.mark.parametrize(
    "row",
    [
        "SDP-E3-das-state-invariant",
        "ISDP-E3-das-state-invariant",
        "SWAP-E3-tda-state-invariant",
        "TDA-E3-state-invariant",
        "TDA-E3-national-invariant",
    ],
)
def test_das_keeps_every_state_total_in_the_run_s_file_and_one_county_off_differs(tmp_path, row):
    """The rows read the county file the run used (the extraction keeps a file that breaks a state total), so such
    a file reads differs instead of stopping the run; a repository file can be named instead."""
    counties = pd.read_csv(COUNTIES, dtype={"state_fips": str, "county_fips": str})
    status, m = row_verdict(row, _e3_run(tmp_path / "ok", counties, []))
    assert status == "match" and m.value == 0, m.text
    counties.loc[0, "dp_pop"] += 1
    status, m = row_verdict(row, _e3_run(tmp_path / "broken", counties, []))
    assert m.value == 1 and status == "differs", m.text
    broken = tmp_path / "broken.csv"
    counties.to_csv(broken, index=False)
    status, m = row_verdict(row, _e3_run(tmp_path / "named", counties.iloc[0:0], []), file=str(broken))
    assert m.value == 1 and status == "differs", m.text


def test_truncation_bias_is_the_exact_samplers_clamped_mean():
    n, eps = 5, 0.5
    u = sample_sum_constraint_l1(n, eps, 20_000, seed=3)[:, 0]
    clamped = np.maximum(u, 0)  # a county of 0 people
    bias, sd = truncation_bias(0, n, eps)
    assert abs(clamped.mean() - bias) < 4 * clamped.std() / np.sqrt(u.size)
    assert sd == pytest.approx(u.std(), rel=0.04)  # 4 SE of an SD over 20,000 Laplace-like draws


def _state(sizes) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "gisjoin": [f"G{i}" for i in range(len(sizes))],
            "state_fips": "48",
            "state_abbr": "TX",
            "county_fips": [f"{i:03d}" for i in range(len(sizes))],
            "name": "c",
            "sf1_pop": sizes,
            "dp_pop": sizes,
            "vintage": CONFIG["data"]["vintage"],
        }
    )


def test_truncation_is_invisible_at_the_smallest_county_but_not_at_10_people_or_a_tenth_of_eps(tmp_path):
    smallest = int(pd.read_csv(COUNTIES)["sf1_pop"].min())  # the country's least populous county
    sizes = np.geomspace(smallest, 2e5, 100).astype(int)
    assert row_verdict("ISDP-E3-truncation-unbiased", _e3_run(tmp_path, _state(sizes), ["TX"]))[0] == "match"
    small = sizes.copy()
    small[0] = 10
    status, m = row_verdict("ISDP-E3-truncation-unbiased", _e3_run(tmp_path, _state(small), ["TX"]))
    assert m.value > 1 and status == "differs"
    status, m = row_verdict(
        "ISDP-E3-truncation-unbiased", _e3_run(tmp_path, _state(sizes), ["TX"], eps=CONFIG["e3"]["eps"] / 10)
    )
    assert m.value > 1 and status == "differs"


# --------------------------------------------------------------------------- App. E.4: no truncation is probable


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Run:
    """The committed county file and the states E3's audit selects from it, as a run's results."""
    root = tmp_path_factory.mktemp("run")
    for sub in ("data", "e3"):
        (root / "results" / sub).mkdir(parents=True)
    counties = pd.read_csv(COUNTIES, dtype={"state_fips": str, "county_fips": str})
    counties.to_csv(root / "results" / "data" / "counties.csv", index=False)
    sel = E3["selection"]
    states = audit.select_states(
        audit.das_bias_regressions(counties, min_counties=E3["audit"]["min_counties"]),
        alpha=E3["audit"]["alpha"],
        n_target=sel["n_states"],
        always=sel["always"],
    )
    (root / "results" / "e3" / "selection.json").write_text(json.dumps({"selected_states": states}))
    return Run(root, {"seed": CONFIG["seed"], "e3": E3, "data": CONFIG["data"]}, repo=ROOT)


@pytest.mark.parametrize(("n", "eps", "x"), [(2, 0.5, 0), (3, 0.5, 2), (4, 1.0, 1), (3, 0.2, 6)])
def test_tail_bound_is_above_the_brute_force_marginal(n, eps, x):
    """P(u_1 ≤ −x − 1) summed over the lattice {Σu = 0} by brute force (the other n − 1 cells on a box whose
    left-out mass is below 1e-12), against the bound and the exact marginal."""
    r = int(np.ceil(30 / eps))
    k = np.arange(-r, r + 1)
    grids = np.meshgrid(*[k] * (n - 1), indexing="ij")
    last = -sum(grids)
    weight = np.prod([DoubleGeometric(eps).pmf(g) for g in grids], axis=0) * DoubleGeometric(eps).pmf(last)
    tail = weight[grids[0] <= -x - 1].sum() / weight.sum()
    assert tail == pytest.approx(sum_constraint_l1_marginal(n, eps, np.arange(-r, -x)).sum(), rel=1e-9)
    assert tail <= negative_count_bound([x], n, eps)[0] < 10 * tail


def _upper(run: Run, eps: float, releases: int) -> float:
    """P(no negative count) ≤ that of Texas's smallest county alone (exact marginal)."""
    c = pd.read_csv(run.path("data/counties.csv"))
    tx = c.loc[c["state_abbr"] == "TX", "sf1_pop"]
    x = int(tx.min())
    p = sum_constraint_l1_marginal(len(tx), eps, np.arange(-x - 1 - int(60 / eps), -x)).sum()
    return (1 - p) ** releases


def test_no_truncation_is_probable_at_e3s_eps(run):
    status, m = row_verdict(ROW, run)
    assert status == "match", m.text
    assert m.value <= _upper(run, E3["eps"], claims.claim(ROW, ROOT / "config" / "claims.yaml")["args"]["releases"])


@pytest.mark.parametrize("divisor", [4, 10])  # the county × population shares without the total of 4; ten times
def test_wider_noise_makes_no_truncation_improbable(run, divisor):
    releases = claims.claim(ROW, ROOT / "config" / "claims.yaml")["args"]["releases"]
    eps = E3["eps"] / divisor
    assert "TX" in run.json("e3/selection.json")["selected_states"]
    status, m = row_verdict(ROW, run, eps=eps)
    assert status == "differs", m.text
    # the upper bound is below the threshold too: the verdict is not the lower bound's slack
    criterion = claims.claim(ROW, ROOT / "config" / "claims.yaml")["criterion"]
    assert m.value <= _upper(run, eps, releases) < criterion["min"]


# --------------------------------------------------------------------------- the DAS histograms (TopDown talk)


@pytest.fixture(scope="module")
def checkout_run() -> Run:
    return Run(ROOT, CONFIG, repo=ROOT)


def test_histogram_cells_are_counts_of_the_252_cells():
    nonzero = load_histogram_cells(ROOT / HISTOGRAM_CELLS_EXTRACT)[["sf1_nonzero_cells", "dp_nonzero_cells"]].to_numpy()
    assert (nonzero >= 1).all() and (nonzero <= HISTOGRAM_CELLS).all()  # every county has people


@pytest.mark.parametrize("row", ["TDA-E3-nonnegative-integer-histogram", "ISDP-E3-das-nonnegative"])
def test_the_das_histograms_are_consistent(checkout_run, row):
    status, m = row_verdict(row, checkout_run)
    assert status == "match" and m.value == claims.paper_value(row, REGISTRY)


@requires_zip
def test_tables_noised_one_by_one_are_not_one_nonnegative_histogram(checkout_run, monkeypatch):
    """Each of P8–P11 with its own double geometric noise (ε = 1 per cell), as a release that is not microdata
    would be: the cells derived from them go negative where they are small."""
    counties, (sf1, pop, adults) = _county_histograms(SHARED_ZIP, None, ("sf",))["sf"]
    r = N_RACES
    adult_nh, adult_h, child_nh, child_h = (sf1[:, i * r : (i + 1) * r] for i in range(4))
    tables = {
        "adult_not_hispanic": adult_nh,
        "adult": adult_nh + adult_h,
        "all_not_hispanic": adult_nh + child_nh,
        "all": adult_nh + adult_h + child_nh + child_h,
    }
    rng = np.random.default_rng(20230207)
    a = np.exp(-1.0)
    noisy = {k: t + rng.geometric(1 - a, t.shape) - rng.geometric(1 - a, t.shape) for k, t in tables.items()}
    cells = np.hstack(
        [
            noisy["adult_not_hispanic"],
            noisy["adult"] - noisy["adult_not_hispanic"],
            noisy["all_not_hispanic"] - noisy["adult_not_hispanic"],
            noisy["all"] - noisy["all_not_hispanic"] - (noisy["adult"] - noisy["adult_not_hispanic"]),
        ]
    )
    summary = histogram_cells_summary(counties, sf1, (cells, noisy["all"].sum(axis=1), noisy["adult"].sum(axis=1)))
    monkeypatch.setattr(histograms, "load_histogram_cells", lambda path: summary)
    for row in ("TDA-E3-nonnegative-integer-histogram", "ISDP-E3-das-nonnegative"):
        status, m = row_verdict(row, checkout_run)
        assert status == "differs" and m.value > 1000


def test_county_histograms_are_sparse_and_the_nations_is_not(checkout_run):
    status, m = row_verdict("TDA-E3-sparse-histogram", checkout_run)
    assert status == "match" and 0.5 < m.value < 1
    status, m = row_verdict("TDA-E3-sparse-histogram", checkout_run, level="nation")
    assert status == "differs" and m.value == 0


# --------------------------------------------------------------------------- censored coupling pairs


def _certificates_run(tmp_path, **changes):
    """A run with two states' certificate rows as a certified run writes them (1000 pairs, the bound at the burn-in
    1 − 0.05^(1/1000) = 0.00299), ``changes`` applied to VT's row."""
    run = _run(tmp_path, {"e3": CONFIG["e3"]})
    run.path("e3/selection.json").write_text(json.dumps({"selected_states": ["IL", "VT"]}))
    rows = pd.DataFrame(
        {
            "state": ["IL", "VT"],
            "censored": 0,
            "pairs": 1000,
            "basis": "pair heat-bath",
            "confidence_level": 0.95,
            "threshold": 0.01,
            "t_cert": [301, 44],
            "burn_in": [452, 66],
            "tv_bound_at_burn_in": 1 - 0.05 ** (1 / 1000),
            "tv_estimate_at_burn_in": 0.0,
            "certified_at_burn_in": 1,
            "tau_minus_lag_max": [407, 50],
        }
    )
    for column, value in changes.items():
        rows.loc[1, column] = value
    rows.to_csv(run.path("tables/e3_certificates.csv"), index=False)
    return run


@pytest.mark.parametrize("censored", [0, 3])
def test_a_censored_pair_fails_the_e3_coupling_row(tmp_path, censored):
    expected = "match" if censored == 0 else "differs"
    assert row_verdict("ISDP-E3-coupling-met", _certificates_run(tmp_path, censored=censored))[0] == expected


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"tv_bound_at_burn_in": 0.5}, "certified_at_burn_in is not"),  # certified with a bound of 0.5
        ({"pairs": 3}, "a bound below what its pairs can give"),  # 0.00299 from 3 pairs
        ({"burn_in": 5}, "a certified burn-in before t_cert"),  # burn-in 5 below t_cert 44
        ({"tv_estimate_at_burn_in": 0.004}, "a bound below its point estimate"),
    ],
    ids=["bound 0.5 certified", "three pairs", "burn-in before t_cert", "estimate above bound"],
)
def test_a_certificate_row_no_run_makes_is_an_error(tmp_path, changes, problem):
    """Each was once read as `match`: a certificate's columns derive from one another and are checked."""
    with pytest.raises(EvidenceError, match=problem):
        row_verdict("ISDP-E3-coupling-met", _certificates_run(tmp_path, **changes))


# --------------------------------------------------------------------------- the housing-units invariant


@pytest.mark.parametrize(
    "row", ["SDP-E3-housing-units-invariant", "SWAP-E3-tda-housing-invariant", "TDA-E3-housing-invariant"]
)
def test_housing_units_invariant_matches_and_occupied_units_differ(checkout_run, row):
    status, m = row_verdict(row, checkout_run)
    assert status == "match" and m.value == claims.paper_value(row, REGISTRY)
    status, m = row_verdict(row, checkout_run, units="occupied")  # a count the DAS does not hold invariant
    assert status == "differs" and m.value > 3000


def test_same_fact_rows_point_at_the_subspace_dp_row():
    for row in ("SWAP-E3-tda-housing-invariant", "TDA-E3-housing-invariant"):
        assert claims.claim(row, REGISTRY)["same_fact_as"] == "SDP-E3-housing-units-invariant"


# --------------------------------------------------------------------------- the group-quarters rows


def test_group_quarters_types_add_up_to_at_most_the_population():
    gq = load_group_quarters(ROOT / GROUP_QUARTERS_EXTRACT)
    counties = load_counties(ROOT / CONFIG["data"]["embedded"])
    types = [f"sf1_gq_{t}" for t in GROUP_QUARTERS_TYPES]  # P42's universe is a part of the population
    assert (gq[types].sum(axis=1).to_numpy() <= counties["sf1_pop"].to_numpy()).all()


GQ_ROWS = ["SDP-E3-gq-facilities-invariant", "SWAP-E3-tda-gq-invariant", "TDA-E3-gq-facilities-invariant"]


@pytest.mark.parametrize("row", GQ_ROWS)
def test_group_quarters_presence_is_kept_and_noise_without_the_invariant_breaks_it(checkout_run, row, monkeypatch):
    status, m = row_verdict(row, checkout_run)
    assert status == "match" and m.value == claims.paper_value(row, REGISTRY)
    # The DAS without a facility invariant: its counts are SF1 plus double geometric noise, kept nonnegative
    # (ε = 1 per cell, far less noise than the county-level DAS of a 2010 demonstration run).
    honest = load_group_quarters(ROOT / GROUP_QUARTERS_EXTRACT)
    noisy = honest.copy()
    rng = np.random.default_rng(20230207)
    a = np.exp(-1.0)
    for t in GROUP_QUARTERS_TYPES:
        sf1 = honest[f"sf1_gq_{t}"].to_numpy()
        noise = rng.geometric(1 - a, sf1.size) - rng.geometric(1 - a, sf1.size)
        noisy[f"dp_gq_{t}"] = np.maximum(sf1 + noise, 0)
    monkeypatch.setattr(group_quarters, "load_group_quarters", lambda path: noisy)
    status, m = row_verdict(row, checkout_run)
    assert status == "differs" and m.value > 1000


def test_group_quarters_population_itself_is_not_invariant():
    """The stronger reading the words do not make (the people in group quarters held fixed) fails on the data."""
    gq = load_group_quarters(ROOT / GROUP_QUARTERS_EXTRACT)
    sf1 = gq[[f"sf1_gq_{t}" for t in GROUP_QUARTERS_TYPES]].to_numpy()
    das = gq[[f"dp_gq_{t}" for t in GROUP_QUARTERS_TYPES]].to_numpy()
    occupied = sf1 > 0
    assert (das[occupied] == sf1[occupied]).mean() < 0.1


def test_gq_same_fact_rows_point_at_the_subspace_dp_row():
    for row in GQ_ROWS[1:]:
        assert claims.claim(row, REGISTRY)["same_fact_as"] == GQ_ROWS[0]


# --------------------------------------------------------------------------- logical relationships between tables


def test_county_tables_keep_logical_relationships_even_when_noised_independently(checkout_run):
    """Why ISDP-E3-das-logical-relationships is not comparable: the DAS output breaks no relation, and neither do
    the SF1 tables with double geometric noise at ε = 0.1 added to each table independently."""
    status, m = row_verdict("ISDP-E3-das-logical-relationships", checkout_run)
    assert status == "not-comparable" and m.value == 0
    c = pd.read_csv(ROOT / checkout_run.config["data"]["embedded"]).set_index("gisjoin")
    h = load_housing(ROOT / HOUSING_EXTRACT).set_index("gisjoin").loc[c.index]
    g = load_group_quarters(ROOT / GROUP_QUARTERS_EXTRACT).set_index("gisjoin").loc[c.index]
    gq = g[[f"sf1_gq_{t}" for t in GROUP_QUARTERS_TYPES]].sum(axis=1).to_numpy()
    rng = np.random.default_rng(5)
    noised = [
        x + DoubleGeometric(0.1).rvs((1, len(c)), rng)[0]
        for x in (c["sf1_pop"].to_numpy(), gq, h["sf1_housing_units"].to_numpy(), h["sf1_occupied_units"])
    ]
    assert not any(v.any() for v in relational_breaks(*noised).values())
    # the relations can fail: occupied units above housing units break the first in every county
    broken = relational_breaks(c["sf1_pop"], gq, h["sf1_housing_units"], h["sf1_housing_units"] + 1)
    assert broken["occupied > housing units"].all()


# --------------------------------------------------------------------------- noise that breaks the state totals


def test_noisy_tabulation_breaks_the_total_unless_the_noise_is_tiny(checkout_run):
    status, m = row_verdict("SDP-E3-noisy-tabulation-breaks-total", checkout_run)
    assert status == "match" and m.value < 0.05
    # Delaware's 3 counties: P(u1 + u2 + u3 = 0) by direct convolution of the DG law
    args = claims.claim("SDP-E3-noisy-tabulation-breaks-total", REGISTRY)["args"]
    k = np.arange(-600, 601)
    p = DoubleGeometric(args["eps"] / args["sensitivity"]).pmf(k)
    three = np.convolve(np.convolve(p, p), p)
    assert m.value == pytest.approx(three[three.size // 2], rel=1e-9)
    # noise too small to move a count
    status, m = row_verdict("SDP-E3-noisy-tabulation-breaks-total", checkout_run, eps=20.0)
    assert status == "differs" and m.value > 0.99


def test_discrete_gaussian_total_row_fails_for_noise_too_small_to_move_a_count(checkout_run):
    status, m = row_verdict("ISDP-E3-discrete-gaussian-breaks-total", checkout_run)
    assert status == "match" and 0 < m.value < 0.5, m.text
    status, m = row_verdict("ISDP-E3-discrete-gaussian-breaks-total", checkout_run, sigma=0.3)
    assert status == "differs", m.text


# --------------------------------------------------------------------------- App. E.4: block-level truncation bias

# a row and the plausibly wrong law under which it must differ (its `why` says why each is plausible)
FLIPS = {
    "ISDP-E3-block-truncation-bias": {"counts": [1000]},  # county-sized counts: truncation is vacuous
}


@pytest.mark.parametrize("row", FLIPS)
def test_row_matches_and_differs_under_a_plausibly_wrong_law(checkout_run, row):
    assert_row_flips(row, checkout_run, FLIPS[row])


# --------------------------------------------------------------------------- the design check

COUNTY_FILE = {"IL": 3, "TX": 2, "DC": 1}  # counties per state of the hand-made county file


def _design_run(tmp_path, shapes, *, override=("IL", "TX"), n_states=2):
    """A run whose selection holds ``shapes``' states, each with draws of (chains, per_chain, counties), configured
    as the repository's E3 but for its selection (``override``, or the rule's ``n_states``)."""
    (tmp_path / "results" / "e3").mkdir(parents=True)
    (tmp_path / "results" / "data").mkdir(parents=True)
    (tmp_path / "results" / "e3" / "selection.json").write_text(json.dumps({"selected_states": list(shapes)}))
    pd.DataFrame({"state_abbr": [s for s, n in COUNTY_FILE.items() for _ in range(n)]}).to_csv(
        tmp_path / "results" / "data" / "counties.csv", index=False
    )
    rng = np.random.default_rng(5)
    for state, shape in shapes.items():
        noise = rng.integers(-3, 4, shape)
        noise[..., -1] -= noise.sum(axis=-1)  # noise keeping the state total, as a run's (one county: none)
        save_draws(tmp_path / "results" / "e3" / f"draws_{state}.nc", noise.astype(np.int64))
    selection = {
        **CONFIG["e3"]["selection"],
        "n_states": n_states,
        "override": list(override) if isinstance(override, tuple) else override,
    }
    return Run(tmp_path, {"e3": {**CONFIG["e3"], "selection": selection}})


def _kept_shape(state):
    mcmc = CONFIG["e3"]["mcmc"]
    return mcmc["n_chains"], mcmc["n_draws"] // mcmc["n_chains"], COUNTY_FILE[state]


@pytest.mark.parametrize("override", [("IL", "TX"), None, "all"])
def test_e3_design_check_matches_a_run_that_kept_its_configured_design(tmp_path, override):
    states = list(COUNTY_FILE) if override == "all" else ["IL", "TX"]
    run = _design_run(tmp_path, {s: _kept_shape(s) for s in states}, override=override)
    status, m = row_verdict("ISDP-E3-design-counts", run)
    assert status == "match" and m.value == 0, m.text


@pytest.mark.parametrize(
    "change",
    [
        "a chain missing",
        "draws missing",
        "a county missing",
        "a state missing",
        "another state",
        "the rule one state short",
        "all: a state missing",
    ],
)
def test_e3_design_check_fails_when_a_state_chain_draw_or_county_is_missing(tmp_path, change):
    chains, per_chain, _ = _kept_shape("IL")
    shapes = {"IL": _kept_shape("IL"), "TX": _kept_shape("TX")}
    kwargs = {}
    if change == "a chain missing":
        shapes["TX"] = (chains - 1, per_chain, 2)
    elif change == "draws missing":
        shapes["TX"] = (chains, per_chain - 1, 2)
    elif change == "a county missing":
        shapes["IL"] = (chains, per_chain, 2)
    elif change == "a state missing":
        del shapes["TX"]
    elif change == "another state":
        shapes = {"IL": shapes["IL"], "DC": _kept_shape("DC")}
    elif change == "the rule one state short":
        kwargs = {"override": None, "n_states": 3}
    else:
        kwargs = {"override": "all"}
    status, m = row_verdict("ISDP-E3-design-counts", _design_run(tmp_path, shapes, **kwargs))
    assert status == "differs" and m.value >= 1, m.text


# --------------------------------------------------------------------------- evidence no run makes


@pytest.mark.parametrize("row", ["ISDP-E3-design-counts", "ISDP-E3-noise-band"])
def test_all_zero_noise_in_place_of_a_states_draws_is_an_error(tmp_path, row):
    """results/e3/draws_AL.nc replaced by all-zero noise left the unbiasedness, band and design rows `match`
    ("AL 1.0000 ± 0.0000"): the same vector in every draw of every chain is no run's."""
    run = _design_run(tmp_path, {s: _kept_shape(s) for s in ["IL", "TX"]})
    assert row_verdict(row, run)[0] in ("match", "differs")  # judged on noise a run could make
    save_draws(run.path("e3/draws_IL.nc"), np.zeros(_kept_shape("IL"), dtype=np.int64))
    with pytest.raises(EvidenceError, match="every draw of every chain is the same noise vector"):
        row_verdict(row, run)


def test_a_zero_spread_county_has_no_standard_error():
    from isdp_papers.unbiasedness import unbiasedness_table

    draws = np.zeros((2, 50, 3), dtype=np.int64)
    draws[..., 0], draws[..., 1] = np.arange(50) % 3 - 1, -(np.arange(50) % 3 - 1)  # county 2 never moves
    with pytest.raises(ValueError, match="cell c: the same value in all 100 draws though the invariants do not"):
        unbiasedness_table(draws, np.full(3, 40.0), ["a", "b", "c"])
    assert unbiasedness_table(draws, np.full(3, 40.0), ["a", "b", "c"], fixed=[False, False, True])["z"][2] == 0


@pytest.mark.parametrize(("smallest", "negative"), [(-3, 0), (2, 1)])
def test_a_smallest_count_that_disagrees_with_the_negatives_is_an_error(tmp_path, smallest, negative):
    run = _run(tmp_path, {"e3": CONFIG["e3"]})
    run.path("e3/selection.json").write_text(json.dumps({"selected_states": ["IL"]}))
    pd.DataFrame(
        {"state": ["IL"], "n_negative": [negative], "n_noisy_counts": [1000], "min_noisy_count": [smallest]}
    ).to_csv(run.path("tables/e3_nonnegativity.csv"), index=False)
    with pytest.raises(EvidenceError, match="the smallest noisy count and the number of negative counts disagree"):
        row_verdict("ISDP-E3-nonnegative", run)
