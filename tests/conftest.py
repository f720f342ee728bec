import os

from bootmark.core import blas

# The browser fixture of the site tests (tests/browser_fixture.py).
pytest_plugins = ["browser_fixture"]

# Study outcomes are defined on OpenBLAS's pinned kernel (bootmark/core/blas.py). OpenBLAS
# reads the variable once, when numpy first loads it, so it is set before any test
# module imports numpy; pytest_configure checks that it took.
os.environ[blas.CORETYPE_VARIABLE] = blas.PINNED_CORETYPE

from hypothesis import settings  # noqa: E402 - after the BLAS variable is set, above

# The reference twin is pure Python and slow: no per-example deadline. In CI the
# examples are derandomized so a run is reproducible; locally they explore.
settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True)
settings.register_profile("dev", deadline=None, print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


def pytest_configure(config):
    import numpy  # noqa: F401  (loads OpenBLAS, if nothing has yet)

    problem = blas.kernel_problem()
    if problem:
        import pytest

        pytest.exit(f"the test process cannot compute study outcomes: {problem}", returncode=3)


# This checkout is the tests' workspace (its pyproject.toml has [tool.bootmark]), whatever
# the current directory. Pinned per test, so a test that runs the CLI in-process with
# --workspace (which exports the variable) cannot leak its folder into the next test.
REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _pin_workspace():
    import pytest

    @pytest.fixture(autouse=True)
    def repository_workspace(monkeypatch):
        monkeypatch.setenv("BOOTMARK_WORKSPACE", REPOSITORY)

    return repository_workspace


repository_workspace = _pin_workspace()


# The wheel (tests/wheel_fixture.py), built once per run and only when a test asks for it.
def _wheel_fixtures():
    import pytest
    from wheel_fixture import build_wheel, install, user_environment

    @pytest.fixture(scope="session")
    def wheel(tmp_path_factory):
        """This checkout's wheel."""
        return build_wheel(tmp_path_factory.mktemp("wheel-build"))

    @pytest.fixture(scope="session")
    def site_wheel(wheel, tmp_path_factory):
        """(the ``bootmark`` console script, its user environment) of a fresh virtual
        environment holding ``bootmark[site]`` from the wheel, as someone who publishes
        installs it."""
        bin_folder, _, home = install(wheel, tmp_path_factory.mktemp("wheel-site"), "[site]")
        return bin_folder / "bootmark", user_environment(bin_folder, home)

    return wheel, site_wheel


wheel, site_wheel = _wheel_fixtures()
