"""Rows of ``results/tables/reproduction_summary.csv``: one per quantitative claim of the papers."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

COLUMNS = ["experiment", "claim", "source", "paper_value", "reproduced_value", "criterion", "status", "note"]
STATUSES = ("match", "differs", "not-comparable")


def claim(experiment, claim, source, paper_value, reproduced_value, criterion, status, note="") -> dict:
    """One summary row; ``status`` must be match, differs or not-comparable."""
    if status not in STATUSES:
        raise ValueError(f"status must be one of {STATUSES}, got {status!r}")
    return dict(zip(COLUMNS, [experiment, claim, source, str(paper_value), str(reproduced_value), criterion,
                              status, note], strict=True))


def write_rows(rows: list[dict], path) -> None:
    """Write summary rows as CSV (atomically)."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    pd.DataFrame(rows, columns=COLUMNS).to_csv(tmp, index=False, lineterminator="\n")
    tmp.replace(path)


def combine(paths, out) -> pd.DataFrame:
    """Concatenate per-experiment summaries into the reproduction summary."""
    df = pd.concat([pd.read_csv(p, dtype=str, keep_default_na=False) for p in paths], ignore_index=True)
    bad = set(df["status"]) - set(STATUSES)
    if bad:
        raise ValueError(f"unknown status values in the summaries: {sorted(bad)}")
    write_rows(df.to_dict("records"), out)
    return df


PACKAGES = ("isdp", "numpy", "scipy", "numba", "llvmlite", "sympy", "pandas", "arviz", "xarray", "matplotlib",
            "seaborn", "snakemake", "qpsolvers", "clarabel")  # HiGHS ships inside SciPy


def software_versions() -> pd.DataFrame:
    """Python, platform and the versions of the packages the results depend on."""
    import platform
    from importlib.metadata import PackageNotFoundError, version

    rows = [("python", platform.python_version()), ("platform", f"{platform.system()} {platform.machine()}")]
    for name in PACKAGES:
        try:
            rows.append((name, version(name)))
        except PackageNotFoundError:
            rows.append((name, "not installed"))
    return pd.DataFrame(rows, columns=["software", "version"])
