"""The public API of ``isdp``: one ``__all__`` per part, every name resolves, and importing the package is light."""

from __future__ import annotations

import importlib
import subprocess
import sys
from collections import Counter

import pytest
from public_api_support import public_names

import isdp


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


#: the most public names the library may have: a user reads them all in the API reference
MOST_NAMES = 122


def test_the_api_is_small_and_the_architecture_page_states_its_size():
    import re
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "architecture.md").read_text()
    stated = re.search(r"(\d+) names over (\d+) parts, at most (\d+)", " ".join(page.split()))
    assert stated, "docs/architecture.md states the public API's size"
    names, parts, most = map(int, stated.groups())
    assert (names, parts, most) == (len(public_names()), len(isdp.__all__), MOST_NAMES)
    assert len(public_names()) <= MOST_NAMES


def test_unknown_names_raise_attribute_errors():
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        isdp.not_a_name  # noqa: B018
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        isdp.lattice.not_a_name  # noqa: B018


def test_import_isdp_loads_no_heavy_dependency():
    """`import isdp` defers SymPy, SciPy, pandas and numba to first use, so a workflow job that needs
    one helper starts in a fraction of a second."""
    code = "import sys, isdp; print(sorted({m.split('.')[0] for m in sys.modules}))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert not [m for m in ("sympy", "scipy", "pandas", "numba") if f"'{m}'" in loaded], loaded
