"""What the verbs of the command line share: the workspace they run in, receipts written
or not, the bench cells a filter selects, and a module's docstring read without importing
the module (a verb's help).
"""

import ast
import importlib.util
import os
import sys
import tokenize

from bootmark.core import workspace
from bootmark.core.errors import UsageError

__all__ = ["bench_cells", "check_receipt_folder", "module_docstring", "use_workspace", "write_receipt"]


def bench_cells(profile, filters_text):
    """The cells of the ``profile`` grid that ``filters_text`` (``--cells``) selects; a
    UsageError naming what the grid holds when none does."""
    # late: loads the engine (numba), which `--version`, `--help` and `init` must not
    from bootmark.bench import grid as bench

    try:
        cells = bench.select(bench.grid(profile), bench.parse_filters(filters_text))
    except ValueError as error:
        raise UsageError(str(error)) from None
    if not cells:
        # name what this profile's grid holds, so the hint is right for every profile
        grid = bench.grid(profile)
        methods = ", ".join(dict.fromkeys(cell.method for cell in grid))
        raise UsageError(
            f"no cell of the {profile} grid matches {filters_text!r}; its methods are {methods}, "
            f"n one of {sorted({cell.n for cell in grid})}, B one of {sorted({cell.n_bootstraps for cell in grid})}, "
            f"sentinel true/false"
        )
    return cells


def check_receipt_folder(directory, kind, no_write):
    """Check before a long run, not after it, that its receipt can be written."""
    if not no_write:
        workspace.writable_directory(kind, directory)


def write_receipt(receipt, directory, kind, no_write):
    """Write ``receipt`` into ``directory`` (default: the workspace's folder for ``kind``)
    and print its path, or say that ``--no-write`` kept it."""
    if no_write:
        print("(receipt not written: --no-write)")
    else:
        # late: loads jsonschema, which `--version`, `--help` and `init` need not
        from bootmark.core import receipts

        print(f"receipt: {receipts.write_receipt(receipt, workspace.directory_for(kind, directory))}")


def module_docstring(module):
    """The ``__doc__`` of ``module`` without importing it (its first statement, read from
    its source) unless it is loaded: bench, versus and memory show their module's docstring
    as their help, and those modules load the engine."""
    if module in sys.modules:
        return sys.modules[module].__doc__
    with open(importlib.util.find_spec(module).origin, encoding="utf-8") as source:
        lines = []

        def read_line():
            lines.append(source.readline())
            return lines[-1]

        for token in tokenize.generate_tokens(read_line):
            if token.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
                break
    return ast.get_docstring(ast.parse("".join(lines)), clean=False)


def use_workspace(explicit):
    """Resolve the workspace once and export it, so library defaults, worker processes and
    re-executed commands all use the same folder."""

    found = workspace.find(explicit)
    os.environ[workspace.ENVIRONMENT_VARIABLE] = found.root
    return found
