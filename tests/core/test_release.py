"""Release mode (isdp.release, ``isdp release``): exact laws of its samplers, its certificate, its
checks, and every refusal leaving nothing behind."""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from conftest import ALPHA, ROOT, chisquare_gof, rows_to_categories

from isdp import (
    IntegerLattice,
    enumerate_target,
    generalized_gaussian,
    generalized_laplace,
    table_margins,
)
from isdp.certification import clopper_pearson_upper
from isdp.cli import main
from isdp.discrete import seeded_source
from isdp.release import (
    ExactL1Sampler,
    Request,
    UncertifiableError,
    certify_chain,
    guarantee_statement,
    independent_rows,
    unimodular_complement,
)

E5_TABLE = ROOT / "data" / "e5" / "sex_by_age.csv"
E5_INVARIANTS = ROOT / "data" / "release" / "sex_by_age_invariants.csv"
SEEDED = ["--seed", "7", "--reproducible-not-for-publication", "--no-progress"]


def _draws(A, x, eps, n, *, nonnegative=False, seed=1):
    rng, sampler = seeded_source(seed), ExactL1Sampler.build(A)
    return np.array([sampler.draw(x, Fraction(eps), rng, nonnegative=nonnegative, max_attempts=10_000)[0]
                     for _ in range(n)])


# --------------------------------------------------------------------------- exact laws


@pytest.mark.parametrize("A, eps", [(np.ones((1, 3), dtype=np.int64), "1/2"), (table_margins(2, 3), "1")],
                         ids=["sum of 3", "2x3 margins"])
def test_exact_sampler_draws_the_l1_generalized_laplace(A, eps):
    """Against the enumerated target on Λ(A) (the 2×3 margins are rank-deficient: a row is dropped)."""
    lattice = IntegerLattice.from_constraints(A)
    points, probs, _ = enumerate_target(lattice, generalized_laplace(float(Fraction(eps))), radius=12)
    draws = _draws(A, np.full(A.shape[1], 50), eps, 3000)
    assert np.all(draws @ A.T == 0)
    assert chisquare_gof(rows_to_categories(draws, points), probs) > ALPHA


def test_exact_sampler_draws_the_generalized_gaussian():
    A, sigma = table_margins(2, 3), Fraction(3, 2)
    lattice = IntegerLattice.from_constraints(A)
    points, probs, _ = enumerate_target(lattice, generalized_gaussian(float(sigma)), radius=10)
    rng, sampler = seeded_source(2), ExactL1Sampler.build(A)
    draws = np.array([sampler.draw(np.zeros(6), 1 / sigma, rng, sigma=sigma, max_attempts=10_000)[0]
                      for _ in range(3000)])
    assert chisquare_gof(rows_to_categories(draws, points), probs) > ALPHA


def test_exact_sampler_with_nonnegativity_draws_the_congenial_law():
    """x = (1, 0, 2) with its total kept: the law ∝ exp(-ε‖s - x‖₁) on the 10 tables s ≥ 0 of total 3."""
    A, x, eps = np.ones((1, 3), dtype=np.int64), np.array([1, 0, 2]), 0.5
    support = np.array([s for s in itertools.product(range(4), repeat=3) if sum(s) == 3])
    weight = np.exp(-eps * np.abs(support - x).sum(axis=1))
    draws = _draws(A, x, "1/2", 3000, nonnegative=True) + x
    assert np.all(draws >= 0) and np.all(draws.sum(axis=1) == 3)
    assert chisquare_gof(rows_to_categories(draws, support), weight / weight.sum()) > ALPHA


def test_unimodular_complement_on_margins_and_its_absence():
    A = table_margins(3, 3)
    rows = independent_rows(A)
    assert len(rows) == 5  # one margin is implied by the others
    comp = unimodular_complement(A[rows])
    assert comp is not None and abs(round(np.linalg.det(A[rows][:, comp]))) == 1
    assert unimodular_complement(np.array([[2, 2, 2]])) is None  # every 1×1 minor is 2


# --------------------------------------------------------------------------- certified chain


