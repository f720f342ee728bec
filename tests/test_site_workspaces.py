"""``bootmark site`` on workspaces that are not bootmark's: audits only, gate runs only, a
bench receipt written without git (as a wheel install writes it), none at all. Each site
has the pages its receipts call for and no other, links nothing outside its folder (the
receipts it links are copied in, byte for byte), and still works when moved.

Known answers come from the receipts themselves, read here without the site code: the
claim from the protocol text, the contender's import path and hash from ``plugins``, the
row counts from ``cells``. The browser checks of these sites are in
tests/test_site_browser.py.
"""

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

sys.path.insert(0, os.path.dirname(__file__))
from site_fixture import FULL, ROOT, make_workspace, outside_links, references  # noqa: E402 - the tests folder, just above

from bootmark.core import receipts  # noqa: E402
from bootmark.site import build as website  # noqa: E402

AUDIT = "study-SCIPY-AR1-v1-registered-amd-epyc-20261204T171956Z-c563e5a0f9.json"
GATE_FOLDER = ROOT / "receipts" / "gate"
BOOTMARK = os.path.join(os.path.dirname(sys.executable), "bootmark")  # the console script beside this Python


def studies_workspace(root: pathlib.Path) -> pathlib.Path:
    """A workspace holding one audit of someone else's interval (scipy.stats.bootstrap)."""
    (root / "receipts" / "studies").mkdir(parents=True)
    shutil.copy(ROOT / "receipts" / "studies" / AUDIT, root / "receipts" / "studies" / AUDIT)
    return root


def gate_workspace(root: pathlib.Path) -> pathlib.Path:
    """A workspace holding gate receipts only."""
    shutil.copytree(GATE_FOLDER, root / "receipts" / "gate")
    return root


def wheel_workspace(root: pathlib.Path) -> pathlib.Path:
    """A workspace holding a full bench receipt as a wheel install writes it: no git SHA,
    no dirty flag (re-sealed, so it is a valid receipt)."""
    receipt = receipts.load_receipt(str(ROOT / "receipts" / "bench" / FULL))
    provenance = json.loads(json.dumps(receipt["provenance"]))
    provenance["source"] = {"git_sha": None, "dirty": None}
    (root / "receipts" / "bench").mkdir(parents=True)
    receipts.write_receipt(receipts.seal("bench", provenance, receipt["body"]), str(root / "receipts" / "bench"))
    return root


# One head-to-head group in the last record: the reference "mine" against a slower and a
# faster implementation (ratios and verdicts as bootmark record writes them).
HEAD_TO_HEAD = {
    "label": "bench.TimeLibraries.time_sum",
    "benchmark": "bench.TimeLibraries.time_sum",
    "parameter": "library",
    "others": [],
    "reference": "mine",
    "tolerance": 1.1,
    "number": 20,
    "rounds": 20,
    "rows": [
        {"implementation": "mine", "median_s": 1.0e-3, "ratio": None, "verdict": None},
        {
            "implementation": "slow",
            "median_s": 1.5e-3,
            "ratio": {"median": 1.5, "ci_low": 1.45, "ci_high": 1.55},
            "verdict": "win",
        },
        {
            "implementation": "fast",
            "median_s": 0.6e-3,
            "ratio": {"median": 0.6, "ci_low": 0.58, "ci_high": 0.62},
            "verdict": "LOSS",
        },
    ],
}


# As long as real suites' names get (networkx's), with no space to break at: a page must
# still fit a phone's width.
RECORD_LABEL = "benchmark_neighbors.CommonNeighbors.time_star_center_rim(1000)"


