"""Hostile table files: those read by the workflow (read_table_csv; an unlabelled total whose values are
wrong in a minority of places is refused, not read as one more category), and the
files agencies really export as `isdp release` reads them (load_table, and the command for the headline
probes): quoted headers, a count column named wrongly, a wrong grand total, labels that look alike, digits
int() accepts, a dry run that must refuse what the release refuses. Each probe is a test asserting the
refusal's message (which never quotes a count) or the right reading."""

from __future__ import annotations

import csv

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from isdp_papers.problems import read_table_csv

from isdp.cli import main
from isdp.errors import InfeasibleError, InputError
from isdp.tables import Table, load_table
from isdp.tables._constraints import read_constraint_file


def _csv(values, cols, rows=None):
    rows = rows or [f"r{i}" for i in range(len(values))]
    lines = ["county," + ",".join(cols)] + [
        f"{r}," + ",".join(str(int(v)) for v in line) for r, line in zip(rows, values, strict=True)
    ]
    return "\n".join(lines) + "\n"


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


@settings(max_examples=100, deadline=None)
@given(
    cells=hnp.arrays(np.int64, st.tuples(st.integers(3, 8), st.integers(2, 6)), elements=st.integers(0, 10**6)),
    which=st.integers(0, 7),
    delta=st.integers(-1000, 1000),
)
def test_an_unlabelled_total_is_a_category_whatever_its_values(tmp_path_factory, cells, which, delta):
    """A column holding the row sums, exactly or but for one typo, under a label that does not mark a margin, is
    read as one more category. Whether a line is a margin is decided by its label: a refusal decided by the counts
    told two tables with the same invariants apart (30 of 300 random 3 x 3 tables were refused)."""
    totals = cells.sum(axis=1)
    totals[which % len(totals)] = max(totals[which % len(totals)] + delta, 0)
    path = tmp_path_factory.mktemp("t") / "t.csv"
    values = np.column_stack([cells, totals])
    path.write_text(_csv(values, [f"c{j}" for j in range(cells.shape[1])] + ["\u2211"]))
    read, _, cols = read_table_csv(path)
    np.testing.assert_array_equal(read, values)
    assert cols[-1] == "\u2211"


# =========================================================================== the files agencies export

SEEDED = ["--seed", "3", "--reproducible-not-for-publication", "--no-progress"]


_DTYPES = st.one_of(hnp.integer_dtypes(), hnp.unsigned_integer_dtypes(), hnp.floating_dtypes(), hnp.boolean_dtypes())


@settings(max_examples=200, deadline=None)
@given(x=hnp.arrays(_DTYPES, 4))
def test_a_table_takes_counts_of_an_integer_dtype_in_range_and_refuses_the_rest(x):
    """Counts a caller hands to :class:`~isdp.tables.Table`, of any NumPy dtype and value: integers in
    [0, 2**53] are kept exactly as int64; anything else is an InputError naming the counts, never another
    exception."""
    integers = x.dtype.kind in "iu"
    fits = integers and bool((x >= 0).all() and (x <= 2**53).all())
    try:
        table = Table("t.csv", x, [(str(k),) for k in range(4)], None, ("k",))
    except InputError as err:
        assert not fits and str(err).startswith("t.csv: the counts (x) ")
    else:
        assert fits and table.x.dtype == np.int64 and table.x.tolist() == x.tolist()


