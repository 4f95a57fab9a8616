"""Tests of :mod:`isdp_papers.e8_privacy_accounting.measures.swapping_privacy`: permutation swapping's DP
statements checked exactly on small strata (the ε formula, the proof sketch, the invariants' support, a varying
mechanism's budget, derived products, releasing the invariants), the visualisation and the Hamming extension; each
row matches on the real measure and flips under a plausibly wrong law, formula or parameter."""

from __future__ import annotations

import itertools

from accounting_support import e8_run
from conftest import REGISTRY, row_verdict
from criteria_support import judge
from isdp_papers import claims
from isdp_papers.e8_privacy_accounting import swap_audit
from isdp_papers.e8_privacy_accounting.measures import swapping_privacy

# --------------------------------------------------------------------------- the mechanism, exactly


def test_permutation_dp_fails_for_a_formula_below_the_exact_loss(tmp_path, monkeypatch):
    from isdp_papers.e8_privacy_accounting import accounting

    run = e8_run(tmp_path)
    status, m = row_verdict("SWAP-E8-permutation-dp", run)
    assert status == "match" and "never attained" in m.text and "upper bound only" in m.note
    exact = accounting.swapping_epsilon
    monkeypatch.setattr(accounting, "swapping_epsilon", lambda p, b: exact(p, b) - 0.1)
    assert row_verdict("SWAP-E8-permutation-dp", run)[0] == "differs"


