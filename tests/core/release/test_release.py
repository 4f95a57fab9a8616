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

from isdp.cli import main
from isdp.convergence._certification import certify_chain, clopper_pearson_upper
from isdp.errors import UncertifiableError, UsageError
from isdp.exact import ExactL1Sampler, enumerate_target, integral_solve, seeded_source
from isdp.lattice import IntegerLattice, generalized_gaussian, generalized_laplace, independent_rows, table_margins
from isdp.release import constraint_matrix, load_table

E5_TABLE = ROOT / "data" / "e5" / "sex_by_age.csv"
E5_INVARIANTS = ROOT / "data" / "release" / "sex_by_age_invariants.csv"
SEEDED = ["--seed", "7", "--reproducible-not-for-publication", "--no-progress"]


def _draws(A, eps, n, *, seed=1):
    return ExactL1Sampler.build(A).sample(Fraction(eps), n, seeded_source(seed))


# --------------------------------------------------------------------------- exact laws


@pytest.mark.parametrize("A, eps", [(np.ones((1, 3), dtype=np.int64), "1/2"), (table_margins(2, 3), "1")],
                         ids=["sum of 3", "2x3 margins"])
def test_exact_sampler_draws_the_l1_generalized_laplace(A, eps):
    """Against the enumerated target on Λ(A) (the 2×3 margins are rank-deficient: a row is dropped)."""
    lattice = IntegerLattice.from_constraints(A)
    points, probs, _ = enumerate_target(lattice, generalized_laplace(float(Fraction(eps))), radius=12)
    draws = _draws(A, eps, 3000)
    assert np.all(draws @ A.T == 0)
    assert chisquare_gof(rows_to_categories(draws, points), probs) > ALPHA


def test_exact_sampler_draws_the_generalized_gaussian():
    A, sigma = table_margins(2, 3), Fraction(3, 2)
    lattice = IntegerLattice.from_constraints(A)
    points, probs, _ = enumerate_target(lattice, generalized_gaussian(float(sigma)), radius=10)
    draws = ExactL1Sampler.build(A).sample(1 / sigma, 3000, seeded_source(2), sigma=sigma)
    assert chisquare_gof(rows_to_categories(draws, points), probs) > ALPHA


def test_nonnegative_release_is_the_integer_l1_projection_of_the_noisy_table(tmp_path):
    """Post-processing: every cell ≥ 0, the invariants kept, and no non-negative table with them closer
    in ℓ1 to the noisy table than the release (checked by enumerating all 10 tables of total 3)."""
    from isdp.baselines import l1_projection_milp

    A, b = np.ones((1, 3), dtype=np.int64), np.array([3])
    support = np.array([s for s in itertools.product(range(4), repeat=3) if sum(s) == 3])
    for y in itertools.product(range(-4, 6), repeat=2):
        y = np.array([*y, 3 - sum(y)])
        z = l1_projection_milp(y.astype(float), A, b, nonnegative=True)
        assert z.min() >= 0 and z.sum() == 3
        assert np.abs(z - y).sum() == np.abs(support - y).sum(axis=1).min()
        if y.min() >= 0:
            assert np.array_equal(z, y)


def test_sample_keeps_the_invariants_and_says_when_it_runs_short():
    """(Its law is tested against enumeration above.)"""
    A, eps = table_margins(2, 3), Fraction(1, 2)
    sampler = ExactL1Sampler.build(A)
    draws = sampler.sample(eps, 50, seeded_source(4))
    assert not np.any(draws @ A.T) and len(np.unique(draws, axis=0)) > 10
    with pytest.raises(UncertifiableError, match="of 1000 draws accepted within 50 proposals"):
        sampler.sample(eps, 1000, seeded_source(4), max_attempts=50)


def test_integral_solve_on_margins_and_its_absence():
    A = table_margins(3, 3)
    rows = independent_rows(A)
    assert len(rows) == 5  # one margin is implied by the others
    solved, X = integral_solve(A[rows])
    free = np.setdiff1d(np.arange(9), solved)
    assert list(solved) == [2, 5, 6, 7, 8]  # the last column and the last row: the table's last cells
    assert np.array_equal(A[:, solved] @ X, -A[:, free])
    # not unimodular, yet the free cells are coordinates: 2(u1 + u2 + u3) = 0 is u3 = -u1 - u2
    assert np.array_equal(integral_solve(np.array([[2, 2, 2]]))[1], [[-1, -1]])
    # Λ = {(3t, -2t)}: neither cell alone is a coordinate
    assert integral_solve(np.array([[2, 3]])) is None


