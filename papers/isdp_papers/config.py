"""The workflow's config outside Snakemake.

What its schema cannot check (:func:`check_config_values`, which the Snakefile calls after validating) and the config
files merged as Snakemake merges them (:func:`load_config`, for the tests and installed use), and the YAML reader they
share (:func:`read_yaml`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Hashable
from pathlib import Path


def check_config_values(config, path: str = "config") -> None:
    """Check what a JSON schema cannot say: every number finite and every ``*_range`` ordered.

    Raises ValueError naming the key (e.g. ``config.e1.pilot.acceptance_range``).
    """
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


def load_config(path, *overrides) -> dict:
    """Return the config file ``path`` with each override file merged over it, key by key.

    Snakemake merges ``--configfile`` files so: nested mappings merged, lists and scalars replaced.
    """
    from snakemake.utils import update_config

    config = read_yaml(Path(path).read_text())
    for override in overrides:
        update_config(config, read_yaml(Path(override).read_text()) or {})
    return config


def read_yaml(text: str):
    """Load YAML safely, through libyaml where PyYAML has it, refusing a key given twice in one mapping.

    The claims registry is parsed on every start of the workflow, each cluster job's too: 0.44 s in pure Python, 0.04 s
    in C. A key given twice raises a ``yaml.YAMLError`` naming its line: PyYAML keeps the last silently, so a second
    ``paper_value:`` in a claim, or a second ``eps:`` in a config, would replace the first unseen.
    """
    import yaml

    return yaml.load(text, Loader=_unique_key_loader())  # noqa: S506 - a safe loader


@functools.cache
def _unique_key_loader():
    import yaml

    class Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
        def construct_mapping(self, node, deep=False):
            seen = set()
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue  # a merge (<<) may be overridden
                key = self.construct_object(key_node, deep=True)
                if not isinstance(key, Hashable):
                    continue  # refused by PyYAML itself
                if key in seen:
                    raise yaml.constructor.ConstructorError(
                        None,
                        None,
                        f"the key {key!r} is given twice in one mapping (its first value would be lost)",
                        key_node.start_mark,
                    )
                seen.add(key)
            return super().construct_mapping(node, deep)

    return Loader
