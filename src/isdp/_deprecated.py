"""The flat layout's import paths, kept for one release (0.3) with a :class:`DeprecationWarning`.

Before 0.3 the core was 37 flat modules and ``isdp.__all__`` held 47 names (``isdp.sample``,
``from isdp.coupling import meeting_times``). Each still resolves, warning with the new path;
docs/changelog.md lists them. The old modules are not files: a finder on ``sys.meta_path`` makes
``isdp.<old>`` a module that forwards the public names of the subpackage it moved to.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
import warnings

#: old module -> the subpackage that holds its public names now
MOVED_MODULES = {
    "accounting": "baselines",
    "arviz_compat": "convergence",
    "augmented": "mcmc",
    "bases": "lattice",
    "certification": "convergence",
    "constraints": "release",
    "convergence_diagnostics": "convergence",
    "coupled_laws": "exact",
    "coupling": "mcmc",
    "double_geometric": "mcmc",
    "draws_io": "convergence",
    "exact_laws": "exact",
    "exact_sampling": "exact",
    "gaussian_profile": "exact",
    "heat_bath": "mcmc",
    "kernels": "mcmc",
    "lattice_gaussian": "exact",
    "mis": "mcmc",
    "privacy": "release",
    "privacy_audit": "release",
    "release_files": "release",
    "release_statement": "release",
    "samplers": "mcmc",
    "tables": "release",
    "targets": "lattice",
}
#: public names renamed in 0.3: old name -> (its subpackage, new name)
RENAMED = {"ExactL1Sampler": ("exact", "IntegerL1Sampler")}
#: names that left a module which is now a subpackage of the same name: module -> {name: new home}
MOVED_NAMES = {
    "isdp.baselines": {"SolverError": "errors"},
    "isdp.lattice": {"InvariantError": "errors"},
    "isdp.release": dict.fromkeys(("as_sparse", "blocks", "implied_by_partition", "independent_rows", "row_values"),
                                  "lattice"),
}
#: where ``isdp.__all__``'s names of the flat layout are now, searched in this order
_TOP_LEVEL_HOMES = ("lattice", "mcmc", "exact", "convergence", "errors")


def _warn(old: str, new: str, stacklevel: int = 3) -> None:
    warnings.warn(f"{old} is deprecated and will be removed in isdp 0.4; use {new}", DeprecationWarning,
                  stacklevel=stacklevel)


def moved_name(name: str):
    """``isdp.<name>`` of the flat layout: the object from its subpackage, with a warning."""
    for home in _TOP_LEVEL_HOMES:
        package = importlib.import_module(f"isdp.{home}")
        if name in package.__all__:
            _warn(f"isdp.{name}", f"isdp.{home}.{name}", stacklevel=4)
            return getattr(package, name)
    raise AttributeError(f"module 'isdp' has no attribute {name!r}")


def moved_attribute(module: str, name: str):
    """``<module>.<name>`` for a name that moved out of ``module`` (a subpackage's ``__getattr__``)."""
    home, new = MOVED_NAMES.get(module, {}).get(name), name
    if home is None and name in RENAMED and module == f"isdp.{RENAMED[name][0]}":
        home, new = RENAMED[name]
    if home is None:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    _warn(f"{module}.{name}", f"isdp.{home}.{new}", stacklevel=4)
    return getattr(importlib.import_module(f"isdp.{home}"), new)


class _MovedModule(types.ModuleType):
    def __getattr__(self, name: str):
        first, new = RENAMED.get(name, (MOVED_MODULES[self.__name__.rpartition(".")[2]], name))
        for home in (first, "errors"):  # errors moved to isdp.errors
            package = importlib.import_module(f"isdp.{home}")
            if new in package.__all__:
                _warn(f"{self.__name__}.{name}", f"isdp.{home}.{new}")
                return getattr(package, new)
        raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")


class _Loader(importlib.abc.Loader):
    def create_module(self, spec):
        return _MovedModule(spec.name)

    def exec_module(self, module) -> None:
        pass


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        package, _, old = fullname.partition(".")
        if package != "isdp" or old not in MOVED_MODULES:
            return None
        return importlib.machinery.ModuleSpec(fullname, _Loader())


def install_finder() -> None:
    """Put the finder of the old module paths on ``sys.meta_path`` (once per interpreter)."""
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.append(_Finder())