# --------------------------------------------------------------------------- certified chain


def test_certificate_meets_its_target_and_delta_follows_the_derivation():
    lattice = IntegerLattice.from_constraints(table_margins(2, 3))
    _, cert = certify_chain(lattice, generalized_laplace(1.0, "l2"), threshold=0.05, n_pairs=200, max_iter=10_000,
                            seed=3)
    # η is the exact 95 % bound at the run length: one term, the pairs not met by then out of 200
    iterations = cert.burn_in(floor=1)
    eta = float(cert.bound(iterations)[0])
    unmet = int((cert.tau - cert.lag > iterations).sum())
    assert iterations >= 1 and eta == pytest.approx(float(clopper_pearson_upper(unmet, 200, 0.05)))
    assert 1 - 0.05 ** (1 / 200) <= eta <= 0.05 < cert.bound(iterations - 1)[0]
    assert cert.level == 0.95


def test_certificate_refuses_a_budget_too_small_and_a_target_below_resolution():
    lattice = IntegerLattice.from_constraints(table_margins(2, 3))
    with pytest.raises(UncertifiableError, match="did not meet within"):
        certify_chain(lattice, generalized_gaussian(3.0), threshold=0.1, n_pairs=50, max_iter=2, seed=1)
    with pytest.raises(UncertifiableError, match="299 are needed.*raise --pairs"):
        certify_chain(lattice, generalized_gaussian(3.0), threshold=0.01, n_pairs=298, max_iter=1000, seed=1)


# --------------------------------------------------------------------------- the command


def _run(tmp_path, *args):
    """Run ``isdp release`` seeded into tmp_path: (exit code, release, statement, audit)."""
    out = tmp_path / "out.csv"
    code = main(["release", *map(str, args), "-o", str(out), *SEEDED])
    return code, out, Path(str(out) + ".statement.json"), Path(str(out) + ".audit.json")


def _only(tmp_path, *names):
    """Nothing but the inputs is left in tmp_path (no output, no temporary file)."""
    assert sorted(os.listdir(tmp_path)) == sorted(names)


def test_end_to_end_on_the_e5_example(tmp_path):
    code, out, statement, audit = _run(tmp_path, E5_TABLE, "--constraints", E5_INVARIANTS, "--epsilon", "1",
                                      "--format", "wide")  # its age labels 20 and 21 are numbers
    assert code == 0
    released = [line.split(",") for line in out.read_text().splitlines()]
    original = [line.split(",") for line in E5_TABLE.read_text().splitlines()]
    assert released[0] == original[0] and [r[0] for r in released] == [r[0] for r in original]
    cells = np.array([[int(v) for v in r[1:]] for r in released[1:]])
    x = np.array([[int(v) for v in r[1:]] for r in original[1:]])
    assert cells.shape == x.shape and not np.array_equal(cells, x)
    p = json.loads(statement.read_text())
    labels = [f"{r[0]}|{col}" for r in original[1:] for col in original[0][1:]]  # the cells, in the table's order
    assert p["cells"] == {"count": len(labels), "labels": "the released table's, in its order"}
    assert "invariant_rules" not in p  # a constraint file's invariants are stated by their coefficients
    A = np.array([[inv["coefficients"].get(label, 0) for label in labels] for inv in p["invariants"]])
    assert np.array_equal(A @ cells.ravel(), A @ x.ravel())
    assert [inv["value"] for inv in p["invariants"]] == (A @ x.ravel()).tolist()
    assert p["route"]["name"] == "exact" and p["guarantee"]["kind"] == "pure"
    for path in (out, statement, audit):  # all three derive from the confidential table
        assert path.stat().st_mode & 0o777 == 0o600
    # ε per person 1 is the paper's ε = 1/2 per unit ℓ1 distance (one person moving changes two cells)
    assert p["mechanism"]["epsilon_per_unit_l1_distance"] == "1/2"
    assert p["guarantee"]["per_person"]["epsilon"] == 1 and p["guarantee"]["two_persons"]["epsilon"] == 2
    assert p["publishable"] is False and p["seed"] == 7 and p["package"]["version"]
    record = json.loads(audit.read_text())
    assert record["input"]["sha256"] == hashlib.sha256(E5_TABLE.read_bytes()).hexdigest()
    assert record["note"].startswith("CONFIDENTIAL") and record["exact_sampler"]["accepted"]
    _only(tmp_path, "out.csv", "out.csv.statement.json", "out.csv.audit.json")


