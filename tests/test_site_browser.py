"""The site in a real browser: Debian's Chromium, driven by Playwright through its
executable path (Playwright's own browser download is never used).

Against sites built by the wheel's ``bootmark site`` (``bootmark[site]`` in a fresh virtual
environment: the ``site_wheel`` fixture of tests/conftest.py) from the workspaces of
tests/test_site_workspaces.py (audits only, gate runs only, records of 12 commits with a
head-to-head group, a bench receipt written without git, everything), each moved to
another folder after it is built; against the fixture workspace of tests/site_fixture.py
with one LOSS; and
against the committed site (docs/site): every page must load with no console error and no
failed request, every internal link must resolve inside the site's folder (file and
anchor), the speed table must have the rows its receipt has and mark the LOSS, sorting
must reorder the rows, each page must fit a phone's width and pass axe-core's checks, and
a screenshot of each page must not be blank.

Where no Chromium is found the tests skip and say so; with BOOTMARK_REQUIRE_BROWSER=1
(set by .ci/run, which installs Chromium) they fail instead. With
BOOTMARK_WRITE_SCREENSHOTS=1 the screenshots of the committed site's overview and speed
grid are written to docs/screenshots/ (how the README's pictures are made).
"""

import io
import os
import re
import shutil
import subprocess
import sys
from urllib.parse import unquote, urlparse

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from site_fixture import ROOT, make_workspace, peer_comparisons  # noqa: E402 - the tests folder, just above
from test_site_workspaces import PAGES_OF, WORKSPACES  # noqa: E402

from bootmark.site import build as website  # noqa: E402

PAGES = [name for name, _title in website.PAGES]


@pytest.fixture(scope="module")
def fixture_site(tmp_path_factory):
    root = tmp_path_factory.mktemp("site-browser")
    workspace = make_workspace(root / "workspace")
    website.build_site(str(root / "site"), str(workspace))
    return root / "site", workspace


@pytest.fixture(scope="module")
def moved_sites(site_wheel, tmp_path_factory):
    """{workspace kind: its site}, each built by the wheel's console script and then moved
    to another folder."""
    script, environment = site_wheel
    root = tmp_path_factory.mktemp("sites-moved")
    sites = {}
    for kind, make in sorted(WORKSPACES.items()):
        workspace = make(root / "workspaces" / kind)
        command = [str(script), "--workspace", str(workspace), "site", "--out", str(root / "built" / kind)]
        completed = subprocess.run(command, env=environment, capture_output=True, text=True, check=False, timeout=600)
        assert completed.returncode == 0, completed.stderr[-3000:]
        sites[kind] = root / "moved" / kind / "public"
        sites[kind].parent.mkdir(parents=True)
        shutil.move(root / "built" / kind, sites[kind])
    return sites


def _open(browser, url, width=1200):
    page = browser.new_page(viewport={"width": width, "height": 900})
    problems = []
    page.on(
        "console",
        lambda message: problems.append(f"console {message.type}: {message.text}") if message.type == "error" else None,
    )
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    page.on("requestfailed", lambda request: problems.append(f"failed request: {request.url}"))
    page.goto(url)
    page.wait_for_load_state("load")
    return page, problems


def _links_resolve(page, site):
    """Every internal link's file exists inside ``site``, and its anchor is an id on the
    target page."""
    broken = []
    inside = os.path.realpath(site) + os.sep
    for href in page.eval_on_selector_all("a[href]", "links => links.map(link => link.href)"):
        parsed = urlparse(href)
        if parsed.scheme != "file":
            broken.append(f"{href}: not a local link")
            continue
        target = unquote(parsed.path)
        if not os.path.realpath(target).startswith(inside):
            broken.append(f"{href}: outside the site's folder")
        elif not os.path.isfile(target):
            broken.append(f"{href}: no such file")
        elif parsed.fragment and target.endswith(".html"):
            with open(target, encoding="utf-8") as stream:
                if not re.search(rf"""\bid=["']{re.escape(parsed.fragment)}["']""", stream.read()):
                    broken.append(f"{href}: no element with that id")
    return broken


def _not_blank(png: bytes) -> bool:
    # late: matplotlib decodes the PNG (no image library is a dependency otherwise)
    import matplotlib.image

    pixels = matplotlib.image.imread(io.BytesIO(png))
    return float(pixels[..., :3].std()) > 0.05


