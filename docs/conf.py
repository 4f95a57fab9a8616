"""Sphinx configuration of the isdp documentation site (`make docs`, warnings are errors).

The pages are the Markdown files of docs/ (MyST); the API reference is generated from the
``__all__`` of the public modules by ``docs/_ext/api_pages.py``; the executed review notebooks and
the scorecard of a finished run are rendered by ``docs/_ext/run_pages.py`` without executing
anything. The run is ``$ISDP_RUN`` (a directory holding ``results/``), else the repository itself.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))

import api_pages  # noqa: E402
import run_pages  # noqa: E402

import isdp  # noqa: E402

project = "isdp"
author = "the isdp developers"
copyright = "the isdp developers"  # noqa: A001 (Sphinx's name)
release = version = isdp.__version__

extensions = [
    "myst_nb",  # MyST Markdown pages and the executed notebooks (never re-executed: nb_execution_mode)
    "numpydoc",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinxarg.ext",
    "plain_bars",  # docs/_ext: |x| in a docstring is an absolute value, not a substitution
    "benchmark_figures",  # docs/_ext: the benchmark figures, drawn from benchmarks/results/ at each build
]

# Pages: every Markdown file of docs/ except the build and the sources of generated pages.
exclude_patterns = ["_build", "_ext", "_figures", "**.ipynb_checkpoints"]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}  # .rst first: autosummary writes its stubs in the first
myst_enable_extensions = ["dollarmath", "colon_fence", "deflist"]
myst_heading_anchors = 3  # `page.md#section` links between the Markdown pages resolve
nb_execution_mode = "off"  # the notebooks come executed from the run; the site shows what the run computed

# API reference: one page per public name (autosummary), numpydoc sections, and numpydoc's checks
# that every documented parameter exists in the signature and the other way round (a stale
# signature fails the build).
autosummary_generate = True
autodoc_typehints = "none"  # the numpydoc Parameters section carries the types
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_validation_checks = {"PR01", "PR02", "PR10"}
numpydoc_validation_exclude = {r"\._[a-z]", r"\.__[a-z]+__$"}

html_theme = "pydata_sphinx_theme"
html_title = f"isdp {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "header_links_before_dropdown": 4,
    "show_toc_level": 2,
    "footer_start": ["copyright"],
    "footer_end": [],
}
html_static_path: list[str] = []
html_extra_path = [str(run_pages.EXTRA)]  # the run's scorecard, at the site's root

api_pages.write(DOCS / "api")
run_pages.write(DOCS, Path(os.environ.get("ISDP_RUN") or DOCS.parent))