def test_certificate_meets_its_target_and_delta_follows_the_derivation():
    lattice = IntegerLattice.from_constraints(table_margins(2, 3))
    cert = certify_chain(lattice, generalized_laplace(1.0, "l2"), tv=0.05, pairs=200, max_iter=10_000, seed=3)
    # η is the exact 95 % bound at the run length: one term, the pairs not met by then out of 200
    unmet = int((cert.certificate.tau - cert.certificate.lag > cert.iterations).sum())
    assert cert.iterations >= 1 and cert.eta == pytest.approx(float(clopper_pearson_upper(unmet, 200, 0.05)))
    assert 1 - 0.05 ** (1 / 200) <= cert.eta <= 0.05 < cert.certificate.bound(cert.iterations - 1)[0]
    assert cert.record()["tv_certified"] == cert.eta and cert.record()["confidence_level"] == 0.95
    st = guarantee_statement(Request(norm="l2", epsilon="1"), cert.eta)
    assert st["delta_at_distance"]["1"] == pytest.approx((1 + math.e) * cert.eta)


def test_certificate_refuses_a_budget_too_small_and_a_target_below_resolution():
    lattice = IntegerLattice.from_constraints(table_margins(2, 3))
    with pytest.raises(UncertifiableError, match="did not meet within"):
        certify_chain(lattice, generalized_gaussian(3.0), tv=0.1, pairs=50, max_iter=2, seed=1)
    with pytest.raises(UncertifiableError, match="299 are needed.*raise --pairs"):
        certify_chain(lattice, generalized_gaussian(3.0), tv=0.01, pairs=298, max_iter=1000, seed=1)


# --------------------------------------------------------------------------- the command


def _run(tmp_path, *args):
    out = tmp_path / "out.csv"
    code = main(["release", *map(str, args), "-o", str(out), *SEEDED])
    return code, out, Path(str(out) + ".provenance.json")


def _only(tmp_path, *names):
    """Nothing but the inputs is left in tmp_path (no output, no temporary file)."""
    assert sorted(os.listdir(tmp_path)) == sorted(names)


def test_end_to_end_on_the_e5_example(tmp_path):
    code, out, prov = _run(tmp_path, E5_TABLE, "--constraints", E5_INVARIANTS, "--epsilon", "0.5")
    assert code == 0
    released = [line.split(",") for line in out.read_text().splitlines()]
    original = [line.split(",") for line in E5_TABLE.read_text().splitlines()]
    assert released[0] == original[0] and [r[0] for r in released] == [r[0] for r in original]
    cells = np.array([[int(v) for v in r[1:]] for r in released[1:]])
    x = np.array([[int(v) for v in r[1:]] for r in original[1:]])
    assert cells.shape == x.shape and not np.array_equal(cells, x)
    p = json.loads(prov.read_text())
    A = np.array([inv["coefficients"] for inv in p["invariants"]])
    assert np.array_equal(A @ cells.ravel(), A @ x.ravel())
    assert [inv["value"] for inv in p["invariants"]] == (A @ x.ravel()).tolist()
    assert p["route"] == "exact" and p["guarantee"]["kind"] == "pure"
    assert p["guarantee"]["epsilon_per_unit_distance"] == 0.5 and p["certificate"] is None
    assert p["randomness"] == "seeded: reproducible, not for publication" and p["seed"] == 7
    assert p["input"]["sha256"] == hashlib.sha256(E5_TABLE.read_bytes()).hexdigest()
    assert p["package"]["version"]
    _only(tmp_path, "out.csv", "out.csv.provenance.json")


def test_the_example_invariants_are_e5s(tmp_path):
    from isdp.experiments.e5_congenial_mis.problem import sex_by_age_constraints
    from isdp.tables import read_table_csv

    _, rows, cols = read_table_csv(E5_TABLE)
    A, _ = sex_by_age_constraints(rows, cols, "18-19")
    lines = [line.split(",") for line in E5_INVARIANTS.read_text().splitlines()[1:]]
    assert np.array_equal(np.array([[int(v) for v in line[1:-1]] for line in lines]), A)


def test_same_seed_same_release_and_os_entropy_by_default(tmp_path):
    table = tmp_path / "t.csv"
    table.write_text("g,a,b,c\nu,5,3,2\nv,1,4,6\n")
    outs = []
    for k in range(2):
        d = tmp_path / str(k)
        d.mkdir()
        assert _run(d, table, "--invariant", "all-margins", "--epsilon", "1")[0] == 0
        outs.append((d / "out.csv").read_text())
    assert outs[0] == outs[1]
    out = tmp_path / "fresh.csv"
    assert main(["release", str(table), "--invariant", "total", "--epsilon", "1", "-o", str(out), "--no-progress"]) == 0
    p = json.loads(Path(str(out) + ".provenance.json").read_text())
    assert p["randomness"].startswith("operating-system entropy") and p["seed"] is None