def _table(tmp_path, text, name="t.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


TOTAL = ("--invariant", "total", "--epsilon", "1")  # what a probe releases: the total kept, at ε = 1


# --------------------------------------------------------------------------- 1. long or wide: the CSV parser decides

QUOTED_HEADERS = {
    "R write.csv": ('"state","year","count"\n"A",2019,5\n"A",2020,7\n"B",2019,3\n', ("state", "year")),
    "quoted count only": ('region,code,"count"\nN,1,5\nS,2,7\nE,3,3\n', ("region", "code")),
    "blank first line": ("\nregion,year,count\nN,2019,5\nS,2019,7\nE,2019,3\n", ("region", "year")),
    "blank first lines with commas": (",,\n\nregion,year,count\nN,2019,5\nS,2019,7\nE,2019,3\n", ("region", "year")),
    "quoted newline in a header": ('"reg\nion","ye\nar",count\nN,2019,5\nS,2019,7\nE,2019,3\n', ("reg\nion", "ye\nar")),
    "byte-order mark and quotes": ('\ufeff"region","year","Count"\nN,2019,5\nS,2019,7\nE,2019,3\n', ("region", "year")),
}


@pytest.mark.parametrize("labels_only", [False, True], ids=["read", "dry run"])
@pytest.mark.parametrize("name", sorted(QUOTED_HEADERS))
def test_a_quoted_or_late_header_is_read_as_the_long_table_it_is(tmp_path, name, labels_only):
    """Each was released as a wide table (years noised as counts, entering the invariant): read long, the keys
    kept as labels and the counts as counts — by the dry run as by the release."""
    text, key_names = QUOTED_HEADERS[name]
    table = load_table(_table(tmp_path, text), labels_only=labels_only)
    assert table.key_names == key_names and [k[1] for k in table.keys][:1] in (["2019"], ["1"])
    assert table.x is None if labels_only else table.x.tolist() == [5, 7, 3]


def test_r_write_csv_is_released_with_its_years_as_labels(tmp_path, release_cli):
    assert release_cli(QUOTED_HEADERS["R write.csv"][0], *TOTAL) == 0
    lines = (tmp_path / "out.csv").read_text().splitlines()
    assert lines[0] == "state,year,count" and [line.split(",")[:2] for line in lines[1:]] == [
        ["A", "2019"],
        ["A", "2020"],
        ["B", "2019"],
    ]
    assert sum(int(line.split(",")[2]) for line in lines[1:]) == 15


@pytest.mark.parametrize("labels_only", [False, True], ids=["read", "dry run"])
def test_count_column_persons_on_a_quoted_header_is_used(tmp_path, labels_only):
    """--count-column persons was silently ignored (the header's quotes hid the column): the table went wide."""
    path = _table(tmp_path, '"state","year","persons"\n"A",2019,5\n"B",2019,7\n')
    table = load_table(path, count_column="persons", labels_only=labels_only)
    assert table.key_names == ("state", "year") and table.keys == [("A", "2019"), ("B", "2019")]
    assert labels_only or table.x.tolist() == [5, 7]


@pytest.mark.parametrize("labels_only", [False, True], ids=["read", "dry run"])
def test_a_count_column_missing_from_the_header_is_refused_not_ignored(tmp_path, labels_only):
    path = _table(tmp_path, '"state","people"\n"A",5\n"B",7\n')
    with pytest.raises(
        InputError,
        match=r"t\.csv: --count-column names 'persons', and the header \(state, people\) "
        "has no such column: .* pass --format wide if the table is wide",
    ):
        load_table(path, count_column="persons", labels_only=labels_only)


@pytest.mark.parametrize(
    "text, name",
    [
        ('"state","fips","counts"\nA,1,5\nB,2,7\n', "counts"),
        ("state,fips,n\nA,1,5\nB,2,7\n", "n"),
        ("state,fips,persons\nA,1,5\nB,2,7\n", "persons"),
        ("state,fips,person_count\nA,1,5\nB,2,7\n", "person_count"),
    ],
)
@pytest.mark.parametrize("labels_only", [False, True], ids=["read", "dry run"])
def test_a_header_that_could_be_either_layout_is_refused_under_auto(tmp_path, text, name, labels_only):
    """No column 'count', but one named like a count column: as a wide table the FIPS codes would be noised as
    counts. The message says which option settles it; each option then reads the file its way."""
    path = _table(tmp_path, text)
    with pytest.raises(
        InputError,
        match=f"is named like the count column of a long table, .*pass --count-column "
        f"{name} if the table is long .*or --format wide",
    ):
        load_table(path, labels_only=labels_only)
    assert load_table(path, count_column=name, labels_only=labels_only).key_names == ("state", "fips")
    assert load_table(path, fmt="wide", labels_only=labels_only).keys[0] == ("A", "fips")


def test_a_wide_table_with_a_total_column_is_still_wide(tmp_path):
    table = load_table(_table(tmp_path, '"sex","young","old","Total"\n"F",3,5,8\n"M",4,2,6\n'))
    assert table.key_names == ("row", "column") and table.x.tolist() == [3, 5, 4, 2]


def test_a_headerless_file_is_refused_without_quoting_its_first_line(tmp_path, capsys, release_cli):
    """The first line of a file without a header holds counts: the refusal names the column, not the label."""
    assert release_cli("r1,51,37,84\nr2,2,9,4\nr3,7,1,6\n", *TOTAL) == 3
    err = capsys.readouterr().err.replace(str(tmp_path), "DIR")  # the temporary path may hold any digits
    assert "the label of column 2 is a number: the file may have no header row" in err
    assert not any(v in err for v in ("51", "37", "84"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.csv"]


# --------------------------------------------------------------------------- 2. a count column published as a label


@pytest.mark.parametrize("labels_only", [False, True], ids=["read", "dry run"])
def test_a_count_column_read_as_a_key_is_refused(tmp_path, labels_only):
    """state,fips,count with --count-column fips: the counts 5, 7, 3 were published unchanged as labels."""
    path = _table(tmp_path, "state,fips,count\nAL,01,5\nAK,02,7\nAZ,04,3\n")
    with pytest.raises(
        InputError,
        match=r"column 3, 'count', is named like a count column and holds only integers, "
        r"but it is read as a key \(the count column is 'fips'\).*published "
        r"unchanged as labels.*--count-column count",
    ) as err:
        load_table(path, count_column="fips", labels_only=labels_only)
    assert not any(v in str(err.value).replace(str(path), "FILE") for v in ("5", "7"))


def test_the_issues_count_column_probe_exits_3_and_writes_nothing(tmp_path, capsys, release_cli):
    assert release_cli("state,fips,count\nAL,1,5\nAK,2,7\nAZ,4,3\n", *TOTAL, "--count-column", "fips") == 3
    assert "'count', is named like a count column" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.csv"]


@pytest.mark.parametrize(
    "text, count_column",
    [
        ("state,persons,n\nA,5,1\nB,7,2\n", "n"),
        ("state,year,Total\nA,5,1\nB,7,2\n", "year"),
        ("state,fips,value\nA,5,1\nB,7,2\n", "fips"),
        ("state,count,n\nA,5,1\nB,7,2\n", "n"),
        ("state,Count of persons,fips\nA,5,1\nB,7,2\n", "fips"),
    ],
)
def test_any_key_column_named_like_counts_and_all_integers_is_refused(tmp_path, text, count_column):
    with pytest.raises(InputError, match="is named like a count column and holds only integers"):
        load_table(_table(tmp_path, text), count_column=count_column, fmt="long")


@pytest.mark.parametrize(
    "text, count_column, keys",
    [
        ("state,year,count\nA,2019,5\nA,2020,7\n", "count", [("A", "2019"), ("A", "2020")]),
        ("state,fips,count\nAL,01,5\nAK,02,7\n", "count", [("AL", "01"), ("AK", "02")]),
        (
            "NAME,P001001,state,county\nAutauga,54571,01,001\nBaldwin,182265,01,003\n",
            "P001001",
            [("Autauga", "01", "001"), ("Baldwin", "01", "003")],
        ),  # the Census API's layout: codes after the count
        ("tenure,persons_in_household,count\nowner,1,5\nowner,2,7\n", "count", [("owner", "1"), ("owner", "2")]),
        ("state,n,count\nA,north,5\nB,south,7\n", "count", [("A", "north"), ("B", "south")]),  # 'n' not numeric
    ],
)
def test_numeric_keys_beside_the_count_column_are_accepted(tmp_path, text, count_column, keys):
    """Years, FIPS codes, census codes, household sizes: numeric keys not named like counts are keys."""
    table = load_table(_table(tmp_path, text), count_column=count_column)
    assert table.keys == keys


# --------------------------------------------------------------------------- 3. the grand-total corner


@pytest.mark.parametrize("labels_only", [False, True], ids=["read", "dry run"])
def test_a_grand_total_corner_of_999_is_refused(tmp_path, labels_only):
    """Was accepted and rewritten as 21. The dry run reads no count, so only the release refuses it."""
    path = _table(tmp_path, "g,a,b,c,Total\nu,1,2,3,6\nv,4,5,6,15\nTotal,5,7,9,999\n")
    if labels_only:
        assert load_table(path, labels_only=True).cell_labels[0] == "u|a"
        return
    with pytest.raises(
        InputError,
        match="the grand total where margin row 'Total' meets margin column 'Total' does "
        "not equal the sum of the cells",
    ) as err:
        load_table(path)
    assert not any(v in str(err.value).replace(str(path), "FILE") for v in ("999", "21"))


def test_the_grand_total_probe_exits_3_and_writes_nothing(tmp_path, capsys, release_cli):
    assert release_cli("g,a,b,c,Total\nu,1,2,3,6\nv,4,5,6,15\nTotal,5,7,9,999\n", *TOTAL) == 3
    assert "the grand total where margin row 'Total'" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.csv"]


# --------------------------------------------------------------------------- 4. labels that look alike

INVISIBLE = [
    "\u200b",
    "\u200c",
    "\u200d",
    "\ufeff",
    "\u2060",
    "\u00ad",
    "\u034f",
    "\u180e",
    "\u2061",
    "\ufe0f",
    "\U000e0041",
]


@pytest.mark.parametrize("labels_only", [False, True], ids=["read", "dry run"])
@pytest.mark.parametrize("char", INVISIBLE, ids=[f"U+{ord(c):04X}" for c in INVISIBLE])
def test_labels_differing_by_an_invisible_character_are_refused(tmp_path, char, labels_only):
    path = _table(tmp_path, f"county,sex,count\nCook,F,3\nCo{char}ok,F,4\n")
    with pytest.raises(
        InputError,
        match=r"line 3: duplicate cell .* at line 2: they differ only by Unicode "
        r"normalisation \(NFKC\), case, spacing or invisible characters",
    ):
        load_table(path, labels_only=labels_only)


@pytest.mark.parametrize("labels_only", [False, True], ids=["read", "dry run"])
@pytest.mark.parametrize(
    "first, second",
    [
        ("Mont\u00e9al", "Monte\u0301al"),
        ("Stra\u00dfe", "STRASSE"),
        ("\u212bngstr\u00f6m", "\u00c5ngstr\u00f6m"),
        ("No 1", "\u2116 1"),
        ("Unit\u2002A", "Unit A"),
    ],
    ids=["NFC-NFD", "casefold", "angstrom sign", "numero sign", "en space"],
)
def test_labels_differing_by_unicode_normalisation_are_refused(tmp_path, first, second, labels_only):
    path = _table(tmp_path, f"place,young,old\n{first},1,2\n{second},3,4\n")
    with pytest.raises(InputError, match="line 3: duplicate row label .* at line 2") as err:
        load_table(path, labels_only=labels_only)
    assert ascii(second)[1:-1] in str(err.value) or second in str(err.value)


def test_the_lookalike_probe_exits_3_on_a_release_and_on_a_dry_run(tmp_path, capsys, release_cli):
    text = "county,count\nCook,3\nCook\u200b,4\n"
    assert release_cli(text, *TOTAL) == 3
    assert release_cli(text, *TOTAL, "--dry-run") == 3
    assert capsys.readouterr().err.count("duplicate cell ('Cook\\u200b',)") == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.csv"]


# --------------------------------------------------------------------------- 5. digits int() accepts

NOT_ASCII_INTEGERS = [
    "1_0",
    "\u0661\u0660",
    "\u06f1\u06f0",
    "\u0967\u0966",
    "\uff11\uff10",
    " 1 0",
    "1,0",
    "10.",
    "1e1",
    "0x10",
    "\u00b9\u2070",
    "\u2460",
]


@pytest.mark.parametrize("entry", NOT_ASCII_INTEGERS, ids=[ascii(e) for e in NOT_ASCII_INTEGERS])
def test_counts_take_ascii_digits_only(tmp_path, entry):
    with pytest.raises(InputError, match="not an integer count"):
        load_table(_table(tmp_path, f'g,count\nu,"{entry}"\nv,3\n'))
    with pytest.raises(InputError, match="row 'u', column 'b': not an integer count"):
        load_table(_table(tmp_path, f'g,a,b\nu,1,"{entry}"\nv,3,4\n'))


@pytest.mark.parametrize("entry, value", [("+5", 5), ("007", 7), ("-0", 0), (" 5 ", 5)])
def test_the_documented_integer_forms_are_kept(tmp_path, entry, value):
    """A leading + or zeros and padding were accepted before, and still are."""
    assert load_table(_table(tmp_path, f'g,count\nu,"{entry}"\nv,3\n')).x.tolist() == [value, 3]


def _constraint(tmp_path, coefficients, value=None):
    table = load_table(_table(tmp_path, "g,a,b\nu,1,2\nv,3,4\n"))
    header = "constraint,u|a,u|b,v|a,v|b" + (",value" if value is not None else "")
    line = f"c,{','.join(coefficients)}" + (f",{value}" if value is not None else "")
    return _table(tmp_path, f"{header}\n\n{line}\n", "c.csv"), table


@pytest.mark.parametrize("entry", NOT_ASCII_INTEGERS, ids=[ascii(e) for e in NOT_ASCII_INTEGERS])
def test_constraint_coefficients_and_values_take_ascii_digits_only(tmp_path, entry):
    """int() read '1_0' as 10 and Arabic-Indic digits as theirs. The line number counts the blank line."""
    quoted = f'"{entry}"'
    path, table = _constraint(tmp_path, ["1", quoted, "0", "0"])
    with pytest.raises(InputError, match=r"line 3: the coefficient of 'u\|b' is not an integer"):
        read_constraint_file(path, table)
    path, table = _constraint(tmp_path, ["1", "1", "0", "0"], quoted)
    with pytest.raises(InputError, match="line 3: the value of constraint 'c' is not an integer"):
        read_constraint_file(path, table)


def test_constraint_coefficients_in_the_documented_forms_are_read(tmp_path):
    path, table = _constraint(tmp_path, ["+1", " 01", "-0", "0"], "+3")
    rows, labels = read_constraint_file(path, table)
    assert [r.tolist() for r in rows] == [[1, 1, 0, 0]] and labels == ["c"]


def test_a_constraint_value_of_5000_digits_is_a_clear_refusal(tmp_path):
    path, table = _constraint(tmp_path, ["1", "1", "0", "0"], "9" * 5000)
    with pytest.raises(InfeasibleError, match="states a value beyond ±10\\*\\*30"):
        read_constraint_file(path, table)


# --------------------------------------------------------------------------- 6. a dry run refuses as a release does

DRY_RUN_LABELS = {
    "repeated row": "g,a,b\nu,1,2\nu,3,4\n",
    "repeated column ignoring case": "g,a,A\nu,1,2\nv,3,4\n",
    "repeated long key": "g,h,count\nu,k,1\nU,K,2\n",
    "repeated count column": "g,count,count\nu,1,2\n",
    "zero-width duplicate": "g,a,b\nu,1,2\nu\u200b,3,4\n",
    "invisible label": "g,a,b\n\u2060,1,2\nv,3,4\n",
    "count column as a key": "state,fips,count\nAL,1,5\nAK,2,7\n",
    "a long table's total line": "town,count\nA,5\nB,7\nTotal,12\n",
}


@pytest.mark.parametrize("name", sorted(DRY_RUN_LABELS))
def test_the_dry_run_refuses_the_labels_the_release_refuses(tmp_path, name, capsys, release_cli):
    """--dry-run accepted duplicate labels the real run refused; it checks the labels alike, reading no count."""
    args = ("--count-column", "fips") if name == "count column as a key" else ()
    assert release_cli(DRY_RUN_LABELS[name], *TOTAL, *args) == 3
    release_err = capsys.readouterr().err
    assert release_cli(DRY_RUN_LABELS[name], *TOTAL, *args, "--dry-run") == 3
    assert capsys.readouterr().err == release_err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.csv"]


# =========================================================================== margins told by their labels


@pytest.mark.parametrize("total", ["Total", "All towns", "Sum"])
def test_a_long_tables_total_line_is_refused_naming_it(tmp_path, capsys, total, release_cli):
    """`town,count` ending in `Total,112` was released as an eleventh cell: the released total 106, the released
    towns summing to 112. A key labelled as a margin is refused from the labels alone, naming its line."""
    towns = "".join(f"t{k},{k + 3}\n" for k in range(10))
    assert release_cli(f"town,count\n{towns}{total},75\n", *TOTAL) == 3
    err = capsys.readouterr().err.replace(str(tmp_path), "TMP")  # the path may hold any number (pytest-275)
    assert "line 12: the key in column 'town' is labelled as a margin" in err and "75" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.csv"]


def test_a_long_tables_category_named_like_a_margin_word_is_not_a_margin(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("town,count\nAllentown,3\nSumter,4\nTotally Spies,5\n")
    assert load_table(path).x.tolist() == [3, 4, 5]


@pytest.mark.parametrize("row", ["1,3", "3,1", "1,1,3"])
def test_a_weighted_constraint_with_a_unit_coefficient_is_served_whichever_cell_has_it(tmp_path, capsys, row):
    """`w,1,3` was refused ("no set of cells ... in integers") while `w,3,1` was served: the solve tried the last
    cell only. The cell with coefficient 1 is solved for the others in integers wherever it stands."""
    coefficients = [int(c) for c in row.split(",")]
    cells = ["a", "b", "c"][: len(coefficients)]
    table = "g," + ",".join(cells) + "\nu," + ",".join(["2"] * len(cells)) + "\n"
    value = 2 * sum(coefficients)
    (tmp_path / "c.csv").write_text("constraint," + ",".join(f"u|{c}" for c in cells) + f",value\nw,{row},{value}\n")
    (tmp_path / "t.csv").write_text(table)
    code = main(
        [
            "release",
            str(tmp_path / "t.csv"),
            "--constraints",
            str(tmp_path / "c.csv"),
            "--epsilon",
            "1",
            "-o",
            str(tmp_path / "out.csv"),
            *SEEDED,
        ]
    )
    assert code == 0, capsys.readouterr().err
    released = (tmp_path / "out.csv").read_text().splitlines()[1].split(",")[1:]
    assert sum(c * int(v) for c, v in zip(coefficients, released, strict=True)) == value
