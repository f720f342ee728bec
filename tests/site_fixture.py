"""A small workspace for the site tests, made from this repository's own receipts: the
newest full bench receipt with one arch comparison doctored into a LOSS (re-sealed, so
it is a valid receipt), the newest memory receipt and one registered study receipt from
each of two machines. Shared by tests/test_site.py and tests/test_site_browser.py."""

import copy
import os
import pathlib
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
    (root / "pyproject.toml").write_text('[tool.bootmark]\nname = "site fixture"\n')
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