@pytest.mark.parametrize(
    ("kind", "name"), [(kind, name) for kind in sorted(PAGES_OF) for name in PAGES if name in PAGES_OF[kind]]
)
def test_each_page_loads_cleanly_links_resolve_fits_a_phone_and_passes_axe(browser, moved_sites, kind, name):
    check_page(browser, moved_sites[kind], name)


def check_page(browser, site, name) -> None:
    """Page ``name`` of ``site`` loads with no console error or failed request, has a title
    and one h1, links only to files and anchors inside ``site``, gives every image an alt
    text, is not blank, fits a phone's width and passes axe-core. Shared with
    tests/test_site_records.py."""
    # late: only with a browser
    from axe_playwright_python.sync_playwright import Axe

    page, problems = _open(browser, (site / name).as_uri())
    assert not problems, problems
    assert page.title() and page.locator("h1").count() == 1
    assert not _links_resolve(page, site)
    assert page.locator("img:not([alt])").count() == 0
    assert _not_blank(page.screenshot())
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("document.documentElement.scrollWidth") <= 390, f"{name} is wider than a phone"
    violations = Axe().run(page).response["violations"]
    assert not violations, [(found["id"], found["help"], len(found["nodes"])) for found in violations]
    page.close()


def test_the_speed_table_has_the_receipts_rows_marks_the_loss_and_sorts(browser, fixture_site):
    site, workspace = fixture_site
    page, problems = _open(browser, (site / "speed.html").as_uri())
    table = page.locator("table").first
    assert table.locator("tbody tr").count() == peer_comparisons(workspace)
    loss = table.locator("tbody tr.loss")
    assert loss.count() == 1 and loss.locator("td.verdict-loss").inner_text() == "LOSS"
    assert page.evaluate("getComputedStyle(document.querySelector('tr.loss td')).backgroundColor") != "rgba(0, 0, 0, 0)"
    column = 6  # peer / engine (95%)

    def values():
        return [
            float(value)
            for value in table.locator(f"tbody tr td:nth-child({column + 1})").evaluate_all(
                "cells => cells.map(cell => cell.dataset.value)"
            )
        ]

    before = values()
    header = table.locator("thead th").nth(column)
    header.locator("button").click()
    ascending = values()
    assert ascending == sorted(before) and header.get_attribute("aria-sort") == "ascending"
    header.locator("button").click()
    assert values() == sorted(before, reverse=True) and header.get_attribute("aria-sort") == "descending"
    assert table.locator("tbody tr").first.locator("td.verdict-loss").count() == 0  # the loss went to the end
    assert not problems, problems
    page.close()


def test_the_committed_site_in_the_browser(browser):
    committed = ROOT / "docs" / "site"
    for name in [name for name in PAGES if (committed / name).is_file()]:
        page, problems = _open(browser, (committed / name).as_uri())
        assert not problems, (name, problems)
        assert not _links_resolve(page, committed), name
        shot = page.screenshot()
        assert _not_blank(shot), name
        if os.environ.get("BOOTMARK_WRITE_SCREENSHOTS") == "1" and name in ("index.html", "speed.html"):
            (ROOT / "docs" / "screenshots").mkdir(exist_ok=True)
            (ROOT / "docs" / "screenshots" / f"site-{name.removesuffix('.html')}.png").write_bytes(shot)
        page.close()


def test_negative_control_a_broken_link_and_a_blank_page_are_caught(browser, tmp_path):
    (tmp_path / "outside.json").write_text("{}")
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "other.html").write_text("<!DOCTYPE html><title>other</title><h1 id='here'>x</h1>")
    (tmp_path / "site" / "page.html").write_text(
        "<!DOCTYPE html><html lang='en'><title>t</title><body>"
        "<a href='missing.html'>a</a><a href='other.html#nowhere'>b</a><a href='other.html#here'>c</a>"
        "<a href='../outside.json'>d</a></body></html>"
    )
    page, _ = _open(browser, (tmp_path / "site" / "page.html").as_uri())
    broken = _links_resolve(page, tmp_path / "site")
    assert len(broken) == 3 and "no such file" in broken[0] and "no element with that id" in broken[1]
    assert "outside the site's folder" in broken[2]
    assert not _not_blank(page.screenshot(clip={"x": 0, "y": 200, "width": 300, "height": 200}))
    page.close()
