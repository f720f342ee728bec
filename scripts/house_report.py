"""Print the shape of the code base: its rooms (one subpackage per use), modules and lines
per room, imports between rooms, function-local imports and the longest functions.

    .venv/bin/python scripts/house_report.py [--json]

A reading aid for reviews and closing notes (issues 17 and 28 report the house before and
after a refactor with it), and the one reader of the import graph: tests/test_layers.py
checks the graph it returns. It parses the source with ``ast`` and imports nothing, so it
runs on any checkout, broken or not.
"""

import argparse
import ast
import json
import pathlib
import re
import sys
from collections import Counter
from dataclasses import asdict, dataclass

ROOT = pathlib.Path(__file__).resolve().parent.parent
# The rooms of the one import namespace: folder (relative to the checkout) -> package. The
# mapped folders are pyproject.toml's package-dir; the harness's rooms live in bootmark/.
ROOMS = {
    "bootmark": "bootmark",
    "reference": "bootmark.reference",
    "engine": "bootmark.engine",
    "bootmark/core": "bootmark.core",
    "studies": "bootmark.studies",
    "bootmark/bench": "bootmark.bench",
    "bootmark/gate": "bootmark.gate",
    "bootmark/site": "bootmark.site",
    "bootmark/cli": "bootmark.cli",
}
# The line of a room's __init__ docstring that names the rooms it may import.
_ALLOWED = re.compile(r"^May import:(.*?)(?:\n\s*\n|\Z)", re.M | re.S)


@dataclass(frozen=True)
class Import:
    """One import statement's edge from a module to a module of the namespace."""

    module: str
    target: str
    path: str  # the importing file, relative to the root
    line: int
    local: bool  # inside a function body
    typing_only: bool  # under ``if TYPE_CHECKING:``
    commented: bool  # a comment on the line or above its block of imports (why it is late)


@dataclass(frozen=True)
class FunctionSize:
    """One function: where it is and how many source lines it spans."""

    module: str
    name: str
    lines: int


@dataclass(frozen=True)
class HouseReport:
    """The figures the script prints."""

    modules: dict  # room folder -> count of .py files
    lines: dict  # room folder -> source lines (all lines of its .py files)
    folder_imports: dict  # "from -> to" -> count of import statements across rooms (local ones too)
    local_imports: int  # import statements inside a function body
    uncommented_local_imports: int  # of those, without a comment on the line or the line above
    longest: tuple  # the ten longest functions (lines without the docstring), as FunctionSize


def module_files(root=ROOT, rooms=ROOMS):
    """{module name: path} of every module of every room."""
    found = {}
    for folder, package in rooms.items():
        for path in sorted((pathlib.Path(root) / folder).glob("*.py")):
            found[package if path.stem == "__init__" else f"{package}.{path.stem}"] = path
    return found


def room_of(module, rooms=ROOMS):
    """The package of the room ``module`` belongs to (the longest matching one)."""
    return max(
        (package for package in rooms.values() if module == package or module.startswith(package + ".")), key=len
    )


def allowed_rooms(root=ROOT, rooms=ROOMS):
    """{room package: set of room packages its __init__ docstring says it may import}."""
    allowed = {}
    for folder, package in rooms.items():
        init = pathlib.Path(root) / folder / "__init__.py"
        docstring = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
        match = _ALLOWED.search(docstring)
        if match is None:
            raise ValueError(f"{init}: its docstring does not say 'May import: ...'")
        named = set(re.findall(r"[a-z_]+(?:\.[a-z_]+)*", match.group(1)))
        allowed[package] = {name for name in named if name in rooms.values()}
    return allowed


def _resolve(module, is_package, node, known):
    """The namespace modules one import statement of ``module`` loads."""
    package = module if is_package else module.rpartition(".")[0]
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


def _commented(lines, number):
    """Whether the import on line ``number`` (1-based) says why: a comment on its line, or
    on the line above the block of consecutive import lines it belongs to (one comment
    serves a block, which import sorting may reorder)."""
    if "#" in lines[number - 1]:
        return True
    index = number - 2
    while index >= 0 and lines[index].strip().startswith(("from ", "import ")):
        if "#" in lines[index]:
            return True
        index -= 1
    return index >= 0 and lines[index].strip().startswith("#")


