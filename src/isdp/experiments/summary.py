"""The software versions behind a run (the reproduction summary itself is :mod:`isdp.experiments.claims`)."""

from __future__ import annotations

import pandas as pd

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
