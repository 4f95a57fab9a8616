"""Run a review notebook inside the workflow or standalone against a finished results directory.

Each review notebook starts with ``smk = context('<name>', globals().get('snakemake'))``.

* **In the workflow** Snakemake injects a ``snakemake`` object (and ``chdir``s to the run
  directory); :func:`context` returns it unchanged after saving what the notebook needs from it
  (input, output, params, log, wildcards, threads, rule) to
  ``results/notebooks/<name>.context.json``, next to the executed copy, with paths inside the run
  directory stored relative to it.
* **Standalone** (Jupyter, ``jupyter nbconvert --execute``, nbclient) there is no such object, so
  :func:`context` rebuilds an equivalent one from that file and ``chdir``s to the run directory,
  so the notebook's relative paths work as in the workflow. The run directory (the one holding
  ``results/``) is ``$ISDP_RESULTS_DIR`` if set, else the nearest of the current directory and its
  parents with the context file (Jupyter starts kernels in ``notebooks/``). The rule's outputs
  are redirected to a fresh temporary directory, so a standalone run never overwrites the
  workflow's outputs; what the notebook checks is displayed either way.

The executed copy starts with the cell Snakemake injects (the pickled ``snakemake`` object, the
machine's paths): :func:`publishable` replaces it with a note before the copy is published and
rendered (rule ``notebook_html``).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from isdp.files import write_json
from isdp_papers.jobs import Namedlist

ENV_VAR = "ISDP_RESULTS_DIR"
CONTEXT_DIR = Path("results") / "notebooks"
FIELDS = ("input", "output", "params", "log", "wildcards")
PREAMBLE_TAG = "snakemake-job-properties"  # Snakemake's tag on the cell it injects (snakemake.notebook)


class Context:
    """What a notebook uses of Snakemake's injected object, rebuilt from a saved context."""

    def __init__(self, data: dict, outputs: Path):
        # outputs land under `outputs`, never on top of the workflow's
        data["output"]["items"] = [str(outputs / Path(p).relative_to(Path(p).anchor)) for p in data["output"]["items"]]
        for field in FIELDS:
            setattr(self, field, Namedlist(data[field]["items"], data[field]["names"]))
        for path in self.output:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self.rule = data["rule"]
        self.threads = data["threads"]


def context_path(name: str, root: Path | str = ".") -> Path:
    """Where notebook ``name`` (the executed copy's stem, e.g. ``e1_intersecting``) saves its context."""
    return Path(root) / CONTEXT_DIR / f"{name}.context.json"


def context(name: str, injected=None):
    """Return the notebook's ``snakemake`` object: the injected one, or one rebuilt from the saved context.

    ``injected`` is ``globals().get('snakemake')`` in the notebook: set by Snakemake, else None.
    """
    if injected is not None:
        save(name, injected)
        return injected
    root = results_dir(name)
    os.chdir(root)
    data = json.loads(context_path(name).read_text())
    outputs = Path(tempfile.mkdtemp(prefix=f"isdp-{name}-"))
    print(f"Standalone run against {root} (rule {data['rule']}); outputs go to {outputs}.")
    return Context(data, outputs)


def save(name: str, smk) -> Path:
    """Save what :class:`Context` needs from Snakemake's object, paths relative to the run directory."""
    log = Path(smk.log.get("notebook") or "")
    if log.name and log.name != f"{name}.ipynb":
        raise ValueError(f"the notebook is called {name!r} but its rule logs it to {log}")
    cwd = Path.cwd().resolve()

    def relative(path):
        resolved = Path(path).resolve()
        return str(resolved.relative_to(cwd)) if resolved.is_relative_to(cwd) else str(path)

    def namedlist(nl, paths):
        items = [relative(x) for x in nl] if paths else list(nl)
        return {"items": items, "names": dict(nl._names)}  # no public accessor in Snakemake

    data = {field: namedlist(getattr(smk, field), field in ("input", "output", "log")) for field in FIELDS}
    data.update(rule=smk.rule, threads=smk.threads)
    return write_json(data, context_path(name), indent=1, default=str)  # e.g. Path params come back as str


def results_dir(name: str) -> Path:
    """Return the run directory holding ``results/notebooks/<name>.context.json`` (see the module docstring)."""
    if os.environ.get(ENV_VAR):
        candidates = [Path(os.environ[ENV_VAR]).expanduser().resolve()]
    else:
        cwd = Path.cwd().resolve()
        candidates = [cwd, *cwd.parents]
    for root in candidates:
        if context_path(name, root).is_file():
            return root
    where = f"{ENV_VAR}={candidates[0]}" if os.environ.get(ENV_VAR) else f"{candidates[0]} or its parents"
    raise FileNotFoundError(
        f"No notebook context {context_path(name)} in {where}: run the workflow first "
        f"(snakemake --cores all) or set {ENV_VAR} to a finished run. A run finished before the "
        f"notebooks saved their context needs its notebook rule rerun (--forcerun eN_notebook)."
    )


def publishable(nb, name: str):
    """Return the executed notebook ``nb`` (nbformat, changed in place) without the machine's paths.

    Snakemake's preamble cell replaced by a note pointing at the saved context, and papermill's path of the job's
    temporary copy of the notebook left out. Running it again changes nothing.
    """
    import nbformat

    note = (
        f"*Snakemake's preamble cell (the job's `snakemake` object) is left out of this copy: the job's "
        f"inputs, outputs and params are in `{context_path(name).name}` beside it.*"
    )
    nb.cells = [
        nbformat.v4.new_markdown_cell(note, metadata={"tags": [PREAMBLE_TAG]}, id=cell.get("id", "preamble"))
        if PREAMBLE_TAG in cell.metadata.get("tags", [])
        else cell
        for cell in nb.cells
    ]
    nb.metadata.get("papermill", {}).pop("input_path", None)
    return nb
