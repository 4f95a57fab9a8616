"""Tests of :mod:`isdp.tables._entries`: a table's entries are integers in ASCII digits, and no refusal
quotes an entry (it may be a confidential count)."""

from __future__ import annotations

import pytest

from isdp.errors import InputError, InvariantError
from isdp.tables import load_table, read_table_csv

SECRET = "987654"


@pytest.mark.parametrize(
    "entry",
    [
        f"-{SECRET}",
        f"{SECRET}.5",
        f"{SECRET[:3]}_{SECRET[3:]}",
        f"{SECRET}x",
        "\u0669\u0668\u0667\u0666\u0665\u0664",
        SECRET * 4,
        f"{SECRET[:3]},{SECRET[3:]}",
        f"{SECRET}e3",
        f"+{SECRET}" + "0" * 5000,
    ],
)
@pytest.mark.parametrize("layout", ["wide", "long"])
def test_no_message_quotes_an_entry(tmp_path, entry, layout):
    """A refused count is named by its row and column (or line), with the kind of problem, never by its value."""
    path = tmp_path / "t.csv"
    if layout == "wide":
        path.write_text(f'g,a,b\nu,1,"{entry}"\nv,3,4\n', encoding="utf-8")
    else:
        path.write_text(f'g,count\nu,1\nv,"{entry}"\n', encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_table(path)
    message = str(err.value).replace(str(path), "FILE")  # the temporary path may hold any digits
    assert message.startswith("FILE: ") and SECRET not in message and SECRET[:3] not in message
    assert "\u0669" not in message
    assert ("row 'u', column 'b'" if layout == "wide" else "line 3, column 'count'") in message
    assert any(kind in message for kind in ("negative count", "not an integer count (", "too large"))


def test_a_huge_number_of_digits_is_too_large_not_a_traceback(tmp_path):
    """int() refuses strings of over 4,300 digits with a ValueError."""
    path = tmp_path / "t.csv"
    path.write_text("g,a,b\nu,1," + "7" * 5000 + "\nv,3,4\n")
    with pytest.raises(InvariantError, match="row 'u', column 'b': the entry is too large"):
        read_table_csv(path)
