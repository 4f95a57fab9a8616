"""Tests of :mod:`isdp_papers.e8_privacy_accounting.measures.swapping_topdown`: the Swapping slides' statements
on TopDown and SafeTab — the table's ε from ρ under each conversion, discrete Gaussian noise is ρ-zCDP (and not under a
misstated budget), the TDA toy reads only the invariants, proper subsets of invariants, swapping's finer invariants,
and the two budget statements that disagree under composition."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from accounting_support import CONFIG, e8_run
from conftest import REGISTRY, ROOT, row_verdict
from criteria_support import judge
from isdp_papers import claims
from isdp_papers.e8_privacy_accounting.measures import swapping_topdown
from isdp_papers.e8_privacy_accounting.measures.swapping_topdown import zcdp_composition_gap
from isdp_papers.evidence import Run


@pytest.fixture(scope="module")
def run():
    """The checkout's run on the workflow's configuration, not the folder's temporary one (the rows read only the
    registry and the config)."""
    return Run(ROOT, config=CONFIG)


def test_tda_epsilon_rejects_a_conversion_outside_the_rounding(tmp_path):
    from isdp_papers.e8_privacy_accounting.accounting import CONVERSIONS, zcdp_to_dp

    c = claims.claim("SWAP-E8-tda-epsilon", REGISTRY)
    a = c["args"]
    for method, expected in (("standard", "match"), ("cks", "differs")):
        run = e8_run(tmp_path)
        pd.DataFrame(
            [
                {
                    "conversion": m,
                    "rho": a["rho"],
                    "delta": a["delta"],
                    "epsilon": zcdp_to_dp(a["rho"], a["delta"], m),
                    "epsilon_rho_low": zcdp_to_dp(a["rho"] - a["rho_rounding"], a["delta"], m),
                    "epsilon_rho_high": zcdp_to_dp(a["rho"] + a["rho_rounding"], a["delta"], m),
                }
                for m in CONVERSIONS
            ]
        ).to_csv(run.path("tables/e8_tda_conversion.csv"), index=False)
        assert row_verdict("SWAP-E8-tda-epsilon", run, conversion=method)[0] == expected, method


def test_discrete_gaussian_zcdp_fails_for_a_misstated_budget(tmp_path, monkeypatch):
    run = e8_run(tmp_path)
    assert row_verdict("SWAP-E8-discrete-gaussian-zcdp", run)[0] == "match"
    l1 = lambda shift, sigma2: float(np.sum(np.abs(shift))) ** 2 / (2 * sigma2)  # noqa: E731 - Δ₁ for Δ₂
    monkeypatch.setattr(swapping_topdown, "zcdp_budget", l1)
    assert row_verdict("SWAP-E8-discrete-gaussian-zcdp", run)[0] == "differs"
    monkeypatch.setattr(
        swapping_topdown, "zcdp_budget", lambda shift, sigma2: float(np.sum(np.square(shift))) / (4 * sigma2)
    )
    assert row_verdict("SWAP-E8-discrete-gaussian-zcdp", run)[0] == "differs"


def test_tda_toy_fails_for_a_release_that_reads_more_than_the_invariants(tmp_path, monkeypatch):
    from isdp_papers.e8_privacy_accounting import zcdp_audit

    run = e8_run(tmp_path)
    assert row_verdict("SWAP-E8-tda-toy-invariants", run)[0] == "match"
    status, m = row_verdict("SWAP-E8-tda-toy-invariants", run, kept=[])  # cell 1 not kept: outputs shared across
    assert status == "differs" and m.value["common_support_across"] is True
    monkeypatch.setattr(zcdp_audit, "closest_dataset", lambda t, x, kept: tuple(x))  # releases x itself
    status, m = row_verdict("SWAP-E8-tda-toy-invariants", run)
    assert status == "differs" and m.value["within_budget"] is False


def test_proper_subsets_keep_a_finite_budget_only_when_invariants_are_redundant():
    status, m = row_verdict("SWAP-E8-tda-proper-subsets", None)
    assert status == "differs" and m.value == 5
    non_redundant = {"state A population": ["A1", "A2"], "block A1 count": ["A1"]}
    assert row_verdict("SWAP-E8-tda-proper-subsets", None, invariants=non_redundant)[0] == "match"


def test_swapping_invariants_are_not_finer_with_an_empty_swap_key():
    assert row_verdict("SWAP-E8-finer-than-tda", None)[0] == "match"
    national = [[[], ["state", "county", "block"]]]  # households of any size swapped across states
    status, m = row_verdict("SWAP-E8-finer-than-tda", None, settings=national)
    assert status == "differs" and m.value["finer"] is False


def test_the_slides_two_budget_statements_disagree_under_composition(run):
    from isdp_papers.claims import paper_value

    status, m = row_verdict("SWAP-E8-rho-composition", run)
    assert status == "differs" and m.value == pytest.approx(paper_value("SWAP-E8-rho-composition", REGISTRY)["PL"])


def test_labels_that_fit_together_match(run, monkeypatch):
    """Control: a DHC budget that adds to the printed total with the PL file's matches (the DHC's own budget under
    the cumulative reading)."""
    c = claims.claim("SWAP-E8-rho-composition", REGISTRY)
    printed = c["paper_value"]
    fitting = {**printed, "DHC": printed["PL & DHC"] - printed["PL"]}
    m = zcdp_composition_gap(run, fitting, **c["args"])
    assert judge(c["criterion"], c["paper_value"], m) == "match"
