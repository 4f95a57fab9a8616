"""Hostile input: the attacker who sees what `isdp release` says. Two tables with the same
invariants differ in the persons' records only, and nothing but the released counts may tell them apart:
not the exit code, not a refusal or its message, not stdout or stderr, not the privacy statement. Each
test releases random pairs of such tables on every route and layout and compares everything the command
shows (the confidential audit record aside).
"""

from __future__ import annotations

import json
import zlib

import numpy as np
import pytest

from isdp.cli import main

SEEDED = ["--seed", "3", "--reproducible-not-for-publication", "--no-progress"]
ROUTES = {
    "l1": ["--norm", "l1", "--epsilon", "1"],
    "gaussian": ["--norm", "gaussian", "--epsilon", "1", "--delta", "1e-6"],
    "l2 chain": ["--norm", "l2", "--epsilon", "1", "--delta", "0.3"],
}
# an invariant family, as the wide and the long layout state it, and the moves that keep it
FAMILIES = {
    "total": (["total"], ["total"]),
    "row margins": (["row-margins"], ["by:g"]),
    "column margins": (["column-margins"], ["by:h"]),
    "both margins": (["all-margins"], ["by:g", "by:h"]),
}
ROWS, COLS = ["u", "v", "w"], ["a", "b", "c"]


def _move(rng, family: str) -> np.ndarray:
    """One person moved (or, for both margins, two persons swapping) so that ``family`` is kept."""
    m = np.zeros((3, 3), dtype=np.int64)
    i, k = rng.choice(3, 2, replace=False)
    j, l_ = rng.choice(3, 2, replace=False)
    if family == "total":
        m[i, j], m[k, l_] = 1, -1
    elif family == "row margins":
        m[i, j], m[i, l_] = 1, -1
    elif family == "column margins":
        m[i, j], m[k, j] = 1, -1
    else:
        m[i, j], m[k, l_], m[i, l_], m[k, j] = 1, 1, -1, -1
    return m


def _pairs(family: str, n: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """``n`` random tables (Poisson(3) cells) and a neighbour of each with the same invariants; the first
    table has a column equal to the sum of the others (a count-based check once refused it)."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        x = rng.poisson(3, (3, 3)).astype(np.int64)
        if not out:
            x[:, 2] = x[:, 0] + x[:, 1]
        y = x.copy()
        for _ in range(rng.integers(1, 4)):
            step = _move(rng, family)
            if (y + step >= 0).all():
                y = y + step
        if not np.array_equal(x, y):
            out.append((x, y))
    return out


def _text(x: np.ndarray, layout: str) -> str:
    if layout == "wide":
        return (
            "g,"
            + ",".join(COLS)
            + "\n"
            + "".join(f"{r}," + ",".join(map(str, row)) + "\n" for r, row in zip(ROWS, x, strict=True))
        )
    return "g,h,count\n" + "".join(f"{r},{c},{x[i, j]}\n" for i, r in enumerate(ROWS) for j, c in enumerate(COLS))


def _shown(tmp_path, capsys, name: str, x: np.ndarray, layout: str, route: str, family: str) -> dict:
    """Everything a release of ``x`` shows but the released counts: exit code, stdout, stderr, statement."""
    folder = tmp_path / name
    folder.mkdir()
    (folder / "t.csv").write_text(_text(x, layout))
    invariants = FAMILIES[family][layout == "long"]
    args = [
        "release",
        str(folder / "t.csv"),
        "--format",
        layout,
        *ROUTES[route],
        "-o",
        str(folder / "out.csv"),
        *[a for inv in invariants for a in ("--invariant", inv)],
        *SEEDED,
    ]
    code = main(args)
    out, err = capsys.readouterr()
    statements = sorted(folder.glob("*.statement.json"))
    shown = {
        "exit": code,
        "stdout": out.replace(str(folder), "<dir>"),
        "stderr": err.replace(str(folder), "<dir>"),
        "statement": [json.loads(p.read_text()) for p in statements],
    }
    if code == 0:
        released = (folder / "out.csv").read_text()
        assert released.count("\n") == (4 if layout == "wide" else 10)
    return shown


@pytest.mark.parametrize("layout", ["wide", "long"])
@pytest.mark.parametrize("route", list(ROUTES))
@pytest.mark.parametrize("family", list(FAMILIES))
def test_tables_with_the_same_invariants_show_the_same(tmp_path, capsys, layout, route, family):
    n = 2 if route == "l2 chain" else 4  # the chain's certificate takes a second per release
    for k, (x, y) in enumerate(_pairs(family, n, seed=zlib.crc32(f"{layout} {route} {family}".encode()))):
        a = _shown(tmp_path, capsys, f"x{k}", x, layout, route, family)
        b = _shown(tmp_path, capsys, f"y{k}", y, layout, route, family)
        assert a == b, f"tables {x.tolist()} and {y.tolist()} ({family}) show different things:\n{a}\n{b}"
        assert a["exit"] == 0, a["stderr"][-2000:]
