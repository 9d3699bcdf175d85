"""Issue #20: data and imports flow one way. No module of the package imports (at the top or
inside a function) a module that imports it back, directly or through others."""
import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "objsub_fast"


def _modules() -> dict:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def _imports(name: str, path: Path, modules: dict) -> set:
    """Modules of the package that ``name`` imports anywhere in its source; ``from X import Y``
    counts as importing X.Y when that is a module, else X."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    edges = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            edges |= {a.name for a in node.names if a.name in modules}
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[:len(package.split(".")) - node.level + 1] if node.level \
                else []
            target = ".".join(base + ([node.module] if node.module else []))
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                edges.add(sub if sub in modules else target)
    return {e for e in edges if e in modules and e != name}


def _cycles(graph: dict) -> list:
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
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
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_import_graph_has_no_cycle():
    modules = _modules()
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    assert graph["objsub_fast.dataset.run.run_config"] >= {"objsub_fast.dataset.formats"}  # sanity
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def _part(module: str) -> str:
    """The part of the package a module belongs to: its subpackage under ``objsub_fast``, or the
    module itself when it sits at the top (``objsub_fast.cli``), or the package's ``__init__``."""
    parts = module.split(".")
    return ".".join(parts[:2])


def parts_graph(modules: dict) -> dict:
    """Parts (see :func:`_part`) and the parts each imports, at the top or inside a function;
    the package's own ``__init__`` (which re-exports the public API) is left out."""
    graph: dict = {}
    for name, path in modules.items():
        if name == PACKAGE.name:
            continue
        edges = {_part(e) for e in _imports(name, path, modules)} - {_part(name), PACKAGE.name}
        graph.setdefault(_part(name), set()).update(edges)
    return graph


def test_the_parts_import_each_other_without_a_cycle():
    graph = parts_graph(_modules())
    assert "objsub_fast.dataset" in graph and "objsub_fast.cli" in graph  # sanity
    assert _cycles(graph) == []


def test_scoring_reads_other_parts_through_their_public_names_only():
    # The known-answer fixtures live in objsub_fast.testing; scoring reaches neither them nor
    # the engine, nor a private name of another part (its stages' modules read each other's).
    offenders = []
    for path in sorted((PACKAGE / "scoring").rglob("*.py")):
        name = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        package = name.rpartition(".")[0] if path.name != "__init__.py" else name[:-9]
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom):
                continue
            base = package.split(".")[:len(package.split(".")) - node.level + 1] \
                if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            if not target.startswith("objsub_fast.") or target.startswith("objsub_fast.scoring"):
                continue                                  # not the package, or scoring itself
            part = target.split(".")[1]
            if part in ("engine", "testing") or any(a.name.startswith("_") for a in node.names):
                offenders.append(f"{path.name}: from {target} import "
                                 + ", ".join(a.name for a in node.names))
    assert offenders == []
