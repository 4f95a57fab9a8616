"""``isdp release`` run into a test's folder, seeded, and the check that a refusal leaves nothing behind
(the tests of the command line and of the release's modules that drive it)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from isdp.cli import main

#: the options of a reproducible run without progress lines (a seeded release is not for publication)
SEEDED = ["--seed", "7", "--reproducible-not-for-publication", "--no-progress"]


def run_release(tmp_path: Path, *args) -> tuple[int, Path, Path, Path]:
    """Run ``isdp release`` seeded into tmp_path: (exit code, release, statement, audit)."""
    out = tmp_path / "out.csv"
    code = main(["release", *map(str, args), "-o", str(out), *SEEDED])
    return code, out, Path(str(out) + ".statement.json"), Path(str(out) + ".audit.json")


def only(tmp_path: Path, *names: str) -> None:
    """Nothing but the inputs is left in tmp_path (no output, no temporary file)."""
    assert sorted(os.listdir(tmp_path)) == sorted(names)


def margins_table(path: Path, r: int, c: int) -> Path:
    """A long r × c table of Poisson(20) counts (seeded), rows ``r0…`` and columns ``c0…``."""
    rng = np.random.default_rng(3)
    lines = ["row,col,count"] + [f"r{i},c{j},{rng.poisson(20)}" for i in range(r) for j in range(c)]
    path.write_text("\n".join(lines) + "\n")
    return path