def test_the_example_invariants_are_e5s(tmp_path):
    from isdp.experiments.e5_congenial_mis.problem import sex_by_age_constraints
    from isdp.release import read_table_csv

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
    p = json.loads(Path(str(out) + ".statement.json").read_text())
    assert p["randomness"].startswith("operating-system entropy") and p["seed"] is None and p["publishable"]


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


def test_certified_chain_release_states_delta_per_person_within_the_request(tmp_path):
    table = tmp_path / "t.csv"
    table.write_text("g,a,b,c\nu,5,3,2\nv,1,4,6\n")
    code, _, statement, _ = _run(tmp_path, table, "--invariant", "all-margins", "--norm", "l2", "--epsilon", "1",
                                 "--delta", "0.2")
    assert code == 0
    p = json.loads(statement.read_text())
    cert, g = p["route"]["certificate"], p["guarantee"]
    eta = cert["tv_certified"]
    assert p["route"]["name"] == "certified chain" and g["kind"].startswith("approximate")
    assert eta <= cert["tv_target"] == pytest.approx(0.2 / (1 + math.e))
    assert g["per_person"]["delta"] == pytest.approx((1 + math.e) * eta) and g["per_person"]["delta"] <= 0.2
    assert g["two_persons"]["delta"] == pytest.approx((1 + math.exp(2)) * eta)
    assert g["tv_bound"] == eta and g["confidence_level"] == 0.95 and p["publishable"] is False


def test_gaussian_release_is_exact_and_meets_epsilon_delta_per_person(tmp_path):
    from isdp.exact import profile_epsilon

    small = tmp_path / "s.csv"
    small.write_text("g,a,b,c\nu,5,3,2\nv,1,4,6\n")
    code, _, statement, _ = _run(tmp_path, small, "--invariant", "all-margins", "--norm", "gaussian",
                                 "--epsilon", "2", "--delta", "1e-6")
    p = json.loads(statement.read_text())
    g = p["guarantee"]["per_person"]
    sigma = Fraction(p["mechanism"]["sigma"])
    assert code == 0 and p["route"]["name"] == "exact" and p["guarantee"]["kind"] == "zCDP"
    # one person moves: ℓ2 distance √2, ρ = 2/(2σ²); σ rounded up on a 1e-6 grid, so ε is met, barely
    assert g["rho"] == pytest.approx(1 / float(sigma) ** 2) and g["delta"] == 1e-6
    assert 2 - 1e-4 < g["epsilon"] <= 2 and g["epsilon"] == profile_epsilon(1e-6, sigma, 2)
    # under both margins only a swap of two persons keeps them: ‖v‖² = 4, not the group bound's 8
    assert p["guarantee"]["two_persons"]["rho"] == pytest.approx(2 * g["rho"])
    assert p["guarantee"]["two_persons"]["epsilon"] == profile_epsilon(1e-6, sigma, 4)


