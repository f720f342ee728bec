"""The import layering: no cycle between modules, none between rooms, every room imports
only the rooms its ``__init__`` docstring allows, and the modules import in a fresh process
in dependency order.

A room is one subpackage per use (``bootmark/__init__.py`` lists them). Each room's
docstring ends with a "May import:" paragraph; the rooms' permissions must form a layering
(no cycle), and the code must keep within them. Every import statement counts as an edge:
module level, function-local and under ``if TYPE_CHECKING:`` alike, so a cycle cannot hide
behind a late import. The graph is read from the source with ``ast`` (scripts/house_report.py,
the one reader of it). Negative controls: small trees written here, with a cycle through a
function-local import, through a typing-only import, and a room importing a room it may not,
are each caught; so is a back edge added to the real graph.
"""

import pathlib
import subprocess
import sys
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from house_report import ROOMS, allowed_rooms, import_graph, imports, room_of  # noqa: E402 - scripts/ on sys.path above


def topological_order(graph):
    """Dependencies first; raises AssertionError naming a cycle if there is one."""
    order, state = [], {}

    def visit(node, trail):
        if state.get(node) == "done":
            return
        if state.get(node) == "active":
            cycle = trail[trail.index(node) :] + [node]
            raise AssertionError("import cycle: " + " -> ".join(cycle))
        state[node] = "active"
        for target in sorted(graph[node]):
            visit(target, trail + [node])
        state[node] = "done"
        order.append(node)

    for node in sorted(graph):
        visit(node, [])
    return order


def room_graph(graph, rooms=ROOMS):
    """{room: set of other rooms its modules import}."""
    found = {package: set() for package in rooms.values()}
    for module, targets in graph.items():
        for target in targets:
            if room_of(target, rooms) != room_of(module, rooms):
                found[room_of(module, rooms)].add(room_of(target, rooms))
    return found


def layers(allowed):
    """{room: layer}: 0 for a room that may import no other, else one above the highest it may."""
    order = topological_order(allowed)
    layer = {}
    for room in order:
        layer[room] = 1 + max((layer[other] for other in allowed[room]), default=-1)
    return layer


def breaches(graph, allowed, rooms=ROOMS):
    """Room imports the importing room's docstring does not allow, as "a -> b" strings."""
    return sorted(
        f"{room} -> {other}" for room, others in room_graph(graph, rooms).items() for other in others - allowed[room]
    )


def test_there_is_no_module_cycle_counting_local_and_typing_imports():
    graph = import_graph()
    assert set(topological_order(graph)) == set(graph)


def test_every_room_says_what_it_may_import_and_the_permissions_form_layers():
    allowed = allowed_rooms()
    layer = layers(allowed)  # raises on a cycle of permissions
    assert layer["bootmark"] == layer["bootmark.reference"] == 0
    assert layer["bootmark.engine"] < layer["bootmark.core"] < layer["bootmark.bench"] < layer["bootmark.site"]
    assert layer["bootmark.cli"] == max(layer.values())


def test_no_room_imports_a_room_it_may_not_and_none_imports_a_room_above_it():
    graph = import_graph()
    allowed = allowed_rooms()
    assert not breaches(graph, allowed)
    layer = layers(allowed)
    upward = [
        (room, other) for room, others in room_graph(graph).items() for other in others if layer[other] >= layer[room]
    ]
    assert not upward
    assert set(topological_order(room_graph(graph))) == set(ROOMS.values())


def test_the_harness_package_itself_holds_at_most_eight_modules():
    assert len(list((ROOT / "bootmark").glob("*.py"))) <= 8


def test_function_local_imports_say_why_they_are_late():
    uncommented = [f"{edge.path}:{edge.line}" for edge in imports() if edge.local and not edge.commented]
    assert not uncommented, f"a function-local import needs a comment saying why: {uncommented}"


def test_modules_import_in_a_fresh_process_in_dependency_order():
    order = topological_order(import_graph())
    script = "import importlib, sys\nfor name in sys.argv[1:]:\n    importlib.import_module(name)\nprint('ok')\n"
    done = subprocess.run([sys.executable, "-c", script, *order], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


# ------------------------------------------------------------------- negative controls


def _tree(tmp_path, files):
    """Write ``files`` ({relative path: source}) under tmp_path; return the rooms of a small
    namespace ``pkg`` with rooms ``low`` and ``high``."""
    for name, source in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source), encoding="utf-8")
    return {"pkg": "pkg", "pkg/low": "pkg.low", "pkg/high": "pkg.high"}


