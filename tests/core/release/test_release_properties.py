"""Property-based tests of the release API (Hypothesis): generated tables (long and wide), invariant families,
routes, ε at and near every boundary (1e-9, 700, numerators and denominators about 2**31), δ and seeds.

For valid inputs the release is int64, keeps every invariant exactly and meets the guarantee asked, and the dry
run states what the release states (or both refuse alike, before anything is drawn). For invalid inputs the only
outcome is an :class:`isdp.errors.IsdpError` with a message: never another exception, a hang (the profile's
deadline per example) or a result."""

from __future__ import annotations

import tempfile
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from isdp._sparse import row_values
from isdp.errors import InfeasibleError, IsdpError, UncertifiableError
from isdp.release import Request, dry_run, make_release
from isdp.tables import constraint_matrix, load_table

FAMILIES = ("total", "row-margins", "column-margins", "all-margins")
#: ε per person at the boundaries the plan and the samplers meet: the range's ends, the compiled kernel's 2**31
#: limit on ε/2's numerator and denominator, decimals whose fraction has a denominator beyond it
BOUNDARY_EPSILONS = (
    "1e-9",
    "0.000000001",
    "1.000000001e-9",
    "700",
    "699.9999999",
    "7/2000000000",
    "0.1234567891",
    "0.3333333333",
    "2147483647/2147483648",
    "4294967294/2147483647",
    "3/2147483648",
    "0.002",
    "1",
)
epsilons = st.one_of(
    st.sampled_from(BOUNDARY_EPSILONS),
    st.fractions(Fraction(1, 10**9), 700, max_denominator=2**40).map(str),
    st.decimals(Fraction(1, 10**9), 700, places=10).map(str),
)
deltas = st.one_of(st.sampled_from(["1e-6", Fraction(1, 3), 1e-12, 1e-300, 0.5]), st.floats(1e-12, 0.5))
seeds = st.one_of(st.none(), st.integers(0, 2**70))


@st.composite
def tables(draw):
    """A table's text: long (two key columns and a count) or wide (a label column, one column per level)."""
    r, c = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    counts = draw(st.lists(st.integers(0, 2**40) | st.integers(0, 30), min_size=r * c, max_size=r * c))
    if draw(st.booleans()):
        lines = ["a,b,count"] + [f"x{i},y{j},{counts[i * c + j]}" for i in range(r) for j in range(c)]
        families = FAMILIES + ("by:a", "by:b")
    else:
        lines = ["g," + ",".join(f"y{j}" for j in range(c))] + [
            f"x{i}," + ",".join(str(counts[i * c + j]) for j in range(c)) for i in range(r)
        ]
        families = FAMILIES
    rules = draw(st.lists(st.sampled_from(families), min_size=1, max_size=2, unique=True))
    return "\n".join(lines) + "\n", tuple(rules)


def _compiled(epsilon: str) -> bool:
    """Whether ε/2 fits the compiled kernel: beyond it the intervals' 20,000 simulated draws per block shape run in
    Python integers, about 10 s for a total of 3 cells (a cost, not a wrong result; left out here)."""
    unit = Fraction(epsilon) / 2
    return unit.numerator < 2**31 and unit.denominator < 2**31


@st.composite
def requests(draw, long: bool = True):
    """A request's options; ``uncertainty`` only for a long table (the columns it adds)."""
    route = draw(st.sampled_from(["l1", "free-cells", "gaussian"]))
    options = {
        "epsilon": draw(epsilons),
        "seed": draw(seeds),
        "norm": "gaussian" if route == "gaussian" else "l1",
        "free_cells": route == "free-cells",
    }
    if route == "gaussian":
        options["delta"] = draw(deltas)
    if draw(st.integers(0, 3)) == 0:
        options["nonnegative"] = True
    elif long and route != "free-cells" and _compiled(options["epsilon"]) and draw(st.integers(0, 3)) == 0:
        options["uncertainty"] = 0.9
    return options


def _outcome(run):
    """A run's result, or the refusal it raised (kind and message)."""
    try:
        return run(), None
    except IsdpError as err:
        return None, (type(err), str(err))


def _guarantee(statement: dict) -> dict:
    return {k: statement["guarantee"][k] for k in ("kind", "headline", "per_person", "two_persons")}


