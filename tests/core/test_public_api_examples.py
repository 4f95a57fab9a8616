"""Every public name of ``isdp`` documents itself the numpydoc way, with an example that runs.

The public names are ``isdp.__all__`` and the ``__all__`` of each module used by name
(:data:`API_MODULES`, the modules the documentation site's API reference renders). Each function
and class has Parameters (where it takes any), Returns or Yields (where it returns anything) and an
Examples section; every ``>>>`` line in these modules runs here as a doctest, so an example that
drifts from the code fails ``make test``. Data constants are documented by a ``#:`` comment, which
Sphinx renders, and carry no example of their own.
"""

from __future__ import annotations

import doctest
import importlib
import inspect

import pytest

import isdp

#: the modules users import by name (``from isdp.<module> import …``), as docs/api.md lists them
API_MODULES = (
    "accounting",
    "baselines",
    "cli",
    "constraints",
    "coupled_laws",
    "errors",
    "exact_sampling",
    "files",
    "kernels",
    "opendp_measurements",
    "privacy",
    "privacy_audit",
    "release",
    "release_files",
    "release_statement",
    "tables",
)
#: the modules that define the names of ``isdp.__all__``
TOP_LEVEL_MODULES = tuple(sorted({m.lstrip(".") for m in isdp._EXPORTS.values()}))


def public_names() -> list[tuple[str, str]]:
    """(module, name) for every public name, top-level names under the module defining them."""
    names = [(isdp._EXPORTS[n].lstrip("."), n) for n in isdp.__all__]
    for module in API_MODULES:
        names += [(module, n) for n in importlib.import_module(f"isdp.{module}").__all__]
    return sorted(set(names))


def _documented_object(module: str, name: str):
    value = getattr(importlib.import_module(f"isdp.{module}"), name)
    return value if inspect.isfunction(value) or inspect.isclass(value) else None


def _sections(doc: str) -> set[str]:
    """The numpydoc section titles of ``doc`` (a title line underlined by dashes)."""
    lines = doc.splitlines()
    return {lines[i].strip() for i in range(len(lines) - 1)
            if lines[i].strip() and set(lines[i + 1].strip()) == {"-"}
            and len(lines[i + 1].strip()) == len(lines[i].strip())}


def missing_sections(obj) -> list[str]:
    """The numpydoc sections ``obj``'s docstring lacks (empty when it is complete)."""
    doc = inspect.getdoc(obj) or ""
    if not doc:
        return ["docstring"]
    found = _sections(doc)
    missing = [] if "Examples" in found and ">>>" in doc.split("Examples", 1)[1] else ["Examples"]
    target = obj.__init__ if inspect.isclass(obj) else obj
    try:
        params = [p for p in inspect.signature(target).parameters.values()
                  if p.name not in ("self", "cls") and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
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


@pytest.mark.parametrize(("module", "name"), public_names(), ids=[f"{m}.{n}" for m, n in public_names()])
def test_every_public_name_has_the_numpydoc_sections(module, name):
    obj = _documented_object(module, name)
    if obj is None:
        pytest.skip(f"{name} is data, documented by its #: comment")
    assert not missing_sections(obj), f"isdp.{module}.{name} lacks {missing_sections(obj)}"


def test_the_section_check_can_fail():
    def bare(x):
        """Only a summary."""
        return x

    def complete(x):
        """Twice ``x``.

        Parameters
        ----------
        x : int
            A number.

        Returns
        -------
        int
            ``2 x``.

        Examples
        --------
        >>> 2 * 3
        6
        """
        return 2 * x

    assert missing_sections(bare) == ["Examples", "Parameters", "Returns"]
    assert missing_sections(complete) == []


_OPTIONS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


@pytest.mark.parametrize("module", sorted(set(API_MODULES + TOP_LEVEL_MODULES) | {"mis"}))
def test_the_examples_run(module):
    """Every ``>>>`` example in the module (public names and others) gives the output it shows."""
    mod = importlib.import_module(f"isdp.{module}")
    tests = [t for t in doctest.DocTestFinder().find(mod, mod.__name__) if t.examples]
    runner = doctest.DocTestRunner(optionflags=_OPTIONS)
    for test in tests:
        runner.run(test)
    failed, attempted = runner.summarize(verbose=False)
    assert attempted > 0, f"isdp.{module} has no example"
    assert failed == 0, f"{failed} of {attempted} examples in isdp.{module} failed (output above)"
