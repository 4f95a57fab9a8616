"""The site's benchmark figures, drawn at each build from the committed CSVs (``benchmarks/results/``).

Drawn, never committed: a figure cannot lag behind the CSV its page's table is generated from. Each
function reads its CSV, draws one figure and returns the series it drew (tests/workflow/test_benchmark_figures.py
compares them with the CSV); :func:`write_all` writes every figure as SVG into ``docs/_figures/`` (ignored
by git), where the pages link them:

- ``release_speed.svg`` (performance.md): seconds against cells, log-log, of the whole ``isdp release``
  command per route and engine, beside its kernel alone and OpenDP's noise alone;
- ``exact_proposals.svg`` (release.md): the exact ℓ1 sampler's expected proposals per block against its
  cells, one total against both margins, with the default ``--max-attempts``;
- ``error_vs_opendp.svg`` (release.md): each route's mean absolute error per cell against OpenDP's
  samplers at the same guarantee, with the invariants OpenDP's noise breaks;
- ``released_table.svg`` (release.md): the worked example's seeded release (the installed example
  table, ``--uncertainty 0.9``): each released cell with its interval, and the true count.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results"
OUT = ROOT / "docs" / "_figures"

#: the release rows of the speed figure: (CSV sampler, label, line style)
SPEED_ROWS = (
    ("isdp-release-l1-parquet", "isdp release, ℓ1, one process", "-o"),
    ("isdp-release-l1-parquet-local", "isdp release, ℓ1, every core", "-s"),
    ("isdp-release-l1-parquet-dask", "isdp release, ℓ1, Dask (2 workers)", "-^"),
    ("isdp-release-nested-parquet", "isdp release, nested Gaussian, one process", "--o"),
    ("isdp-release-nested-parquet-local", "isdp release, nested Gaussian, every core", "--s"),
    ("isdp-release-nested-parquet-dask", "isdp release, nested Gaussian, Dask (2 workers)", "--^"),
    ("isdp-release-nested-unequal-parquet-local", "isdp release, nested Gaussian, states that differ, every core", "D"),
    ("isdp-l1-one-total", "ℓ1 kernel alone", ":o"),
    ("isdp-klein-compiled", "Klein's kernel alone", ":s"),
    ("opendp-laplace", "OpenDP discrete Laplace, noise alone", "-.o"),
    ("opendp-gaussian", "OpenDP discrete Gaussian, noise alone", "-.s"),
)

#: the routes of the error figure: (CSV route, label)
ERROR_ROUTES = (
    ("l1", "isdp exact ℓ1"),
    ("free-cells", "isdp free cells"),
    ("gaussian", "isdp exact Gaussian"),
    ("opendp-laplace", "OpenDP discrete Laplace"),
    ("opendp-gaussian", "OpenDP discrete Gaussian"),
)


def _rows(name: str) -> list[dict]:
    with open(RESULTS / name, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _figure():
    import matplotlib  # deferred: only the build draws

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig, path: Path) -> None:
    """Lay the figure out, write it to ``path`` and free it."""
    import matplotlib.pyplot as plt  # deferred: as in _figure

    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def release_speed(path: Path) -> dict:
    """Draw seconds against cells per release route and engine, with the kernels and OpenDP; return the series."""
    plt = _figure()
    rows = _rows("release_throughput.csv")
    series = {}
    fig, ax = plt.subplots(figsize=(7.5, 5))
    for sampler, label, style in SPEED_ROWS:
        points = sorted((int(r["cells"]), float(r["seconds"])) for r in rows if r["sampler"] == sampler)
        if points:
            series[sampler] = points
            ax.plot(*zip(*points, strict=True), style, label=label, markersize=4)
    ax.set(xscale="log", yscale="log", xlabel="cells", ylabel="wall seconds (2 cores)")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left")
    _save(fig, path)
    return series


def exact_proposals(path: Path) -> dict:
    """Draw the exact ℓ1 sampler's expected proposals per block against its cells; return the series."""
    plt = _figure()
    rows = _rows("exact_acceptance.csv")
    series = {
        "one total, by rejection": [
            (int(r["cells"]), float(r["log10_rejection_proposals"]))
            for r in rows
            if r["invariants"].startswith("total")
        ],
        "one total, drawn directly": [
            (int(r["cells"]), float(r["log10_expected_proposals"])) for r in rows if r["invariants"].startswith("total")
        ],
        "both margins": [
            (int(r["cells"]), float(r["log10_expected_proposals"])) for r in rows if "margins" in r["invariants"]
        ],
    }
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    for (label, points), style in zip(series.items(), (":o", "-o", "-s"), strict=True):
        ax.plot(*zip(*points, strict=True), style, label=label, markersize=4)
    from isdp.release import Request

    budget = Request.__dataclass_fields__["max_attempts"].default  # the command's default, not a typed copy
    ax.axhline(math.log10(budget), color="grey", linestyle="--", label=f"--max-attempts {budget:,} (default)")
    ax.set(xscale="log", xlabel="cells in the block", ylabel="log₁₀ expected proposals per draw")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    _save(fig, path)
    return series


