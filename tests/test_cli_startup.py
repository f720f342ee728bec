"""The command line starts light: ``--version``, ``--help``, ``init`` and ``study --help``
load neither numpy, numba nor the engine, and work when numba is broken.

Each verb's handler imports its modules when it runs (``bootmark.cli.main``); its errors are
sorted by (module, class name) tables that import nothing. Start-up time is measured by
hand, not here; what is checked is which modules load, in a fresh process.
"""

import argparse
import json
import os
import subprocess
import sys

import pytest

import bootmark
from bootmark.cli import main as cli
from bootmark.cli import start
from bootmark.cli import study as study_cli
from bootmark.reference.indices import STREAM_VERSION

BOOTMARK = os.path.join(os.path.dirname(sys.executable), "bootmark")
HEAVY = ("numba", "numpy", "bootmark.engine")
VERSION_LINE = f"bootmark {bootmark.__version__} (stream version {STREAM_VERSION})"


def heavy_modules_after(code):
    """The modules of HEAVY loaded in a fresh process once ``code`` has run."""
    script = f"import json, sys\n{code}\nprint(json.dumps(sorted(sys.modules)))\n"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout.strip().splitlines()[-1])
    return {name for name in HEAVY if name in loaded}


BUILD_PARSER = "from bootmark.cli import main as cli\ncli.build_parser()"


def _running(arguments):
    return (
        "from bootmark.cli import main as cli\n"
        f"try:\n    cli.main({arguments!r})\nexcept SystemExit as stop:\n    assert stop.code == 0, stop.code\n"
    )


@pytest.mark.parametrize(
    "code",
    [
        BUILD_PARSER,
        _running(["--version"]),
        _running(["--help"]),
        _running(["study", "--help"]),
        _running(["bench", "--help"]),
    ],
    ids=["build_parser", "--version", "--help", "study --help", "bench --help"],
)
def test_the_parser_and_its_help_load_no_numpy_numba_or_engine(code):
    assert heavy_modules_after(code) == set()


def test_init_loads_no_numpy_numba_or_engine(tmp_path):
    code = _running(["init", str(tmp_path / "ws")])
    assert heavy_modules_after(code) == set()
    assert (tmp_path / "ws" / "bootmark.toml").is_file()


def test_negative_control_the_check_sees_a_verb_module_load_the_engine():
    assert heavy_modules_after(BUILD_PARSER + "\nimport bootmark.bench.grid") == set(HEAVY)


def test_version_line_is_unchanged(tmp_path):
    done = subprocess.run([BOOTMARK, "--version"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout == VERSION_LINE + "\n" and done.stderr == ""


# ------------------------------------------------------------------ a broken numba


@pytest.fixture
def broken_numba(tmp_path):
    """An environment whose ``import numba`` raises ImportError (a stand-in package first on
    PYTHONPATH), and an empty folder to run in."""
    shim = tmp_path / "shim" / "numba"
    shim.mkdir(parents=True)
    (shim / "__init__.py").write_text('raise ImportError("numba is broken (test stand-in)")\n')
    env = {k: v for k, v in os.environ.items() if k != "BOOTMARK_WORKSPACE"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tmp_path / "shim"), env.get("PYTHONPATH")]))
    (tmp_path / "empty").mkdir()
    return env, tmp_path / "empty"


def _bootmark(arguments, environment, cwd):
    return subprocess.run(
        [BOOTMARK, *arguments], cwd=cwd, env=environment, capture_output=True, text=True, timeout=300, check=False
    )


def test_negative_control_the_stand_in_breaks_numba(broken_numba):
    env, cwd = broken_numba
    done = subprocess.run([sys.executable, "-c", "import numba"], cwd=cwd, env=env, capture_output=True, text=True)
    assert done.returncode != 0 and "numba is broken (test stand-in)" in done.stderr


def test_version_and_init_work_when_numba_is_broken(broken_numba):
    env, cwd = broken_numba
    version = _bootmark(["--version"], env, cwd)
    assert version.returncode == 0 and version.stdout == VERSION_LINE + "\n", version.stderr
    init = _bootmark(["init", "ws"], env, cwd)
    assert init.returncode == 0 and "Traceback" not in init.stderr, init.stderr
    assert (cwd / "ws" / "bootmark.toml").is_file()
    help_text = _bootmark(["study", "--help"], env, cwd)
    assert help_text.returncode == 0 and "Traceback" not in help_text.stderr, help_text.stderr


