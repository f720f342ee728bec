"""Print the shape of the code base: modules and lines per folder, imports between
folders, function-local imports and the longest functions.

    .venv/bin/python scripts/house_report.py [--json]

A reading aid for reviews and closing notes (issue 17 reports the house before and
after a refactor with it). It parses the source with ``ast`` and imports nothing, so it
runs on any checkout, broken or not.
"""

import argparse
import ast
import json
import pathlib
import sys
from collections import Counter
from dataclasses import asdict, dataclass

ROOT = pathlib.Path(__file__).resolve().parent.parent
# The folders of the one import namespace (pyproject.toml's package-dir) and their names in it.
FOLDERS = {
    "bootmark": "bootmark",
    "engine": "bootmark.engine",
    "reference": "bootmark.reference",
    "studies": "bootmark.studies",
}


@dataclass(frozen=True)
class FunctionSize:
    """One function: where it is and how many source lines it spans."""

    module: str
    name: str
    lines: int


@dataclass(frozen=True)
class HouseReport:
    """The figures the script prints."""

    modules: dict  # folder -> count of .py files
    lines: dict  # folder -> source lines (all lines of its .py files)
    folder_imports: dict  # "from -> to" -> count of import statements across folders
    local_imports: int  # import statements inside a function body
    uncommented_local_imports: int  # of those, without a comment on the line or the line above
    longest: tuple  # the ten longest functions (lines without the docstring), as FunctionSize


def _module_files():
    for folder in FOLDERS:
        yield from sorted((ROOT / folder).glob("*.py"))


def _folder_of_module(name, current_folder):
    """The folder an absolute or relative import target lives in, or None if outside."""
    if name.startswith("."):
        return current_folder
    for folder, package in sorted(FOLDERS.items(), key=lambda item: -len(item[1])):
        if name == package or name.startswith(package + "."):
            return folder
    return None


def _imports(tree):
    """(node, target module name, inside a function) for every import statement."""
    found = []

    def visit(node, inside):
        for child in ast.iter_child_nodes(node):
            nested = inside or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.Import):
                found.extend((child, alias.name, inside) for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                found.append((child, "." * child.level + (child.module or ""), inside))
            visit(child, nested)

    visit(tree, False)
    return found


def _has_comment(lines, node):
    line = lines[node.lineno - 1]
    above = lines[node.lineno - 2] if node.lineno >= 2 else ""
    return "#" in line or above.strip().startswith("#")


def _code_lines(function):
    """Lines of a function without its docstring: the signature to the last line."""
    body = function.body
    has_docstring = isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant)
    docstring = body[0].end_lineno - body[0].lineno + 1 if has_docstring and len(body) > 1 else 0
    return function.end_lineno - function.lineno + 1 - docstring


def report():
    """Measure the tree and return a :class:`HouseReport`."""
    modules, line_counts, edges = Counter(), Counter(), Counter()
    local = uncommented = 0
    sizes = []
    for path in _module_files():
        folder = path.parent.name
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        modules[folder] += 1
        line_counts[folder] += len(lines)
        tree = ast.parse(text)
        for node, target, inside in _imports(tree):
            destination = _folder_of_module(target, folder)
            if destination is not None and destination != folder:
                edges[f"{folder} -> {destination}"] += 1
            if inside:
                local += 1
                uncommented += not _has_comment(lines, node)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                sizes.append(FunctionSize(f"{folder}/{path.name}", node.name, _code_lines(node)))
    longest = tuple(sorted(sizes, key=lambda size: -size.lines)[:10])
    return HouseReport(dict(modules), dict(line_counts), dict(sorted(edges.items())), local, uncommented, longest)


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
    print("imports between folders:")
    for edge, count in house.folder_imports.items():
        print(f"  {edge}: {count}")
    print(f"function-local imports: {house.local_imports} ({house.uncommented_local_imports} without a comment)")
    print("longest functions (lines, docstring excluded):")
    for size in house.longest:
        print(f"  {size.lines:4d}  {size.module}:{size.name}")


if __name__ == "__main__":
    sys.exit(main())
