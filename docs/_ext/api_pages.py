"""The API reference's pages, written from the public parts' ``__all__`` at each build.

``isdp.__all__`` names the public parts (the subpackages and the few top-level modules); each part's
own ``__all__`` is the one list of its public names. One page per part lists its names in an
autosummary table whose entries get a page of their own. Writing the lists from ``__all__`` keeps
the reference complete: a new public name appears without editing a page, and
tests/core/test_public_api_examples.py holds every one of them to the numpydoc sections and a
running example.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import isdp


def parts() -> list[str]:
    """The public parts, in the order of ``isdp.__all__`` (the order of the index)."""
    return list(isdp.__all__)


def _autosummary(module: str, names: list[str]) -> list[str]:
    return [
        f".. currentmodule:: {module}",
        "",
        ".. autosummary::",
        "   :toctree: generated",
        "",
        *(f"   {n}" for n in names),
        "",
    ]


def _title(text: str) -> list[str]:
    return [text, "=" * len(text), ""]


def _part_page(part: str) -> list[str]:
    mod = importlib.import_module(f"isdp.{part}")
    data = [n for n in mod.__all__ if not callable(getattr(mod, n))]
    lines = [*_title(f"isdp.{part}"), f".. automodule:: isdp.{part}", "   :no-members:", ""]
    lines += _autosummary(f"isdp.{part}", [n for n in mod.__all__ if n not in data])
    for name in data:  # constants: their #: comment, rendered in place
        lines += [f".. autodata:: isdp.{part}.{name}", "   :no-value:", ""]
    return lines


def _index() -> list[str]:
    return [
        *_title("isdp"),
        ".. automodule:: isdp",
        "   :no-members:",
        "",
        ".. toctree::",
        "   :maxdepth: 1",
        "",
        *(f"   {part}" for part in parts()),
        "",
    ]


def _write_if_changed(path: Path, lines: list[str]) -> None:
    text = "\n".join(lines)
    if not path.exists() or path.read_text() != text:  # unchanged pages keep Sphinx's incremental build
        path.write_text(text)


def write(api_dir: Path) -> None:
    """Write ``isdp.rst`` (the package and its parts) and one ``<part>.rst`` per part into ``api_dir``."""
    api_dir.mkdir(exist_ok=True)
    for stale in api_dir.glob("*.rst"):  # a part renamed or removed leaves no page behind
        if stale.stem not in {"isdp", *parts()}:
            stale.unlink()
    current = {f"isdp.{part}.{name}" for part in parts() for name in importlib.import_module(f"isdp.{part}").__all__}
    for stub in (api_dir / "generated").glob("*.rst"):  # autosummary's pages of names no part exports any more
        if stub.stem not in current:
            stub.unlink()
    _write_if_changed(api_dir / "isdp.rst", _index())
    for part in parts():
        _write_if_changed(api_dir / f"{part}.rst", _part_page(part))
