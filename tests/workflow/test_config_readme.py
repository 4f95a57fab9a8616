"""config/README.md documents the configuration the schema declares, and states no value that can drift.

The page (what the Snakemake workflow catalog shows as the workflow's configuration) has a section
``## `key` `` per top-level key of ``workflow/schemas/config.schema.yaml``, with a ``*Type:*`` line and a
table whose rows name keys relative to the section (``| `targets.l1.lags` | type | meaning |``). Checked here:

- the sections are exactly the schema's top-level keys, and every section's table names every key one
  level down; deeper keys may have rows too, and every key the page names, in a row or as a dotted path
  in a code span (e.g. e3.mcmc.n_draws), exists in the schema;
- every type cell and ``*Type:*`` line is the schema's own, rendered by :func:`schema_type` (so a bound the
  page shows is the schema's), with ``; optional`` exactly when the key is not required;
- a value the page states is written as a code span ``path = value`` and equals the configuration's: config.yaml's,
  or, in the sections on ``config/ci.yaml`` and ``config/national.yaml``, that file merged over it;
  anywhere else the page's prose holds no number (experiment names and a few document names aside);
- the override sections name exactly the keys each override file sets, and every relative link resolves.

Needs no workflow run: it runs in the unit session.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from isdp_papers.config import load_config

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "config" / "README.md"
SCHEMA = ROOT / "workflow" / "schemas" / "config.schema.yaml"
CONFIG = ROOT / "config" / "config.yaml"
OVERRIDES = ("ci.yaml", "national.yaml")  # the override files, each with a section "## What `config/<file>` overrides"

KEY_HEADING = re.compile(r"^## `(\w+)`")
ROW = re.compile(r"^\| `([\w.]+)` \| (.*?) \| (.*) \|$")
CODE = re.compile(r"`([^`\n]+)`")
ASSERTION = re.compile(r"^([\w.]+) = (.+)$")  # a stated value: `e3.state_jobs = 2`
LINK = re.compile(r"\]\(([^)\s]+)\)")
# Numbers in prose that are names, not values: the experiments E1-E8, a hash's name, the censuses of a document.
NOT_VALUES = re.compile(r"\bE\d+\b|\bSHA-256\b|\b(?:1940|2010|2020) Census\b")


def _schema() -> dict:
    return yaml.safe_load(SCHEMA.read_text(encoding="utf-8"))


def _resolve(node: dict, schema: dict) -> dict:
    while "$ref" in node:
        node = schema["$defs"][node["$ref"].rsplit("/", 1)[-1]]
    return node


def _number(value) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _bounded(base: str, node: dict) -> str:
    lo = ("[", node["minimum"]) if "minimum" in node else ("(", node.get("exclusiveMinimum"))
    hi = ("]", node["maximum"]) if "maximum" in node else (")", node.get("exclusiveMaximum"))
    if lo[1] is not None and hi[1] is not None:
        return f"{base} in {lo[0]}{_number(lo[1])}, {_number(hi[1])}{hi[0]}"
    if lo[1] is not None:
        return f"{base} {'≥' if lo[0] == '[' else '>'} {_number(lo[1])}"
    if hi[1] is not None:
        return f"{base} {'≤' if hi[0] == ']' else '<'} {_number(hi[1])}"
    return base


PLURAL = {"integer": "integers", "number": "numbers", "string": "strings", "boolean": "booleans"}


def schema_type(node: dict, schema: dict, plural: bool = False) -> str:
    """The type a schema node declares, as the page writes it: ``integer ≥ 1``, ``number in (0, 1)``,
    ``one of `a`, `b` ``, ``non-empty list of distinct integers ≥ 1``, ``mapping``, …"""
    node = _resolve(node, schema)
    if "oneOf" in node:
        return " or ".join(schema_type(n, schema) for n in node["oneOf"])
    if "const" in node:
        return f"`{node['const']}`"
    if "enum" in node:
        return ("values among " if plural else "one of ") + ", ".join(f"`{v}`" for v in node["enum"])
    kind = node.get("type")
    if kind == "null":
        return "`null`"
    if kind == "object":
        if "properties" in node:
            return "mapping"
        return f"mapping: name → {schema_type(node['additionalProperties'], schema)}"
    if kind == "array":
        lo, hi = node.get("minItems"), node.get("maxItems")
        size = f"{lo} " if lo is not None and lo == hi else f"at least {lo} " if lo and lo > 1 else ""
        non_empty = "non-empty " if lo == 1 and hi is None else ""
        distinct = "distinct " if node.get("uniqueItems") else ""
        return f"{non_empty}list of {size}{distinct}{schema_type(node.get('items', {}), schema, plural=True)}"
    base = PLURAL[kind] if plural else kind
    return _bounded(base, node) if kind in ("integer", "number") else base


def _lookup(schema: dict, path: str) -> tuple[dict, bool] | None:
    """The schema node of a dotted key path and whether its parent requires it; None if the schema has no such key."""
    node, required = schema, True
    for part in path.split("."):
        node = _resolve(node, schema)
        props = node.get("properties", {})
        if part not in props:
            return None
        required = part in node.get("required", [])
        node = props[part]
    return node, required


def _sections(text: str) -> list[tuple[str, str]]:
    """(heading, body) of every ``## `` section."""
    parts = re.split(r"^(## .*)$", text, flags=re.M)
    return [("(introduction)", parts[0])] + [(parts[i][3:].strip(), parts[i + 1]) for i in range(1, len(parts), 2)]


