"""A small workspace for the site tests, made from this repository's own receipts: the
newest full bench receipt with one arch comparison doctored into a LOSS (re-sealed, so
it is a valid receipt), the newest memory receipt and one registered study receipt from
each of two machines. Shared by tests/test_site.py and tests/test_site_browser.py; the
check that a built site links nothing outside its folder (``outside_links``) is shared by
tests/test_site_workspaces.py and tests/test_wheel.py."""

import copy
import os
import pathlib
import re
import shutil

from bootmark.core import receipts

ROOT = pathlib.Path(__file__).resolve().parent.parent
FULL = "bench-amd-epyc-20261203T200042Z-bba6c22628.json"
MEMORY = "memory-amd-epyc-20261202T162804Z-7c49df4750.json"
STUDIES = (
    "study-S1-kinds-v1-registered-amd-epyc-20261202T175748Z-750ac8b2ec.json",
    "study-S1-kinds-v1-registered-intel-r-xeon-r-processor-20261203T072908Z-cb0fdf48bd.json",
)
LOSS_CELL = {"method": "moving", "n": 2000, "n_bootstraps": 999, "sentinel": False}


def doctored_loss(receipt: dict) -> dict:
    """``receipt`` with arch made faster than the engine in LOSS_CELL (ratio 0.8, interval
    0.75-0.85), re-sealed."""
    body = copy.deepcopy(receipt["body"])
    for cell in body["cells"]:
        if all(cell[key] == value for key, value in LOSS_CELL.items()):
            cell["ratios"]["arch"].update(median=0.8, ci_low=0.75, ci_high=0.85)
            cell["paths"]["arch"]["median_s"] = 0.8 * cell["paths"]["engine_reduce"]["median_s"]
    return receipts.seal("bench", receipt["provenance"], body)


def make_workspace(root: pathlib.Path) -> pathlib.Path:
    """The fixture workspace at ``root`` (not a git checkout: its files are its history)."""
    (root / "receipts" / "bench").mkdir(parents=True)
    (root / "receipts" / "memory").mkdir()
    (root / "receipts" / "studies").mkdir()
    (root / "pyproject.toml").write_text('[project]\nname = "site-fixture"\n\n[tool.bootmark]\n')
    full = receipts.load_receipt(str(ROOT / "receipts" / "bench" / FULL))
    receipts.write_receipt(doctored_loss(full), str(root / "receipts" / "bench"))
    shutil.copy(ROOT / "receipts" / "memory" / MEMORY, root / "receipts" / "memory" / MEMORY)
    for name in STUDIES:
        shutil.copy(ROOT / "receipts" / "studies" / name, root / "receipts" / "studies" / name)
    return root


def peer_comparisons(root: pathlib.Path) -> int:
    """How many peer comparisons the fixture's bench receipt holds (the speed table's rows)."""
    folder = root / "receipts" / "bench"
    (name,) = os.listdir(folder)
    receipt = receipts.load_receipt(str(folder / name))
    return sum(1 for cell in receipt["body"]["cells"] for peer in ("arch", "tsbootstrap") if peer in cell["ratios"])


def references(page_text: str) -> list[str]:
    """Every href and src of an HTML page, as written."""
    return re.findall(r"""(?:href|src)="([^"]*)\"""", page_text)


def outside_links(site: pathlib.Path) -> list[str]:
    """Every reference of every page that is not a file inside ``site`` (anchors aside)."""
    bad = []
    for page in sorted(site.glob("*.html")):
        for reference in references(page.read_text(encoding="utf-8")):
            target = reference.split("#", 1)[0]
            if not target:
                continue
            resolved = (page.parent / target).resolve()
            if "://" in reference or site.resolve() not in resolved.parents or not resolved.is_file():
                bad.append(f"{page.name}: {reference}")
    return bad
