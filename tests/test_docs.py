"""The documentation site: it builds with warnings as errors, and every public name of
the twins has an entry in its API reference (scripts/check_api_pages.py, with a negative
control: an inventory missing one name is caught)."""

import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from check_api_pages import documented_names, missing_entries  # noqa: E402 - scripts/ on sys.path above

pytest.importorskip("sphinx", reason="the docs build needs bootmark[dev] (Sphinx, numpydoc, myst-parser)")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("docs") / "html"
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", str(ROOT / "docs"), str(out)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return out


def test_the_docs_build_with_warnings_as_errors_and_hold_the_guides_and_the_scoreboard(built):
    for page in ("index.html", "streams.html", "gate.html", "api/engine.html", "api/reference.html", "api/core.html"):
        assert (built / page).is_file(), page
    assert (built / "scoreboard" / "index.html").is_file()
    assert 'href="scoreboard/index.html"' in (built / "index.html").read_text(encoding="utf-8")


def test_every_public_name_of_the_twins_has_an_api_entry(built):
    documented = documented_names(built / "objects.inv")
    assert missing_entries(documented) == []
    from bootmark import engine, reference

    assert len(engine.__all__) > 20 and len(reference.__all__) > 20


def test_negative_control_a_name_without_an_entry_is_reported(built):
    documented = documented_names(built / "objects.inv")
    assert missing_entries(documented - {"bootmark.engine.conf_int", "bootmark.reference.MovingBlock"}) == [
        "bootmark.engine.conf_int",
        "bootmark.reference.MovingBlock",
    ]


def test_the_readme_fits_one_screen_and_its_local_links_resolve():
    import re

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    targets = [target.split("#")[0] for target in re.findall(r"\]\(([^)\s]+)\)", text) if "://" not in target]
    assert targets, "the README links nowhere"
    missing = [target for target in targets if target and not (ROOT / target).exists()]
    assert not missing, f"README links to missing files: {missing}"