def records_workspace(root: pathlib.Path) -> pathlib.Path:
    """A git workspace of 12 commits, each with a record receipt (sealed here, with times
    placed by the test: 1 ms with 2% noise, 30% more from commit 7 on) and a gate receipt
    of the last commit. The records made by ``bootmark record`` itself are in
    tests/test_site_records.py."""
    import numpy as np

    gate = receipts.load_receipt(str(sorted(GATE_FOLDER.glob("*.json"))[0]))
    noise = np.exp(np.random.default_rng(20261205).normal(0.0, 0.02, (12, 15)))
    root.mkdir(parents=True)
    for arguments in (
        ("init", "-q", "-b", "main"),
        ("config", "user.email", "t@example.invalid"),
        ("config", "user.name", "t"),
    ):
        subprocess.run(["git", *arguments], cwd=root, check=True, capture_output=True)
    folder = root / "receipts" / "records"
    folder.mkdir(parents=True)
    for number in range(1, 13):
        (root / "code.txt").write_text(f"revision {number}\n")
        subprocess.run(["git", "add", "code.txt"], cwd=root, check=True, capture_output=True)
        subprocess.run(["git", "commit", "-q", "-m", f"commit {number}"], cwd=root, check=True, capture_output=True)
        sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, check=True, capture_output=True, text=True)
        sha = sha.stdout.strip()
        level = 1.3e-3 if number >= 7 else 1.0e-3
        samples = [level * float(value) for value in noise[number - 1]]
        provenance = dict(
            gate["provenance"], source={"git_sha": sha, "dirty": False}, started_utc=f"2026-12-05T{number:02d}:00:00Z"
        )
        body = {
            "project": {
                "name": "demo",
                "version": "1.0",
                "commit": sha,
                "dirty": False,
                "framework": "asv",
                "python": "3.11.7",
                "distributions": {},
            },
            "benchmark_dir": "benchmarks",
            "commit": sha,
            "dirty": False,
            "how": "import path",
            "settings": {
                "min_rounds": 10,
                "max_rounds": 40,
                "batch": 5,
                "settle": 0.01,
                "warmups": 2,
                "sample_target_s": 0.02,
                "memory_samples": 3,
            },
            "control": {"samples_s": [4e-4] * 15, "median_s": 4e-4},
            "cells": [
                {
                    "label": RECORD_LABEL,
                    "kind": "time",
                    "unit": "s",
                    "status": "measured",
                    "samples": samples,
                    "median": sorted(samples)[7],
                    "number": 20,
                    "note": "",
                    "control": [4e-4] * 15,
                }
            ],
            "problems": [],
            "warnings": [],
            "wall_seconds": 3.0,
            "headtohead": [] if number < 12 else [HEAD_TO_HEAD],
        }
        receipts.write_receipt(receipts.seal("record", provenance, body), str(folder))
    gated = json.loads(json.dumps(gate))
    gated["body"]["current"] = {"revision": sha, "dirty": False, "how": "import path"}
    gated["provenance"]["source"] = {"git_sha": sha, "dirty": False}
    receipts.write_receipt(receipts.seal("gate", gated["provenance"], gated["body"]), str(root / "receipts" / "gate"))
    return root


WORKSPACES = {
    "studies": studies_workspace,
    "gate": gate_workspace,
    "records": records_workspace,
    "wheel": wheel_workspace,
    "everything": make_workspace,
}
PAGES_OF = {
    "studies": {"index.html", "audits.html", "history.html", "hosts.html"},
    "gate": {"index.html", "gate.html"},
    "records": {"index.html", "suite.html", "versus.html", "gate.html"},
    "wheel": {"index.html", "speed.html", "history.html", "hosts.html"},
    "everything": {"index.html", "audits.html", "speed.html", "history.html", "hosts.html", "memory.html"},
}


def test_negative_control_a_link_out_of_the_folder_is_caught(tmp_path):
    (tmp_path / "receipts").mkdir()
    (tmp_path / "receipts" / "a.json").write_text("{}")
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "index.html").write_text('<a href="../receipts/a.json">a</a><a href="#top">t</a>')
    assert outside_links(tmp_path / "site") == ["index.html: ../receipts/a.json"]


@pytest.mark.parametrize("kind", sorted(WORKSPACES))
def test_each_workspace_gets_its_pages_and_a_folder_that_works_when_moved(tmp_path, kind):
    workspace = WORKSPACES[kind](tmp_path / "workspace")
    files = website.build_site(str(tmp_path / "built"), str(workspace))
    pages = {name for name in files if name.endswith(".html")}
    assert pages == PAGES_OF[kind]
    moved = tmp_path / "elsewhere" / "public"
    moved.parent.mkdir()
    shutil.move(tmp_path / "built", moved)
    shutil.rmtree(workspace)  # nothing of the workspace is needed once the site is built
    assert not outside_links(moved), outside_links(moved)[:5]
    for page in pages:  # the navigation names exactly the pages that exist
        navigation = (moved / page).read_text().split("<nav", 1)[1].split("</nav>", 1)[0]
        assert set(re.findall(r'href="([^"#]+)"', navigation)) == pages, page


def test_linked_receipts_are_copied_byte_for_byte(tmp_path):
    workspace = make_workspace(tmp_path / "workspace")
    files = website.build_site(str(tmp_path / "site"), str(workspace))
    copies = [name for name in files if name.startswith("receipts/") and name.endswith(".json")]
    assert copies, "no receipt copied"
    assert (tmp_path / "site" / "receipts" / "index.txt").read_text().split() == sorted(copies)
    for name in copies:
        assert (tmp_path / "site" / name).read_bytes() == (workspace / name).read_bytes(), name
    linked = {ref for page in (tmp_path / "site").glob("*.html") for ref in references(page.read_text())}
    assert set(copies) <= linked  # nothing copied that no page links


