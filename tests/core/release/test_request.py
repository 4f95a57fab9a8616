"""The request (isdp.release.Request): the guarantee asked per person and the options, each inconsistent
request refused before the table is read (``isdp release`` exits 2, or 5 for the chain without a seed) and
nothing written."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from release_support import margins_table, only, run_release

from isdp.cli import main
from isdp.errors import UsageError
from isdp.release import Request


@pytest.mark.parametrize("eps", ["0", "-0.5", "abc"])
def test_non_positive_epsilon_exits_2(tmp_path, capsys, eps):
    (tmp_path / "t.csv").write_text("g,a,b\nu,1,2\nv,3,4\n")
    code, *_ = run_release(tmp_path, tmp_path / "t.csv", "--invariant", "total", f"--epsilon={eps}")
    assert code == 2 and "--epsilon must be a positive number" in capsys.readouterr().err
    only(tmp_path, "t.csv")


@pytest.mark.parametrize(
    "args", [["--norm", "l2", "--delta", "0.2"], ["--allow-chain", "--delta", "0.2"]], ids=["l2", "allow-chain"]
)
def test_the_chain_is_refused_for_publication(tmp_path, capsys, args):
    """Without a seed (a publication run) the chain route is refused before the table is read."""
    (tmp_path / "t.csv").write_text("g,a,b\nu,1,2\nv,3,4\n")
    code = main(
        [
            "release",
            str(tmp_path / "t.csv"),
            "--invariant",
            "total",
            "--epsilon",
            "1",
            *args,
            "-o",
            str(tmp_path / "o.csv"),
            "--no-progress",
        ]
    )
    assert code == 5 and "refused for publication" in capsys.readouterr().err
    only(tmp_path, "t.csv")


@pytest.mark.parametrize(
    "args, message",
    [
        (["--norm", "gaussian", "--epsilon", "1"], "give --delta"),
        (["--epsilon", "1", "--delta", "1e-6"], "--delta is used only by"),
        (["--norm", "l2", "--epsilon", "1", "--delta", "1.5"], "--delta must lie in (0, 1)"),
    ],
    ids=["gaussian without delta", "pure route with delta", "delta above 1"],
)
def test_the_guarantee_asked_must_be_complete_and_meaningful(tmp_path, capsys, args, message):
    (tmp_path / "t.csv").write_text("g,a,b\nu,1,2\nv,3,4\n")
    code, *_ = run_release(tmp_path, tmp_path / "t.csv", "--invariant", "total", *args)
    assert code == 2 and message in capsys.readouterr().err
    only(tmp_path, "t.csv")


def test_the_free_cell_route_is_l1_only(tmp_path, capsys):
    table = margins_table(tmp_path / "t.csv", 3, 3)
    for extra in (["--norm", "gaussian", "--delta", "1e-6"], ["--allow-chain", "--delta", "0.1"]):
        code, *_ = run_release(tmp_path, table, "--invariant", "all-margins", "--epsilon", "1", "--free-cells", *extra)
        assert code == 2 and "--free-cells is an l1 route" in capsys.readouterr().err
    only(tmp_path, "t.csv")


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("seed", "3", "--seed must be a non-negative integer"),
        ("seed", 3.0, "--seed must be a non-negative integer"),
        ("delta", "x", "--delta must lie in (0, 1)"),
        ("delta", b"1e-6", "--delta must lie in (0, 1)"),
        ("uncertainty", "1.5", "--uncertainty must lie in (0, 1)"),
        ("max_attempts", 2.5, "--max-attempts must be an integer"),
        ("free_cells", "no", "free_cells must be True or False"),
        ("rules", "total", "rules must be a tuple of str"),
        ("ties", 5, "ties must be a tuple of str"),
    ],
    ids=lambda v: repr(v)[:20],
)
def test_an_option_of_the_wrong_kind_is_refused_by_name_never_a_type_error(field, value, message):
    """Through the API a string seed or δ reached arithmetic (TypeError); every option is read by one check."""
    options = {"epsilon": "1", "norm": "gaussian", "delta": 1e-6, field: value}
    with pytest.raises(UsageError, match=message.replace("(", r"\(").replace(")", r"\)")) as err:
        Request(**options).check()
    assert err.value.exit_code == 2


def test_the_values_read_are_kept_so_every_use_sees_numbers():
    """δ and the level given as text or a Fraction are kept as the floats read: the plan, the statement and the
    release use them as numbers."""
    req = Request(
        epsilon=Fraction(1, 3), norm="gaussian", delta="1e-6", seed=np.int64(4), uncertainty="0.9", rules=["total"]
    )
    req.check()
    assert (req.delta, req.uncertainty, req.seed, req.rules) == (1e-6, 0.9, 4, ("total",))
    assert type(req.seed) is int and req.delta_split() == (1e-6, None)


@pytest.mark.parametrize(
    "option, value, message",
    [
        ("epsilon", "701", r"--epsilon must lie in \[1e-09, 700\], got '701'"),
        ("delta", "1e-400", r"--delta must be at least 1e-300, got '1e-400'"),
    ],
)
def test_a_refused_value_is_quoted_as_given(option, value, message):
    kw = {"norm": "gaussian", "epsilon": "1", "delta": "1e-6", option: value}
    with pytest.raises(UsageError, match=message):
        Request(**kw).check()
