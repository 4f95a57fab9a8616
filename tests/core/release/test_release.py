"""Release mode (isdp.release, ``isdp release``): exact laws of its samplers, its certificate, and the
releases it draws on each route (the command's own tests are in tests/core/test_cli.py, the request's,
the plan's and the files' beside this file)."""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from conftest import ALPHA, chisquare_gof, rows_to_categories
from release_support import margins_table, only, run_release

from isdp.errors import UncertifiableError
from isdp.exact import IntegerL1Sampler, enumerate_target, seeded_source
from isdp.exact._integral_solve import independent_rows, integral_solve
from isdp.lattice import IntegerLattice, generalized_gaussian, generalized_laplace, table_margins
from isdp.tables import constraint_matrix, load_table


def _draws(A, eps, n, *, seed=1):
    return IntegerL1Sampler.build(A).sample(Fraction(eps), n, seeded_source(seed))


# --------------------------------------------------------------------------- exact laws


@pytest.mark.parametrize(
    "A, eps", [(np.ones((1, 3), dtype=np.int64), "1/2"), (table_margins(2, 3), "1")], ids=["sum of 3", "2x3 margins"]
)
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
    draws = IntegerL1Sampler.build(A).sample(1 / sigma, 3000, seeded_source(2), sigma=sigma)
    assert chisquare_gof(rows_to_categories(draws, points), probs) > ALPHA


def test_nonnegative_release_is_the_integer_l1_projection_of_the_noisy_table(tmp_path):
    """Post-processing: every cell ≥ 0, the invariants kept, and no non-negative table with them closer
    in ℓ1 to the noisy table than the release (checked by enumerating all 10 tables of total 3)."""
    from isdp.baselines._nonnegative import l1_projection_milp

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
    sampler = IntegerL1Sampler.build(A)
    draws = sampler.sample(eps, 50, seeded_source(4))
    assert not np.any(draws @ A.T) and len(np.unique(draws, axis=0)) > 10
    with pytest.raises(UncertifiableError, match="a draw of 1000 accepted none of its 50 proposals"):
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


# --------------------------------------------------------------------------- releases on each route


def test_certified_chain_release_states_delta_per_person_within_the_request(tmp_path):
    table = tmp_path / "t.csv"
    table.write_text("g,a,b,c\nu,5,3,2\nv,1,4,6\n")
    code, _, statement, _ = run_release(
        tmp_path, table, "--invariant", "all-margins", "--norm", "l2", "--epsilon", "1", "--delta", "0.2"
    )
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
    from isdp.privacy._gaussian_profile import profile_epsilon

    small = tmp_path / "s.csv"
    small.write_text("g,a,b,c\nu,5,3,2\nv,1,4,6\n")
    code, _, statement, _ = run_release(
        tmp_path, small, "--invariant", "all-margins", "--norm", "gaussian", "--epsilon", "2", "--delta", "1e-6"
    )
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
    args = [
        "--invariant",
        "all-margins",
        "--constraints",
        str(extra),
        "--norm",
        "gaussian",
        "--epsilon",
        "1",
        "--delta",
        "0.2",
        "--max-attempts",
        "2",
    ]
    code, *_ = run_release(tmp_path, small, *args)
    assert code == 5 and "beyond --max-attempts 2: nothing is released" in capsys.readouterr().err
    only(tmp_path, "s.csv", "extra.csv")
    code, _, statement, _ = run_release(tmp_path, small, *args, "--allow-chain")
    p = json.loads(statement.read_text())
    g = p["guarantee"]["per_person"]
    assert code == 0 and p["route"]["name"] == "certified chain" and p["requested"]["allow_chain"]
    # δ split: half for the zCDP conversion, half for the chain's TV bound; the sum within the request
    assert g["delta"] == pytest.approx(0.1 + (1 + math.exp(g["epsilon"])) * p["guarantee"]["tv_bound"])
    assert g["delta"] <= 0.2 and g["epsilon"] <= 1


