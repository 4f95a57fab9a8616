"""E8 measures on hand-made runs: each registry criterion can fail when the accounting is wrong."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import REGISTRY, ROOT

from isdp.experiments import claims
from isdp.experiments.e8_privacy_accounting import measures as e8
from isdp.experiments.e8_privacy_accounting.implied import feasible_totals, implied_bounds
from isdp.experiments.e8_privacy_accounting.tables import swap_table, variance_table

REPO = ROOT
CONFIG = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
E8 = CONFIG["e8"]


def _run(tmp_path, conversion="standard") -> claims.Run:
    (tmp_path / "results" / "tables").mkdir(parents=True, exist_ok=True)
    (tmp_path / "results" / "e8").mkdir(parents=True, exist_ok=True)
    cfg = {"e8": {**E8, "tda": {**E8["tda"], "conversion": conversion}}, "data": CONFIG["data"]}
    return claims.Run(tmp_path, cfg, repo=REPO)


def _verdict(claim_id, run, **override):
    c = claims.claim(claim_id, REGISTRY)
    m = claims.resolve_measure(c["measure"])(run, c["paper_value"], **{**c.get("args", {}), **override})
    return claims.judge(c["criterion"], c["paper_value"], m), m


def test_swap_table_claims_fail_on_a_cell_off_by_one_printed_unit(tmp_path):
    run = _run(tmp_path)
    printed = pd.read_csv(REPO / E8["printed"]["swap_ma1940"])
    swap_table(printed).to_csv(run.path("tables/e8_swap_ma1940.csv"), index=False)
    assert _verdict("SWAP-E8-ma1940-table", run)[0] == "match"
    printed.loc[0, "epsilon"] += 0.01
    swap_table(printed).to_csv(run.path("tables/e8_swap_ma1940.csv"), index=False)
    status, m = _verdict("SWAP-E8-ma1940-table", run)
    assert status == "differs" and "(printed" in m.text


@pytest.mark.parametrize("conversion, expected",
                         [("standard", "match"), ("cks", "differs"), ("gaussian-exact", "differs")])
def test_gaussian_variance_claims_tell_the_conversions_apart(tmp_path, conversion, expected):
    run = _run(tmp_path, conversion)
    table = variance_table(pd.read_csv(REPO / E8["printed"]["tda_variance"]), E8["tda"]["levels"],
                           E8["tda"]["changed_cells"], [conversion])
    table.to_csv(run.path("tables/e8_tda_variance.csv"), index=False)
    for cid in ("TDA-E8-gaussian-variance-d14", "TDA-E8-gaussian-variance-d9", "TDA-E8-gaussian-variance-d6"):
        assert _verdict(cid, run)[0] == expected, cid
    assert _verdict("TDA-E8-laplace-variance", run)[0] == "match"


def test_integer_orders_miss_the_moderate_delta_table(tmp_path):
    run = _run(tmp_path, "integer-orders")
    variance_table(pd.read_csv(REPO / E8["printed"]["tda_variance"]), E8["tda"]["levels"], E8["tda"]["changed_cells"],
                   ["integer-orders"]).to_csv(run.path("tables/e8_tda_variance.csv"), index=False)
    assert _verdict("TDA-E8-gaussian-variance-d6", run)[0] == "differs"


def test_dorm_claims_fail_for_other_constraints(tmp_path):
    run = _run(tmp_path)
    d = E8["dorm"]
    totals = feasible_totals(d["region_totals"], d["occupied"], d["types"])
    totals.to_csv(run.path("e8/dorm_feasible_totals.csv"), index=False)
    implied_bounds(totals, d["forms"]).to_csv(run.path("tables/e8_dorm_bounds.csv"), index=False)
    c = claims.claim("TDA-E8-dorm-constraints", REGISTRY)
    assert claims.judge(c["criterion"], c["paper_value"], e8.dorm_constraints(run, c["paper_value"])) == "match"
    loose = {**c["paper_value"], "CF_min": c["paper_value"]["CF_min"] - 1}  # admits infeasible points
    m = e8.dorm_constraints(run, loose)
    assert m.value["sufficient"] is False and claims.judge(c["criterion"], loose, m) == "differs"
    feasible_point = {k: int(totals.iloc[0][k]) for k in ("F", "C", "M")}
    assert _verdict("TDA-E8-dorm-counterexample", run, point=feasible_point)[0] == "differs"


def test_tda_epsilon_rejects_a_conversion_outside_the_rounding(tmp_path):
    from isdp.accounting import CONVERSIONS, zcdp_to_dp

    c = claims.claim("SWAP-E8-tda-epsilon", REGISTRY)
    a = c["args"]
    for method, expected in (("standard", "match"), ("cks", "differs")):
        run = _run(tmp_path)
        pd.DataFrame([{"conversion": m, "rho": a["rho"], "delta": a["delta"],
                       "epsilon": zcdp_to_dp(a["rho"], a["delta"], m),
                       "epsilon_rho_low": zcdp_to_dp(a["rho"] - a["rho_rounding"], a["delta"], m),
                       "epsilon_rho_high": zcdp_to_dp(a["rho"] + a["rho_rounding"], a["delta"], m)}
                      for m in CONVERSIONS]).to_csv(run.path("tables/e8_tda_conversion.csv"), index=False)
        assert _verdict("SWAP-E8-tda-epsilon", run, conversion=method)[0] == expected, method


# --------------------------------------------------------------------------- swapping: the mechanism, exactly


def test_permutation_dp_fails_for_a_formula_below_the_exact_loss(tmp_path, monkeypatch):
    import isdp.accounting

    run = _run(tmp_path)
    status, m = _verdict("SWAP-E8-permutation-dp", run)
    assert status == "match" and "never attained" in m.text and "upper bound only" in m.note
    exact = isdp.accounting.swapping_epsilon
    monkeypatch.setattr(isdp.accounting, "swapping_epsilon", lambda p, b: exact(p, b) - 0.1)
    assert _verdict("SWAP-E8-permutation-dp", run)[0] == "differs"


def test_invariant_support_fails_when_a_lone_record_leaks_a_new_value(tmp_path, monkeypatch):
    from isdp.experiments.e8_privacy_accounting import swap_audit

    run = _run(tmp_path)
    assert _verdict("SWAP-E8-invariant-support", run)[0] == "match"
    honest = swap_audit.output_law

    def leaky(h, k, p):
        """A tenth of the mass moves to the dataset whose first record took another value of k."""
        law = {w: 0.9 * q for w, q in honest(h, k, p).items()}
        leaked = tuple(sorted(zip(h, [k[0] + 1, *k[1:]], strict=True)))
        return law | {leaked: law.get(leaked, 0.0) + 0.1}

    monkeypatch.setattr(swap_audit, "output_law", leaky)
    status, m = _verdict("SWAP-E8-invariant-support", run)
    assert status == "differs" and m.value["invariants_kept"] is False and m.value["common_support_across"] is True


def test_more_invariants_fails_when_the_added_variable_does_not_split_the_stratum(tmp_path):
    run = _run(tmp_path)
    status, m = _verdict("SWAP-E8-more-invariants", run)
    assert status == "match" and m.value == {"printed_lower": True, "exact_lower": True}
    coarse = claims.claim("SWAP-E8-more-invariants", REGISTRY)["args"]["coarse"]
    status, m = _verdict("SWAP-E8-more-invariants", run, refined=[coarse])
    assert status == "differs" and m.value["exact_lower"] is False


def _county_instance(tmp_path, p, seed):
    """The printed 1940 'before' table swapped by the county-level model at rate p (binomial draws)."""
    rng = np.random.default_rng(seed)
    t = pd.read_csv(REPO / E8["printed"]["ma1940_counties"]).set_index("county").drop(index="total")
    s = t["owned"].sum() / t["total"].sum()
    t["owned_swapped"] = rng.binomial(t["owned"], 1 - p * (1 - s)) + rng.binomial(t["rented"], p * s)
    t["rented_swapped"] = t["total"] - t["owned_swapped"]
    t["total_swapped"] = t["total"]
    t.loc["total"] = t.sum()
    path = tmp_path / f"counties_{p:g}.csv"
    t.reset_index().to_csv(path, index=False)
    return str(path)


def test_ma1940_rate_tells_a_half_swap_from_a_tenth(tmp_path):
    run = _run(tmp_path)
    status, m = _verdict("SWAP-E8-ma1940-rate", run, file=_county_instance(tmp_path, 0.5, seed=3))
    assert status == "match" and m.se > 0
    status, m = _verdict("SWAP-E8-ma1940-rate", run, file=_county_instance(tmp_path, 0.1, seed=3))
    assert status == "differs" and m.value < 0.2


# --------------------------------------------------------------------------- TopDown in the swapping slides


def test_discrete_gaussian_zcdp_fails_for_a_misstated_budget(tmp_path, monkeypatch):
    run = _run(tmp_path)
    assert _verdict("SWAP-E8-discrete-gaussian-zcdp", run)[0] == "match"
    l1 = lambda shift, sigma2: float(np.sum(np.abs(shift))) ** 2 / (2 * sigma2)  # noqa: E731 - Δ₁ for Δ₂
    monkeypatch.setattr(e8, "zcdp_budget", l1)
    assert _verdict("SWAP-E8-discrete-gaussian-zcdp", run)[0] == "differs"
    monkeypatch.setattr(e8, "zcdp_budget", lambda shift, sigma2: float(np.sum(np.square(shift))) / (4 * sigma2))
    assert _verdict("SWAP-E8-discrete-gaussian-zcdp", run)[0] == "differs"


def test_tda_toy_fails_for_a_release_that_reads_more_than_the_invariants(tmp_path, monkeypatch):
    from isdp.experiments.e8_privacy_accounting import zcdp_audit

    run = _run(tmp_path)
    assert _verdict("SWAP-E8-tda-toy-invariants", run)[0] == "match"
    status, m = _verdict("SWAP-E8-tda-toy-invariants", run, kept=[])  # cell 1 not kept: outputs shared across
    assert status == "differs" and m.value["common_support_across"] is True
    monkeypatch.setattr(zcdp_audit, "closest_dataset", lambda t, x, kept: tuple(x))  # releases x itself
    status, m = _verdict("SWAP-E8-tda-toy-invariants", run)
    assert status == "differs" and m.value["within_budget"] is False


# --------------------------------------------------------------------------- TopDown talk: TUM and integrality


def test_tum_statements_fail_when_the_gq_matrix_is_tum(tmp_path):
    run = _run(tmp_path)
    assert _verdict("TDA-E8-tum", run)[0] == "match"
    status, m = _verdict("TDA-E8-tum", run, gq_types=["A", "B"])  # two types: no odd cycle, TUM
    assert status == "differs" and m.value["gq_tum"] is True


def test_gq_integer_solution_fails_for_capacities_not_from_blocks(tmp_path, monkeypatch):
    from isdp.experiments.e8_privacy_accounting import implied

    run = _run(tmp_path)
    assert _verdict("TDA-E8-gq-integer-solution", run)[0] == "match"
    # pairs capped at 1, three types at 2: the vertex (1/2, 1/2, 1/2), as no block data give
    monkeypatch.setattr(implied, "gq_lower", lambda blocks, t: 0)
    monkeypatch.setattr(implied, "gq_capacity", lambda blocks, S: 2 if len(S) >= 3 else 1)
    status, m = _verdict("TDA-E8-gq-integer-solution", run)
    assert status == "differs" and m.value["integral_vertices"] is False


def test_larger_b_fails_on_a_decrease_on_the_left_branch(tmp_path):
    from isdp.experiments.e8_privacy_accounting.tables import swap_curves

    run = _run(tmp_path)
    b_values = sorted(pd.read_csv(REPO / E8["printed"]["swap_2020"])["b"].unique())
    curves = swap_curves(b_values, E8["swapping"]["rate_grid"])
    curves.to_csv(run.path("e8/swap_curves.csv"), index=False)
    status, m = _verdict("SWAP-E8-larger-b", run)
    assert status == "match" and "equal, ln o" in m.text
    low = curves["swap_rate"] == curves["swap_rate"].min()
    curves.loc[low & (curves["b"] == max(b_values)), "epsilon"] -= 20  # the largest b below the others
    curves.to_csv(run.path("e8/swap_curves.csv"), index=False)
    assert _verdict("SWAP-E8-larger-b", run)[0] == "differs"