def _override_file(heading: str) -> str | None:
    return next((name for name in OVERRIDES if f"`config/{name}`" in heading), None)


def _config_value(config, path: str):
    for part in path.split("."):
        if not isinstance(config, dict) or part not in config:
            raise KeyError(path)
        config = config[part]
    return config


def _override_paths(override: dict) -> set[str]:
    """The keys an override file sets, one level below its top-level keys (or the top-level key itself)."""
    paths = set()
    for top, block in override.items():
        paths |= {f"{top}.{key}" for key in block} if isinstance(block, dict) else {top}
    return paths


def problems(text: str, schema: dict) -> list[str]:
    """Everything config/README.md (``text``) gets wrong about the schema and the configuration files."""
    found = []
    tops = list(schema["properties"])
    configs = {None: load_config(CONFIG)}
    configs.update({name: load_config(CONFIG, ROOT / "config" / name) for name in OVERRIDES})
    sections = _sections(text)
    headed = [m.group(1) for heading, _ in sections if (m := KEY_HEADING.match("## " + heading))]
    if sorted(headed) != sorted(tops) or len(headed) != len(set(headed)):
        found.append(f"sections {headed} are not the schema's top-level keys {tops}")
    overrides_seen = set()
    for heading, body in sections:
        m = KEY_HEADING.match("## " + heading)
        top = m.group(1) if m else None
        override = _override_file(heading)
        if override:
            overrides_seen.add(override)
        node = schema["properties"].get(top) if top else None
        if top and node is None:
            continue  # reported above
        if node is not None:
            expected = schema_type(node, schema) + ("" if top in schema.get("required", []) else "; optional")
            line = re.search(r"^\*Type:\* (.*)\.$", body, flags=re.M)
            if not line or line.group(1) != expected:
                found.append(f"{top}: the *Type:* line must read '*Type:* {expected}.'")
        rows = [ROW.match(line) for line in body.splitlines() if line.startswith("| `")]
        named = []
        for row in rows:
            if row is None:
                found.append(f"{heading}: a table row the page cannot read")
                continue
            if override:
                paths = CODE.findall(row.group(2))
                named += paths
                if any(p != row.group(1) and not p.startswith(row.group(1) + ".") for p in paths):
                    found.append(f"{heading}: the row `{row.group(1)}` names keys of another block: {paths}")
                continue
            if node is None:
                continue
            rel = row.group(1)
            named.append(rel)
            hit = _lookup(schema, f"{top}.{rel}")
            if hit is None:
                found.append(f"{top}: the schema has no key {top}.{rel}")
                continue
            expected = schema_type(hit[0], schema) + ("" if hit[1] else "; optional")
            if row.group(2) != expected:
                found.append(f"{top}.{rel}: type '{row.group(2)}', the schema's is '{expected}'")
        if node is not None:
            if len(named) != len(set(named)):
                found.append(f"{top}: a key is named twice")
            missing = [k for k in _resolve(node, schema).get("properties", {}) if k not in named]
            if missing:
                found.append(f"{top}: no row for {missing}")
        if override:
            want = _override_paths(yaml.safe_load((ROOT / "config" / override).read_text(encoding="utf-8")))
            if set(named) != want:
                found.append(f"{heading}: names {sorted(set(named))}, the file sets {sorted(want)}")
        for span in CODE.findall(body):
            if (a := ASSERTION.match(span)) is not None and a.group(1).split(".")[0] in tops:
                try:
                    actual = _config_value(configs[override], a.group(1))
                except KeyError:
                    found.append(f"{heading}: `{span}` names no key of the configuration")
                    continue
                if yaml.safe_load(a.group(2)) != actual:
                    found.append(f"{heading}: `{span}`, but the configuration has {actual!r}")
                continue
            if re.fullmatch(r"[\w]+(\.\w+)+", span) and span.split(".")[0] in tops and _lookup(schema, span) is None:
                found.append(f"{heading}: `{span}` is not a key of the schema")
        for line in re.sub(r"```.*?```", "", body, flags=re.S).splitlines():  # a code block shows commands
            if (row := ROW.match(line)) and not override:
                line = row.group(3)  # the key and its type are checked above
            if line.startswith("*Type:* "):
                continue  # checked above
            prose = NOT_VALUES.sub("", re.sub(r"\[[^\]]*\]\([^)]*\)", "", CODE.sub("", line)))  # links name pages
            if re.search(r"[0-9]", prose):
                found.append(f"{heading}: a number outside a checked `path = value`: {line.strip()[:100]}")
    missing = set(OVERRIDES) - overrides_seen
    if missing:
        found.append(f"no section on {sorted(missing)}")
    for target in LINK.findall(text):
        if "://" not in target and not (README.parent / target.split("#")[0]).exists():
            found.append(f"the link {target} leads nowhere")
    return found


