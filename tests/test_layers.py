"""The import layering: no cycle, every import points down, and the modules import in a
fresh process in dependency order.

The layers, bottom to top (README "Layout"):

0. ``bootmark`` itself and the reference twin (standard library only);
1. the engine;
2. the harness core: receipts, provenance, timing, the BLAS pin, the workspace, the
   simulated series, the workers' line protocol and the command line's user error;
3. what measures speed and memory: bench, compare, gate (with suite, suite_worker,
   gate_sides, gate_report), memory, versus, floors, scoreboard, and the site that shows
   them (website, website_charts, website_history);
4. the studies;
5. the command lines and the verbs that only print: ``bootmark.cli``,
   ``bootmark.studies.cli``, doctor, example.

The graph is read from the source with ``ast`` (module-level imports; a function-local
import is allowed only with a comment saying why it is late, checked below). Negative
controls: a graph with one added back edge is reported as a cycle and as a layer breach.
"""

import ast
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from house_report import FOLDERS  # noqa: E402 - scripts/ is put on sys.path just above

CORE = {"blas", "line_process", "provenance", "receipts", "records", "timing", "workspace", "simulate", "usage"}
MEASURES = {
    "bench",
    "compare",
    "gate",
    "gate_report",
    "gate_sides",
    "gatecheck",
    "memory",
    "head_to_head",
    "floors",
    "scoreboard",
    "suite",
    "suite_worker",
    "website",
    "website_charts",
    "website_history",
}
TOP = {"bootmark.cli", "bootmark.studies.cli", "bootmark.doctor", "bootmark.example"}


def layer_of(module):
    """The layer (0 at the bottom) of a bootmark module name."""
    if module in TOP:
        return 5
    if module == "bootmark" or module.startswith("bootmark.reference"):
        return 0
    if module.startswith("bootmark.engine"):
        return 1
    if module.startswith("bootmark.studies"):
        return 4
    leaf = module.split(".")[-1]
    if leaf in CORE:
        return 2
    if leaf in MEASURES:
        return 3
    raise AssertionError(f"{module} has no layer: add it to tests/test_layers.py")


def module_files():
    """{module name: path} of every module of the package."""
    found = {}
    for folder, package in FOLDERS.items():
        for path in sorted((ROOT / folder).glob("*.py")):
            found[package if path.stem == "__init__" else f"{package}.{path.stem}"] = path
    return found


def _resolve(module, node, known):
    """The bootmark modules one import statement of ``module`` loads."""
    package = module if module in FOLDERS.values() else module.rpartition(".")[0]
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            parts = package.split(".")
            anchor = ".".join(parts[: len(parts) - node.level + 1])
            base = f"{anchor}.{base}" if base else anchor
        names = [base] + [f"{base}.{alias.name}" for alias in node.names]
    targets = set()
    for name in names:
        while name and name not in known:
            name = name.rpartition(".")[0]  # `from pkg import function`: the module is pkg
        if name and name != module and not module.startswith(name + "."):  # an ancestor runs first anyway
            targets.add(name)
    return targets


def import_graph():
    """{module: set of bootmark modules it imports at module level}, and the function-local
    import statements without a comment, as "path:line" strings."""
    files = module_files()
    graph, uncommented = {}, []
    for module, path in files.items():
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        tree = ast.parse(text)
        graph[module] = set()
        for node in tree.body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                graph[module] |= _resolve(module, node, files)
        for function in ast.walk(tree):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(function):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    here, above = lines[node.lineno - 1], lines[node.lineno - 2]
                    if "#" not in here and not above.strip().startswith("#"):
                        uncommented.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    # importing a.b.c runs the package a.b first: an import of another package's module
    # depends on that package's __init__ too (a module's own ancestors are excluded)
    for module, targets in graph.items():
        for target in list(targets):
            parent = target.rpartition(".")[0]
            while parent:
                if parent in files and not module.startswith(parent + ".") and parent != module:
                    targets.add(parent)
                parent = parent.rpartition(".")[0]
    return graph, sorted(set(uncommented))


def topological_order(graph):
    """Dependencies first; raises AssertionError naming a cycle if there is one."""
    order, state = [], {}

    def visit(module, trail):
        if state.get(module) == "done":
            return
        if state.get(module) == "active":
            cycle = trail[trail.index(module) :] + [module]
            raise AssertionError("import cycle: " + " -> ".join(cycle))
        state[module] = "active"
        for target in sorted(graph[module]):
            visit(target, trail + [module])
        state[module] = "done"
        order.append(module)

    for module in sorted(graph):
        visit(module, [])
    return order


def layer_breaches(graph):
    """Imports that point up a layer, as "a (layer) -> b (layer)" strings."""
    return [
        f"{module} ({layer_of(module)}) -> {target} ({layer_of(target)})"
        for module, targets in sorted(graph.items())
        for target in sorted(targets)
        if layer_of(target) > layer_of(module)
    ]


def test_every_module_has_a_layer_and_no_import_points_up():
    graph, _ = import_graph()
    assert not layer_breaches(graph)


def test_there_is_no_import_cycle():
    graph, _ = import_graph()
    order = topological_order(graph)
    assert set(order) == set(graph)


def test_function_local_imports_say_why_they_are_late():
    _, uncommented = import_graph()
    assert not uncommented, f"a function-local import needs a comment saying why: {uncommented}"


def test_modules_import_in_a_fresh_process_in_dependency_order():
    graph, _ = import_graph()
    order = topological_order(graph)
    script = "import importlib, sys\nfor name in sys.argv[1:]:\n    importlib.import_module(name)\nprint('ok')\n"
    done = subprocess.run([sys.executable, "-c", script, *order], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


@pytest.mark.parametrize(
    "back_edge", [("bootmark.receipts", "bootmark.cli"), ("bootmark.studies.dgp", "bootmark.studies.truth")]
)
def test_negative_control_a_back_edge_is_a_cycle_and_a_breach(back_edge):
    graph, _ = import_graph()
    graph = {module: set(targets) for module, targets in graph.items()}
    source, target = back_edge
    graph[source].add(target)
    with pytest.raises(AssertionError, match="import cycle"):
        topological_order(graph)
    if layer_of(target) > layer_of(source):
        assert layer_breaches(graph)


def test_a_versus_worker_module_loads_neither_twin():
    """`bootmark versus` workers import head_to_head, then the engine of another source tree:
    nothing head_to_head imports at module level may load a twin first."""
    script = (
        "import sys\nfrom bootmark.head_to_head import serve\n"
        "print(sorted(m for m in sys.modules if m.startswith(('bootmark.engine', 'bootmark.reference'))))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stdout + done.stderr