def test_wide_margins_are_kept_and_long_tables_round_trip(tmp_path):
    wide = tmp_path / "w.csv"
    wide.write_text("region,a,b,Total\nN,5,3,8\nS,1,4,5\nTotal,6,7,13\n")
    assert _run(tmp_path, wide, "--invariant", "row-margins", "--epsilon", "1")[0] == 0
    lines = [line.split(",") for line in (tmp_path / "out.csv").read_text().splitlines()]
    assert [r[0] for r in lines] == ["region", "N", "S", "Total"] and lines[0] == ["region", "a", "b", "Total"]
    cells = np.array([[int(v) for v in r[1:3]] for r in lines[1:3]])
    assert [int(r[3]) for r in lines[1:3]] == [8, 5] == cells.sum(axis=1).tolist()
    assert [int(v) for v in lines[3][1:]] == [*cells.sum(axis=0).tolist(), 13]

    d = tmp_path / "long"
    d.mkdir()
    long = d / "l.csv"
    long.write_text("sex,age,count\nF,young,5\nF,old,3\nM,young,1\nM,old,4\n")
    assert _run(d, long, "--invariant", "column-margins", "--epsilon", "1")[0] == 0
    lines = [line.split(",") for line in (d / "out.csv").read_text().splitlines()]
    assert [r[:2] for r in lines] == [r[:2] for r in (line.split(",") for line in long.read_text().splitlines())]
    counts = [int(r[2]) for r in lines[1:]]
    assert counts[0] + counts[2] == 6 and counts[1] + counts[3] == 7


def test_certified_chain_release_states_delta(tmp_path):
    table = tmp_path / "t.csv"
    table.write_text("g,a,b,c\nu,5,3,2\nv,1,4,6\n")
    code, out, prov = _run(tmp_path, table, "--invariant", "all-margins", "--norm", "l2", "--epsilon", "1",
                           "--tv", "0.05")
    assert code == 0
    p = json.loads(prov.read_text())
    eta = p["certificate"]["tv_certified"]
    assert p["route"] == "certified chain" and eta <= 0.05 and p["guarantee"]["kind"] == "approximate"
    assert p["guarantee"]["delta_at_distance"]["2"] == pytest.approx((1 + math.exp(2)) * eta)


def test_gaussian_release_is_exact_on_a_small_table_and_certified_on_a_large_one(tmp_path):
    small = tmp_path / "s.csv"
    small.write_text("g,a,b,c\nu,5,3,2\nv,1,4,6\n")
    code, _, prov = _run(tmp_path, small, "--invariant", "all-margins", "--norm", "gaussian", "--sigma", "1.5")
    p = json.loads(prov.read_text())
    assert code == 0 and p["route"] == "exact" and "delta_at_unit_distance" not in p["guarantee"]
    assert p["guarantee"]["rho_per_unit_l2_distance"] == pytest.approx(1 / (2 * 1.5**2))
    d = tmp_path / "budget"
    d.mkdir()
    code, _, prov = _run(d, small, "--invariant", "all-margins", "--norm", "gaussian", "--sigma", "1.5",
                         "--max-attempts", "2", "--tv", "0.05")
    p = json.loads(prov.read_text())
    assert code == 0 and p["route"] == "certified chain"
    g = p["guarantee"]
    assert g["delta_at_unit_distance"] == pytest.approx(
        1e-6 + (1 + math.exp(g["epsilon_at_unit_distance"])) * p["certificate"]["tv_certified"])


BAD_TABLES = {
    "ragged.csv": ("g,a,b\nu,1,2\nv,3\n", "line 3 has 2 fields"),
    "fraction.csv": ("g,a,b\nu,1,2.5\nv,3,4\n", "not an integer count"),
    "negative.csv": ("g,a,b\nu,1,-2\nv,3,4\n", "negative count"),
}


@pytest.mark.parametrize("name", sorted(BAD_TABLES))
def test_bad_tables_exit_3_and_write_nothing(tmp_path, capsys, name):
    text, message = BAD_TABLES[name]
    (tmp_path / name).write_text(text)
    code, *_ = _run(tmp_path, tmp_path / name, "--invariant", "total", "--epsilon", "1")
    assert code == 3 and message in capsys.readouterr().err
    _only(tmp_path, name)


