# Shared definitions. Functions and constants only; rules live in the per-experiment files.
import json
from pathlib import Path

from isdp.experiments.claims import load_registry

REPO = Path(workflow.basedir)
ENV = "../../environment.yml"  # every rule runs in the project environment (pyproject.toml mirror)
SEED = config["seed"]
REGISTRY = REPO / "config" / "claims.yaml"  # the claims registry: paper values and criteria
CLAIM_ARGS = {c["id"]: c.get("args", {}) for c in load_registry(REGISTRY)}  # validated at parse time
NORMS_E1 = list(config["e1"]["targets"])


def figure(stem):
    """PDF and PNG paths of one figure."""
    return [f"results/figures/{stem}.pdf", f"results/figures/{stem}.png"]


# E3: the selected states depend on the data (DAS audit checkpoint in e3.smk).
def e3_states(wildcards=None):
    """The selected states (USPS codes), read from the audit checkpoint's output."""
    with open(checkpoints.e3_audit.get().output.summary) as fh:
        return json.load(fh)["selected_states"]


def e3_per_state(pattern):
    """Input function: ``pattern`` expanded over the selected states."""
    return lambda wildcards: expand(pattern, state=e3_states())
