"""Tests of :mod:`isdp_papers.e8_privacy_accounting.measures.topdown_invariants`: invariants against privacy
and accuracy in the TopDown talk — consistency increases accuracy (not with a wrong total), the pure-DP toy (within
budget, flipping on other invariants), and the failsafe (TDA-E8-failsafe-accuracy: worse and keeping the total, not
worse when the parent is much noisier, breaking the invariant when it drops the total as well)."""

from __future__ import annotations

from accounting_support import e8_run
from conftest import row_verdict


def test_consistency_increases_accuracy_with_true_invariants_and_not_with_a_wrong_total(tmp_path):
    run = e8_run(tmp_path)
    status, m = row_verdict("TDA-E8-consistency-accuracy", run)
    assert status == "match", m.text
    status, m = row_verdict("TDA-E8-consistency-accuracy", run, total_offset=5)
    assert status == "differs" and m.value < -3.43, m.text


def test_pure_dp_toy_within_budget_and_flips_on_other_invariants(run):
    cid = "TDA-E8-toy-pure-dp"
    status, m = row_verdict(cid, run)
    assert status == "match" and "0 released tables in common" in m.text
    status, m = row_verdict(cid, run, kept=[0, 1])  # reads cell 2 of x too: x and x' share nothing
    assert status == "differs" and m.value["within_budget"] is False
    status, m = row_verdict(cid, run, kept=[], radius=6)  # the total alone: x and x'' share released tables
    assert status == "differs" and m.value["common_support_across"] is True


# --------------------------------------------------------------------------- the failsafe ('Workarounds')


CID = "TDA-E8-failsafe-accuracy"


def test_failsafe_is_worse_and_keeps_the_total(run):
    status, m = row_verdict(CID, run)
    assert status == "match" and m.se > 0 and "largest |state total − 1,052,567| 0" in m.text


def test_failsafe_is_not_worse_when_the_parent_is_much_noisier(run):
    status, m = row_verdict(CID, run, epsilon_parent=0.1)
    assert status == "differs" and m.value == {"worse": False, "invariants": True}


def test_dropping_the_total_too_breaks_the_invariant(run):
    status, m = row_verdict(CID, run, weaker="none")
    assert status == "differs" and m.value == {"worse": True, "invariants": False}