def test_constraint_file_of_the_wrong_shape_exits_3(tmp_path, capsys):
    (tmp_path / "t.csv").write_text("g,a,b\nu,1,2\nv,3,4\n")
    (tmp_path / "c.csv").write_text("constraint,u|a,u|b,v|a\nfirst,1,1,0\n")
    code, *_ = _run(tmp_path, tmp_path / "t.csv", "--constraints", tmp_path / "c.csv", "--epsilon", "1")
    assert code == 3 and "must name the table's 4 cells" in capsys.readouterr().err
    _only(tmp_path, "t.csv", "c.csv")


@pytest.mark.parametrize("constraints, message", [
    ("constraint,u|a,u|b,v|a,v|b\npin,1,0,0,0\n", "full column rank"),
    ("constraint,u|a,u|b,v|a,v|b,value\nall,1,1,1,1,99\n", "states the value 99, the table gives 10"),
], ids=["no room for noise", "stated value disagrees"])
def test_infeasible_invariants_exit_4(tmp_path, capsys, constraints, message):
    (tmp_path / "t.csv").write_text("g,a,b\nu,1,2\nv,3,4\n")
    (tmp_path / "c.csv").write_text(constraints)
    code, *_ = _run(tmp_path, tmp_path / "t.csv", "--invariant", "all-margins", "--constraints", tmp_path / "c.csv",
                    "--epsilon", "1")
    assert code == 4 and message in capsys.readouterr().err
    _only(tmp_path, "t.csv", "c.csv")


@pytest.mark.parametrize("eps", ["0", "-0.5", "abc"])
def test_non_positive_epsilon_exits_2(tmp_path, capsys, eps):
    (tmp_path / "t.csv").write_text("g,a,b\nu,1,2\nv,3,4\n")
    code, *_ = _run(tmp_path, tmp_path / "t.csv", "--invariant", "total", f"--epsilon={eps}")
    assert code == 2 and "--epsilon must be a positive number" in capsys.readouterr().err
    _only(tmp_path, "t.csv")


def test_seed_without_its_flag_is_refused(tmp_path, capsys):
    (tmp_path / "t.csv").write_text("g,a,b\nu,1,2\nv,3,4\n")
    with pytest.raises(SystemExit) as exc:
        main(["release", str(tmp_path / "t.csv"), "--invariant", "total", "--epsilon", "1", "--seed", "1",
              "-o", str(tmp_path / "o.csv")])
    assert exc.value.code == 2 and "--reproducible-not-for-publication" in capsys.readouterr().err
    _only(tmp_path, "t.csv")


@pytest.mark.parametrize("args, message", [
    (["--norm", "l2", "--epsilon", "1", "--max-iter", "2"], "of 16 pilot pairs did not meet within 2 iterations"),
    (["--nonnegative", "--epsilon", "0.01", "--max-attempts", "2"], "no draw accepted in --max-attempts 2"),
], ids=["chain", "non-negative exact"])
def test_uncertifiable_requests_exit_5(tmp_path, capsys, args, message):
    (tmp_path / "t.csv").write_text("g,a,b,c\nu,0,0,2\nv,0,4,0\n")
    code, *_ = _run(tmp_path, tmp_path / "t.csv", "--invariant", "all-margins", *args)
    assert code == 5 and message in capsys.readouterr().err
    _only(tmp_path, "t.csv")


def test_a_failed_write_leaves_no_output(tmp_path, monkeypatch):
    (tmp_path / "t.csv").write_text("g,a,b\nu,1,2\nv,3,4\n")
    real = os.replace

    def fail_on_provenance(src, dst):
        if str(dst).endswith(".provenance.json"):
            raise OSError("disk full")
        return real(src, dst)

    monkeypatch.setattr(os, "replace", fail_on_provenance)
    with pytest.raises(OSError, match="disk full"):
        _run(tmp_path, tmp_path / "t.csv", "--invariant", "total", "--epsilon", "1")
    _only(tmp_path, "t.csv")


def test_the_isdp_console_script_is_declared():
    import tomllib

    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts == {"isdp": "isdp.cli:main"}


def test_python_m_isdp_help_explains_the_command():
    run = subprocess.run([sys.executable, "-m", "isdp", "release", "--help"], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT / "src")}, check=True)
    for needle in ("--epsilon", "--invariant", "--constraints", "exit codes", "--tv", "nothing is written"):
        assert needle in run.stdout
