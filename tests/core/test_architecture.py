"""Layout rules of the house (docs/architecture.md, "House rules") that a test can hold."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_core_never_imports_streamlit():
    offenders = [str(p.relative_to(ROOT)) for p in (ROOT / "palace_lab").rglob("*.py")
                 if "streamlit" in imported_modules(p)]
    assert offenders == []


@pytest.mark.parametrize("code", [
    "import palace_lab, palace_lab.store, palace_lab.ingest",
    "from palace_lab.cli import build_parser; build_parser()",  # what `palace-lab --help` runs
])
def test_start_up_is_light(code):
    """Importing the core and building the CLI never pulls models, the SDK or the app."""
    import subprocess
    import sys

    probe = (f"import sys; {code}; print(','.join(m for m in ('torch', 'streamlit', 'anthropic',"
             " 'sentence_transformers', 'plotly', 'sklearn') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def _imports_of(path: Path) -> set[str]:
    """Full dotted names imported by one file (``from a.b import c`` gives ``a.b``)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_command_modules_never_import_the_entry_point():
    """``cli.main`` gathers the commands; they share ``cli.common``, so no import circle."""
    cli = ROOT / "palace_lab" / "cli"
    offenders = [p.name for p in cli.glob("*.py")
                 if p.name not in ("__init__.py", "__main__.py", "main.py")
                 and "palace_lab.cli.main" in _imports_of(p)]
    assert offenders == []


def test_the_top_level_reads_at_a_glance():
    """Loose modules at the top of palace_lab/ are the few shared nouns; the rest is packages."""
    loose = sorted(p.name for p in (ROOT / "palace_lab").glob("*.py") if p.name != "__init__.py")
    assert len(loose) <= 10, loose


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(isinstance(n, ast.Name) and n.id in ("ImportError", "ModuleNotFoundError")
               for n in names)


def test_the_projects_own_modules_are_imported_without_guards():
    """An ImportError guard around palace_lab's own modules hides a broken install."""
    offenders = []
    for path in (ROOT / "palace_lab").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Try) and any(_catches_import_error(h) for h in node.handlers):
                own = [n for stmt in node.body for n in ast.walk(stmt)
                       if isinstance(n, ast.ImportFrom)
                       and (n.module or "").startswith("palace_lab")]
                if own:
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offenders == []


# Folders of tests that are not a package of palace_lab: the app (ui/ and pages/), the
# notebooks, the benchmark scripts, and the loose modules at the top of palace_lab/ with these
# layout rules.
EDGE_TEST_FOLDERS = {"app", "notebooks", "benchmarks", "core"}


def test_the_tests_mirror_the_packages():
    """Each test file sits in the folder of the package it tests; support modules (stubs,
    fixtures' builders) stay beside conftest.py."""
    tests = ROOT / "tests"
    packages = {p.parent.name for p in (ROOT / "palace_lab").glob("*/__init__.py")}
    loose = sorted(p.name for p in tests.glob("test_*.py"))
    assert loose == [], "test files at the top of tests/: move them into their package's folder"
    folders = {p.parent.relative_to(tests).parts[0] for p in tests.rglob("test_*.py")
               if "fixtures" not in p.parts}
    assert folders - packages - EDGE_TEST_FOLDERS == set()
    names = [p.name for p in tests.rglob("test_*.py")]
    assert len(names) == len(set(names)), "two test files share a name (pytest imports them by it)"


INDEX_BUILDERS = ("bm25", "bm25_delta", "exact", "grow", "hnsw", "mechanisms", "previous")


def test_index_builders_never_reach_back_into_the_index_set():
    """Builders are functions of texts or vectors; ``IndexSet`` orchestrates around them."""
    index = ROOT / "palace_lab" / "index"
    offenders = [name for name in INDEX_BUILDERS
                 if "palace_lab.index.indexset" in _imports_of(index / f"{name}.py")
                 or _takes_an_index_set(index / f"{name}.py")]
    assert offenders == []


def _takes_an_index_set(path: Path) -> bool:
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, (ast.FunctionDef, ast.Lambda)):
            for arg in node.args.args + node.args.kwonlyargs:
                hint = ast.unparse(arg.annotation) if getattr(arg, "annotation", None) else ""
                if arg.arg in ("iset", "index_set") or "IndexSet" in hint:
                    return True
    return False