def _words(page: pathlib.Path) -> str:
    """A page's text, tags stripped and whitespace collapsed."""
    import html

    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page.read_text(encoding="utf-8"))).split())


def test_an_audit_leads_with_its_claim_and_names_the_code_under_audit(tmp_path):
    workspace = studies_workspace(tmp_path / "workspace")
    website.build_site(str(tmp_path / "site"), str(workspace))
    receipt = json.loads((workspace / "receipts" / "studies" / AUDIT).read_text())
    body = receipt["body"]
    protocol = tomllib.loads(body["study"]["protocol_text"])
    (plugin,) = body["plugins"]
    audits = _words(tmp_path / "site" / "audits.html")
    claim = " ".join(protocol["claim"].split())
    assert claim in audits
    assert audits.index(claim) < audits.index("Under audit") < audits.index("Criteria") < audits.index("Coverage")
    assert plugin["path"] in audits and plugin["file_sha256"][:16] in audits
    assert "scipy 1.17.1" in audits  # what the contender imports, as the receipt recorded it
    failed = sum(1 for verdict in body["results"]["criteria"] if verdict["judged"] and not verdict["passed"])
    assert audits.count("FAIL: ") == failed
    assert f"bootmark study verify receipts/studies/{AUDIT}" in audits
    # the overview names the contender and its own lowest coverage, not the engine's arms
    contender = [row for row in body["results"]["coverage"] if row["resampler"] == "scipy.stats.bootstrap"]
    lowest = min(contender, key=lambda row: row["coverage"])
    overview = _words(tmp_path / "site" / "index.html")
    assert "Under audit: scipy.stats.bootstrap" in overview
    assert f"lowest delivered {lowest['coverage']:.3f}" in overview
    assert "engine against its peers" not in overview  # no bench receipt, no engine section


def test_the_gate_page_has_a_row_per_cell_and_the_verdict(tmp_path):
    workspace = gate_workspace(tmp_path / "workspace")
    website.build_site(str(tmp_path / "site"), str(workspace))
    page = (tmp_path / "site" / "gate.html").read_text()
    for path in sorted(GATE_FOLDER.glob("*.json")):
        receipt = json.loads(path.read_text())
        anchor = "run-" + re.sub(r"[^a-z0-9]+", "-", path.stem.lower()).strip("-")
        section = page.split(f'id="{anchor}"', 1)[1].split("<h2", 1)[0]
        table = section.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
        assert table.count("<tr") == len(receipt["body"]["cells"])
        verdict = {0: "PASS", 1: "FAIL", 2: "cannot judge"}[receipt["body"]["exit_code"]]
        assert section.split("</h2>", 1)[0].endswith(verdict)


def test_the_suite_page_places_the_step_at_commit_seven_and_links_the_gate_run(tmp_path):
    workspace = records_workspace(tmp_path / "workspace")
    website.build_site(str(tmp_path / "site"), str(workspace))
    commits = subprocess.run(
        ["git", "rev-list", "--reverse", "HEAD"], cwd=workspace, check=True, capture_output=True, text=True
    ).stdout.split()
    page = (tmp_path / "site" / "suite.html").read_text()
    section = page.split('id="suite-benchmark-neighbors-commonneighbors-time-star-center-rim-1000"', 1)[1]
    rows = section.split("<tbody>", 1)[1].split("</tbody>", 1)[0].split("<tr")[1:]
    assert len(rows) == 12
    assert [index for index, row in enumerate(rows) if "a new level starts here" in row] == [6]
    assert commits[6][:10] in rows[6] and "gate.html#run-" in rows[-1]
    assert f"steps at commit {commits[6][:10]}" in _words(tmp_path / "site" / "index.html")
    versus = (tmp_path / "site" / "versus.html").read_text()
    assert versus.count('<tr class="loss">') == 2  # fast beats mine: in the tally and in the group's table


def test_a_receipt_written_without_git_builds_every_page(tmp_path):
    workspace = wheel_workspace(tmp_path / "workspace")
    website.build_site(str(tmp_path / "site"), str(workspace))
    assert "commit no git commit" in _words(tmp_path / "site" / "speed.html")


def test_an_empty_workspace_is_one_line_and_exit_2(tmp_path):
    (tmp_path / "empty").mkdir()
    completed = subprocess.run(
        [BOOTMARK, "--workspace", str(tmp_path / "empty"), "site", "--out", str(tmp_path / "s")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 2, completed.stderr
    assert completed.stdout == "" and len(completed.stderr.strip().splitlines()) == 1, completed.stderr
    assert "no receipt to publish" in completed.stderr and "Traceback" not in completed.stderr
    assert not (tmp_path / "s").exists()
