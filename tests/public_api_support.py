"""The public names of ``isdp`` and the numpydoc sections their docstrings must have.

The public names are the ``__all__`` of each public part (``isdp.__all__`` names the parts, which
the documentation site's API reference renders: ``api_pages.parts``);
tests/core/test_public_api_examples.py holds them to the sections, tests/workflow/test_docs_site.py
to a rendered page.
"""

from __future__ import annotations

import importlib
import inspect

import api_pages

#: the public parts: the ones the documentation site's API reference renders
API_MODULES = tuple(api_pages.parts())


def public_names() -> list[tuple[str, str]]:
    """(part, name) for every public name."""
    return sorted((part, n) for part in API_MODULES for n in importlib.import_module(f"isdp.{part}").__all__)


def documented_object(module: str, name: str):
    value = getattr(importlib.import_module(f"isdp.{module}"), name)
    return value if inspect.isfunction(value) or inspect.isclass(value) else None


def _sections(doc: str) -> set[str]:
    """The numpydoc section titles of ``doc`` (a title line underlined by dashes)."""
    lines = doc.splitlines()
    return {
        lines[i].strip()
        for i in range(len(lines) - 1)
        if lines[i].strip()
        and set(lines[i + 1].strip()) == {"-"}
        and len(lines[i + 1].strip()) == len(lines[i].strip())
    }


def missing_sections(obj) -> list[str]:
    """The numpydoc sections ``obj``'s docstring lacks (empty when it is complete)."""
    doc = inspect.getdoc(obj) or ""
    if not doc:
        return ["docstring"]
    found = _sections(doc)
    missing = [] if "Examples" in found and ">>>" in doc.split("Examples", 1)[1] else ["Examples"]
    target = obj.__init__ if inspect.isclass(obj) else obj
    try:
        params = [
            p
            for p in inspect.signature(target).parameters.values()
            if p.name not in ("self", "cls") and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        ]
    except (TypeError, ValueError):  # a builtin or an inherited object.__init__
        params = []
    if inspect.isclass(obj) and target is object.__init__:
        params = []
    if params and not {"Parameters", "Attributes"} & found:
        missing.append("Parameters")
    if inspect.isfunction(obj) and not {"Returns", "Yields"} & found:
        annotation = inspect.signature(obj).return_annotation
        if annotation not in (None, "None"):
            missing.append("Returns")
    return missing
