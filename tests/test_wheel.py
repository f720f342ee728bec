"""The wheel, as a new user meets it.

Built from this checkout's sources, installed into a fresh virtual environment in a
temporary folder (its dependencies come from the package registry, or pip's cache), then
run from an empty folder with a home of its own: ``--version``, ``init``, ``example``,
``doctor``, the smallest profile of S4 on one worker and ``study verify`` of its receipt,
``bench`` on one small cell and ``scoreboard`` on that receipt. Every file the commands
write must lie in the workspace or in the user's cache folders of that home, and none in
the virtual environment or in this checkout.

A second environment holds ``bootmark[site]``, as someone who publishes installs it
(tests/conftest.py, ``site_wheel``). Here it publishes an auditor's workspace: nothing to
publish at first (one line, exit 2), then a study receipt someone sent, the site built
elsewhere, moved, and linking nothing outside its folder. The same environment records a
throwaway project's history and head-to-head suite (tests/test_site_records.py) and builds
every site the browser checks (tests/test_site_browser.py).

It runs in ``.ci/run`` (through ``scripts/test``) and is never skipped there: a missing
build tool or an unreachable registry fails it.
"""

import os
import pathlib
import shutil
import zipfile

import pytest
from site_fixture import STUDIES, outside_links
from wheel_fixture import REPOSITORY, console, install, user_environment
from wheel_fixture import run as _run

pytestmark = pytest.mark.slow


def _snapshot(folder):
    """{path: (size, mtime_ns)} of every file below ``folder``."""
    found = {}
    for directory, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(directory, name)
            if not os.path.islink(path):
                status = os.stat(path)
                found[path] = (status.st_size, status.st_mtime_ns)
    return found


def test_the_wheel_holds_only_the_bootmark_package(wheel):
    with zipfile.ZipFile(wheel) as archive:
        top = {name.split("/")[0] for name in archive.namelist()}
        names = set(archive.namelist())
    assert top == {"bootmark", wheel.name.split("-py3")[0] + ".dist-info"}, top
    for expected in (
        "bootmark/engine/api.py",
        "bootmark/reference/specs.py",
        "bootmark/studies/runner.py",
        "bootmark/studies/protocols/S4-v1.toml",
        "bootmark/core/schemas/study.schema.json",
        "bootmark/core/schemas/gatecheck.schema.json",
        "bootmark/core/schemas/gatesuites.schema.json",
        "bootmark/site/assets/site.css",
        "bootmark/site/assets/sort.js",
        "bootmark/gate/worker.py",
    ):
        assert expected in names, expected


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory):
    """(bin folder, venv folder, home folder) of a fresh virtual environment holding the wheel."""
    return install(wheel, tmp_path_factory.mktemp("wheel-user"))