def error_vs_opendp(path: Path) -> dict:
    """Draw each route's mean absolute error per cell, per case; return the series (case → route → MAE)."""
    plt = _figure()
    rows = [r for r in _rows("release_error.csv") if r["status"] == "released"]
    cases = list(dict.fromkeys(r["case"] for r in rows))
    series = {case: {r["route"]: float(r["mae"]) for r in rows if r["case"] == case} for case in cases}
    fig, ax = plt.subplots(figsize=(7.5, 5))
    width = 0.8 / len(ERROR_ROUTES)
    for k, (route, label) in enumerate(ERROR_ROUTES):
        heights = [series[case].get(route, float("nan")) for case in cases]
        ax.bar([i + k * width for i in range(len(cases))], heights, width, label=label)
        for i, h in enumerate(heights):
            if math.isnan(h):  # no release on this route for this case (refused: its block is too large)
                ax.text(i + k * width, 0.05, "refused", rotation=90, ha="center", va="bottom", fontsize=7)
    cells = {r["case"]: int(r["cells"]) for r in rows}
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(cases))], [f"{c}\n({cells[c]:,} cells)" for c in cases])
    ax.set(ylabel="mean absolute error per cell")
    ax.set_title("ε = 1 per person (the Gaussian routes at δ = 10⁻⁶)", fontsize=9)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=3)
    ax.grid(True, axis="y", alpha=0.3)
    _save(fig, path)
    return series


def released_table(path: Path) -> dict:
    """Draw the example's seeded release with its 90 % intervals and the true counts; return what was drawn."""
    import tempfile

    import numpy as np

    from isdp.datasets import EXAMPLES
    from isdp.release import Request, make_release
    from isdp.tables import constraint_matrix, load_table

    wide = EXAMPLES["sex_by_age"]["files"][0].read_text().splitlines()
    header = wide[0].split(",")
    long = ["sex,age,count"] + [
        f"{r[0]},{age},{v}" for r in (x.split(",") for x in wide[1:]) for age, v in zip(header[1:], r[1:], strict=True)
    ]
    with tempfile.TemporaryDirectory() as tmp:
        table_path = Path(tmp, "sex_by_age_long.csv")
        table_path.write_text("\n".join(long) + "\n")
        table = load_table(table_path)
        A, labels = constraint_matrix(table, ["total", "by:sex"])
        release = make_release(table, A, labels, Request(epsilon="1", seed=2028, uncertainty=0.9, progress=False))
    true, released = np.asarray(table.x), np.asarray(release.values)
    lower, upper = (np.asarray(release.uncertainty[c]) for c in ("lower", "upper"))
    plt = _figure()
    fig, axes = plt.subplots(2, 1, figsize=(7.5, 5.5), sharex=True)
    ages = header[1:]
    for k, (ax, sex) in enumerate(zip(axes, ("Female", "Male"), strict=True)):
        cells = slice(k * len(ages), (k + 1) * len(ages))
        x = np.arange(len(ages))
        ax.errorbar(
            x,
            released[cells],
            yerr=[released[cells] - lower[cells], upper[cells] - released[cells]],
            fmt="o",
            markersize=3,
            capsize=2,
            label="released, with its 90 % interval",
        )
        ax.plot(x, true[cells], "x", color="black", label="true count")
        ax.set(ylabel=f"{sex}")
        ax.grid(True, alpha=0.3)
    axes[0].legend(fontsize=8)
    axes[1].set_xticks(np.arange(len(ages)), ages, rotation=60, fontsize=7)
    fig.suptitle("sex × age example, ε = 1 per person, totals by sex kept (seed 2028)", fontsize=9)
    _save(fig, path)
    covered = int(((lower <= true) & (true <= upper)).sum())
    return {"cells": int(true.size), "covered": covered, "totals_kept": bool((A @ released == A @ true).all())}


#: every figure: its file name and the function that draws it
FIGURES = {
    "release_speed.svg": release_speed,
    "exact_proposals.svg": exact_proposals,
    "error_vs_opendp.svg": error_vs_opendp,
    "released_table.svg": released_table,
}


def write_all(out: Path = OUT) -> dict:
    """Draw every figure into ``out``; return each figure's series by file name."""
    out.mkdir(parents=True, exist_ok=True)
    return {name: draw(out / name) for name, draw in FIGURES.items()}


def _build(app) -> None:
    write_all()


def setup(app):
    """Sphinx entry point: draw the figures when the build starts."""
    app.connect("builder-inited", _build)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
