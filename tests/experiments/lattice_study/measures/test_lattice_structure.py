"""Tests of :mod:`isdp_papers.lattice_study.measures.lattice_structure`: the lattice of the invariants (ISDP
Prop 8, Lemma 11 / App. B, §3.1, §1–2, §5). Each row matches on the right lattice and differs on a plausibly wrong
one: ISDP-E1-lattice-complete (not for a sublattice basis), ISDP-E1-doubling-exponent (not with the cells' count as
the exponent nor for a non-lattice), ISDP-E1/E2-lattice-proposal-efficiency (not for blind proposals that are almost
always zero), ISDP-E1-neighbours-may-break-invariants (not for a total or a per-cell system),
ISDP-E1-lattice-point-volume (not for the lattice taken as Z^r) and ISDP-E1-sparser-* (not when an invariant is
implied by the others)."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import isdp_papers.nhgis.counties
import numpy as np
import pandas as pd
import pytest
from conftest import ROOT, row_verdict
from isdp_papers.config import load_config
from isdp_papers.e1_intersecting import problem as e1_problem
from isdp_papers.evidence import Measurement, Run
from isdp_papers.lattice_study import theory
from isdp_papers.lattice_study.measures import lattice_structure
from lattice_support import CONFIG, assert_row_flips, config_run, registry_row, row_status

from isdp.lattice import IntegerLattice


def test_every_experiments_basis_spans_the_integer_kernel_and_a_sublattice_basis_fails(monkeypatch):
    c = registry_row("ISDP-E1-lattice-complete")
    run = config_run()
    assert row_status(c, lattice_structure.lattice_complete(run, c["paper_value"])) == "match"
    real = IntegerLattice.from_constraints.__func__

    def doubled(cls, A, reduce="auto"):  # a basis of the index-2 sublattice: its first column doubled
        lattice = real(cls, A, reduce)
        basis = lattice.basis.copy()
        basis[:, 0] *= 2
        return dataclasses.replace(lattice, basis=basis)

    monkeypatch.setattr(IntegerLattice, "from_constraints", classmethod(doubled))
    m = lattice_structure.lattice_complete(run, c["paper_value"])
    assert set(m.value.values()) == {2} and row_status(c, m) == "differs"


def test_doubling_multiplies_the_count_by_two_to_the_dimension_not_to_the_cells_nor_for_a_non_lattice(monkeypatch):
    c = registry_row("ISDP-E1-doubling-exponent")
    assert row_status(c, lattice_structure.doubling_exponent(Run(".", {}), c["paper_value"], **c["args"])) == "match"
    k, A = c["args"]["k"], np.ones((1, 3), dtype=np.int64)
    small, big = theory.ball_counts(A, [k, 2 * k], "l2")
    assert row_status(c, Measurement(abs(big / (2 ** A.shape[1] * small) - 1), "")) == "differs"  # 2^n, n cells
    # footnote 2's non-lattice: the same number of points on every integer shell, so N(ρ) grows like ρ
    monkeypatch.setattr(theory, "ball_counts", lambda A, radii, norm: np.array([4 * int(r) + 1 for r in radii]))
    m = lattice_structure.doubling_exponent(Run(".", {}), c["paper_value"], **c["args"])
    assert m.value > 0.4 and row_status(c, m) == "differs"


def test_lattice_proposals_are_accepted_far_more_often_than_blind_ones_land(tmp_path):
    """On the config's lattices with an acceptance rate of 0.35 per target (the chains' own rates are 0.36 to 0.47)."""
    config = load_config(ROOT / "config" / "config.yaml")
    (tmp_path / "results" / "tables").mkdir(parents=True)
    for exp in ("e1", "e2"):
        for norm in config[exp]["targets"]:
            pd.DataFrame({"acceptance": [0.35]}).to_csv(tmp_path / f"results/tables/{exp}_ess_{norm}.csv", index=False)
    run = Run(tmp_path, config, repo=ROOT)
    for row in ("ISDP-E1-lattice-proposal-efficiency", "ISDP-E2-lattice-proposal-efficiency"):
        c = registry_row(row)
        m = lattice_structure.lattice_proposal_efficiency(run, c["paper_value"], **c["args"])
        assert row_status(c, m) == "match" and m.value > 100, row
        # blind proposals so small they are almost always zero land almost always: no order of magnitude left
        m = lattice_structure.lattice_proposal_efficiency(run, c["paper_value"], **{**c["args"], "blind_eps": 3.0})
        assert row_status(c, m) == "differs", row


@pytest.mark.parametrize(
    ("system", "states"),
    [  # a single total: every move keeps it; one constraint per cell: none does
        (lambda A: np.ones((1, A.shape[1])), lambda c: "US"),
        (lambda A: np.eye(A.shape[1]), lambda c: c["gisjoin"]),
    ],
    ids=["total", "per-cell"],
)
def test_neighbours_keep_or_break_the_papers_invariants_and_a_total_or_per_cell_system_does_not(
    monkeypatch, system, states
):
    c = registry_row("ISDP-E1-neighbours-may-break-invariants")
    run = config_run()
    m = lattice_structure.neighbour_invariant_kinds(run, c["paper_value"])
    assert row_status(c, m) == "match" and m.value == 2, m.text
    real_problem, real_counties = lattice_structure._experiment_problem, isdp_papers.nhgis.counties.load_counties

    def problem(run, exp):
        p = real_problem(run, exp)
        return SimpleNamespace(A=system(p.A), x=p.x)

    monkeypatch.setattr(lattice_structure, "_experiment_problem", problem)
    monkeypatch.setattr(
        isdp_papers.nhgis.counties,
        "load_counties",
        lambda path: (c := real_counties(path)).assign(state_abbr=states(c)),
    )
    m = lattice_structure.neighbour_invariant_kinds(run, c["paper_value"])
    assert row_status(c, m) == "differs" and m.value == 0, m.text


FLIPS = {"ISDP-E1-lattice-point-volume": {"covolume": "one"}}  # the lattice taken as Z^r (no √det)


@pytest.mark.parametrize("row", FLIPS)
def test_row_matches_and_differs_under_a_plausibly_wrong_law(run, row):
    """ISDP-E1-lattice-point-volume matches with the covolume √det and differs with the lattice taken as Z^r."""
    assert_row_flips(row, run, FLIPS[row])


@pytest.mark.parametrize("row", ["ISDP-E1-sparser-dimension", "ISDP-E1-sparser-acceptance"])
def test_sparser_rows_fail_when_an_invariant_is_implied_by_the_others(run, row, monkeypatch):
    status, m = row_verdict(row, run)
    assert status == "match", m.text
    A = e1_problem.intersecting_constraints_problem(CONFIG["e1"]["x"], CONFIG["e1"]["records_per_region"]).A
    for implied in (A[0], A[0] + A[1]):  # the first count again; the sum of the first two
        monkeypatch.setattr(
            e1_problem,
            "intersecting_constraints_problem",
            lambda *_, third=implied: SimpleNamespace(A=np.vstack([A[:2], third])),
        )
        status, m = row_verdict(row, run)
        assert status == "differs", m.text
        assert m.value["k3"] == m.value["k2"]
