"""The request (isdp.release.Request): the guarantee asked per person and the options, each inconsistent
request refused before the table is read (``isdp release`` exits 2, or 5 for the chain without a seed) and
nothing written."""

from __future__ import annotations

import pytest
from release_support import margins_table, only, run_release

from isdp.cli import main


@pytest.mark.parametrize("eps", ["0", "-0.5", "abc"])
def test_non_positive_epsilon_exits_2(tmp_path, capsys, eps):
    (tmp_path / "t.csv").write_text("g,a,b\nu,1,2\nv,3,4\n")
    code, *_ = run_release(tmp_path, tmp_path / "t.csv", "--invariant", "total", f"--epsilon={eps}")
    assert code == 2 and "--epsilon must be a positive number" in capsys.readouterr().err
    only(tmp_path, "t.csv")


@pytest.mark.parametrize("args", [["--norm", "l2", "--delta", "0.2"], ["--allow-chain", "--delta", "0.2"]],
                         ids=["l2", "allow-chain"])
def test_the_chain_is_refused_for_publication(tmp_path, capsys, args):
    """Without a seed (a publication run) the chain route is refused before the table is read."""
    (tmp_path / "t.csv").write_text("g,a,b\nu,1,2\nv,3,4\n")
    code = main(["release", str(tmp_path / "t.csv"), "--invariant", "total", "--epsilon", "1", *args,
                 "-o", str(tmp_path / "o.csv"), "--no-progress"])
    assert code == 5 and "refused for publication" in capsys.readouterr().err
    only(tmp_path, "t.csv")


@pytest.mark.parametrize("args, message", [
    (["--norm", "gaussian", "--epsilon", "1"], "give --delta"),
    (["--epsilon", "1", "--delta", "1e-6"], "--delta is used only by"),
    (["--norm", "l2", "--epsilon", "1", "--delta", "1.5"], "--delta must lie in (0, 1)"),
], ids=["gaussian without delta", "pure route with delta", "delta above 1"])
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
