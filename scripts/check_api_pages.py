"""Check a built documentation site's inventory: every public name of ``bootmark.engine``
and ``bootmark.reference`` (their ``__all__``) has an entry in the API reference.

    .venv/bin/python scripts/check_api_pages.py docs/_build/html/objects.inv

Exit 0 when every name has its entry; 1, naming the missing ones, otherwise.
"""

import sys

from sphinx.util.inventory import InventoryFile

PACKAGES = ("bootmark.engine", "bootmark.reference")


def documented_names(inventory_path):
    """The Python objects' full names the inventory holds."""
    with open(inventory_path, "rb") as stream:
        inventory = InventoryFile.loads(stream.read(), uri="")
    return {name for kind, entries in inventory.data.items() if kind.startswith("py:") for name in entries}


def missing_entries(documented, packages=PACKAGES):
    """Public names (``package.name`` for each name of ``package.__all__``) without an entry."""
    import importlib

    missing = []
    for package in packages:
        for name in importlib.import_module(package).__all__:
            if f"{package}.{name}" not in documented:
                missing.append(f"{package}.{name}")
    return missing


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    missing = missing_entries(documented_names(argv[0]))
    if missing:
        print(f"check_api_pages: {len(missing)} public names have no API entry: {', '.join(missing)}", file=sys.stderr)
        return 1
    count = sum(len(__import__(package, fromlist=["__all__"]).__all__) for package in PACKAGES)
    print(f"check_api_pages: every public name of {' and '.join(PACKAGES)} ({count}) has an API entry")
    return 0


if __name__ == "__main__":
    sys.exit(main())
