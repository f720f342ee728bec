"""Every verb of the command line, given a bad argument, answers in one line and exit 2.

Each command runs as a user would run it: a fresh ``bootmark`` process, from an empty
folder. A traceback is printed only for a bug, followed by a line saying so (exit 70);
the last test shows that this detector sees one when there is one (negative control).
"""

import os
import subprocess
import sys

import pytest

from bootmark.cli import main as cli
from bootmark.cli import start

BOOTMARK = os.path.join(os.path.dirname(sys.executable), "bootmark")


def run(arguments, cwd, environment=None):
    env = {k: v for k, v in os.environ.items() if k != "BOOTMARK_WORKSPACE"}
    env.update(environment or {})
    return subprocess.run(
        [BOOTMARK, *arguments], cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False
    )


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("cli")
    (root / "empty").mkdir()
    (root / "a-file").write_text("not a folder\n")
    bad = root / "bad-config"
    bad.mkdir()
    (bad / "bootmark.toml").write_text('receipts = "receipts"\nreciepts = "typo"\n')
    (root / "not-a-receipt.json").write_text("{}\n")
    return root


# verb -> (arguments, words the one-line message must contain). Together they cover
# every verb and every study action.
BAD_ARGUMENTS = {
    "init": (["init", "{root}/a-file"], "cannot write the workspace"),
    "doctor": (["--workspace", "{root}/missing", "doctor"], "is not a folder"),
    "example": (["example", "--n-bootstraps", "0"], "n_bootstraps"),
    "bench": (["bench", "--cells", "method=nope"], "no cell of the full grid"),
    "bench-samples": (["bench", "--samples", "1"], "--samples must be at least 3"),
    "bench-output": (
        ["bench", "--output-dir", "{root}/a-file/x", "--cells", "method=iid,n=200,B=999"],
        "cannot create the receipt folder",
    ),
    "compare": (["compare", "{root}/missing-old.json", "{root}/missing-new.json"], "no receipt file"),
    "versus": (["versus", "no-such-revision", "--cells", "method=iid,sentinel=false"], "no-such-revision"),
    "versus-rounds": (["versus", "HEAD", "--rounds", "1"], "rounds must be at least 3"),
    "gate": (["gate", "--tolerance", "0.5"], "--tolerance must be above 1"),
    "gate-project": (["gate"], "not inside a git checkout"),
    "gate-budget": (["gate", "--budget", "0"], "--budget must be a positive number"),
    "gate-bench": (["gate", "--bench", "("], "--bench '(' is not a regular expression"),
    "memory": (["memory", "--output-dir", "{root}/a-file/x"], "cannot create the receipt folder"),
    "scoreboard": (["scoreboard", "{root}/missing.json"], "no receipt file"),
    "scoreboard-empty": (["scoreboard"], "needs a full bench receipt"),
    "site": (["site", "--out", "{root}/a-file"], "is a file, not a folder"),
    "site-empty": (["site"], "no receipt to publish"),
    "record": (["record", "--min-rounds", "3"], "--min-rounds must be at least 5"),
    "record-project": (["record"], "not inside a git checkout; run bootmark record"),
    "record-bench": (["record", "--bench", "[a"], "--bench '[a' is not a regular expression"),
    "study list": (["--workspace", "{root}/bad-config", "study", "list"], "unknown key(s) reciepts"),
    "study run": (["study", "run", "S99"], "no registered study 'S99'"),
    "study run path": (["study", "run", "{root}/missing.toml"], "no protocol file"),
    "study run profile": (["study", "run", "S4", "--profile", "huge"], "huge"),
    "study run workers": (["study", "run", "S4", "--workers", "0"], "--workers must be at least 1"),
    "study verify": (["study", "verify", "{root}/missing.json"], "no receipt file"),
    "study verify sample": (
        ["study", "verify", "{root}/not-a-receipt.json", "--sample", "0"],
        "--sample must be at least 1",
    ),
    "study show": (["study", "show", "{root}/missing.json"], "no receipt file"),
    "study new": (["study", "new", "bad name!"], "study name 'bad name!'"),
    "study render": (["study", "render"], "no study receipt"),
    "study truth": (["study", "truth", "S3"], "has no truth to compute"),
}


@pytest.mark.parametrize("name", sorted(BAD_ARGUMENTS))
def test_a_bad_argument_is_one_line_and_exit_2(name, folders):
    arguments, words = BAD_ARGUMENTS[name]
    completed = run([a.format(root=folders) for a in arguments], cwd=folders / "empty")
    assert "Traceback" not in completed.stderr, completed.stderr
    assert completed.returncode == 2, (completed.returncode, completed.stderr)
    # One line of ours (a study command re-executed with the BLAS kernel pinned says so only with --verbose).
    ours = completed.stderr.strip().splitlines()
    assert len(ours) == 1 and ours[0].startswith("bootmark "), completed.stderr
    assert words in ours[0], ours[0]


