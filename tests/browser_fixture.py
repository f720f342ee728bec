"""The ``browser`` fixture: Debian's Chromium, driven by Playwright through its executable
path (Playwright's own browser download is never used), once per test module. Loaded by
tests/conftest.py (``pytest_plugins``), for tests/test_site_browser.py and
tests/test_site_records.py.

Where no Chromium is found the tests that ask for it skip and say so; with
BOOTMARK_REQUIRE_BROWSER=1 (set by .ci/run, which installs Chromium) they fail instead.
"""

import os
import shutil

import pytest

REQUIRED = os.environ.get("BOOTMARK_REQUIRE_BROWSER") == "1"
CHROMIUM = os.environ.get("BOOTMARK_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
# Chromium as root in a container, on a machine with no network: no sandbox, no GPU, and
# none of the background connections a closed network refuses.
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _missing():
    if CHROMIUM is None:
        return "no Chromium found (install Debian's chromium, or set BOOTMARK_CHROMIUM to its path)"
    try:
        import axe_playwright_python  # noqa: F401
        import playwright.sync_api  # noqa: F401 - only whether it is installed
    except ImportError as error:
        return f"the browser test needs playwright and axe-playwright-python (bootmark[dev]): {error}"
    return None


@pytest.fixture(scope="module")
def browser():
    """A launched Chromium (a Playwright browser)."""
    missing = _missing()
    if missing:
        if REQUIRED:
            pytest.fail(f"BOOTMARK_REQUIRE_BROWSER=1 but {missing}")
        pytest.skip(missing)
    # late: only when a browser is there to drive
    from playwright.sync_api import sync_playwright

    with sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield launched
        launched.close()
