"""The public API of ``isdp``: every name in ``__all__`` resolves, and importing the package is light."""

from __future__ import annotations

import subprocess
import sys

import pytest

import isdp


@pytest.mark.parametrize("name", isdp.__all__)
def test_every_public_name_resolves_from_its_module(name):
    value = getattr(isdp, name)
    module = isdp._EXPORTS[name]
    assert value is getattr(sys.modules[f"isdp{module}"], name)
    assert name in dir(isdp)


def test_submodules_and_unknown_names():
    assert isdp.exact_laws.exact_tv_curve is isdp.exact_tv_curve
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        isdp.not_a_name  # noqa: B018


def test_import_isdp_loads_no_heavy_dependency():
    """`import isdp` defers SymPy, SciPy, pandas and numba to first use, so a workflow job that needs
    one helper starts in a fraction of a second."""
    code = "import sys, isdp; print(sorted({m.split('.')[0] for m in sys.modules}))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert not [m for m in ("sympy", "scipy", "pandas", "numba") if f"'{m}'" in loaded], loaded