# --------------------------------------------------------------------------- blocks


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
    from isdp.mcmc import DoubleGeometric

    A, eps = table_margins(2, 3), Fraction(1, 2)
    sampler, rng = ExactSampler.build(A), seeded_source(8)
    draws = np.array([sampler.draw(eps, rng, max_attempts=1, accept=False)[0] for _ in range(4000)])
    assert np.all(draws @ A.T == 0)
    free = np.setdiff1d(np.arange(6), sampler.solved)
    support = np.arange(-40, 41)  # the mass beyond is below 2e-9
    pmf = DoubleGeometric(float(eps)).pmf(support)
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


def test_a_forecast_within_budget_that_accepts_nothing_is_still_refused(tmp_path, capsys, monkeypatch):
    """The forecast is an estimate: a run that then accepts nothing is refused after its attempts."""
    from isdp.exact import IntegerL1Sampler

    monkeypatch.setattr(IntegerL1Sampler, "log_acceptance", lambda self, eps, sigma=None: 0.0)
    table = margins_table(tmp_path / "t.csv", 8, 8)
    code, *_ = run_release(tmp_path, table, "--invariant", "all-margins", "--epsilon", "1", "--max-attempts", "5")
    assert code == 5 and "accepted none of --max-attempts 5" in capsys.readouterr().err
    only(tmp_path, "t.csv")


def _nested_table(path: Path) -> Path:
    """Two states (one of a single county) × counties × two age groups."""
    rows = [
        ("S", "c1", "a0", 3),
        ("S", "c1", "a1", 4),
        ("S", "c2", "a0", 5),
        ("S", "c2", "a1", 1),
        ("S", "c3", "a0", 2),
        ("S", "c3", "a1", 2),
        ("T", "d1", "a0", 6),
        ("T", "d1", "a1", 0),
    ]
    path.write_text("state,county,age,count\n" + "".join(f"{s},{c},{a},{v}\n" for s, c, a, v in rows))
    return path


def test_a_nested_release_keeps_every_level_exactly(tmp_path):
    table = _nested_table(tmp_path / "t.csv")
    nested = [
        "--invariant",
        "total",
        "--invariant",
        "by:state",
        "--invariant",
        "by:state,county",
        "--invariant",
        "by:state,age",
    ]
    code, out, statement, _ = run_release(tmp_path, table, *nested, "--epsilon", "1")
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
    rows = ["g," + ",".join(f"c{j}" for j in range(c))] + [
        f"r{i}," + ",".join(str(v) for v in rng.poisson(30, c)) for i in range(r)
    ]
    table = tmp_path / "t.csv"
    table.write_text("\n".join(rows) + "\n")
    code, out, statement, audit = run_release(
        tmp_path, table, "--invariant", "all-margins", "--norm", "gaussian", "--epsilon", "1", "--delta", "1e-6"
    )
    assert code == 0
    p = json.loads(statement.read_text())
    blocks = p["route"]["blocks"]
    sigma = float(Fraction(p["mechanism"]["sigma"]))
    assert blocks == [
        {
            "invariants": "both margins",
            "cells": r * c,
            "grid": [r, c],
            "blocks": 1,
            "noise_variance_per_cell_at_most": pytest.approx(sigma**2 * (1 - 1 / r) * (1 - 1 / c)),
        }
    ]
    assert "Klein" in p["route"]["sampler"] and p["route"]["solved_cells"] == []
    assert json.loads(audit.read_text())["exact_sampler"]["attempts"] <= 2
    x = np.array([[int(v) for v in line.split(",")[1:]] for line in rows[1:]])
    y = np.array([[int(v) for v in line.split(",")[1:]] for line in out.read_text().splitlines()[1:]])
    assert (y.sum(axis=0) == x.sum(axis=0)).all() and (y.sum(axis=1) == x.sum(axis=1)).all() and (y != x).any()


# --------------------------------------------------------------------------- what the plan accepts, the draw serves


def _small_table(tmp_path: Path, text: str = "k,count\na,3\nb,5\nc,4\n"):
    path = tmp_path / "t.csv"
    path.write_text(text)
    return load_table(path)


def _guarantee_lines(statement: dict) -> dict:
    return {k: statement["guarantee"][k] for k in ("kind", "headline", "per_person", "two_persons")}


