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

import pytest
from public_api_support import API_MODULES, TOP_LEVEL_MODULES, documented_object, missing_sections, public_names


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
