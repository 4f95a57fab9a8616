"""Tests of :mod:`isdp_papers.e6_spatiotemporal_gaussian.measures.invariants_and_dp`: invariants against DP (§1,
§2, §3.1, §6): Example 2.4's neighbours and event, nontrivial invariants force δ = 1, binary invariants leave no
additive noise, composed margins link tables, independent rows give the same invariant, the exponential mechanism on a
bounded range is not additive: each row matches and differs in a plausibly wrong world, with brute-force checks of the
smallest cases."""

from __future__ import annotations

from closed_form_support import registry_row, row_status
from conftest import row_verdict
from isdp_papers.e6_spatiotemporal_gaussian.measures import invariants_and_dp
from isdp_papers.evidence import Run


def test_example_24_row_checks_the_neighbours_and_the_event():
    args = registry_row("SDP-E6-example-24")["args"]
    assert row_status("SDP-E6-example-24") == "match"
    x = list(args["x"])
    assert row_status("SDP-E6-example-24", x_prime=[*args["x_prime"], x[0]]) == "differs"  # not of the same size
    two_apart = [args["x_prime"][0], x[1] + 1, *x[2:]]  # two rows changed
    assert row_status("SDP-E6-example-24", x_prime=two_apart) == "differs"
    odd_again = [x[0] + 2, *x[1:]]  # one row changed, but to another odd value: C hist unchanged
    assert row_status("SDP-E6-example-24", x_prime=odd_again) == "differs"


def test_nontrivial_invariants_force_delta_one_on_one_size_but_not_on_every_size(run):
    status, m = row_verdict("SDP-E6-invariants-incompatible", run)
    assert status == "match" and m.value == 1
    status, m = row_verdict("SDP-E6-invariants-incompatible", run, sizes=[0, 1, 2, 3])  # X*: the total is nontrivial
    assert status == "differs" and m.value == 0 and "(1, 1, 1, 1)" in m.text


def test_binary_outputs_leave_no_additive_noise_but_integer_outputs_do(run):
    assert row_verdict("SDP-E6-binary-invariants-additive", run)[0] == "match"
    status, m = row_verdict("SDP-E6-binary-invariants-additive", run, outputs="integer")  # the linear case
    assert status == "differs" and m.value > 0


def test_binary_noise_brute_force_on_two_records():
    """n = 2, k = 1: the fibre is {(0, 1), (1, 0)}; e = (1, −1) sends (1, 0) to (2, −1), e = (−1, 1) sends (0, 1) to
    (−1, 2): no nonzero e keeps both binary."""
    assert invariants_and_dp.binary_invariant_additive_noise(None, None, sizes=[2]).value == 0
    assert invariants_and_dp.binary_invariant_additive_noise(None, None, sizes=[2], outputs="integer").value == 3 * 4


def test_composed_margins_fix_tables_that_one_margin_does_not(run):
    status, m = row_verdict("SDP-E6-margins-linkage", run)
    assert status == "match" and m.value > 0
    status, m = row_verdict("SDP-E6-margins-linkage", run, second="rows")  # the age margin twice: nothing new
    assert status == "differs" and m.value == 0


def test_margins_fix_a_2x2_table_exactly_when_it_is_degenerate():
    """A 2 × 2 table is fixed by both margins iff all its n individuals lie in one row or one column: 4 lines × (n + 1)
    splits, the 4 one-cell tables counted twice; the age margin alone fixes none (a row total n ≥ 1 splits n + 1
    ways)."""
    m = invariants_and_dp.margins_linkage(None, None, shapes=[[2, 2]], max_total=3)
    assert m.value == sum(4 * (n + 1) - 4 for n in range(1, 4))


def test_independent_rows_give_the_same_invariant_but_too_few_do_not(run):
    status, m = row_verdict("SDP-E6-independent-rows", run)
    assert status == "match" and "760 rows of rank 740" in m.text
    status, m = row_verdict("SDP-E6-independent-rows", run, drop=1)  # one row fewer than the rank per building
    assert status == "differs" and m.value > 0.1


def test_the_exponential_mechanism_on_a_bounded_range_is_not_additive_and_on_the_integers_it_is():
    run = Run(".", {})
    status, m = row_verdict("SDP-E6-exponential-not-additive", run)
    assert status == "match" and m.value > 0.1
    status, m = row_verdict("SDP-E6-exponential-not-additive", run, bounded=False)
    assert status == "differs" and m.value < 1e-12
