"""The plan (isdp.release.Plan): the exact sampler's forecast against its exact acceptance, a request the
forecast refuses and what would serve it, and a chain refused before any draw when it cannot certify the δ
asked."""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction

import numpy as np
import pytest
from release_support import margins_table, only, run_release

from isdp.errors import UncertifiableError, UsageError
from isdp.release import Plan, Request


def test_the_forecast_acceptance_is_the_exact_acceptance_within_its_monte_carlo_error():
    """One invariant 2·x1 + x2 + x3 over 3 cells, ε = 1/2: P(accept) = Σ_z q(z) e^{−ε|X z|} summed on a box,
    against the plan's 1,000-proposal estimate; the tolerance is 4 standard errors of that estimate."""
    from isdp.exact import IntegerL1Sampler
    from isdp.mcmc import DoubleGeometric

    eps = Fraction(1, 2)
    sampler = IntegerL1Sampler.build(np.array([[2, 1, 1]]))
    (a, b) = sampler.solve[0]
    k = np.arange(-80, 81)
    q = np.outer(DoubleGeometric(0.5).pmf(k), DoubleGeometric(0.5).pmf(k))
    w = np.exp(-0.5 * np.abs(a * k[:, None] + b * k[None, :]))
    alpha = float((q * w).sum())
    se = math.sqrt(float((q * w**2).sum()) - alpha**2) / math.sqrt(IntegerL1Sampler.PILOT_PROPOSALS)
    assert abs(math.exp(sampler.log_acceptance(eps)) - alpha) < 4 * se
    # a total of ±1 is drawn directly: one draw per block, whatever its size
    assert IntegerL1Sampler.build(np.array([[1, -1] * 500])).log_acceptance(eps) == 0.0


def test_both_margins_of_a_50x23_table_are_refused_with_what_would_work_or_released_by_free_cells(tmp_path, capsys):
    table = margins_table(tmp_path / "t.csv", 50, 23)
    code, *_ = run_release(tmp_path, table, "--invariant", "all-margins", "--epsilon", "1")
    err = capsys.readouterr().err
    assert code == 5 and ("would need more than 10^300 proposals" in err or "would need about 10^" in err)
    assert "--free-cells" in err and "fewer invariants" in err and "--norm gaussian --delta D" in err
    assert "--max-attempts 3" not in err  # 10^140 proposals: no budget would do, so none is offered
    only(tmp_path, "t.csv")
    code, out, statement, _ = run_release(
        tmp_path, table, "--invariant", "all-margins", "--epsilon", "1", "--free-cells"
    )
    s = json.loads(statement.read_text())
    released = np.loadtxt(out, delimiter=",", skiprows=1, usecols=2, dtype=np.int64).reshape(50, 23)
    x = np.loadtxt(table, delimiter=",", skiprows=1, usecols=2, dtype=np.int64).reshape(50, 23)
    assert code == 0 and s["route"]["name"] == "free cells" and s["requested"]["free_cells"]
    assert np.array_equal(released.sum(axis=0), x.sum(axis=0)) and np.array_equal(released.sum(axis=1), x.sum(axis=1))
    assert len(s["route"]["solved_cells"]) == 50 + 23 - 1  # the last row and the last column
    assert s["route"]["noise_variance"]["solved_cells"]["r49|c22"] == pytest.approx(
        49 * 22 * s["route"]["noise_variance"]["free_cell"]
    )  # the corner carries every free cell
    assert s["guarantee"]["per_person"]["epsilon"] == pytest.approx(1)


