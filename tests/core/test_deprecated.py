"""The flat layout's import paths (before 0.3) keep working for one release, each with a
:class:`DeprecationWarning` that names the new path; the new paths do not warn."""

from __future__ import annotations

import importlib
import pathlib
import subprocess
import sys
import warnings

import pytest

import isdp
from isdp._deprecated import MOVED_MODULES, MOVED_NAMES, OLD_NAMES, RENAMED

OLD_PATHS = [(path, name) for path, names in OLD_NAMES.items() for name in names]


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


@pytest.mark.parametrize(("module", "name"), [(m, n) for m, names in sorted(MOVED_NAMES.items()) for n in names])
def test_names_that_left_a_module_of_the_same_name_warn(module, name):
    home = MOVED_NAMES[module][name]
    with pytest.warns(DeprecationWarning, match=rf"use isdp\.{home}\.{name}"):
        value = getattr(importlib.import_module(module), name)
    assert value is getattr(importlib.import_module(f"isdp.{home}"), name)


def _resolve_warning(path: str, name: str):
    """``path.name`` resolved as an old path is: the object, and the new path its one warning names."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = getattr(importlib.import_module(path), name)
    messages = [str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)]
    assert len(messages) == 1, messages
    assert messages[0].startswith(f"{path}.{name} is deprecated and will be removed in isdp 0.4; use isdp."), messages
    return value, messages[0].rpartition("; use ")[2]


@pytest.mark.parametrize(("path", "name"), OLD_PATHS, ids=[f"{p}.{n}" for p, n in OLD_PATHS])
def test_every_old_path_resolves_to_its_new_path_with_a_warning(path, name):
    value, new = _resolve_warning(path, name)
    module, _, new_name = new.rpartition(".")
    assert module in {f"isdp.{part}" for part in isdp.__all__}, new
    assert value is getattr(importlib.import_module(module), new_name)


def test_the_table_of_old_paths_holds_every_old_module():
    assert set(OLD_NAMES) == {"isdp"} | {f"isdp.{old}" for old in MOVED_MODULES}
    assert len(OLD_NAMES["isdp"]) == 47  # the old isdp.__all__


@pytest.mark.parametrize("old", sorted(MOVED_MODULES))
def test_a_star_import_of_an_old_module_imports_its_old_names(old):
    namespace: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        exec(f"from isdp.{old} import *", namespace)  # noqa: S102 - the statement under test
    assert {n for n in namespace if not n.startswith("__")} == set(OLD_NAMES[f"isdp.{old}"])


def test_the_old_modules_are_attributes_of_isdp_as_before():
    with pytest.warns(DeprecationWarning, match=r"isdp\.constraints\.row_values is deprecated.*isdp\.lattice"):
        assert isdp.constraints.row_values is isdp.lattice.row_values


def test_the_new_paths_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        from isdp.mcmc import sample  # noqa: F401


def test_an_old_module_without_the_name_raises_an_import_error():
    with pytest.raises(ImportError):
        from isdp.samplers import not_a_name  # noqa: F401
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        isdp.lattice.not_a_name  # noqa: B018


def test_every_old_module_maps_to_a_part():
    assert set(MOVED_MODULES.values()) <= set(isdp.__all__)
    assert not set(MOVED_MODULES) & set(isdp.__all__)


def test_the_warning_points_at_the_caller():
    """The warning's location is the line that used the old path, so a user finds it (stacklevel)."""
    code = "import warnings, isdp; warnings.simplefilter('always'); isdp.sample"
    err = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stderr
    assert err.startswith("<string>:1: DeprecationWarning: isdp.sample is deprecated"), err


@pytest.mark.parametrize("old", sorted(RENAMED))
def test_renamed_names_warn_with_their_new_name(old):
    home, new = RENAMED[old]
    expected = getattr(importlib.import_module(f"isdp.{home}"), new)
    with pytest.warns(DeprecationWarning, match=rf"isdp\.{home}\.{old} is deprecated.*use isdp\.{home}\.{new}"):
        assert getattr(importlib.import_module(f"isdp.{home}"), old) is expected
    with pytest.warns(DeprecationWarning, match=rf"use isdp\.{home}\.{new}"):
        assert getattr(importlib.import_module("isdp.exact_sampling"), old) is expected


def test_the_changelog_lists_every_old_path_with_its_new_one():
    text = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "changelog.md").read_text()
    section = text[text.index("### The core in subpackages"):]
    section = section[: section.index("\n## ")]
    for old, home in MOVED_MODULES.items():
        assert f"`isdp.{old}`" in section and f"`isdp.{home}`" in section, old
    for old, (home, new) in RENAMED.items():
        assert f"`isdp.{home}.{old}` is `isdp.{home}.{new}`" in section
    for module, names in MOVED_NAMES.items():
        assert all(f"`{name}`" in section for name in names), module