def test_no_silent_fallback_to_the_chain(tmp_path, capsys):
    """The exact sampler out of attempts is refused unless --allow-chain, which then says so. (The
    margins and one more total: not a structure Klein's sampler serves, so the rejection sampler runs.)"""
    small = tmp_path / "s.csv"
    small.write_text("g,a,b,c\nu,5,3,2\nv,1,4,6\n")
    extra = tmp_path / "extra.csv"
    extra.write_text("constraint,u|a,u|b,u|c,v|a,v|b,v|c\nu: a and b,1,1,0,0,0,0\n")
    args = ["--invariant", "all-margins", "--constraints", str(extra), "--norm", "gaussian", "--epsilon", "1",
            "--delta", "0.2", "--max-attempts", "2"]
    code, *_ = _run(tmp_path, small, *args)
    assert code == 5 and "beyond --max-attempts 2: nothing is released" in capsys.readouterr().err
    _only(tmp_path, "s.csv", "extra.csv")
    code, _, statement, _ = _run(tmp_path, small, *args, "--allow-chain")
    p = json.loads(statement.read_text())
    g = p["guarantee"]["per_person"]
    assert code == 0 and p["route"]["name"] == "certified chain" and p["requested"]["allow_chain"]
    # δ split: half for the zCDP conversion, half for the chain's TV bound; the sum within the request
    assert g["delta"] == pytest.approx(0.1 + (1 + math.exp(g["epsilon"])) * p["guarantee"]["tv_bound"])
    assert g["delta"] <= 0.2 and g["epsilon"] <= 1


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
    ("constraint,u|a,u|b,v|a,v|b\npin,1,0,0,0\n", "they fix every cell"),
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
    (["--norm", "l2", "--epsilon", "1", "--delta", "0.2", "--max-iter", "2"],
     "of 16 pilot pairs did not meet within 2 iterations"),
    (["--norm", "l2", "--epsilon", "1", "--delta", "1e-6"], "a certified chain cannot state a delta below"),
    (["--norm", "l2", "--epsilon", "1", "--delta", "0.2", "--pairs", "50"], "--pairs 50 cannot certify"),
    (["--epsilon", "0.01", "--max-attempts", "2"], "proposals for one draw of a block of 6 cells"),
    (["--epsilon", "0.01", "--max-attempts", "2"], "What would work: --max-attempts "),
], ids=["chain budget", "delta below resolution", "too few pairs", "exact budget", "exact budget advice"])
def test_uncertifiable_requests_exit_5(tmp_path, capsys, args, message):
    (tmp_path / "t.csv").write_text("g,a,b,c\nu,0,0,2\nv,0,4,0\n")
    code, *_ = _run(tmp_path, tmp_path / "t.csv", "--invariant", "all-margins", *args)
    assert code == 5 and message in capsys.readouterr().err
    _only(tmp_path, "t.csv")


@pytest.mark.parametrize("args", [["--norm", "l2", "--delta", "0.2"], ["--allow-chain", "--delta", "0.2"]],
                         ids=["l2", "allow-chain"])
def test_the_chain_is_refused_for_publication(tmp_path, capsys, args):
    """Without a seed (a publication run) the chain route is refused before the table is read."""
    (tmp_path / "t.csv").write_text("g,a,b\nu,1,2\nv,3,4\n")
    code = main(["release", str(tmp_path / "t.csv"), "--invariant", "total", "--epsilon", "1", *args,
                 "-o", str(tmp_path / "o.csv"), "--no-progress"])
    assert code == 5 and "refused for publication" in capsys.readouterr().err
    _only(tmp_path, "t.csv")


@pytest.mark.parametrize("args, message", [
    (["--norm", "gaussian", "--epsilon", "1"], "give --delta"),
    (["--epsilon", "1", "--delta", "1e-6"], "--delta is used only by"),
    (["--norm", "l2", "--epsilon", "1", "--delta", "1.5"], "--delta must lie in (0, 1)"),
], ids=["gaussian without delta", "pure route with delta", "delta above 1"])
def test_the_guarantee_asked_must_be_complete_and_meaningful(tmp_path, capsys, args, message):
    (tmp_path / "t.csv").write_text("g,a,b\nu,1,2\nv,3,4\n")
    code, *_ = _run(tmp_path, tmp_path / "t.csv", "--invariant", "total", *args)
    assert code == 2 and message in capsys.readouterr().err
    _only(tmp_path, "t.csv")


@pytest.mark.parametrize("force", [False, True], ids=["exclusive", "--force"])
def test_a_failed_write_leaves_no_output(tmp_path, monkeypatch, capsys, force):
    """The audit record fails to land after the release and the statement have: both are removed again."""
    (tmp_path / "t.csv").write_text("g,a,b\nu,1,2\nv,3,4\n")
    name = "replace" if force else "link"
    real = getattr(os, name)

    def fail_on_audit(src, dst):
        if str(dst).endswith(".audit.json"):
            raise OSError(28, "No space left on device", str(dst))
        return real(src, dst)

    monkeypatch.setattr(os, name, fail_on_audit)
    code, *_ = _run(tmp_path, tmp_path / "t.csv", "--invariant", "total", "--epsilon", "1",
                    *(["--force"] if force else []))
    assert code == 2 and "No space left on device; nothing written" in capsys.readouterr().err
    _only(tmp_path, "t.csv")


def test_the_isdp_console_script_is_declared():
    import tomllib

    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts == {"isdp": "isdp.cli:main"}


