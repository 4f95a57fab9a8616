"""The API reference's pages, written from the public modules' ``__all__`` at each build.

One page for the names of ``isdp.__all__`` (grouped by the module that defines them) and one page
per module used by name (:data:`MODULES`); each page lists its names in an autosummary table whose
entries get a page of their own. Writing the lists from ``__all__`` keeps the reference complete:
a new public name appears without editing a page, and tests/core/test_public_api_examples.py
holds every one of them to the numpydoc sections and a running example.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import isdp

#: the modules users import by name (``from isdp.<module> import …``), in the order of the index
MODULES = (
    "release",
    "release_statement",
    "release_files",
    "tables",
    "constraints",
    "privacy",
    "privacy_audit",
    "exact_sampling",
    "lattice_gaussian",
    "gaussian_profile",
    "opendp_measurements",
    "errors",
    "cli",
    "baselines",
    "accounting",
    "coupled_laws",
    "kernels",
    "files",
)


def _first_sentence(module) -> str:
    doc = (module.__doc__ or "").strip()
    return " ".join(doc.split("\n\n", 1)[0].split())


def _autosummary(module: str, names: list[str]) -> list[str]:
    return [f".. currentmodule:: {module}", "", ".. autosummary::", "   :toctree: generated", "",
            *(f"   {n}" for n in names), ""]


def _title(text: str) -> list[str]:
    return [text, "=" * len(text), ""]


def _top_level() -> list[str]:
    by_module: dict[str, list[str]] = {}
    for name in isdp.__all__:
        by_module.setdefault(isdp._EXPORTS[name].lstrip("."), []).append(name)
    lines = [*_title("isdp"), ".. automodule:: isdp", "   :no-members:", ""]
    for module, names in sorted(by_module.items()):
        mod = importlib.import_module(f"isdp.{module}")
        heading = f"From isdp.{module}"
        lines += [heading, "-" * len(heading), "", _first_sentence(mod), "", *_autosummary("isdp", names)]
    return lines


def _module_page(module: str) -> list[str]:
    mod = importlib.import_module(f"isdp.{module}")
    data = [n for n in mod.__all__ if not callable(getattr(mod, n))]
    lines = [*_title(f"isdp.{module}"), f".. automodule:: isdp.{module}", "   :no-members:", ""]
    lines += _autosummary(f"isdp.{module}", [n for n in mod.__all__ if n not in data])
    for name in data:  # constants: their #: comment, rendered in place
        lines += [f".. autodata:: isdp.{module}.{name}", "   :no-value:", ""]
    return lines


def _write_if_changed(path: Path, lines: list[str]) -> None:
    text = "\n".join(lines)
    if not path.exists() or path.read_text() != text:  # unchanged pages keep Sphinx's incremental build
        path.write_text(text)


def write(api_dir: Path) -> None:
    """Write ``isdp.rst`` and one ``<module>.rst`` per entry of :data:`MODULES` into ``api_dir``."""
    api_dir.mkdir(exist_ok=True)
    _write_if_changed(api_dir / "isdp.rst", _top_level())
    for module in MODULES:
        _write_if_changed(api_dir / f"{module}.rst", _module_page(module))