def _is_type_checking(node):
    if not isinstance(node, ast.If):
        return False
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports(root=ROOT, rooms=ROOMS):
    """Every import statement between modules of the namespace, as :class:`Import` records:
    module level, function-local and ``TYPE_CHECKING`` ones alike."""
    files = module_files(root, rooms)
    found = []
    for module, path in files.items():
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        relative = path.relative_to(root).as_posix()

        def visit(node, local, typing_only, module=module, path=path, lines=lines, relative=relative):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.Import, ast.ImportFrom)):
                    commented = _commented(lines, child.lineno)
                    for target in sorted(_resolve(module, path.name == "__init__.py", child, files)):
                        found.append(Import(module, target, relative, child.lineno, local, typing_only, commented))
                nested_local = local or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                visit(child, nested_local, typing_only or _is_type_checking(child))

        visit(ast.parse(text), False, False)
    return found


def import_graph(root=ROOT, rooms=ROOMS):
    """{module: set of namespace modules it imports}, every kind of import counted, and an
    import of another package's module counted as an import of that package too (Python
    runs a package's __init__ before any of its modules)."""
    files = module_files(root, rooms)
    graph = {module: set() for module in files}
    for edge in imports(root, rooms):
        graph[edge.module].add(edge.target)
    for module, targets in graph.items():
        for target in list(targets):
            parent = target.rpartition(".")[0]
            while parent:
                if parent in files and not module.startswith(parent + ".") and parent != module:
                    targets.add(parent)
                parent = parent.rpartition(".")[0]
    return graph


def _code_lines(function):
    """Lines of a function without its docstring: the signature to the last line."""
    body = function.body
    has_docstring = isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant)
    docstring = body[0].end_lineno - body[0].lineno + 1 if has_docstring and len(body) > 1 else 0
    return function.end_lineno - function.lineno + 1 - docstring


def report(root=ROOT, rooms=ROOMS):
    """Measure the tree and return a :class:`HouseReport`."""
    folder_of = {package: folder for folder, package in rooms.items()}
    modules, line_counts, edges = Counter(), Counter(), Counter()
    sizes = []
    for module, path in module_files(root, rooms).items():
        folder = folder_of[room_of(module, rooms)]
        text = path.read_text(encoding="utf-8")
        modules[folder] += 1
        line_counts[folder] += len(text.splitlines())
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                sizes.append(FunctionSize(path.relative_to(root).as_posix(), node.name, _code_lines(node)))
    found = imports(root, rooms)
    for edge in found:
        source, destination = folder_of[room_of(edge.module, rooms)], folder_of[room_of(edge.target, rooms)]
        if source != destination:
            edges[f"{source} -> {destination}"] += 1
    local = [edge for edge in found if edge.local]
    uncommented = {(edge.path, edge.line) for edge in local if not edge.commented}
    longest = tuple(sorted(sizes, key=lambda size: -size.lines)[:10])
    statements = len({(edge.path, edge.line) for edge in local})
    return HouseReport(
        dict(modules), dict(line_counts), dict(sorted(edges.items())), statements, len(uncommented), longest
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    house = report()
    if args.json:
        print(json.dumps(asdict(house), indent=1))
        return
    print(f"modules: {house.modules} (total {sum(house.modules.values())})")
    print(f"lines:   {house.lines} (total {sum(house.lines.values())})")
    print("imports between rooms (statements, function-local ones included):")
    for edge, count in house.folder_imports.items():
        print(f"  {edge}: {count}")
    print(f"function-local imports: {house.local_imports} ({house.uncommented_local_imports} without a comment)")
    print("longest functions (lines, docstring excluded):")
    for size in house.longest:
        print(f"  {size.lines:4d}  {size.module}:{size.name}")


if __name__ == "__main__":
    sys.exit(main())
