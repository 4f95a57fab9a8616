# Shared definitions. Functions and constants only; rules live in the per-experiment files.
from pathlib import Path

REPO = Path(workflow.basedir)
ENV = "../../environment.yml"  # every rule runs in the project environment (pyproject.toml mirror)
SEED = config["seed"]
NORMS_E1 = list(config["e1"]["targets"])


def figure(stem):
    """PDF and PNG paths of one figure."""
    return [f"results/figures/{stem}.pdf", f"results/figures/{stem}.png"]