def test_every_verb_and_study_action_is_covered():
    parser = cli.build_parser()
    verbs = next(action for action in parser._actions if action.dest == "command").choices
    covered = {name.split("-")[0].split(" ")[0] for name in BAD_ARGUMENTS}
    assert set(verbs) <= covered, set(verbs) - covered
    study = verbs["study"]
    actions = next(action for action in study._actions if action.dest == "study_command").choices
    assert {f"study {action}" for action in actions} <= set(BAD_ARGUMENTS), actions


def test_a_file_that_is_no_receipt_does_not_verify_exit_1(folders):
    completed = run(["study", "verify", str(folders / "not-a-receipt.json")], cwd=folders / "empty")
    assert completed.returncode == 1 and "Traceback" not in completed.stderr
    assert "field 'kind'" in completed.stderr


REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _committed(kind_folder):
    folder = os.path.join(REPOSITORY, "receipts", kind_folder)
    return os.path.join(folder, sorted(name for name in os.listdir(folder) if name.endswith(".json"))[0])


def test_a_receipt_of_another_kind_is_named_not_a_bug(folders):
    """The scoreboard of a truth receipt and the study verify of a bench receipt (both
    were a KeyError and exit 70)."""
    board = run(["scoreboard", _committed(os.path.join("studies", "truth"))], cwd=folders / "empty")
    assert board.returncode == 2 and "Traceback" not in board.stderr
    assert "is a truth receipt; the scoreboard renders a bench receipt" in board.stderr
    verified = run(["study", "verify", _committed("bench")], cwd=folders / "empty")
    assert verified.returncode == 1 and "Traceback" not in verified.stderr
    assert "is a bench receipt; study verify checks" in verified.stderr


def test_argparse_errors_are_one_usage_message_and_exit_2(folders):
    completed = run(["no-such-verb"], cwd=folders / "empty")
    assert completed.returncode == 2 and "Traceback" not in completed.stderr
    assert "invalid choice" in completed.stderr


def test_a_missing_peer_is_one_line_naming_the_extra(folders, tmp_path):
    # tsbootstrap hidden from a fresh process: a stand-in package that fails to import
    # would be a different error, so the distribution lookup is what says "missing".
    receipt = _committed_receipt("S1")
    code = (
        "import sys, importlib.metadata as m\n"
        "real = m.version\n"
        "def version(name):\n"
        "    if name == 'tsbootstrap': raise m.PackageNotFoundError(name)\n"
        "    return real(name)\n"
        "m.version = version\n"
        "from bootmark.cli.main import main\n"
        f"sys.exit(main(['study', 'verify', {receipt!r}]))\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False
    )
    assert completed.returncode == 2 and "Traceback" not in completed.stderr, completed.stderr
    assert "pip install 'bootmark[peers]'" in completed.stderr
    assert len(completed.stderr.strip().splitlines()) == 1


def _committed_receipt(study_id):
    from bootmark.core import workspace
    from bootmark.studies import report

    newest = report.newest_study_receipts(workspace.find().receipt_directory("study"))
    return next(path for (found, _), (path, _) in newest.items() if found == study_id)


def test_negative_control_a_bug_prints_its_traceback_and_says_so(monkeypatch, capsys):
    def broken(args):
        raise KeyError("a bug")

    monkeypatch.setattr(start, "_example", broken)
    assert cli.main(["example"]) == cli.BUG
    error = capsys.readouterr().err
    assert "Traceback" in error and "this is a bug in bootmark" in error


def test_version_names_the_stream(folders):
    completed = run(["--version"], cwd=folders / "empty")
    from bootmark.reference.indices import STREAM_VERSION

    assert completed.returncode == 0 and completed.stdout.strip().endswith(f"(stream version {STREAM_VERSION})")


def test_help_texts_cite_only_what_ships():
    import re

    repository = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = cli.build_parser()
    texts = [parser.format_help()]
    verbs = next(action for action in parser._actions if action.dest == "command").choices
    for name, sub in verbs.items():
        texts.append(sub.format_help())
        if name == "study":
            actions = next(action for action in sub._actions if action.dest == "study_command").choices
            texts += [action.format_help() for action in actions.values()]
    text = "\n".join(texts)
    assert "DESIGN.md" not in text
    cited = set(re.findall(r"docs/[\w-]+\.md", text))
    assert cited, "the help texts should point to the docs they rely on"
    for path in cited:
        assert os.path.isfile(os.path.join(repository, path)), path


def test_printed_published_figures_name_the_shipped_page():
    from bootmark.studies.summary import shipped_citation

    assert (
        shipped_citation("DESIGN.md section 6 (wild Rademacher)")
        == "DESIGN.md section 6 [docs/published-figures.md] (wild Rademacher)"
    )
    assert shipped_citation("Smith (2020)") == "Smith (2020)"