def test_the_batch_api_has_modules_of_its_own():
    """The live client and the live distiller never hold the Message Batches half."""
    for path in ("llm/client.py", "distill/anthropic_backend.py"):
        code = (ROOT / "palace_lab" / path).read_text()
        assert "batches.create" not in code and "batches.retrieve" not in code, path
        assert "STATE_PREFIX" not in code and "time.sleep" not in code, path


# The steps of DESIGN's data flow, in order: a module may import its own step and earlier
# ones, never a later one. Basics are the shared nouns and rules every step reads (values,
# settings, files, text and token rules, redaction, the LLM adapters, the SQLite store).
# Ingest includes segmenting and reading an exchange's tool traffic back; `request` is the
# person's request as read from an ingested exchange. Budgets and rooms measure the layers
# after evaluation; the lifecycle compresses and packs from all of them; the edges last.
STEPS: tuple[tuple[str, frozenset[str]], ...] = tuple((name, frozenset(parts.split())) for name, parts in (
    ("basics", "errors settings model paper files text tokens redact llm store"),
    ("ingest", "ingest request"),
    ("distill", "distill"),
    ("index", "index"),
    ("search", "search"),
    ("evaluate", "evaluate"),
    ("measure", "budget rooms"),
    ("lifecycle", "lifecycle"),
    ("experiments", "experiments charts"),
    ("uses", "report bench agent synth"),
    ("edges", "cli"),
))


def _step_of(module: str) -> int:
    """The index in :data:`STEPS` of a dotted ``palace_lab.X…`` module (its top-level part)."""
    top = module.split(".")[1] if module.count(".") else ""
    for i, (_, parts) in enumerate(STEPS):
        if top in parts:
            return i
    raise AssertionError(f"{module}: in no step of STEPS; place it in the data flow")


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _own_imports(source: str, module: str, is_package: bool = False) -> list[tuple[int, str]]:
    """(line, module) of every palace_lab import in ``source`` (the code of ``module``), inside
    functions and ``TYPE_CHECKING`` blocks included (``ast.walk`` sees the whole tree)."""
    package = module.split(".") if is_package else module.split(".")[:-1]
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[:len(package) - node.level + 1] + ([base] if base else []))
            found += [(node.lineno, f"{base}.{a.name}" if base == "palace_lab" else base)
                      for a in node.names]
    return [(line, name) for line, name in found if name.startswith("palace_lab.")]


def test_every_module_has_a_step():
    modules = [_module_name(p) for p in (ROOT / "palace_lab").rglob("*.py")]
    for module in modules:
        if module != "palace_lab":
            _step_of(module)


def test_no_step_imports_a_later_step():
    """The data flow's order holds in the imports: ingest never reads the distiller, the index
    never reads the lifecycle, and so on; an import inside a function counts as much as one at
    the top (it only hides the circle)."""
    offenders = []
    for path in sorted((ROOT / "palace_lab").rglob("*.py")):
        module = _module_name(path)
        if module == "palace_lab":
            continue
        for line, imported in _own_imports(path.read_text(), module, path.name == "__init__.py"):
            if _step_of(imported) > _step_of(module):
                offenders.append(f"{path.relative_to(ROOT)}:{line} ({STEPS[_step_of(module)][0]}) "
                                 f"imports {imported} ({STEPS[_step_of(imported)][0]})")
    assert offenders == []


def test_the_step_check_sees_imports_inside_functions():
    """The checker itself: an import inside a function body is found, relative ones resolved."""
    source = ("def f():\n    from palace_lab.budget import keep_budget\n"
              "    from ..search import engine\n    from palace_lab import paper\n")
    found = _own_imports(source, "palace_lab.distill.late")
    assert found == [(2, "palace_lab.budget"), (3, "palace_lab.search"), (4, "palace_lab.paper")]
    assert _step_of("palace_lab.budget") > _step_of("palace_lab.distill.late")


MAX_MODULE_LINES = 400


def test_no_core_module_is_over_400_lines():
    """A module past ~300-400 lines holds more than one concept (docs/architecture.md, "House
    rules"): split it by concept."""
    sizes = {str(p.relative_to(ROOT)): len(p.read_text().splitlines())
             for p in (ROOT / "palace_lab").rglob("*.py")}
    assert {path: n for path, n in sizes.items() if n > MAX_MODULE_LINES} == {}