def test_python_m_isdp_help_explains_the_command():
    run = subprocess.run([sys.executable, "-m", "isdp", "release", "--help"], capture_output=True, encoding="utf-8",
                         env={**os.environ, "PYTHONPATH": str(ROOT / "src"), "PYTHONIOENCODING": "utf-8",
                              "COLUMNS": "100"}, check=True, timeout=300)  # the same help whatever the terminal
    for needle in ("--epsilon", "--invariant", "--constraints", "exit codes", "--delta", "--dry-run",
                   "per person", "nothing is written"):
        assert needle in run.stdout


# --------------------------------------------------------------------------- blocks


def test_blocks_split_independent_invariants_and_free_cells():
    from isdp.lattice import blocks

    A = np.array([[1, 1, 0, 0, 0], [0, 0, 1, 1, 0]])  # two totals, cell 4 in no invariant
    found = [(cells.tolist(), rows.tolist()) for cells, rows in blocks(A)]
    assert found == [([0, 1], [0]), ([2, 3], [1]), ([4], [])]
    assert len(blocks(table_margins(3, 4))) == 1  # margins tie every cell together


def test_the_block_sampler_draws_the_joint_law():
    """Two totals and a free cell: the block-by-block draw against the enumerated law on Λ(A)."""
    from isdp.exact import ExactSampler

    A = np.array([[1, 1, 0, 0, 0], [0, 0, 1, 1, 0]])
    lattice = IntegerLattice.from_constraints(A)
    points, probs, _ = enumerate_target(lattice, generalized_laplace(1.0), radius=12)
    sampler, rng = ExactSampler.build(A), seeded_source(4)
    draws = np.array([sampler.draw(Fraction(1), rng, max_attempts=1000)[0] for _ in range(3000)])
    assert np.all(draws @ A.T == 0)
    assert chisquare_gof(rows_to_categories(draws, points), probs) > ALPHA


# --------------------------------------------------------------------------- size: forecast and free cells


def test_the_free_cell_route_draws_iid_double_geometric_free_cells_and_solves_the_rest():
    """2×3 margins: the free cells are i.i.d. DG(ε) (against the pmf, and independent: the joint
    law of the pair is the product), the solved cells follow, and the stated variances hold."""
    from isdp.exact import ExactSampler
    from isdp.mcmc import dg_pmf

    A, eps = table_margins(2, 3), Fraction(1, 2)
    sampler, rng = ExactSampler.build(A), seeded_source(8)
    draws = np.array([sampler.draw(eps, rng, max_attempts=1, accept=False)[0] for _ in range(4000)])
    assert np.all(draws @ A.T == 0)
    free = np.setdiff1d(np.arange(6), sampler.solved)
    support = np.arange(-40, 41)  # the mass beyond is below 2e-9
    pmf = dg_pmf(support, float(eps))
    joint = np.outer(pmf, pmf).ravel()
    pairs = np.array(list(itertools.product(support, support)))
    assert chisquare_gof(rows_to_categories(draws[:, free], pairs), joint) > ALPHA
    # the variance of each cell: 4000 draws, the sample variance within 4 standard errors
    # (SE of a variance: sqrt((μ4 − σ⁴)/n), μ4 from the draws)
    v = sampler.variances(eps)
    centred = draws - draws.mean(axis=0)
    se = np.sqrt(((centred**4).mean(axis=0) - draws.var(axis=0) ** 2) / len(draws))
    assert np.all(np.abs(draws.var(axis=0) - v) < 4 * se)
    assert v[sampler.solved].max() == 2 * v[free].max()  # the corner carries both free cells


def test_the_forecast_acceptance_is_the_exact_acceptance_within_its_monte_carlo_error():
    """Sum of 3 cells, ε = 1/2: P(accept) = Σ_z q(z) e^{−ε|z1+z2|} summed on a box, against the plan's
    1,000-proposal estimate; the tolerance is 4 standard errors of that estimate."""
    from isdp.exact import PILOT_PROPOSALS, ExactL1Sampler
    from isdp.mcmc import dg_pmf

    eps = Fraction(1, 2)
    k = np.arange(-80, 81)
    q = np.outer(dg_pmf(k, 0.5), dg_pmf(k, 0.5))
    w = np.exp(-0.5 * np.abs(k[:, None] + k[None, :]))
    alpha = float((q * w).sum())
    se = math.sqrt(float((q * w**2).sum()) - alpha**2) / math.sqrt(PILOT_PROPOSALS)
    estimate = math.exp(ExactL1Sampler.build(np.ones((1, 3), dtype=np.int64)).log_acceptance(eps))
    assert abs(estimate - alpha) < 4 * se


