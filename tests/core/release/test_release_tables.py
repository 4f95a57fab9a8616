"""Several tables released together (``isdp release A.csv B.csv --tie …``): the tables in the norm,
the joint sampler's law, one statement, and the refusals. The exact privacy audit of the composed
guarantee is in test_release_privacy.py."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest
from conftest import ALPHA, chisquare_gof, rows_to_categories

from isdp.cli import main
from isdp.exact import ExactSampler, IntegerL1Sampler, enumerate_target, seeded_source
from isdp.lattice import IntegerLattice, generalized_laplace
from isdp.privacy._gaussian_profile import calibrate_sigma
from isdp.release import Plan, Request
from isdp.tables import TableSet, constraint_matrix, load_table

SEEDED = ["--seed", "5", "--reproducible-not-for-publication", "--no-progress"]
COUNTY_SEX = "county,sex,count\nA,M,10\nA,F,12\nB,M,7\nB,F,9\n"
COUNTY = "county,count\nA,22\nB,16\n"
COUNTY_AGE = "county,age,count\nA,young,11\nA,old,11\nB,young,6\nB,old,10\n"


def _tables(tmp_path, **contents) -> TableSet:
    for name, text in contents.items():
        (tmp_path / f"{name}.csv").write_text(text)
    return TableSet.of([load_table(tmp_path / f"{name}.csv") for name in contents])


def test_a_table_the_ties_determine_is_derived_and_the_others_stay_in_the_norm(tmp_path):
    tied = _tables(tmp_path, county=COUNTY, county_sex=COUNTY_SEX)
    A, _ = constraint_matrix(tied, (), ties=["by:county"])
    assert list(IntegerL1Sampler.norm_tables(A, tied.groups)) == [False, True]
    # two tables of the same persons, neither a function of the other: both in the norm
    crossed = _tables(tmp_path, county_sex=COUNTY_SEX, county_age=COUNTY_AGE)
    A, _ = constraint_matrix(crossed, (), ties=["by:county"])
    assert list(IntegerL1Sampler.norm_tables(A, crossed.groups)) == [True, True]
    # without ties nothing is derived: each table's own total determines none of its cells
    A, _ = constraint_matrix(tied, ["total"])
    assert list(IntegerL1Sampler.norm_tables(A, tied.groups)) == [True, True]


def test_the_joint_sampler_draws_the_finer_tables_law_and_derives_the_coarser(tmp_path):
    """County totals tied to county × sex with the county table's total kept: the county × sex noise
    is the ℓ1 generalized Laplace under its grand total (enumerated), the county noise its sums."""
    tset = _tables(tmp_path, county=COUNTY, county_sex=COUNTY_SEX)
    A, labels = constraint_matrix(tset, ["total@county"], ties=["by:county"])
    plan = Plan.make(A, labels, Request(epsilon="1", seed=1), tset.groups)
    assert plan.tables_in_norm == (False, True) and plan.unit == Fraction(1, 2)
    rng = seeded_source(3)
    draws = np.array([plan.exact.draw(plan.unit, rng, max_attempts=10_000)[0] for _ in range(3000)])
    county, fine = draws[:, :2], draws[:, 2:]
    assert np.array_equal(county, fine[:, [0, 2]] + fine[:, [1, 3]])
    lattice = IntegerLattice.from_constraints(np.ones((1, 4), dtype=np.int64))
    points, probs, _ = enumerate_target(lattice, generalized_laplace(0.5), radius=12)
    assert chisquare_gof(rows_to_categories(fine, points), probs) > ALPHA
    # the law without the mask (both tables in the norm) is another one: the test can tell them apart
    full = ExactSampler.build(A)
    other = np.array([full.draw(plan.unit, rng, max_attempts=10_000)[0][2:] for _ in range(3000)])
    assert chisquare_gof(rows_to_categories(other, points), probs) < ALPHA


def _release(tmp_path, *extra, tables=("county", "county_sex"), code=0):
    """Several tables released under one statement (``release_cli`` releases one): the statement, read back."""
    outputs = [arg for name in tables for arg in ("-o", str(tmp_path / f"out_{name}.csv"))]
    got = main(
        ["release", *(str(tmp_path / f"{name}.csv") for name in tables), *outputs, "--epsilon", "1", *extra, *SEEDED]
    )
    assert got == code
    statement = tmp_path / f"out_{tables[0]}.csv.statement.json"
    return json.loads(statement.read_text()) if code == 0 else None


def test_two_tables_are_released_consistent_under_one_statement(tmp_path):
    _tables(tmp_path, county=COUNTY, county_sex=COUNTY_SEX)
    statement = _release(tmp_path, "--tie", "by:county", "--invariant", "total@county")
    county = dict(line.split(",") for line in (tmp_path / "out_county.csv").read_text().split()[1:])
    fine = [line.split(",") for line in (tmp_path / "out_county_sex.csv").read_text().split()[1:]]
    for c in ("A", "B"):
        assert int(county[c]) == sum(int(n) for k, _, n in fine if k == c)
    assert sum(map(int, county.values())) == 38
    assert [t["in_norm"] for t in statement["tables"]] == [False, True]
    assert statement["guarantee"]["per_person"]["epsilon"] == 1.0
    assert statement["mechanism"]["epsilon_per_unit_l1_distance"] == "1/2"
    assert "in every table at once" in statement["guarantee"]["per_person"]["text"]
    audit = json.loads((tmp_path / "out_county.csv.audit.json").read_text())
    assert [i["cells"] for i in audit["input"]] == [2, 4] and len(audit["files"]["release"]) == 2


def test_two_tables_both_in_the_norm_split_the_epsilon(tmp_path):
    """County × sex and county × age tied by county: a person is in both, so ε per unit ℓ1 is ε/4."""
    _tables(tmp_path, county_sex=COUNTY_SEX, county_age=COUNTY_AGE)
    statement = _release(tmp_path, "--tie", "by:county", tables=("county_sex", "county_age"))
    assert statement["mechanism"]["epsilon_per_unit_l1_distance"] == "1/4"
    assert statement["guarantee"]["per_person"]["epsilon"] == 1.0
    assert statement["guarantee"]["two_persons"]["epsilon"] == 2.0


def test_the_gaussian_over_two_tables_counts_both(tmp_path):
    tset = _tables(tmp_path, county_sex=COUNTY_SEX, county_age=COUNTY_AGE)
    A, labels = constraint_matrix(tset, (), ties=["by:county"])
    one = Plan.make(A, labels, Request(norm="gaussian", epsilon="1", delta=1e-6, seed=1))
    two = Plan.make(A, labels, Request(norm="gaussian", epsilon="1", delta=1e-6, seed=1), tset.groups)
    # one person moves in both tables: ‖v‖² up to 2T = 4, and the profile is calibrated there
    assert (one.unit, two.unit) == (calibrate_sigma(1.0, 1e-6, 2), calibrate_sigma(1.0, 1e-6, 4))
    assert float(two.unit) == pytest.approx(float(one.unit) * 2**0.5, rel=1e-3)  # ρ = T/σ², nearly the zCDP scaling
    assert two.guarantee().at(1)["epsilon"] <= 1.0


@pytest.mark.parametrize(
    "extra, tables, code, says",
    [
        (["--tie", "by:county"], ("county", "county_sex"), 4, "disagree where they are tied"),
        (["--tie", "by:sex"], ("county", "county_sex"), 2, "fewer than two tables"),
        (["--invariant", "total@nowhere"], ("county", "county_sex"), 2, "no table called"),
        (["--tie", "by:county", "--allow-chain", "--delta", "0.1"], ("county", "county_sex"), 2, "exact routes only"),
        (["--tie", "by:county"], ("county", "county_other"), 3, "do not have the same groups"),
    ],
    ids=["tie broken", "tie on nothing", "unknown table", "chain", "groups differ"],
)
def test_bad_sets_of_tables_are_refused_naming_the_problem(tmp_path, capsys, extra, tables, code, says):
    _tables(
        tmp_path, county="county,count\nA,22\nB,17\n", county_sex=COUNTY_SEX, county_other="county,count\nA,22\nC,16\n"
    )
    if code != 4:
        (tmp_path / "county.csv").write_text(COUNTY)
    _release(tmp_path, *extra, tables=tables, code=code)
    err = capsys.readouterr().err.replace(str(tmp_path), "TMP")  # the path may hold any number (pytest-175)
    assert says in err and "17" not in err  # the broken tie is named, not its counts
    assert not list(tmp_path.glob("out_*"))


def test_one_output_per_table(tmp_path, capsys):
    _tables(tmp_path, county=COUNTY, county_sex=COUNTY_SEX)
    got = main(
        [
            "release",
            str(tmp_path / "county.csv"),
            str(tmp_path / "county_sex.csv"),
            "-o",
            str(tmp_path / "out.csv"),
            "--epsilon",
            "1",
            "--tie",
            "by:county",
            *SEEDED,
        ]
    )
    assert got == 2 and "one -o/--output per table" in capsys.readouterr().err
    assert not list(tmp_path.glob("out*"))


def test_a_dry_run_of_two_tables_reads_no_count(tmp_path, capsys):
    _tables(tmp_path, county=COUNTY, county_sex=COUNTY_SEX)
    for name in ("county", "county_sex"):  # counts that break the tie: a dry run never reads them
        path = tmp_path / f"{name}.csv"
        path.write_text(path.read_text().replace("22", "99").replace("10", "1"))
    assert (
        main(
            [
                "release",
                str(tmp_path / "county.csv"),
                str(tmp_path / "county_sex.csv"),
                "--epsilon",
                "1",
                "--tie",
                "by:county",
                "--dry-run",
            ]
        )
        == 0
    )
    planned = json.loads(capsys.readouterr().out)
    assert planned["dry_run"] and [t["in_norm"] for t in planned["tables"]] == [False, True]
