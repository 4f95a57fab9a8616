"""Which rule of a request made each row of the invariants: by label and coefficients, the first rule to make it."""

from scipy import sparse

from isdp.release import Request
from isdp.release._row_rules import rules_of_rows
from isdp.tables import constraint_matrix, load_table


def test_each_row_is_named_by_the_first_rule_that_makes_it_and_a_lookalike_by_none(tmp_path):
    (tmp_path / "t.csv").write_text("county,sex,count\nA,M,10\nA,F,12\nB,M,7\nB,F,9\n")
    (tmp_path / "c.csv").write_text("constraint,A|M,A|F,B|M,B|F\ntotal,2,1,1,1\n")  # a rule's label, other coefficients
    table = load_table(tmp_path / "t.csv")
    rules = ("by:county", "by:county,sex", "total")
    A, labels = constraint_matrix(table, rules, tmp_path / "c.csv")
    named = list(zip(labels, rules_of_rows(table, A, labels, Request(epsilon="1", rules=rules)), strict=True))
    assert named == [
        ("by county=A", "by:county"),
        ("by county=B", "by:county"),
        *((f"by county={c}, sex={s}", "by:county,sex") for c in "AB" for s in "MF"),
        ("total", "total"),
        ("total", None),  # the constraint file's row: labelled like the total, not the total
    ]
    fewer = rules_of_rows(table, A, labels, Request(epsilon="1", rules=("by:county",)))
    assert fewer == ("by:county", "by:county", *[None] * 6)


def test_invariants_that_are_one_rule_s_rows_are_all_named_and_a_changed_row_is_not(tmp_path):
    (tmp_path / "t.csv").write_text("county,sex,count\nA,M,10\nA,F,12\nB,M,7\nB,F,9\n")
    table = load_table(tmp_path / "t.csv")
    req = Request(epsilon="1", rules=("by:county",))
    A, labels = constraint_matrix(table, req.rules)
    assert rules_of_rows(table, A, labels, req) == ("by:county", "by:county")
    changed = A.copy()
    changed.data[-1] = 2  # the last row's last coefficient: its label kept, its row not the rule's
    assert rules_of_rows(table, changed, labels, req) == ("by:county", None)
    relabelled = ["by county=B", "by county=A"]  # each row under the other's label
    assert rules_of_rows(table, A, relabelled, req) == (None, None)


def test_the_rules_rows_one_after_the_other_are_named_by_block_a_repeated_row_by_its_first_rule(tmp_path):
    (tmp_path / "t.csv").write_text("sex,young,old\nFemale,3,5\nMale,4,2\n")
    table = load_table(tmp_path / "t.csv")
    rules = ("total", "row-margins", "column-margins")
    A, labels = constraint_matrix(table, rules)
    expected = ("total", "row-margins", "row-margins", "column-margins", "column-margins")
    assert rules_of_rows(table, A, labels, Request(epsilon="1", rules=rules)) == expected
    # the rows of "row-margins" and then "all-margins" as they are, its row margins repeated under the same labels
    both = ("row-margins", "all-margins")
    parts = [constraint_matrix(table, [rule]) for rule in both]
    stacked = sparse.csr_array(sparse.vstack([R for R, _ in parts]))
    stacked_labels = [lab for _, got in parts for lab in got]
    named = rules_of_rows(table, stacked, stacked_labels, Request(epsilon="1", rules=both))
    assert named == ("row-margins",) * 2 + tuple(
        "row-margins" if lab.startswith("row ") else "all-margins" for lab in parts[1][1]
    ), list(zip(stacked_labels, named, strict=True))


def test_rows_that_read_as_a_rule_s_one_after_the_other_but_end_elsewhere_are_not_its(tmp_path):
    (tmp_path / "t.csv").write_text("sex,young,old\nFemale,3,5\nMale,4,2\n")
    table = load_table(tmp_path / "t.csv")
    req = Request(epsilon="1", rules=("row-margins",))
    R, labels = constraint_matrix(table, req.rules)
    split = sparse.csr_array((R.data, R.indices, [0, 1, 4]), shape=R.shape)  # cells 0 | 1 2 3, not 0 1 | 2 3
    assert rules_of_rows(table, R, labels, req) == ("row-margins", "row-margins")
    assert rules_of_rows(table, split, labels, req) == (None, None)
