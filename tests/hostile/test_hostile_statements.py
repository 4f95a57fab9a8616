"""A statement edited at random, by hand or by an attacker: ``isdp verify`` and ``isdp query`` end in a documented
status with one line of error or a FAILED check, never a traceback (exit 70)."""

import copy
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from isdp.cli import main

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**30), 10**30) | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("release")
    table = tmp / "blocks.csv"
    table.write_text("county,block,count\n" + "".join(f"c{c},b{b},{c + 2 * b}\n" for c in range(3) for b in range(3)))
    out = tmp / "release.csv"
    args = ["release", str(table), "--invariant", "by:county", "--norm", "gaussian", "--delta", "1e-6"]
    assert (
        main([*args, "--epsilon", "1", "--seed", "1", "--reproducible-not-for-publication", "--quiet", "-o", str(out)])
        == 0
    )
    return out, json.loads(Path(f"{out}.statement.json").read_text())


def _paths(doc) -> list[list]:
    """Every path to a value in a JSON document."""
    out: list[list] = [[]]
    items = doc.items() if isinstance(doc, dict) else enumerate(doc) if isinstance(doc, list) else []
    for key, value in items:
        out += [[key, *rest] for rest in _paths(value)]
    return out


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_edited_statement_ends_in_a_documented_status(release, tmp_path_factory, capsys, data):
    out, original = release
    doc = copy.deepcopy(original)
    paths = _paths(doc)
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(paths))
        value = data.draw(JSON_VALUES)
        if not path:
            doc = value
            break
        holder = doc
        try:
            for key in path[:-1]:
                holder = holder[key]
            if data.draw(st.booleans()) and isinstance(holder, dict):
                holder.pop(path[-1], None)
            else:
                holder[path[-1]] = value
        except (KeyError, IndexError, TypeError):
            continue
    statement = tmp_path_factory.mktemp("s") / "s.json"
    statement.write_text(json.dumps(doc))
    for command in (["verify"], ["query", "--by", "county"]):
        status = main([command[0], str(out), "--statement", str(statement), *command[1:]])
        err = capsys.readouterr().err
        assert status in (0, 1, 2, 3, 5), err
        assert "Traceback" not in err and "internal error" not in err, err


@pytest.mark.parametrize(
    ("key_path", "value"),
    [
        (["mechanism", "sigma"], "-1"),
        (["mechanism", "sigma"], "0"),
        (["mechanism", "sigma"], "1e400"),
        (["mechanism", "sigma"], "1/0"),
        (["mechanism", "sigma"], "x"),
        (["route", "name"], "certified chain"),
        (["requested", "epsilon_per_person"], "1e999"),
        (["requested", "delta_per_person"], 2.0),
        (["cells", "count"], -1),
        (["invariant_rules", "families"], ["by:nowhere"]),
    ],
)
def test_edited_parameters_fail_a_check_or_are_refused_in_one_line(release, tmp_path, capsys, key_path, value):
    out, original = release
    doc = copy.deepcopy(original)
    holder = doc
    for key in key_path[:-1]:
        holder = holder[key]
    holder[key_path[-1]] = value
    statement = tmp_path / "s.json"
    statement.write_text(json.dumps(doc))
    assert main(["verify", str(out), "--statement", str(statement)]) == 1
    assert "FAILED" in capsys.readouterr().out
    assert main(["query", str(out), "--statement", str(statement), "--by", "county"]) in (2, 3, 5)
    err = capsys.readouterr().err
    assert err.startswith("isdp query: error:") and "Traceback" not in err
