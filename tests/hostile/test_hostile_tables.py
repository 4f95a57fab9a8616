"""Hostile table files read by the workflow (read_table_csv): an unlabelled total whose values are
wrong in a minority of places is refused, not read as one more category."""

from __future__ import annotations

import csv

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from isdp.experiments.problems import read_table_csv
from isdp.lattice import InvariantError


def _csv(values, cols, rows=None):
    rows = rows or [f"r{i}" for i in range(len(values))]
    lines = ["county," + ",".join(cols)] + [f"{r}," + ",".join(str(int(v)) for v in line)
                                             for r, line in zip(rows, values, strict=True)]
    return "\n".join(lines) + "\n"


def test_the_issues_example_a_last_column_total_with_a_wrong_value(tmp_path):
    """data/e2's layout with an unlabelled fifth column holding the row sums, one of them mistyped."""
    path = tmp_path / "t.csv"
    path.write_text("county,Low,Medium,High,Very High,\u2211\n"
                    "Alpha,15,1,3,1,20\nBeta,20,10,10,15,55\nGamma,3,10,10,2,26\nDelta,12,14,7,2,35\n")
    with pytest.raises(InvariantError, match=r"column '∑' equals the sum of the other columns except at \['Gamma'\]"):
        read_table_csv(path)


def test_a_row_total_with_a_wrong_value_is_refused(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("county,Low,High,Mid\nA,1,2,4\nB,3,4,0\nC,5,0,2\nZ,9,6,7\n")
    with pytest.raises(InvariantError, match=r"row 'Z' equals the sum of the other rows except at \['Mid'\]"):
        read_table_csv(path)


@pytest.mark.parametrize("rel", ["data/e2/delinquent_children.csv", "data/e5/sex_by_age.csv"])
def test_the_committed_tables_read_cell_for_cell(rel):
    """Each committed table reads as the file says, compared with Python's csv reader: every label, every
    category and every count in its place (no margin refused, dropped or taken for a category)."""
    from conftest import ROOT

    header, *lines = list(csv.reader((ROOT / rel).open(newline="")))
    cells, rows, cols = read_table_csv(ROOT / rel)
    assert list(rows) == [line[0] for line in lines] and list(cols) == header[1:]
    assert cells.dtype == np.int64 and cells.shape == (len(lines), len(header) - 1)
    np.testing.assert_array_equal(cells, [[int(v) for v in line[1:]] for line in lines])
    assert (cells >= 0).all()


@settings(max_examples=150, deadline=None)
@given(cells=hnp.arrays(np.int64, st.tuples(st.integers(3, 8), st.integers(2, 6)), elements=st.integers(1, 10**6)),
       which=st.integers(0, 7), delta=st.integers(1, 1000).flatmap(lambda d: st.sampled_from([d, -d])))
def test_any_unlabelled_total_with_one_typo_is_refused(tmp_path_factory, cells, which, delta):
    totals = cells.sum(axis=1)
    totals[which % len(totals)] += delta
    if totals[which % len(totals)] < 0:
        totals[which % len(totals)] = 0
    path = tmp_path_factory.mktemp("t") / "t.csv"
    path.write_text(_csv(np.column_stack([cells, totals]), [f"c{j}" for j in range(cells.shape[1])] + ["x"]))
    with pytest.raises(InvariantError, match="unlabelled margin with wrong values|equals the sum"):
        read_table_csv(path)