def _margins_table(path: Path, r: int, c: int) -> Path:
    rng = np.random.default_rng(3)
    lines = ["row,col,count"] + [f"r{i},c{j},{rng.poisson(20)}" for i in range(r) for j in range(c)]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_both_margins_of_a_50x23_table_are_refused_with_what_would_work_or_released_by_free_cells(tmp_path, capsys):
    table = _margins_table(tmp_path / "t.csv", 50, 23)
    code, *_ = _run(tmp_path, table, "--invariant", "all-margins", "--epsilon", "1")
    err = capsys.readouterr().err
    assert code == 5 and ("would need more than 10^300 proposals" in err or "would need about 10^" in err)
    assert "--free-cells" in err and "fewer invariants" in err and "--norm gaussian --delta D" in err
    assert "--max-attempts 3" not in err  # 10^140 proposals: no budget would do, so none is offered
    _only(tmp_path, "t.csv")
    code, out, statement, _ = _run(tmp_path, table, "--invariant", "all-margins", "--epsilon", "1", "--free-cells")
    s = json.loads(statement.read_text())
    released = np.loadtxt(out, delimiter=",", skiprows=1, usecols=2, dtype=np.int64).reshape(50, 23)
    x = np.loadtxt(table, delimiter=",", skiprows=1, usecols=2, dtype=np.int64).reshape(50, 23)
    assert code == 0 and s["route"]["name"] == "free cells" and s["requested"]["free_cells"]
    assert np.array_equal(released.sum(axis=0), x.sum(axis=0)) and np.array_equal(released.sum(axis=1), x.sum(axis=1))
    assert len(s["route"]["solved_cells"]) == 50 + 23 - 1  # the last row and the last column
    assert s["route"]["noise_variance"]["solved_cells"]["r49|c22"] == pytest.approx(
        49 * 22 * s["route"]["noise_variance"]["free_cell"])  # the corner carries every free cell
    assert s["guarantee"]["per_person"]["epsilon"] == pytest.approx(1)


def test_the_free_cell_route_is_l1_only(tmp_path, capsys):
    table = _margins_table(tmp_path / "t.csv", 3, 3)
    for extra in (["--norm", "gaussian", "--delta", "1e-6"], ["--allow-chain", "--delta", "0.1"]):
        code, *_ = _run(tmp_path, table, "--invariant", "all-margins", "--epsilon", "1", "--free-cells", *extra)
        assert code == 2 and "--free-cells is an l1 route" in capsys.readouterr().err
    _only(tmp_path, "t.csv")


def test_a_forecast_within_budget_that_accepts_nothing_is_still_refused(tmp_path, capsys, monkeypatch):
    """The forecast is an estimate: a run that then accepts nothing is refused after its attempts."""
    from isdp.exact import ExactL1Sampler

    monkeypatch.setattr(ExactL1Sampler, "log_acceptance", lambda self, eps, sigma=None: 0.0)
    table = _margins_table(tmp_path / "t.csv", 8, 8)
    code, *_ = _run(tmp_path, table, "--invariant", "all-margins", "--epsilon", "1", "--max-attempts", "5")
    assert code == 5 and "accepted none of --max-attempts 5" in capsys.readouterr().err
    _only(tmp_path, "t.csv")


def _nested_table(path: Path) -> Path:
    """Two states (one of a single county) × counties × two age groups."""
    rows = [("S", "c1", "a0", 3), ("S", "c1", "a1", 4), ("S", "c2", "a0", 5), ("S", "c2", "a1", 1),
            ("S", "c3", "a0", 2), ("S", "c3", "a1", 2), ("T", "d1", "a0", 6), ("T", "d1", "a1", 0)]
    path.write_text("state,county,age,count\n" + "".join(f"{s},{c},{a},{v}\n" for s, c, a, v in rows))
    return path


