"""The privacy statement (isdp.release): invariants made by --invariant and --tie are stated by
rule, so the statement grows with the invariants and not with the cells, and each rule's value is the
sum of the cells its label names; any other invariant keeps its coefficients."""

from __future__ import annotations

import json

import numpy as np

from isdp.cli import main

SEEDED = ["--seed", "3", "--reproducible-not-for-publication", "--no-progress"]


def _long_table(path, states: int, counties: int, rng) -> None:
    lines = ["state,county,count"] + [
        f"S{s},C{c},{rng.integers(0, 50)}" for s in range(states) for c in range(counties)
    ]
    path.write_text("\n".join(lines) + "\n")


def _statement(tmp_path, name, *options):
    out = tmp_path / f"{name}.out.csv"
    assert main(["release", str(tmp_path / f"{name}.csv"), *options, "--epsilon", "1", "-o", str(out), *SEEDED]) == 0
    return json.loads(out.with_name(out.name + ".statement.json").read_text()), out


def test_the_statement_does_not_grow_with_the_cells(tmp_path, capsys):
    rng = np.random.default_rng(5)
    _long_table(tmp_path / "small.csv", 4, 10, rng)
    _long_table(tmp_path / "large.csv", 4, 1000, rng)
    rules = ["--invariant", "by:state"]
    small, _ = _statement(tmp_path, "small", *rules)
    large, _ = _statement(tmp_path, "large", *rules)
    capsys.readouterr()
    assert [inv["rule"] for inv in large["invariants"]] == ["by:state"] * 4
    assert all("coefficients" not in inv for inv in large["invariants"])
    assert large["cells"] == {"count": 4000, "labels": "the released table's, in its order"}
    # 100 times the cells: only the invariants' values and the cell count differ, a few bytes
    size = [len(json.dumps(s)) for s in (small, large)]
    assert abs(size[1] - size[0]) < 40, size


def test_each_rule_states_the_sum_of_the_cells_its_label_names(tmp_path, capsys):
    rng = np.random.default_rng(6)
    _long_table(tmp_path / "t.csv", 3, 4, rng)
    (tmp_path / "c.csv").write_text(
        "constraint,"
        + ",".join(f"S{s}|C{c}" for s in range(3) for c in range(4))
        + "\ntwo counties,"
        + ",".join(["1", "1"] + ["0"] * 10)
        + "\n"
    )
    statement, out = _statement(
        tmp_path, "t", "--invariant", "total", "--invariant", "by:state", "--constraints", str(tmp_path / "c.csv")
    )
    capsys.readouterr()
    released = [line.split(",") for line in out.read_text().splitlines()[1:]]
    by_state: dict[str, int] = {}
    for state, _, count in released:
        by_state[state] = by_state.get(state, 0) + int(count)
    expected = {"total": sum(by_state.values()), **{f"by state={s}": v for s, v in by_state.items()}}
    stated = {inv["label"]: inv for inv in statement["invariants"]}
    assert statement["invariant_rules"]["families"] == ["total", "by:state"]
    for label, value in expected.items():
        assert stated[label]["value"] == value and "coefficients" not in stated[label]
    other = stated["two counties"]  # no rule made it: its coefficients are stated
    assert other["coefficients"] == {"S0|C0": 1, "S0|C1": 1} and "rule" not in other
    cells = {f"{s}|{c}": int(n) for s, c, n in released}
    assert other["value"] == sum(k * cells[label] for label, k in other["coefficients"].items())


def test_a_constraint_row_equal_to_a_rules_row_but_labelled_otherwise_keeps_its_coefficients(tmp_path, capsys):
    """A rule covers only the rows it makes, matched by label and coefficients together."""
    rng = np.random.default_rng(7)
    _long_table(tmp_path / "t.csv", 2, 2, rng)
    (tmp_path / "c.csv").write_text("constraint,S0|C0,S0|C1,S1|C0,S1|C1\nby state=S1,0,1,1,1\n")
    statement, _ = _statement(tmp_path, "t", "--invariant", "by:state", "--constraints", str(tmp_path / "c.csv"))
    capsys.readouterr()
    rows = [inv for inv in statement["invariants"] if inv["label"] == "by state=S1"]
    assert [("rule" in r, "coefficients" in r) for r in rows] == [(True, False), (False, True)]


def test_the_gaussian_rejection_text_names_sigma_before_using_it(tmp_path, capsys):
    """The text wrote exp(... / (2·239329/40000^2)), which reads as 2·239329/40000² = 3e-4."""
    (tmp_path / "w.csv").write_text("g,a,b,c\nu,5,3,2\n")
    (tmp_path / "c.csv").write_text("constraint,u|a,u|b,u|c,value\nweighted,1,2,3,17\n")  # not a total: rejection
    statement, _ = _statement(
        tmp_path, "w", "--constraints", str(tmp_path / "c.csv"), "--norm", "gaussian", "--delta", "1e-6"
    )
    capsys.readouterr()
    text = statement["route"]["sampler"]
    assert "(2 sigma^2)), sigma = " in text and "^2 /" not in text.replace("sigma)^2 /", ""), text


def test_a_headline_does_not_call_an_undetermined_swap_the_smallest_change():
    """Above about 30 x 30 under both margins the headline said "a swap: the smallest change the invariants absorb"
    while two_persons.realisable was null."""
    from isdp.privacy import Guarantee, Neighbours

    undetermined = Guarantee("l1", 0.5).to_dict(Neighbours(one_person=False, two_persons=None))
    assert undetermined["headline"]["persons"] == 2 and undetermined["two_persons"]["realisable"] is None
    assert "smallest change" not in undetermined["headline"]["applies_to"]
    assert "was not determined" in undetermined["headline"]["applies_to"]
    known = Guarantee("l1", 0.5).to_dict(Neighbours(one_person=False, two_persons=True))
    assert "the smallest change the invariants absorb" in known["headline"]["applies_to"]
