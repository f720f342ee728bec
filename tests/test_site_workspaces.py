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
from site_fixture import FULL, ROOT, make_workspace  # noqa: E402 - the tests folder, just above

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


WORKSPACES = {
    "studies": studies_workspace,
    "gate": gate_workspace,
    "wheel": wheel_workspace,
    "everything": make_workspace,
}
PAGES_OF = {
    "studies": {"index.html", "audits.html", "history.html", "hosts.html"},
    "gate": {"index.html", "gate.html"},
    "wheel": {"index.html", "speed.html", "history.html", "hosts.html"},
    "everything": {"index.html", "audits.html", "speed.html", "history.html", "hosts.html", "memory.html"},
}


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
    copies = [name for name in files if name.startswith("receipts/")]
    assert copies, "no receipt copied"
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