def test_a_chain_cannot_certify_a_publication_delta_and_the_refusal_says_how_far_off():
    """docs/method.md §11 ("Why two margins at size have no exact ℓ1 sampler"): δ = 1e-6 at ε = 1 needs TV
    2.69e-7, about 11 million pairs, and the chain can state no δ below about 0.00011 with the 100,000 it allows;
    before any draw."""
    from isdp.lattice import table_margins
    from isdp.release import Plan, Request

    A = table_margins(6, 6)
    with pytest.raises(UncertifiableError) as refusal:
        Plan.make(A, [f"m{i}" for i in range(A.shape[0])], Request(epsilon="1", delta=1e-6, allow_chain=True, seed=1))
    said = str(refusal.value)
    assert "TV 2.69e-07" in said and "11,138,976 coupled pairs" in said and "at most 100,000" in said
    assert "cannot state a delta below about 0.00011" in said


def test_the_plan_of_a_table_holds_what_the_statement_states_of_it(tmp_path):
    """Each row's rule (a family or a tie; none for a constraint file's row, even one labelled like a rule's),
    the cells' labels and each table's name and size: the statement reads them from the plan, not the table."""
    from isdp.release import Plan, Request
    from isdp.tables import TableSet, constraint_matrix, load_table

    (tmp_path / "county.csv").write_text("county,count\nA,22\nB,16\n")
    (tmp_path / "county_sex.csv").write_text("county,sex,count\nA,M,10\nA,F,12\nB,M,7\nB,F,9\n")
    (tmp_path / "c.csv").write_text(
        "constraint,county|A,county|B,county_sex|A|M,county_sex|A|F,county_sex|B|M,"
        "county_sex|B|F\ncounty: total,1,0,0,0,0,0\n"
    )
    tables = TableSet.of([load_table(tmp_path / "county.csv"), load_table(tmp_path / "county_sex.csv")])
    A, labels = constraint_matrix(tables, ["total@county"], tmp_path / "c.csv", ties=["by:county"])
    plan = Plan.of(tables, A, labels, Request(epsilon="1", rules=("total@county",), ties=("by:county",)))
    assert list(zip(plan.labels, plan.rules, strict=True)) == [
        ("county: total", "total@county"),
        ("tie county=A: county = county_sex", "tie by:county"),
        ("tie county=B: county = county_sex", "tie by:county"),
        ("county: total", None),
    ]
    assert plan.tables == (("county", 2), ("county_sex", 4)) and plan.tables_in_norm == (False, True)
    assert plan.cell_labels == (
        "county|A",
        "county|B",
        "county_sex|A|M",
        "county_sex|A|F",
        "county_sex|B|M",
        "county_sex|B|F",
    )
    assert Plan.make(A, labels, Request(epsilon="1"), tables.groups).rules == ()  # make alone reads no table


def test_labels_must_name_every_row_of_the_invariants():
    """``labels=None`` was accepted and the statement then named no invariant; one str per row of A is asked."""
    for labels in (None, "total", ["a", "b"], [1]):
        with pytest.raises(UsageError, match="labels must be a list of 1 str, one per row of A"):
            Plan.make([[1, 1, 1]], labels, Request(epsilon="1"))
    assert Plan.make([[1, 1, 1]], ("total",), Request(epsilon="1")).labels == ("total",)


def test_the_plan_s_gaussian_sigma_meets_the_request_as_stated_at_every_scale():
    """σ is stepped up until the ε read off the profile at it is at most the one asked, also where the profile is
    flat in ε (1e-8, 7/2e9), where it was 1e-4 above and the release refused after drawing; and at σ of 3·10⁹
    (ε 1e-9, δ 1e-12), where the profile's bound took the log of 0 (a math domain error)."""
    from isdp.release import Plan, Request

    for epsilon, delta in itertools.product(("1e-9", "7/2000000000", "1e-8", "0.002", "1", "700"), (1e-6, 1e-12)):
        plan = Plan.make([[1, 1, 0], [0, 1, 1]], ["a", "b"], Request(norm="gaussian", epsilon=epsilon, delta=delta))
        assert plan.guarantee().at(1)["epsilon"] <= float(Fraction(epsilon))
        plan.check_not_weaker(plan.guarantee())
