"""Glue for the Snakemake scripts: logging to the rule's log file and thread settings."""

from __future__ import annotations

import logging
import sys


def start(smk) -> logging.Logger:
    """Send this job's logging (isdp's included) and warnings to ``smk.log[0]``; set numba threads."""
    handler = logging.FileHandler(smk.log[0], mode="w")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.INFO)
    logging.captureWarnings(True)
    sys.stderr = open(smk.log[0], "a")  # noqa: SIM115 — lives as long as the job
    try:
        import numba

        numba.set_num_threads(max(1, min(int(smk.threads), numba.config.NUMBA_NUM_THREADS)))
    except (ImportError, AttributeError, ValueError):
        pass
    return logging.getLogger(f"isdp.workflow.{smk.rule}")


def check_config_values(config, path: str = "config") -> None:
    """What a JSON schema cannot say: every number finite and every ``*_range`` ordered.

    Raises ValueError naming the key (e.g. ``config.e1.pilot.acceptance_range``).
    """
    import math

    if isinstance(config, dict):
        for key, value in config.items():
            where = f"{path}.{key}"
            if key.endswith("_range") and isinstance(value, list) and len(value) == 2 and not value[0] < value[1]:
                raise ValueError(f"{where}: the range {value} must be increasing")
            check_config_values(value, where)
    elif isinstance(config, list):
        for i, value in enumerate(config):
            check_config_values(value, f"{path}[{i}]")
    elif isinstance(config, float) and not math.isfinite(config):
        raise ValueError(f"{path}: {config} is not a finite number")


def merged_config(*overrides):
    """config/config.yaml with each override file merged over it, key by key, as Snakemake merges
    ``--configfile`` files (nested mappings are merged; lists and scalars replaced)."""
    from pathlib import Path

    import yaml
    from snakemake.utils import update_config

    config = yaml.safe_load((Path(__file__).resolve().parents[3] / "config" / "config.yaml").read_text())
    for path in overrides:
        update_config(config, yaml.safe_load(Path(path).read_text()) or {})
    return config
