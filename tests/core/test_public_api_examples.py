"""Every public name of ``isdp`` documents itself the numpydoc way, with an example that runs.

The public names are the ``__all__`` of each public part (:data:`API_MODULES`: ``isdp.__all__``, the
parts the documentation site's API reference renders). Each function
and class has Parameters (where it takes any), Returns or Yields (where it returns anything) and an
Examples section; every ``>>>`` line in these modules runs here as a doctest, so an example that
drifts from the code fails ``make test``. Data constants are documented by a ``#:`` comment, which
Sphinx renders, and carry no example of their own.
"""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest
from public_api_support import API_MODULES, documented_object, missing_sections, public_names

import isdp


@pytest.mark.parametrize(("module", "name"), public_names(), ids=[f"{m}.{n}" for m, n in public_names()])
def test_every_public_name_has_the_numpydoc_sections(module, name):
    obj = documented_object(module, name)
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


_SRC = Path(isdp.__file__).parent
#: every module of the core (the experiment layer's examples run in tests/experiments)
CORE_MODULES = sorted(
    ".".join(p.relative_to(_SRC).with_suffix("").parts).removesuffix(".__init__")
    for p in _SRC.rglob("*.py")
    if "experiments" not in p.parts and p.name != "__main__.py"
)


@pytest.mark.parametrize("module", CORE_MODULES)
def test_the_examples_run(module):
    """Every ``>>>`` example in the module (public names and others) gives the output it shows; each
    public part has some."""
    mod = importlib.import_module("isdp" if module == "__init__" else f"isdp.{module}")
    tests = [t for t in doctest.DocTestFinder().find(mod, mod.__name__) if t.examples]
    runner = doctest.DocTestRunner(optionflags=_OPTIONS)
    for test in tests:
        runner.run(test)
    failed, attempted = runner.summarize(verbose=False)
    assert attempted > 0 or module not in (*API_MODULES, "__init__"), f"isdp.{module} has no example"
    assert failed == 0, f"{failed} of {attempted} examples in isdp.{module} failed (output above)"