@pytest.mark.parametrize("arguments", [["bench", "--cells", "method=iid"], ["example"], ["study", "list"]])
def test_a_verb_that_needs_a_broken_numba_says_so_in_one_line_exit_2(broken_numba, arguments):
    env, cwd = broken_numba
    done = _bootmark(arguments, env, cwd)
    assert done.returncode == cli.USAGE and "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    verb = " ".join(arguments[:2] if arguments[0] == "study" else arguments[:1])
    assert lines[0].startswith(f"bootmark {verb}: cannot import numba, which this verb needs: "), lines[0]
    assert "numba is broken (test stand-in)" in lines[0] and "reinstall it" in lines[0]


# ------------------------------------------------------------- sorting the errors


def _raised(code, module, called_from=None):
    """The exception ``code`` raises when run as module ``module``'s code, called from a
    frame of module ``called_from`` (when given)."""
    inner = {"__name__": module}
    exec(compile("def run():\n" + "".join(f"    {line}\n" for line in code.splitlines()), module, "exec"), inner)
    run = inner["run"]
    if called_from:
        outer = {"__name__": called_from, "inner": run}
        exec(compile("def run():\n    inner()\n", called_from, "exec"), outer)
        run = outer["run"]
    with pytest.raises(BaseException) as caught:
        run()
    return caught.value


def test_an_import_error_is_a_broken_dependency_only_outside_bootmark():
    assert cli._broken_dependency(ModuleNotFoundError("No module named 'numba'", name="numba")) == "numba"
    assert cli._broken_dependency(ModuleNotFoundError("x", name="llvmlite.binding")) == "llvmlite"
    broken = _raised("raise ImportError('broken')", "somepackage.core", called_from="bootmark.fake")
    assert cli._broken_dependency(broken) == "somepackage"
    # negative controls: bootmark's own failed imports, and other errors, are not
    assert cli._broken_dependency(ModuleNotFoundError("x", name="bootmark.nope")) is None
    assert cli._broken_dependency(_raised("raise ImportError('cannot import name x')", "bootmark.fake")) is None
    assert cli._broken_dependency(_raised("raise KeyError('x')", "somepackage", called_from="bootmark.fake")) is None


def test_negative_control_a_failed_import_in_bootmark_is_still_a_bug(monkeypatch, capsys):
    def broken(args):
        raise ModuleNotFoundError("No module named 'bootmark.nope'", name="bootmark.nope")

    monkeypatch.setattr(start, "_example", broken)
    assert cli.main(["example"]) == cli.BUG
    error = capsys.readouterr().err
    assert "Traceback" in error and "this is a bug in bootmark" in error


@pytest.mark.parametrize("table", ["USER_ERRORS", "STOPPED_ERRORS"])
def test_every_error_table_entry_names_an_exception_class_of_its_module(table):
    import importlib

    for module, name in getattr(cli, table):
        found = getattr(importlib.import_module(module), name)
        assert isinstance(found, type) and issubclass(found, Exception), (module, name)
        assert found.__module__ == module, (module, name, found.__module__)


def test_an_error_is_sorted_by_its_loaded_class_and_an_unloaded_module_is_not_imported():
    from bootmark.core.errors import UsageError
    from bootmark.core.receipts import ReceiptError

    assert cli._is_one_of(UsageError("x"), cli.USER_ERRORS)
    assert cli._is_one_of(ReceiptError("x"), cli.USER_ERRORS)
    assert cli._is_one_of(FileNotFoundError("x"), cli.USER_ERRORS)  # an OSError
    assert not cli._is_one_of(KeyError("x"), cli.USER_ERRORS)
    assert not cli._is_one_of(UsageError("x"), cli.STOPPED_ERRORS)
    table = (("bootmark.no_such_module", "UsageError"), ("bootmark.core.errors", "NoSuchClass"))
    assert not cli._is_one_of(UsageError("x"), table)
    assert "bootmark.no_such_module" not in sys.modules


# ------------------------------------------------- what the light parser restates


def test_the_study_parser_default_profile_is_the_protocols():
    from bootmark.studies import protocol

    assert study_cli.REGISTERED_PROFILE == protocol.REGISTERED_PROFILE
    run = study_cli.add_parser(argparse.ArgumentParser().add_subparsers())
    actions = next(action for action in run._actions if action.dest == "study_command").choices
    assert actions["run"].get_default("profile") == protocol.REGISTERED_PROFILE


def test_help_descriptions_read_from_source_are_the_module_docstrings():
    script = (
        "import json\nfrom bootmark.cli import main as cli\nparser = cli.build_parser()\n"
        "verbs = next(a for a in parser._actions if a.dest == 'command').choices\n"
        "print(json.dumps({name: verbs[name].description for name in ('bench', 'versus', 'memory')}))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    described = json.loads(done.stdout)
    from bootmark.bench import grid as bench
    from bootmark.bench import memory
    from bootmark.bench import versus as head_to_head

    assert described == {"bench": bench.__doc__, "versus": head_to_head.__doc__, "memory": memory.__doc__}
    assert all(described.values())