def test_the_config_readme_documents_the_schema_and_the_files():
    assert problems(README.read_text(encoding="utf-8"), _schema()) == []


def test_the_catalog_settings_match_the_workflow():
    """The workflow catalog reads .snakemake-workflow-catalog.yml (its keys: usage.mandatory-flags,
    usage.software-stack-deployment, usage.report) and shows config/README.md as the configuration."""
    settings = yaml.safe_load((ROOT / ".snakemake-workflow-catalog.yml").read_text(encoding="utf-8"))
    usage = settings["usage"]
    assert set(usage) <= {"mandatory-flags", "software-stack-deployment", "report"}
    assert usage["report"] is True
    assert set(usage["software-stack-deployment"]) <= {"conda", "apptainer", "apptainer+conda"}
    # `--sdm conda` works when every rule names a conda environment (workflow/envs/isdp.yaml); no rule names a
    # container image, so apptainer is not claimed
    rules = [
        m.group(2)
        for p in sorted((ROOT / "workflow" / "rules").glob("*.smk"))
        for m in re.finditer(
            r"^( *)(?:rule|checkpoint)(?: \w+)?:\n((?:\1 .*\n|\n)*)", p.read_text(encoding="utf-8"), re.M
        )
    ]
    assert rules
    assert usage["software-stack-deployment"]["conda"] is all("conda:" in r for r in rules)
    assert usage["software-stack-deployment"].get("apptainer", False) is any("container:" in r for r in rules)


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda t: t.replace("| `eps` | number > 0 | ε of both targets. |", "", 1), "e1: no row for ['eps']"),
        (
            lambda t: t.replace("| `records_per_region` |", "| `records_per_regions` |", 1),
            "no key e1.records_per_regions",
        ),
        (lambda t: t.replace("| `x` | list of at least 3", "| `x` | list of at least 4", 1), "e1.x: type"),
        (lambda t: t.replace("`e3.state_jobs = 2`", "`e3.state_jobs = 3`", 1), "`e3.state_jobs = 3`, but"),
        (lambda t: t.replace("the Venn diagram", "the 7 regions of the Venn diagram", 1), "a number outside"),
        (lambda t: t.replace("at most `e3.mcmc.n_draws`", "at most `e3.mcmc.n_drawz`", 1), "`e3.mcmc.n_drawz` is not"),
        (lambda t: t.replace(", `e6.n_probes` |", " |", 1), "the file sets"),
        (lambda t: t.replace("## `e8`", "## `e9`", 1), "not the schema's top-level keys"),
    ],
)
def test_the_check_can_fail(mutate, message):
    text = README.read_text(encoding="utf-8")
    changed = mutate(text)
    found = problems(changed, _schema())
    assert changed != text and any(message in p for p in found), found