@given(table=tables(), data=st.data())
def test_a_valid_request_is_released_keeping_every_invariant_as_its_dry_run_said(table, data):
    text, rules = table
    options = data.draw(requests(long=text.startswith("a,b,count")), label="options")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "t.csv")
        path.write_text(text)
        t = load_table(path)
        A, labels = constraint_matrix(t, list(rules))
        req = Request(**options, rules=rules)
        planned, refused = _outcome(lambda: dry_run(t, A, labels, Request(**options, rules=rules)))
        release, refusal = _outcome(lambda: make_release(t, A, labels, req))
    assert refusal == refused  # the same refusal, decided before any count or draw
    if refusal is not None:  # valid options: only what the invariants or the budget cannot serve
        assert refusal[0] in (InfeasibleError, UncertifiableError) and refusal[1]
        return
    values = release.values
    assert values.dtype == np.int64 and values.shape == t.x.shape
    assert row_values(A, values) == row_values(A, t.x)
    if req.nonnegative:
        assert values.min() >= 0
    assert release.statement["guarantee"]["per_person"]["epsilon"] <= float(Fraction(options["epsilon"])) * (1 + 1e-12)
    assert _guarantee(planned) == _guarantee(release.statement)
    assert set(planned) - {"dry_run"} == set(release.statement)


BAD_OPTIONS = (
    [
        {"epsilon": bad}
        for bad in (
            0,
            -1,
            "0",
            "1e-10",
            701,
            "1_0",
            "abc",
            "\u0663",
            float("nan"),
            float("inf"),
            True,
            None,
            [1],
            b"1",
            "1/0",
        )
    ]
    + [{"epsilon": "1", "norm": "gaussian", "delta": bad} for bad in (0, 1, 1.5, "x", float("nan"), True, None)]
    + [
        {"epsilon": "1", "delta": 1e-6},  # a δ given to the pure ℓ1 route
        {"epsilon": "1", "norm": "L1"},
        {"epsilon": "1", "norm": None},
        {"epsilon": "1", "seed": -1},
        {"epsilon": "1", "seed": 1.5},
        {"epsilon": "1", "seed": "3"},
        {"epsilon": "1", "seed": True},
        {"epsilon": "1", "max_attempts": 1},
        {"epsilon": "1", "max_attempts": 2.5},
        {"epsilon": "1", "max_attempts": True},
        {"epsilon": "1", "uncertainty": 0},
        {"epsilon": "1", "uncertainty": 1.5},
        {"epsilon": "1", "uncertainty": "x"},
        {"epsilon": "1", "uncertainty": float("nan")},
        {"epsilon": "1", "free_cells": "no"},
        {"epsilon": "1", "free_cells": True, "norm": "gaussian", "delta": 1e-6},
        {"epsilon": "1", "allow_chain": True, "delta": 0.1},  # the chain without a seed: refused for publication
    ]
)


def _bad_matrices(cells: int) -> list:
    return [
        np.array([[1.0] * (cells - 1) + [1.5]]),
        np.array([[np.nan] * cells]),
        np.ones((1, cells), dtype=bool),
        np.ones((1, cells + 1), dtype=np.int64),
        np.ones(cells, dtype=np.int64),
        np.zeros((0, cells)),
        np.array([["1"] * cells], dtype=object),
        np.array([[2.0**64] * cells]),
    ]


@given(
    table=tables(),
    bad=st.sampled_from(range(len(BAD_OPTIONS))),
    which=st.sampled_from(["options", "A", "labels"]),
    matrix=st.integers(0, 7),
    labels=st.sampled_from([None, "total", [], [1], ["a"] * 50]),
)
def test_an_invalid_request_is_refused_with_a_message_and_nothing_else(table, bad, which, matrix, labels):
    text, rules = table
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "t.csv")
        path.write_text(text)
        t = load_table(path)
        A, good_labels = constraint_matrix(t, list(rules))
        options = BAD_OPTIONS[bad] if which == "options" else {"epsilon": "1", "seed": 1}
        A = _bad_matrices(len(t.x))[matrix] if which == "A" else A
        given_labels = labels if which == "labels" else good_labels
        for run in (make_release, dry_run):
            with pytest.raises(IsdpError) as err:
                run(t, A, given_labels, Request(**options))
            assert str(err.value)