def test_proof_sketch_fails_for_another_m_another_law_of_sigma_or_o_above_one(tmp_path, monkeypatch):
    import functools
    import itertools

    from isdp_papers.e8_privacy_accounting import swap_audit

    run = e8_run(tmp_path)
    status, m = row_verdict("SWAP-E8-proof-sketch", run)
    assert status == "match" and all(m.value.values())
    small = [[[0, 1, 2, 3], [0, 1, 2, 3]], [[0, 0, 1, 2], [0, 1, 1, 2]]]
    status, m = row_verdict("SWAP-E8-proof-sketch", run, strata=small, rates=[0.8])  # o > 1: outside the sketch
    assert status == "differs" and m.value == dict.fromkeys(m.value, True) | {"ratio_within_bound": False}
    distance = swap_audit.hamming
    with monkeypatch.context() as patch:  # m read as the pairs of records exchanged
        patch.setattr(swap_audit, "hamming", lambda x, x2: -(-distance(x, x2) // 2))
        status, m = row_verdict("SWAP-E8-proof-sketch", run, strata=small)
        assert status == "differs" and not m.value["derangement_of_m_records"] and not m.value["m_sigma_within_m"]
    # a uniform permutation of the selected records, not a derangement (the output laws cached apart, then dropped)
    monkeypatch.setattr(swap_audit, "_derangements", lambda r: tuple(itertools.permutations(range(r))))
    monkeypatch.setattr(swap_audit, "_selection_weights", functools.cache(swap_audit._selection_weights.__wrapped__))
    status, m = row_verdict("SWAP-E8-proof-sketch", run, strata=small)
    assert status == "differs" and not m.value["ratio_in_derangement_numbers"]


def test_invariant_support_fails_when_a_lone_record_leaks_a_new_value(tmp_path, monkeypatch):
    from isdp_papers.e8_privacy_accounting import swap_audit

    run = e8_run(tmp_path)
    assert row_verdict("SWAP-E8-invariant-support", run)[0] == "match"
    honest = swap_audit.output_law

    def leaky(h, k, p):
        """A tenth of the mass moves to the dataset whose first record took another value of k."""
        law = {w: 0.9 * q for w, q in honest(h, k, p).items()}
        leaked = tuple(sorted(zip(h, [k[0] + 1, *k[1:]], strict=True)))
        return law | {leaked: law.get(leaked, 0.0) + 0.1}

    monkeypatch.setattr(swap_audit, "output_law", leaky)
    status, m = row_verdict("SWAP-E8-invariant-support", run)
    assert status == "differs" and m.value["invariants_kept"] is False and m.value["common_support_across"] is True


def test_swapping_varies_and_needs_a_positive_budget_at_every_printed_rate():
    status, m = row_verdict("SWAP-E8-varies-needs-budget", None)
    assert status == "match" and m.note.endswith("none") and m.n == 16, m.text


def test_varies_needs_budget_fails_for_a_case_where_swapping_does_not_vary():
    """Two records at p = 1/2: swapping or not is equally likely, both datasets share one law."""
    status, m = row_verdict("SWAP-E8-varies-needs-budget", None, strata=[[[0, 1], [0, 1]]], rates=[0.05, 0.5])
    assert status == "differs" and m.value == 0 and "b = 2, p = 0.5" in m.note


def test_varies_needs_budget_fails_for_a_mechanism_whose_output_does_not_vary(monkeypatch):
    """The stratum's swapping variable redrawn uniformly whatever the data: one law on the whole universe."""

    def uniform(h, k, p):
        perms = list(itertools.permutations(k))
        law = {}
        for perm in perms:
            w = tuple(sorted(zip(h, perm, strict=True)))
            law[w] = law.get(w, 0.0) + 1 / len(perms)
        return law

    monkeypatch.setattr(swap_audit, "output_law", uniform)
    status, m = row_verdict("SWAP-E8-varies-needs-budget", None)
    assert status == "differs" and m.value == 0 and m.text.startswith("0 of 16"), m.text


def test_varies_needs_budget_fails_when_the_divergence_is_no_metric():
    assert row_verdict("SWAP-E8-varies-needs-budget", None, compare="invariants")[0] == "differs"


def test_derived_products_exceed_the_budget_when_they_read_the_unswapped_data():
    assert row_verdict("SWAP-E8-derived-products", None)[0] == "match"
    status, m = row_verdict("SWAP-E8-derived-products", None, leak=0.9)
    assert status == "differs" and m.value > 1


def test_releasing_only_the_invariants_costs_nothing_but_releasing_the_swap_does():
    assert row_verdict("SWAP-E8-invariant-release", None)[0] == "match"
    status, m = row_verdict("SWAP-E8-invariant-release", None, release="swapped")
    assert status == "differs" and m.value > 0


# --------------------------------------------------------------------------- printed examples


def test_visualisation_fails_on_a_wrong_sign_or_a_second_swapped_variable(tmp_path):
    run = e8_run(tmp_path)
    c = claims.claim("SWAP-E8-visualisation", REGISTRY)
    assert row_verdict("SWAP-E8-visualisation", run)[0] == "match"
    flipped = {
        **c["paper_value"],
        "changes": {loc: {race: -d for race, d in cells.items()} for loc, cells in c["paper_value"]["changes"].items()},
    }
    m = swapping_privacy.swap_visualisation(run, flipped, **c["args"])
    assert judge(c["criterion"], flipped, m) == "differs"
    race = c["args"]["columns"].index("race")
    after = [list(r) for r in c["args"]["after"]]
    after[0][race], after[-1][race] = after[-1][race], after[0][race]  # Race exchanged too: the table is unchanged
    status, m = row_verdict("SWAP-E8-visualisation", run, after=after)
    assert status == "differs" and m.value["only_swap_variable_changes"] is False
    assert {d for cells in m.value["changes"].values() for d in cells.values()} == {0}


def test_hamming_extension_fails_without_the_half(tmp_path, monkeypatch):
    run = e8_run(tmp_path)
    assert row_verdict("SWAP-E8-hamming-extension", run)[0] == "match"
    honest = swapping_privacy.slides_distances
    monkeypatch.setattr(swapping_privacy, "slides_distances", lambda c, c2: (2 * honest(c, c2)[0], honest(c, c2)[1]))
    status, m = row_verdict("SWAP-E8-hamming-extension", run)
    assert status == "differs" and m.value["bounded_is_half_symmetric_difference"] is False
