"""Tests of :mod:`isdp_papers.e8_privacy_accounting.measures.topdown_rounding`: the TopDown talk's rounding
LPs (they return H* itself, and flip on an integer H*), total unimodularity and integral vertices (not for the GQ
matrix of three types), and the GQ integer solution (which fails for capacities no blocks give)."""

from __future__ import annotations

import numpy as np
import pytest
from accounting_support import e8_run
from conftest import REGISTRY, row_verdict
from isdp_papers import claims


@pytest.mark.parametrize("cid", ["TDA-E8-rounding-lp-national", "TDA-E8-rounding-lp-no-invariants"])
def test_printed_rounding_lps_return_h_star_and_flip_on_an_integer_h_star(run, cid):
    status, m = row_verdict(cid, run)
    assert status == "differs" and m.text.count("H* itself") == 2 and m.text.count("integral with objective") == 2
    integer = np.rint(claims.claim(cid, REGISTRY)["args"]["children"]).tolist()
    parent = claims.claim(cid, REGISTRY)["args"].get("parent")
    assert (
        row_verdict(cid, run, children=integer, **({"parent": np.sum(integer, 0).tolist()} if parent else {}))[0]
        == "match"
    )


def test_tum_matrices_have_integral_vertices_and_the_gq_matrix_does_not(tmp_path):
    run = e8_run(tmp_path)
    status, m = row_verdict("TDA-E8-tum-integral", run)
    assert status == "match", m.text
    status, m = row_verdict("TDA-E8-tum-integral", run, systems=["national", "state", "gq"])
    assert status == "differs" and m.value > 0, m.text


def test_tum_statements_fail_when_the_gq_matrix_is_tum(tmp_path):
    run = e8_run(tmp_path)
    assert row_verdict("TDA-E8-tum", run)[0] == "match"
    status, m = row_verdict("TDA-E8-tum", run, gq_types=["A", "B"])  # two types: no odd cycle, TUM
    assert status == "differs" and m.value["gq_tum"] is True


def test_gq_integer_solution_fails_for_capacities_not_from_blocks(tmp_path, monkeypatch):
    from isdp_papers.e8_privacy_accounting import implied

    run = e8_run(tmp_path)
    assert row_verdict("TDA-E8-gq-integer-solution", run)[0] == "match"
    # pairs capped at 1, three types at 2: the vertex (1/2, 1/2, 1/2), as no block data give
    monkeypatch.setattr(implied, "gq_lower", lambda blocks, t: 0)
    monkeypatch.setattr(implied, "gq_capacity", lambda blocks, S: 2 if len(S) >= 3 else 1)
    status, m = row_verdict("TDA-E8-gq-integer-solution", run)
    assert status == "differs" and m.value["integral_vertices"] is False
