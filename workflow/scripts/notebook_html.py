"""An executed review notebook rendered to HTML (nbconvert), for the report."""
from pathlib import Path

import nbformat
from nbconvert import HTMLExporter

from isdp.experiments._workflow import start

log = start(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
notebook = nbformat.read(smk.params.notebook, as_version=4)
body, _ = HTMLExporter().from_notebook_node(notebook)
Path(smk.output.html).write_text(body, encoding="utf-8")
log.info("%s -> %s (%d bytes)", smk.params.notebook, smk.output.html, len(body))