def test_by_families_name_key_columns_and_nested_totals_fall_into_blocks(tmp_path):
    from isdp.lattice import blocks, implied_by_partition

    table = load_table(_nested_table(tmp_path / "t.csv"))
    A, labels = constraint_matrix(table, ["total", "by:state", "by:State,county", "by:state,age"])
    assert labels[:4] == ["total", "by state=S", "by state=T", "by state=S, county=c1"]
    dense = A.toarray()
    x = table.x
    assert dense[0] @ x == x.sum() and dense[1] @ x == 17 and dense[labels.index("by state=S, age=a1")] @ x == 7
    # the nation is the sum of the states, each state the sum of its counties, and T (its one county's
    # row, a repeat, is gone) the sum of its two age cells, each fixed by T's age margin: set aside
    assert "by state=T, county=d1" not in labels
    assert sorted(labels[i] for i in implied_by_partition(A)) == ["by state=S", "by state=T", "total"]
    parts = blocks(A)
    assert [list(cells) for cells, _ in parts] == [[0, 1, 2, 3, 4, 5], [6], [7]]
    with pytest.raises(UsageError, match="name key columns of .*state, county, age.*no 'region'"):
        constraint_matrix(table, ["by:region"])
    with pytest.raises(UsageError, match="each once"):
        constraint_matrix(table, ["by:state,state"])


def test_a_nested_release_keeps_every_level_exactly(tmp_path):
    table = _nested_table(tmp_path / "t.csv")
    nested = ["--invariant", "total", "--invariant", "by:state", "--invariant", "by:state,county",
              "--invariant", "by:state,age"]
    code, out, statement, _ = _run(tmp_path, table, *nested, "--epsilon", "1")
    assert code == 0
    s = json.loads(statement.read_text())
    released = np.loadtxt(out, delimiter=",", skiprows=1, usecols=3, dtype=np.int64)
    x = load_table(table).x
    A, _ = constraint_matrix(load_table(table), ["total", "by:state", "by:state,county", "by:state,age"])
    assert np.array_equal(A @ released, A @ x) and s["route"]["name"] == "exact"
    # the single-county state is fixed by its county total and its age margin
    assert np.array_equal(released[6:], x[6:])


def test_the_gaussian_route_draws_margins_and_totals_by_klein_with_even_noise(tmp_path):
    """Both margins of an 8 × 6 table on the Gaussian route: no proposal wasted (one Klein pass per
    draw), every cell the same variance, at most the stated σ²(1 − 1/r)(1 − 1/c), the invariants exact."""
    r, c = 8, 6
    rng = np.random.default_rng(0)
    rows = ["g," + ",".join(f"c{j}" for j in range(c))] + [f"r{i}," + ",".join(str(v) for v in rng.poisson(30, c))
                                                            for i in range(r)]
    table = tmp_path / "t.csv"
    table.write_text("\n".join(rows) + "\n")
    code, out, statement, audit = _run(tmp_path, table, "--invariant", "all-margins", "--norm", "gaussian",
                                       "--epsilon", "1", "--delta", "1e-6")
    assert code == 0
    p = json.loads(statement.read_text())
    blocks = p["route"]["blocks"]
    sigma = float(Fraction(p["mechanism"]["sigma"]))
    assert blocks == [{"invariants": "both margins", "cells": r * c, "grid": [r, c], "blocks": 1,
                       "noise_variance_per_cell_at_most": pytest.approx(sigma**2 * (1 - 1 / r) * (1 - 1 / c))}]
    assert "Klein" in p["route"]["sampler"] and p["route"]["solved_cells"] == []
    assert json.loads(audit.read_text())["exact_sampler"]["attempts"] <= 2
    x = np.array([[int(v) for v in line.split(",")[1:]] for line in rows[1:]])
    y = np.array([[int(v) for v in line.split(",")[1:]] for line in out.read_text().splitlines()[1:]])
    assert (y.sum(axis=0) == x.sum(axis=0)).all() and (y.sum(axis=1) == x.sum(axis=1)).all() and (y != x).any()


def test_a_chain_cannot_certify_a_publication_delta_and_the_refusal_says_how_far_off():
    """docs/release.md ("No exact sampler … at size"): δ = 1e-6 at ε = 1 needs TV 2.69e-7, about 11 million
    pairs, and the chain can state no δ below about 0.00011 with the 100,000 it allows; before any draw."""
    from isdp.lattice import table_margins
    from isdp.release import Plan, Request

    A = table_margins(6, 6)
    with pytest.raises(UncertifiableError) as refusal:
        Plan.make(A, [f"m{i}" for i in range(A.shape[0])],
                  Request(epsilon="1", delta=1e-6, allow_chain=True, seed=1))
    said = str(refusal.value)
    assert "TV 2.69e-07" in said and "11,138,976 coupled pairs" in said and "at most 100,000" in said
    assert "cannot state a delta below about 0.00011" in said
