"""The public API of ``isdp``: one ``__all__`` per part, every name resolves, the flat layout's paths
warn for one release, and importing the package is light."""

from __future__ import annotations

import importlib
import subprocess
import sys
import warnings
from collections import Counter

import pytest
from public_api_support import public_names

import isdp
from isdp._deprecated import MOVED_MODULES, MOVED_NAMES


def test_isdp_names_its_parts_and_no_other_name():
    """``isdp.__all__`` lists modules only: each part's ``__all__`` is the one list of its names."""
    for part in isdp.__all__:
        assert type(getattr(isdp, part)).__name__ == "module", part


@pytest.mark.parametrize(("part", "name"), public_names(), ids=[f"{p}.{n}" for p, n in public_names()])
def test_every_public_name_resolves_and_is_isdp_s_own(part, name):
    value = getattr(importlib.import_module(f"isdp.{part}"), name)
    owner = getattr(value, "__module__", None)
    assert owner is None or owner.startswith("isdp") or not callable(value), (part, name, owner)


def test_no_name_is_public_in_two_parts():
    counts = Counter(name for _, name in public_names())
    assert not [n for n, k in counts.items() if k > 1]


def test_unknown_names_raise_attribute_errors():
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        isdp.not_a_name  # noqa: B018
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        isdp.lattice.not_a_name  # noqa: B018


@pytest.mark.parametrize("old", sorted(MOVED_MODULES))
def test_the_old_module_paths_warn_and_forward(old):
    home = importlib.import_module(f"isdp.{MOVED_MODULES[old]}")
    name = home.__all__[0]
    module = importlib.import_module(f"isdp.{old}")
    message = rf"isdp\.{old}\.{name} is deprecated.*use isdp\.{MOVED_MODULES[old]}\.{name}"
    with pytest.warns(DeprecationWarning, match=message):
        value = getattr(module, name)
    assert value is getattr(home, name)


def test_the_old_top_level_names_warn_with_their_new_path():
    with pytest.warns(DeprecationWarning, match=r"isdp\.sample is deprecated.*use isdp\.mcmc\.sample"):
        assert isdp.sample is isdp.mcmc.sample  # noqa: B018
    with pytest.warns(DeprecationWarning, match=r"use isdp\.errors\.InvariantError"):
        from isdp.samplers import InvariantError  # noqa: F401  (an error that moved to isdp.errors)
    with pytest.warns(DeprecationWarning, match=r"use isdp\.errors\.InvariantError"):
        assert isdp.InvariantError is isdp.errors.InvariantError  # noqa: B018


@pytest.mark.parametrize("module", sorted(MOVED_NAMES))
def test_names_that_left_a_module_of_the_same_name_warn(module):
    name, home = next(iter(MOVED_NAMES[module].items()))
    with pytest.warns(DeprecationWarning, match=rf"use isdp\.{home}\.{name}"):
        value = getattr(importlib.import_module(module), name)
    assert value is getattr(importlib.import_module(f"isdp.{home}"), name)


def test_the_new_paths_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        from isdp.mcmc import sample  # noqa: F401


def test_import_isdp_loads_no_heavy_dependency():
    """`import isdp` defers SymPy, SciPy, pandas and numba to first use, so a workflow job that needs
    one helper starts in a fraction of a second."""
    code = "import sys, isdp; print(sorted({m.split('.')[0] for m in sys.modules}))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert not [m for m in ("sympy", "scipy", "pandas", "numba") if f"'{m}'" in loaded], loaded