ROOM_INITS = {
    "pkg/__init__.py": '"""The namespace.\n\nMay import: nothing.\n"""\n',
    "pkg/low/__init__.py": '"""The bottom room.\n\nMay import: nothing.\n"""\n',
    "pkg/high/__init__.py": '"""The top room.\n\nMay import: pkg.low.\n"""\n',
}


@pytest.mark.parametrize(
    "late_import",
    [
        "def helper():\n    # late on purpose\n    from pkg.low import a\n    return a\n",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.low import a\n",
    ],
    ids=["function-local", "typing-only"],
)
def test_negative_control_a_cycle_through_a_late_import_is_caught(tmp_path, late_import):
    rooms = _tree(
        tmp_path,
        {**ROOM_INITS, "pkg/low/a.py": "from pkg.low import b\n", "pkg/low/b.py": late_import},
    )
    graph = import_graph(tmp_path, rooms)
    assert graph["pkg.low.a"] == {"pkg.low.b"} and graph["pkg.low.b"] == {"pkg.low.a"}
    with pytest.raises(AssertionError, match="import cycle: pkg.low.a -> pkg.low.b -> pkg.low.a"):
        topological_order(graph)


def test_negative_control_a_room_importing_upward_through_a_local_import_is_a_breach(tmp_path):
    rooms = _tree(
        tmp_path,
        {
            **ROOM_INITS,
            "pkg/high/top.py": "from pkg.low import base\n",
            "pkg/low/base.py": "def f():\n    # late on purpose\n    from pkg.high import top\n    return top\n",
        },
    )
    graph = import_graph(tmp_path, rooms)
    allowed = allowed_rooms(tmp_path, rooms)
    assert allowed == {"pkg": set(), "pkg.low": set(), "pkg.high": {"pkg.low"}}
    assert breaches(graph, allowed, rooms) == ["pkg.low -> pkg.high"]
    with pytest.raises(AssertionError, match="import cycle"):
        topological_order(room_graph(graph, rooms))


def test_negative_control_a_room_without_its_permissions_line_is_refused(tmp_path):
    rooms = _tree(tmp_path, {**ROOM_INITS, "pkg/low/__init__.py": '"""The bottom room."""\n'})
    with pytest.raises(ValueError, match="May import"):
        allowed_rooms(tmp_path, rooms)


@pytest.mark.parametrize(
    "back_edge", [("bootmark.core.receipts", "bootmark.cli.main"), ("bootmark.studies.dgp", "bootmark.studies.truth")]
)
def test_negative_control_a_back_edge_in_the_real_graph_is_a_cycle(back_edge):
    graph = {module: set(targets) for module, targets in import_graph().items()}
    source, target = back_edge
    graph[source].add(target)
    with pytest.raises(AssertionError, match="import cycle"):
        topological_order(graph)


def test_a_versus_worker_module_loads_neither_twin():
    """`bootmark versus` workers import bootmark.bench.versus, then the engine of another
    source tree: nothing it imports at module level may load a twin first."""
    script = (
        "import sys\nfrom bootmark.bench.versus import serve\n"
        "print(sorted(m for m in sys.modules if m.startswith(('bootmark.engine', 'bootmark.reference'))))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stdout + done.stderr


def test_one_comment_serves_a_block_of_late_imports_and_none_serves_none(tmp_path):
    rooms = _tree(
        tmp_path,
        {
            **ROOM_INITS,
            "pkg/low/a.py": "",
            "pkg/low/b.py": "",
            "pkg/high/said.py": "def f():\n    # late: why\n    from pkg.low import a\n    from pkg.low import b\n",
            "pkg/high/unsaid.py": "def f():\n    x = 1\n    from pkg.low import a\n    from pkg.low import b\n",
        },
    )
    found = {(edge.module, edge.line): edge.commented for edge in imports(tmp_path, rooms) if edge.local}
    assert found == {
        ("pkg.high.said", 3): True,
        ("pkg.high.said", 4): True,
        ("pkg.high.unsaid", 3): False,
        ("pkg.high.unsaid", 4): False,
    }
