"""The repository's shape, kept: an experiment is one package of the paper layer, rules only wire files to
steps, a private name is used only inside its own package, another topic's names come from its ``__all__``,
and nothing in src/ finds files by counting parents."""

from __future__ import annotations

import ast
import functools
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"
PAPERS = ROOT / "papers"
EXPERIMENTS = PAPERS / "isdp_papers"
MAX_SCRIPTS = 5


def _root_of(path: Path) -> Path:
    """The folder a module's dotted name starts from: src/ for the library, papers/ for the paper layer."""
    return PAPERS if path.is_relative_to(PAPERS) else SRC


def _module_name(path: Path) -> str:
    parts = path.relative_to(_root_of(path)).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _package_of(path: Path) -> str:
    """The package a module belongs to (itself for an ``__init__``)."""
    name = _module_name(path)
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def _imported_modules(source: str, package: str) -> list[str]:
    """Absolute names of every module (and ``from X import name``: X.name) a source imports."""
    names = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            names += [base] + [f"{base}.{a.name}" for a in node.names]
    return names


def _is_module_file(parts: list[str]) -> bool:
    """Whether the dotted ``parts`` name a module file (not a package) of src/ or papers/."""
    return any((root / Path(*parts)).with_suffix(".py").is_file() for root in (SRC, PAPERS))


def _private_owner(module: str) -> str | None:
    """The package that owns ``module`` privately: ``isdp._rng`` -> ``isdp``,
    ``isdp.mcmc._samplers._run_chain`` -> ``isdp.mcmc`` (a module's private name belongs to its package);
    None if public."""
    parts = module.split(".")
    for i, part in enumerate(parts):
        if part.startswith("_") and not part.startswith("__"):
            owner = ".".join(parts[:i])
            return owner.rpartition(".")[0] if _is_module_file(parts[:i]) else owner
    return None


def _may_use_private(importer: str, owner: str) -> bool:
    """A private name is used only inside the package that owns it and the packages nested in it."""
    return importer == owner or importer.startswith(f"{owner}.")


def _code_sources():
    """(label, importing package, source) for src/, the paper layer, the workflow's scripts, benchmarks and
    notebooks."""
    for path in sorted([*SRC.rglob("*.py"), *EXPERIMENTS.rglob("*.py")]):
        yield str(path.relative_to(ROOT)), _package_of(path), path.read_text()
    for folder in ("workflow/scripts", "benchmarks", "scripts"):
        for path in sorted((ROOT / folder).glob("*.py")):
            yield str(path.relative_to(ROOT)), "", path.read_text()
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text())["cells"]
        code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
        code = "\n".join(line for line in code.splitlines() if not line.lstrip().startswith(("%", "!")))
        yield str(path.relative_to(ROOT)), "", code


#: the one module outside the library built from its private pieces, and why: the coupling designs are alternative
#: kernels of the sampler, and their design of the library's own coupling draws the same random streams, so that it
#: reproduces isdp.mcmc.meeting_times draw for draw (tests/benchmarks/test_coupling_designs.py)
BUILT_ON_PRIVATE_PIECES = {"benchmarks/coupling_designs.py": ("isdp._rng", "isdp._runner", "isdp.mcmc")}


def test_no_private_imports_across_packages():
    """``_name`` modules (and ``_name`` objects) are used only inside the package that owns them and the
    packages nested in it: ``isdp._rng`` (owned by ``isdp``) by every subpackage, ``isdp.exact._block_sampler``
    only inside ``isdp.exact``; another topic imports the package (``from ..exact import ExactSampler``), the
    paper layer, benchmarks, notebooks and scripts the public API only (but :data:`BUILT_ON_PRIVATE_PIECES`)."""
    offences = []
    for label, package, source in _code_sources():
        for module in _imported_modules(source, package):
            owner = _private_owner(module)
            if owner is None or _may_use_private(package, owner):
                continue
            if any(module == a or module.startswith(f"{a}.") for a in BUILT_ON_PRIVATE_PIECES.get(label, ())):
                continue
            offences.append(f"{label}: {module}")
    assert not offences, "private imports across packages:\n" + "\n".join(offences)


def test_the_private_import_check_can_fail():
    assert _imported_modules("from isdp._rng import derive_seed", "isdp_papers")[0] == "isdp._rng"
    assert _private_owner("isdp._rng") == "isdp"
    assert not _may_use_private("isdp_papers", "isdp") and _may_use_private("isdp.mcmc", "isdp")
    assert _imported_modules("from .._rng import x", "isdp.release")[0] == "isdp._rng"
    assert _private_owner("isdp_papers.jobs.Job") is None
    assert _private_owner("isdp.mcmc._samplers._run_chain") == "isdp.mcmc"
    assert _private_owner("isdp.files._publish") == "isdp"
    assert _imported_modules("from ..exact._block_sampler import ExactSampler", "isdp.release")[0] == (
        "isdp.exact._block_sampler"
    )
    assert not _may_use_private("isdp.release", "isdp.exact") and _may_use_private("isdp.exact", "isdp.exact")
    assert not _may_use_private("isdp.exactly", "isdp.exact")
    assert _private_owner("isdp_papers.nhgis.download._fetch_once") == "isdp_papers.nhgis"


