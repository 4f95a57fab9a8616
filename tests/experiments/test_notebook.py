"""Tests of :mod:`isdp_papers.notebook`'s published copy of an executed notebook (the saved context and
the standalone runs are tested against a workflow run in tests/workflow/test_notebooks_standalone.py)."""

from __future__ import annotations

import nbformat
from isdp_papers.notebook import PREAMBLE_TAG, publishable


def test_publishable_replaces_the_preamble_with_a_note():
    preamble = nbformat.v4.new_code_cell(
        "import pickle; snakemake = pickle.loads(b'/home/x/run')", metadata={"tags": [PREAMBLE_TAG]}, execution_count=1
    )
    cells = [nbformat.v4.new_markdown_cell("# E9 review"), nbformat.v4.new_code_cell("smk = context('e9_x')")]
    nb = nbformat.v4.new_notebook(
        cells=[preamble, *cells],
        metadata={"papermill": {"input_path": "/home/x/tmp.ipynb", "output_path": "results/x"}},
    )
    out = publishable(nb, "e9_x")
    nbformat.validate(out)
    note = out.cells[0]
    assert note.cell_type == "markdown" and note.metadata.tags == [PREAMBLE_TAG] and note.id == preamble.id
    assert "e9_x.context.json" in note.source and "/home/x" not in nbformat.writes(out)
    assert out.cells[1:] == cells and out.metadata.papermill == {"output_path": "results/x"}
    assert publishable(nbformat.from_dict(out), "e9_x") == out  # publishing again changes nothing