def test_a_new_user_runs_every_job_from_an_empty_folder(installed, tmp_path):
    bin_folder, venv, home = installed
    folder = tmp_path / "my-study"
    folder.mkdir()
    environment = user_environment(bin_folder, home)
    before = {"venv": _snapshot(venv), "checkout": _snapshot(REPOSITORY / "receipts")}
    checkout_status = _run(["git", "status", "--porcelain"], cwd=REPOSITORY).stdout

    def bootmark(*arguments, expect=(0,)):
        return console(bin_folder / "bootmark", environment, folder, *arguments, expect=expect).stdout

    assert bootmark("--version").startswith("bootmark ")
    assert "bootmark.toml" in bootmark("init")
    assert "i.i.d." in bootmark("example", "--n-bootstraps", "199").lower()
    doctor = bootmark("doctor")
    assert f"workspace: {folder.resolve()}" in doctor and "installed package at" in doctor
    assert str(venv) not in doctor.split("kernel cache ")[1].splitlines()[0]

    # S4's smallest profile: its registered criteria may fail at 100 series (exit 1), a
    # finding the receipt records; anything else is an error.
    study = bootmark("study", "run", "S4", "--profile", "reduced", "--workers", "1", "--no-progress", expect=(0, 1))
    receipt = study.split("receipt: ")[1].splitlines()[0]
    assert pathlib.Path(receipt).parent == folder.resolve() / "receipts" / "studies"
    verified = bootmark("study", "verify", receipt, "--sample", "5", "--sample-seed", "1")
    assert "series replayed bit for bit" in verified

    # The peers are an extra this user did not install (pip install bootmark pins no arch):
    # the bench says which extra in one line, exit 2, before any work.
    completed = console(
        bin_folder / "bootmark",
        environment,
        folder,
        "bench",
        "--cells",
        "method=iid,n=200,B=999,sentinel=false",
        expect=(2,),
    )
    assert completed.stdout == "", completed.stdout + completed.stderr
    assert len(completed.stderr.strip().splitlines()) == 1 and "'bootmark[peers]'" in completed.stderr
    freeze = _run([str(bin_folder / "python"), "-m", "pip", "list", "--format=freeze"]).stdout.lower()
    assert not {"arch", "tsbootstrap", "statsmodels", "matplotlib"} & {line.split("==")[0] for line in freeze.split()}

    # Likewise the verify of a receipt whose resamplers need a peer.
    from bootmark.core import workspace
    from bootmark.studies import report

    s1 = next(
        path
        for (study_id, _), (path, _) in report.newest_study_receipts(
            workspace.find(str(REPOSITORY)).receipt_directory("study")
        ).items()
        if study_id == "S1"
    )
    completed = console(bin_folder / "bootmark", environment, folder, "study", "verify", s1, expect=(2,))
    assert "pip install 'bootmark[peers]'" in completed.stderr

    # Where the files went.
    after = _snapshot(venv)
    changed = sorted(path for path, stamp in after.items() if before["venv"].get(path) != stamp)
    assert not changed, f"files written into the virtual environment: {changed[:10]}"
    assert _snapshot(REPOSITORY / "receipts") == before["checkout"], "files written into the checkout's receipts"
    assert _run(["git", "status", "--porcelain"], cwd=REPOSITORY).stdout == checkout_status
    written_at_home = [
        path
        for path in _snapshot(home)
        if not path.startswith((str(home / ".cache") + os.sep, str(home / ".config") + os.sep))
    ]
    assert not written_at_home, f"files written outside the user's cache and config folders: {written_at_home[:10]}"
    assert list((home / ".cache" / "bootmark").glob("numba-*")), "the engine's kernels were not cached"
    for expected in ("bootmark.toml", "protocols", "receipts/studies", "receipts/bench", "runs"):
        assert (folder / expected).exists(), expected


def test_a_new_user_publishes_an_auditors_workspace(site_wheel, tmp_path):
    bootmark_script, environment = site_wheel

    def bootmark(folder, *arguments, expect=0):
        return console(bootmark_script, environment, folder, *arguments, expect=(expect,))

    # Nothing to publish yet: one line, exit 2, no folder.
    folder = tmp_path / "audit"
    folder.mkdir()
    bootmark(folder, "init")
    completed = bootmark(folder, "site", "--out", str(tmp_path / "nothing"), expect=2)
    assert completed.stdout == "" and len(completed.stderr.strip().splitlines()) == 1, completed.stderr
    assert "no receipt to publish" in completed.stderr and not (tmp_path / "nothing").exists()

    # A study receipt someone sent: no bench, no git, and the site built somewhere else.
    shutil.copy(REPOSITORY / "receipts" / "studies" / STUDIES[0], folder / "receipts" / "studies" / STUDIES[0])
    bootmark(folder, "site", "--out", str(tmp_path / "built"))
    site = tmp_path / "uploaded"
    shutil.move(tmp_path / "built", site)
    assert {page.name for page in site.glob("*.html")} == {"index.html", "audits.html", "history.html", "hosts.html"}
    assert not outside_links(site), outside_links(site)[:5]
    copy = site / "receipts" / "studies" / STUDIES[0]
    assert copy.read_bytes() == (REPOSITORY / "receipts" / "studies" / STUDIES[0]).read_bytes()