@functools.cache
def _public_names(module: str) -> frozenset[str] | None:
    """The ``__all__`` of a public module or package of the library (read from its source), or None for
    a name that is no module of the library or a module without ``__all__``."""
    parts = module.split(".")
    if parts[0] != "isdp" or any(p.startswith("_") for p in parts):
        return None
    path = SRC / Path(*parts)
    path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
    if not path.is_file():
        return None
    for node in ast.parse(path.read_text()).body:
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        )
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            return frozenset(ast.literal_eval(node.value))
    return None


def _unlisted_imports(source: str, package: str) -> list[str]:
    """``module.name`` for each ``from <isdp module> import name`` of a module outside it whose name is not in
    that module's ``__all__``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.ImportFrom):
            continue
        (base, *_) = _imported_modules(ast.unparse(node), package)
        public = _public_names(base)
        if public is None or package == base or package.startswith(f"{base}."):
            continue
        found += [f"{base}.{a.name}" for a in node.names if a.name not in public]
    return found


def test_other_topics_import_only_public_names():
    """``from isdp.<part> import name`` outside ``isdp.<part>`` (another topic of the library, the paper layer,
    benchmarks, notebooks, scripts) names only what ``isdp.<part>.__all__`` lists."""
    offences = []
    for label, package, source in _code_sources():
        offences += [f"{label}: {name}" for name in _unlisted_imports(source, package)]
    assert not offences, "names imported from outside their part's __all__:\n" + "\n".join(offences)


def test_the_public_name_check_can_fail():
    assert "IntegerLattice" in _public_names("isdp.lattice")
    assert _public_names("isdp.lattice._targets") is None and _public_names("numpy") is None
    assert _unlisted_imports("from isdp.lattice import IntegerLattice, not_public", "isdp_papers") == [
        "isdp.lattice.not_public"
    ]
    assert _unlisted_imports("from ..lattice import not_public", "isdp.release") == ["isdp.lattice.not_public"]
    assert _unlisted_imports("from . import not_public", "isdp.lattice") == []
    assert _unlisted_imports("from isdp import lattice, mcmc", "isdp_papers") == []


def test_no_file_is_found_by_counting_parents_in_src():
    hits = [
        f"{p.relative_to(ROOT)}:{i}"
        for p in SRC.rglob("*.py")
        for i, line in enumerate(p.read_text().splitlines(), 1)
        if re.search(r"\.parents\[\d+\]", line)
    ]
    assert not hits, hits


def test_one_package_per_experiment():
    """Every configured experiment eN has exactly one package isdp_papers.eN_<name> with steps and a docstring."""
    import yaml

    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    experiments = sorted((k for k in config if re.fullmatch(r"e\d+", k)), key=lambda k: int(k[1:]))
    assert experiments
    for exp in experiments:
        packages = [p for p in EXPERIMENTS.glob(f"{exp}_*") if p.is_dir()]
        assert len(packages) == 1, f"{exp}: expected one package isdp_papers/{exp}_*/, found {packages}"
        init = packages[0] / "__init__.py"
        assert init.is_file() and ast.get_docstring(ast.parse(init.read_text())), f"{init} needs a docstring"


@pytest.mark.parametrize("steps", sorted(EXPERIMENTS.glob("*/steps.py")), ids=lambda p: p.parent.name)
def test_every_step_is_documented(steps):
    tree = ast.parse(steps.read_text())
    assert ast.get_docstring(tree), f"{steps}: module docstring"
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
            assert ast.get_docstring(node), f"{steps}: step {node.name} has no docstring"


def _rules():
    """Every rule of workflow/rules/*.smk as (file name, ``rule <name>``, its directives from a newline,
    indented four spaces), also those a loop defines (``rule:`` with ``name:``, further indented)."""
    for path in sorted((ROOT / "workflow" / "rules").glob("*.smk")):
        text = path.read_text()
        for m in re.finditer(r"^( *)(rule|checkpoint)(?: (\w+))?:\n((?:\1 .*\n|\n)*)", text, re.M):
            indent, kind, name, body = m.groups()
            body = "\n" + re.sub(rf"^{indent}", "", body, flags=re.M)
            if name is None:
                name = re.search(r"\n    name:\n        (.+)\n", body).group(1)
            yield path.name, f"{kind} {name}", body


def test_rules_are_found_also_in_loops():
    heads = [head for _, head, _ in _rules()]
    assert 'rule f"{exp}_summary"' in heads and 'rule f"{exp}_notebook"' in heads and "rule e3_tables" in heads
    assert len(heads) == len(set(heads))


def test_rules_only_wire_files_to_steps():
    """At most five generic scripts; every `script:` rule names an importable step."""
    from isdp_papers.jobs import resolve_step

    scripts = sorted(p.name for p in (ROOT / "workflow" / "scripts").iterdir() if p.is_file())
    assert len(scripts) <= MAX_SCRIPTS, scripts
    for name, head, block in _rules():
        if "\n    script:" not in block:
            continue
        assert re.search(r"\n    script:\n        STEP\n?", block), f"{name}: {head} runs a script other than STEP"
        step = re.search(r'\n        step="([\w.]+)"', block)
        assert step, f"{name}: {head} names no step"
        resolve_step(step.group(1))


def test_every_rule_logs_and_is_timed():
    """Each rule has a ``log:``. A rule that runs a step records its time, CPU and memory at the end
    of that log (``run_step``), so it declares no ``benchmark:``, whose sampler would cost
    Snakemake's process CPU; the others (notebooks, copies) declare one under results/benchmarks/.
    benchmarks/workflow_times.py reads both."""
    for name, head, block in _rules():
        assert "\n    log:\n" in block, f"{name}: {head} has no log:"
        benchmark = re.search(r'\n    benchmark:\n        f?"results/benchmarks/[^"]+\.tsv"', block)
        if "\n    script:\n        STEP" in block:
            assert not benchmark, f"{name}: {head} runs a step (timed in its log) and declares a benchmark:"
        else:
            assert benchmark, f"{name}: {head} has no benchmark: under results/benchmarks/"


def test_the_architecture_page_s_module_map_is_the_package_s():
    """The module map of docs/architecture.md is generated from src/isdp (docs/_ext/module_map.py):
    every module, by package, with its docstring's first sentence, and nothing else."""
    import module_map

    assert module_map.committed() == module_map.render(), (
        "docs/architecture.md's module map differs from the package: run python docs/_ext/module_map.py"
    )
    assert module_map.render().count("\n| `") > 100


def _names_a_module(stem: str, package: str, modules: set[str]) -> bool:
    """``test_<stem>`` in a folder mirroring ``package`` names a module: ``<stem>`` or ``_<stem>`` is one, or is
    one followed by ``_<aspect>`` (``release/test_release_privacy.py``: the privacy of
    :mod:`isdp.release._release`); ``public_api`` names the package ``isdp`` itself (its ``__all__``)."""
    if package == "isdp" and (stem == "public_api" or stem.startswith("public_api_")):
        return True
    return any(
        short == stem or stem.startswith(f"{short}_")
        for name in modules
        if name.rpartition(".")[0] == package
        for short in [name.rpartition(".")[2].removeprefix("_")]
    )


def test_every_test_file_is_named_after_the_module_it_tests():
    """Tests mirror the source: tests/core/<subpackage>/test_<module>.py tests isdp.<subpackage>.[_]<module>, and
    tests/experiments/<package>/…/test_<module>.py tests isdp_papers.<package>.….<module>."""
    modules = {_module_name(p) for p in [*SRC.rglob("*.py"), *EXPERIMENTS.rglob("*.py")]}
    stray = []
    for folder, package in (("core", "isdp"), ("experiments", "isdp_papers")):
        for path in sorted((ROOT / "tests" / folder).rglob("test_*.py")):
            parts = path.relative_to(ROOT / "tests" / folder).parts
            if not _names_a_module(path.stem[len("test_") :], ".".join([package, *parts[:-1]]), modules):
                stray.append(str(path.relative_to(ROOT)))
    assert not stray, "test files named after no module of src/isdp or papers/isdp_papers:\n" + "\n".join(stray)


def test_every_core_module_has_its_test_file():
    """The other way round: each module of the core, private ones included, has
    tests/core/<subpackage>/test_<module>.py (its name without the leading underscore)."""
    missing = []
    for path in sorted((SRC / "isdp").rglob("*.py")):
        rel = path.relative_to(SRC / "isdp")
        if path.name in ("__init__.py", "__main__.py"):
            continue
        test = ROOT / "tests" / "core" / rel.parent / f"test_{path.stem.removeprefix('_')}.py"
        if not test.is_file():
            missing.append(f"{rel} -> {test.relative_to(ROOT)}")
    assert not missing, "core modules without their test file:\n" + "\n".join(missing)


def test_the_test_name_rule_can_fail():
    modules = {"isdp.release._release", "isdp_papers.e8_privacy_accounting.measures.swapping_tables"}
    assert _names_a_module("release_privacy", "isdp.release", modules)
    assert not _names_a_module("release_privacy", "isdp", modules)
    assert _names_a_module("swapping_tables", "isdp_papers.e8_privacy_accounting.measures", modules)
    assert not _names_a_module("audit_gap_rows", "isdp_papers", modules)
    assert not _names_a_module("releases", "isdp.release", modules)


def _core_import_nodes(experiments: bool = False):
    """(module, node, is_top_level, source lines) for every import statement of the core (and of the
    paper layer, papers/isdp_papers, with ``experiments``)."""
    for path in sorted([*(SRC / "isdp").rglob("*.py"), *(EXPERIMENTS.rglob("*.py") if experiments else [])]):
        text = path.read_text()
        tree = ast.parse(text)
        top = {id(n) for n in tree.body}
        for node in tree.body:
            if isinstance(node, ast.If | ast.Try):  # `if TYPE_CHECKING:` and guarded imports count as top level
                top |= {id(n) for n in ast.walk(node)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                yield path, node, id(node) in top, text.splitlines()


@functools.cache
def _package_modules() -> frozenset[str]:
    return frozenset(_module_name(p) for p in [*(SRC / "isdp").rglob("*.py"), *EXPERIMENTS.rglob("*.py")])


def _imported_core_modules(path: Path, node) -> list[str]:
    """The core modules an import statement loads: the module (or ``from X import module``'s module) and every
    package above it that the importer is not inside of (importing ``isdp.mcmc._kernels`` runs ``isdp.mcmc``)."""
    modules = _package_modules()
    found = []
    importer = _module_name(path)
    for name in _imported_modules(ast.unparse(node), _package_of(path)):
        if name in modules and not importer.startswith(f"{name}."):
            found.append(name)
    loaded = set(found)
    for name in found:
        parts = name.split(".")
        loaded |= {".".join(parts[:i]) for i in range(2, len(parts)) if not importer.startswith(".".join(parts[:i]))}
    return sorted(loaded - {importer, "isdp"})


def _import_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path, node, _, _ in _core_import_nodes(experiments=True):
        graph.setdefault(_module_name(path), set()).update(_imported_core_modules(path, node))
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_package_s_imports_have_no_cycle():
    """Dependencies point one way: no module of the library or the paper layer imports, directly
    or through others (function-local and type-only imports included), a module that imports it; a subpackage
    counts as importing its modules."""
    assert not _cycles(_import_graph()), f"import cycles: {_cycles(_import_graph())}"


def test_the_cycle_check_can_fail():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def _says_why(lines: list[str], i: int) -> bool:
    """A comment on line ``i``, on another line of its block of consecutive imports, or on the line above
    the block (a ``try:  # why`` too)."""
    while i > 0 and lines[i - 1].strip().startswith(("import ", "from ")) and "#" not in lines[i]:
        i -= 1
    return "#" in lines[i] or "#" in lines[i - 1]


def test_the_reason_check_can_fail():
    assert _says_why(["def f():", "    # deferred: numba", "    import numba", "    import scipy"], 3)
    assert _says_why(["    try:  # the opendp extra", "        import opendp"], 1)
    assert not _says_why(["def f():", "    x = 1", "    import numba"], 2)


def test_every_function_local_import_says_why():
    """An import inside a function defers a heavy dependency (numba's compilation, OpenDP, HiGHS, SciPy's
    statistics) and says so in a comment on its line or the line above; nothing else is imported late."""
    silent = []
    for path, node, top_level, lines in _core_import_nodes():
        if top_level:
            continue
        if not _says_why(lines, node.lineno - 1):
            silent.append(f"{path.relative_to(ROOT)}:{node.lineno}: {lines[node.lineno - 1].strip()}")
    assert not silent, "function-local imports without their reason:\n" + "\n".join(silent)


#: a core module longer than this says why at the top of its docstring ("Long because …"); none may pass LONGEST
LONG, LONGEST = 600, 800


def test_core_modules_are_short_or_say_why():
    offences = []
    for path in sorted((SRC / "isdp").rglob("*.py")):
        text = path.read_text()
        lines = text.count("\n")
        doc = ast.get_docstring(ast.parse(text)) or ""
        if lines > LONGEST or (lines > LONG and "Long because" not in doc):
            offences.append(f"{path.relative_to(ROOT)}: {lines} lines")
    assert not offences, f"core modules over {LONG} lines without a reason (never over {LONGEST}):\n" + "\n".join(
        offences
    )
