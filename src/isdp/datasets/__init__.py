"""Example tables installed with the package, for trying ``isdp release`` and the library without a checkout.

``isdp example NAME`` (or :func:`copy_example`) writes an example's files into a folder; :data:`EXAMPLES` lists
them with their installed paths.

Examples
--------
>>> from isdp.datasets import EXAMPLES
>>> list(EXAMPLES), [p.name for p in EXAMPLES["sex_by_age"]["files"]]
(['sex_by_age'], ['sex_by_age.csv', 'sex_by_age_invariants.csv'])
"""

from ._examples import EXAMPLES, copy_example

__all__ = ["EXAMPLES", "copy_example"]
