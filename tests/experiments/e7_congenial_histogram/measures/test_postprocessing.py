"""Tests of :mod:`isdp_papers.e7_congenial_histogram.measures.postprocessing`: §4's L1 projection (the printed
point leaves the segment at the exact rate, the solution set is the segment, the interval law), the printed f_L2
formula, and the post-processing rows (outside Theorem 2.1, within a level set, one-to-one maps): each row matches on
the real measure and differs under a plausibly wrong premise."""

from __future__ import annotations

import numpy as np
import pytest
from closed_form_support import eps_grid_run, privacy_table_run
from conftest import REGISTRY, row_verdict
from isdp_papers import claims
from isdp_papers.claims import claim
from isdp_papers.e7_congenial_histogram import releases as rel
from isdp_papers.evidence import Run
from scipy import stats

# --------------------------------------------------------------------------- §4's L1 and L2 projections


def test_l1_printed_point_leaves_the_segment_at_the_exact_rate(tmp_path):
    eps, n_grid = 0.9, 300
    u = rel.laplace_quantile_grid(eps, n_grid)
    lo, hi = np.minimum(u[:, 0], -u[:, 1]), np.maximum(u[:, 0], -u[:, 1])  # the segment, as noise of the first bin
    for beta in (0.0, 0.25, 0.5, 0.75):
        point = beta * u[:, 0] + (1 - beta) * u[:, 1]
        share = np.mean((point < lo - 1e-9) | (point > hi + 1e-9))
        assert abs(share - (3 - beta) / 4) < 5 / n_grid  # the exact rate, within the grid's quadrature error
    status, m = row_verdict("CDP-E7-l1-literal-point", privacy_table_run(tmp_path))
    assert status == "differs" and abs(m.value - 3 / 4) < 5 / n_grid  # β = 0 has the largest share
    assert "reversed (the segment's own point, f_L1 here): 0" in m.text
    # at β = 1 the printed point is the segment's end m1: the row can match
    assert row_verdict("CDP-E7-l1-literal-point", privacy_table_run(tmp_path / "b", betas=(1.0,)))[0] == "match"


def test_l1_solution_set_is_the_segment_and_a_gap_or_a_unique_solution_fails(tmp_path, monkeypatch):
    status, m = row_verdict("CDP-E7-l1-solution-set", privacy_table_run(tmp_path))
    assert status == "match" and m.value["segment_gap"] < 1e-9
    assert row_verdict("CDP-E7-l1-solution-set", privacy_table_run(tmp_path / "b", l1_gap=1e-3))[0] == "differs"

    # a mirror-symmetric grid has pairs with u1 + u2 = 0: one solution only, which the row must see
    def symmetric(eps, n):
        u = stats.laplace.ppf((np.arange(n) + 0.5) / n, scale=rel.base_scale(eps))
        return np.column_stack([np.repeat(u, n), np.tile(u, n)])

    monkeypatch.setattr(rel, "laplace_quantile_grid", symmetric)
    status, m = row_verdict("CDP-E7-l1-solution-set", privacy_table_run(tmp_path / "c"))
    assert status == "differs" and m.value["unique"] > 0


def test_l1_interval_row_matches_and_fails_at_the_conditional_scale(run):
    status, m = row_verdict("CDP-E7-l1-interval-law", run)
    assert status == "match"
    status, m = row_verdict("CDP-E7-l1-interval-law", run, printed_scale=1.0)  # M*'s Lap(1/ε)
    assert status == "differs" and m.value.min() < 1e-10


def test_printed_l2_formula_is_off_by_half_the_bin_difference(tmp_path):
    x = (30, 70)
    status, m = row_verdict("CDP-E7-l2-printed-formula", eps_grid_run(tmp_path / "a", x))
    assert status == "differs" and m.value == pytest.approx(abs(x[0] - x[1]) / 2, abs=1e-9)
    assert float(m.note.rsplit(": ", 1)[1]) < 1e-9  # with (s1 − s2)/2 restored the formula is the projection
    status, m = row_verdict("CDP-E7-l2-printed-formula", eps_grid_run(tmp_path / "b", (x[0] + 1, x[0] + 1)))
    assert status == "match"  # equal bins: the dropped term vanishes, so the row can match
    assert claim("CDP-E7-l2-printed-formula", REGISTRY)["same_fact_as"] == "CDP-E7-table2-mean-l2"


# --------------------------------------------------------------------------- post-processing


def test_postprocessing_row_matches_and_a_fixed_public_projection_fails(run):
    status, m = row_verdict("CDP-E7-postprocessing-outside-theorem", run)
    assert status == "match" and m.value == pytest.approx(1.0)
    # the post-processing theorem's g: every x projected onto one database's S*, a function that does not depend on x
    status, m = row_verdict("CDP-E7-postprocessing-outside-theorem", run, confidential_total=50)
    assert status == "differs" and m.value < 1e-9


def test_within_level_set_row_differs_and_all_pairs_match(run):
    status, m = row_verdict("CDP-E7-postprocessing-within-level-set", run)
    assert status == "differs" and m.value < 1e-9
    # the other a-priori reading (every §1.3 pair, across level sets too): the sister row's δ = 1
    status, m = row_verdict("CDP-E7-postprocessing-within-level-set", run, pairs="all")
    assert status == "match" and m.value == pytest.approx(1.0)
    assert row_verdict("CDP-E7-postprocessing-outside-theorem", run)[1].value == pytest.approx(1.0)


def test_pairs_keyword_is_checked(run):
    with pytest.raises(ValueError, match="pairs"):
        row_verdict("CDP-E7-postprocessing-within-level-set", run, pairs="across")


def test_post_processing_keeps_the_level_for_one_to_one_maps_and_a_merge_can_lower_it():
    run = Run(".", {})
    status, m = row_verdict("CDP-E7-post-processing-one-to-one", run)
    assert status == "match"
    # parity's level in closed form: P(DG even) = (1 + a²)/(1 + a)², P(odd) = 2a/(1 + a)², swapped by the neighbour
    a = np.exp(-claims.claim("CDP-E7-post-processing-one-to-one", REGISTRY)["args"]["eps"])
    assert f"parity {np.log((1 + a**2) / (2 * a)):.4f}" in m.text
    # a world where no merging map lowers the level: 'only when g is one-to-one' would have no content
    status, m = row_verdict("CDP-E7-post-processing-one-to-one", run, many_to_one=["clamp", "halve", "sign"])
    assert status == "differs" and m.value["some_below"] is False
