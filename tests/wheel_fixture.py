"""The wheel, built from this checkout's sources and installed into fresh virtual
environments, as a new user meets it. Shared by tests/test_wheel.py and the site tests
that run bootmark from the wheel (tests/test_site_records.py, tests/test_site_browser.py),
through the session fixtures of tests/conftest.py, so the wheel is built once per run.

A missing build tool or an unreachable registry fails these fixtures: they never skip.
"""

import os
import pathlib
import shutil
import subprocess
import sys

REPOSITORY = pathlib.Path(__file__).resolve().parent.parent
SOURCES = ("pyproject.toml", "README.md", "bootmark", "engine", "reference", "studies")
INSTALL_SECONDS = 1800
COMMAND_SECONDS = 900


def run(command, **keywords) -> subprocess.CompletedProcess:
    """``command``, which must exit 0 (its output's tails in the failure otherwise)."""
    completed = subprocess.run(command, capture_output=True, text=True, check=False, **keywords)
    assert completed.returncode == 0, (
        f"{command} exited {completed.returncode}:\n{completed.stdout[-3000:]}\n{completed.stderr[-3000:]}"
    )
    return completed


def build_wheel(root: pathlib.Path) -> pathlib.Path:
    """The wheel built from a copy of this checkout's sources below ``root`` (the build
    writes its scratch folders beside the sources, so it must not run in the checkout)."""
    source = root / "source"
    source.mkdir()
    for name in SOURCES:
        origin = REPOSITORY / name
        if origin.is_dir():
            shutil.copytree(origin, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy(origin, source / name)
    run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--disable-pip-version-check",
            "-w",
            str(root / "dist"),
            str(source),
        ],
        timeout=INSTALL_SECONDS,
    )
    wheels = list((root / "dist").glob("bootmark-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def install(
    wheel: pathlib.Path, root: pathlib.Path, extra: str = ""
) -> tuple[pathlib.Path, pathlib.Path, pathlib.Path]:
    """(bin folder, venv folder, home folder) of a fresh virtual environment below ``root``
    holding ``wheel`` with ``extra`` (e.g. ``[site]``), and an empty home beside it."""
    venv = root / "venv"
    run([sys.executable, "-m", "venv", str(venv)], timeout=INSTALL_SECONDS)
    run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "--disable-pip-version-check", "-q", f"{wheel}{extra}"],
        timeout=INSTALL_SECONDS,
    )
    home = root / "home"
    home.mkdir()
    return venv / "bin", venv, home


def user_environment(bin_folder: pathlib.Path, home: pathlib.Path) -> dict[str, str]:
    """This process's environment without bootmark's, Python's and the virtual
    environment's settings, with ``home`` as the home and the wheel's console script first
    on the path: what a new user's shell holds."""
    environment = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("BOOTMARK_", "PYTHON", "NUMBA_CACHE", "XDG_", "VIRTUAL_ENV"))
    }
    environment.update(HOME=str(home), PATH=f"{bin_folder}{os.pathsep}{environment.get('PATH', '')}")
    return environment


def git_repository(root, message=None) -> None:
    """Make ``root`` a git repository on branch ``main`` with a throwaway identity, and
    commit everything in it as ``message`` when one is given."""
    for arguments in (
        ("init", "-q", "-b", "main"),
        ("config", "user.email", "tests@example.invalid"),
        ("config", "user.name", "bootmark tests"),
        *((("add", "-A"), ("commit", "-q", "-m", message)) if message else ()),
    ):
        run(["git", *arguments], cwd=root)


def run_in(command, environment, folder) -> subprocess.CompletedProcess:
    """``command`` run in ``folder`` with ``environment``, its output captured (whatever
    its exit code; :func:`check` judges it)."""
    return subprocess.run(
        [str(part) for part in command],
        cwd=folder,
        env=environment,
        capture_output=True,
        text=True,
        timeout=COMMAND_SECONDS,
        check=False,
    )


def check(completed, expect=(0,), name=None) -> subprocess.CompletedProcess:
    """``completed`` (of :func:`run_in`), which must have exited with one of ``expect``
    and printed no traceback; the failure names it as ``name`` with its output's tails."""
    name = name or " ".join(completed.args)
    assert completed.returncode in expect, (
        f"{name} exited {completed.returncode}:\n{completed.stdout[-3000:]}\n{completed.stderr[-3000:]}"
    )
    assert "Traceback" not in completed.stderr, f"{name} printed a traceback:\n{completed.stderr[-3000:]}"
    return completed


def console(script, environment, folder, *arguments, expect=(0,)) -> subprocess.CompletedProcess:
    """The console script ``script`` run in ``folder`` with ``environment``: it must exit
    with one of ``expect`` and print no traceback."""
    completed = run_in([script, *arguments], environment, folder)
    return check(completed, expect, f"bootmark {' '.join(arguments)}")