@pytest.mark.parametrize("epsilon", ["0.1234567891", "0.3333333333", "2147483647/2147483648", "7/2000000000"])
@pytest.mark.parametrize("free_cells", [False, True], ids=["l1", "free-cells"])
def test_an_epsilon_beyond_the_compiled_kernel_is_released_as_the_dry_run_said(tmp_path, epsilon, free_cells):
    """ε/2 with a numerator or denominator of 2**31 or more: drawn in Python integers, not a traceback, and
    the dry run's guarantee is the release's."""
    from isdp.release import Request, dry_run, make_release

    table = _small_table(tmp_path)
    A, labels = constraint_matrix(table, ["total"])
    req = Request(epsilon=epsilon, seed=3, free_cells=free_cells)
    release = make_release(table, A, labels, req)
    assert release.values.dtype == np.int64 and release.values.sum() == table.x.sum()
    assert release.statement["mechanism"]["epsilon_per_unit_l1_distance"] == str(Fraction(epsilon) / 2)
    assert _guarantee_lines(dry_run(table, A, labels, req)) == _guarantee_lines(release.statement)


def test_the_gaussian_sigma_at_a_tiny_epsilon_passes_the_release_check_it_was_planned_for(tmp_path):
    """ε = 1e-8, δ = 1e-6 on both margins of 2 × 3: the plan's σ meets the request as stated, so the check after
    the draw, which refused it before, passes on every seed."""
    from isdp.release import Request, make_release

    table = _small_table(tmp_path, "g,a,b,c\nu,1,2,3\nv,4,5,6\n")
    A, labels = constraint_matrix(table, ["all-margins"])
    for seed in range(3):
        release = make_release(table, A, labels, Request(norm="gaussian", epsilon="1e-8", delta=1e-6, seed=seed))
        assert release.statement["guarantee"]["per_person"]["epsilon"] <= 1e-8
        assert (A @ release.values == A @ table.x).all()


def test_a_non_integer_invariant_is_refused_not_truncated(tmp_path):
    """[1, 1, 1.5] read as [1, 1, 1] kept A·release = 24.5 against A·x = 25.5; it is refused by name."""
    from isdp.errors import InvariantError
    from isdp.release import Request, make_release

    table = _small_table(tmp_path)
    with pytest.raises(InvariantError, match=r"A must be integer-valued; entry \(0, 2\) is 1.5"):
        make_release(table, np.array([[1, 1, 1.5]]), ["total"], Request(epsilon="1", seed=1))


def test_the_dry_run_statement_is_the_release_s_without_what_the_draw_gives(tmp_path):
    """With --uncertainty the dry run states the intervals' level too: the same keys as the release's statement
    (less the invariants' values), and the same guarantee."""
    from isdp.release import Request, dry_run, make_release

    table = _small_table(tmp_path)
    A, labels = constraint_matrix(table, ["total"])
    req = Request(epsilon="1", seed=2, uncertainty=0.9)
    planned, released = dry_run(table, A, labels, req), make_release(table, A, labels, req).statement
    assert set(planned) - {"dry_run"} == set(released)
    assert planned["uncertainty"]["level"] == released["uncertainty"]["level"] == 0.9
    assert _guarantee_lines(planned) == _guarantee_lines(released)


def test_the_command_releases_an_epsilon_beyond_the_kernel_and_refuses_noise_beyond_int64(tmp_path, capsys):
    """``isdp release`` ended both in a traceback (exit 1); now a release (exit 0) and a refusal (exit 5, one line,
    nothing written)."""
    table = tmp_path / "t.csv"
    table.write_text("k,count\na,1\nb,2\nc,3\n")
    code, out, statement, _ = run_release(tmp_path, table, "--invariant", "total", "--epsilon", "0.1234567891")
    assert (
        code == 0
        and out.exists()
        and json.loads(statement.read_text())["requested"]["epsilon_per_person"] == ("0.1234567891")
    )
    for path in tmp_path.glob("out.csv*"):
        path.unlink()
    constraints = tmp_path / "big.csv"
    constraints.write_text("constraint,a,b,c\nbig,2147483647,2147483647,1\n")
    code, *_ = run_release(tmp_path, table, "--constraints", constraints, "--epsilon", "1e-9", "--free-cells")
    err = capsys.readouterr().err
    assert code == 5 and "64-bit integers" in err and "Traceback" not in err
    only(tmp_path, "t.csv", "big.csv")
