"""Every command README.md shows runs, from the wheel, as a reader pastes it.

The README's shell blocks (```bash) are read from the file, never copied here. Each block
runs as a fresh terminal would: in the reader's home folder, its commands one after another,
a ``cd`` carrying over to the next command of the same block. Everything runs from this
checkout's wheel in a fresh virtual environment (tests/wheel_fixture.py): the README's own
``pip install bootmark`` lines install it, the wheel's folder standing in for the package
index's bootmark page (``PIP_FIND_LINKS``; dependencies come from the index, through pip's
cache). Before the blocks run, the reader has a project of their own (``your-project``: a
git checkout with an asv suite in ``benchmarks/``, a pytest-benchmark suite in
``tests/benchmarks/``, its ``.venv`` and an ``origin`` whose ``main`` is one README-only
commit behind), as the gate and site sections assume. The README's Python blocks run too,
as one script in document order, beside a ``sales.csv`` of the shape its panel example
reads.

How each command runs is the table ``PLANS`` below, keyed by the command exactly as the
README prints it (its ``# comment`` dropped): as written, or with arguments appended where
it would take minutes (a smaller profile), and the exit codes it may end with. A command
the README shows that has no plan fails the test, and so does a plan for a command the
README no longer shows. ``scripts/run`` and ``scripts/test`` are run by ``.ci/run`` itself
(this test runs inside ``scripts/test``): the test checks that ``.ci/run`` runs them. A
command whose README comment begins with ``illustrative`` is skipped by name and listed.

The commands run are printed at the end, each with its exit code and seconds. A negative
control renames one option of one README command and must see the runner fail.
"""

import dataclasses
import os
import pathlib
import re
import shlex
import sys
import time
import zipfile

import pytest
from wheel_fixture import REPOSITORY, check, git_repository, run, run_in, user_environment

pytestmark = pytest.mark.slow

README = REPOSITORY / "README.md"
SHELL_FENCES = ("bash", "sh", "shell", "console")
ILLUSTRATIVE = "illustrative"


@dataclasses.dataclass(frozen=True)
class Plan:
    """How this test runs one README command.

    Attributes
    ----------
    append : tuple of str
        Arguments added after the README's, where the command as written takes minutes.
    expect : tuple of int
        The exit codes it may end with (a study's 1 is a registered criterion that failed:
        a finding its table shows, not a crash).
    creates : str, optional
        A glob, relative to the folder the command ran in, that must match afterwards.
    by_ci : bool
        Run by ``.ci/run`` itself, not by this test.
    """

    append: tuple[str, ...] = ()
    expect: tuple[int, ...] = (0,)
    creates: str | None = None
    by_ci: bool = False


# Studies may end with 1 (a registered criterion failed, printed in their table).
STUDY = (0, 1)
PLANS = {
    "scripts/run": Plan(by_ci=True),
    "scripts/test": Plan(by_ci=True),
    "pip install bootmark": Plan(),
    "pip install 'bootmark[peers]'": Plan(),
    "pip install 'bootmark[site]'": Plan(),
    "pip install 'bootmark[cluster]'": Plan(),
    "pip install 'bootmark[all]'": Plan(),
    "mkdir my-audit": Plan(creates="my-audit"),
    "bootmark init": Plan(creates="bootmark.toml"),
    "bootmark doctor": Plan(),
    "bootmark gate --baseline origin/main": Plan(creates="receipts/gate/*.json"),
    "bootmark gate --benchmarks tests/benchmarks --python .venv/bin/python": Plan(),
    "bootmark record": Plan(creates="receipts/records/*.json"),
    "bootmark site": Plan(creates="docs/site/index.html"),
    "bootmark site --out public/": Plan(creates="public/index.html"),
    "bootmark study new my_audit": Plan(creates="protocols/my_audit*.toml"),
    "bootmark study run my_audit --profile tiny --no-write": Plan(expect=STUDY),
    # 2,000 series take minutes: the protocol's reduced profile (200) writes the same kind of receipt.
    "bootmark study run S1 --workers 2": Plan(
        append=("--profile", "reduced"), expect=STUDY, creates="receipts/studies/study-S1-v*.json"
    ),
    "bootmark study verify receipts/studies/study-S1-v*.json": Plan(),
    "bootmark study show receipts/studies/study-S1-v*.json --format markdown": Plan(),
    "bootmark study new my_forecast --forecast": Plan(creates="protocols/my_forecast*.toml"),
    "bootmark study run my_forecast --profile tiny --no-write": Plan(expect=STUDY),
    "bootmark study run my_forecast": Plan(
        append=("--profile", "tiny"), expect=STUDY, creates="receipts/studies/study-my-forecast-v*.json"
    ),
    "bootmark study show receipts/studies/study-my-forecast-v*.json --format markdown": Plan(),
}


@dataclasses.dataclass(frozen=True)
class Command:
    """One command of a README shell block: its text (comment dropped), its comment, and
    the number of its block (0 for the first shell block)."""

    text: str
    comment: str
    block: int


def _without_comment(line: str) -> tuple[str, str]:
    """(command, comment) of one shell line: the comment starts at a ``#`` outside quotes
    that follows a blank or starts the line."""
    quote = None
    for position, character in enumerate(line):
        if quote:
            quote = None if character == quote else quote
        elif character in "'\"":
            quote = character
        elif character == "#" and (position == 0 or line[position - 1].isspace()):
            return line[:position].rstrip(), line[position + 1 :].strip()
    return line.rstrip(), ""


def shell_commands(text: str) -> list[Command]:
    """Every command of the shell blocks of a Markdown ``text``, in order: a line ending
    in a backslash continues on the next; ``a && b`` is two commands."""
    commands, block, fence, pending = [], -1, None, ""
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("```"):
            fence = None if fence is not None else stripped[3:].strip().lower()
            block += fence in SHELL_FENCES
            continue
        if fence not in SHELL_FENCES:
            continue
        if stripped.endswith("\\"):
            pending += stripped[:-1].rstrip() + " "
            continue
        command, comment = _without_comment(pending + stripped)
        pending = ""
        for part in filter(None, (piece.strip() for piece in command.split(" && "))):
            commands.append(Command(part, comment, block))
    return commands


def python_blocks(text: str) -> tuple[str, int]:
    """The README's Python blocks joined in document order into one script, and the number
    of shell blocks that come before the first of them."""
    script = "\n".join(re.findall(r"^```python\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL))
    before = text.split("```python\n", 1)[0]
    return script, len({command.block for command in shell_commands(before)})


def check_plans(commands: list[Command], plans: dict[str, Plan]) -> None:
    """Every README command has a plan (or is marked illustrative) and every plan a command."""
    shown = {command.text for command in commands if not command.comment.startswith(ILLUSTRATIVE)}
    without = sorted(shown - set(plans) - {text for text in shown if text.split()[0] == "cd"})
    assert not without, (
        f"README.md shows commands this test cannot run: {without}; add each to PLANS in "
        f"{pathlib.Path(__file__).name}, or mark it `# {ILLUSTRATIVE}: why` in the README"
    )
    stale = sorted(set(plans) - shown)
    assert not stale, f"PLANS holds commands README.md no longer shows: {stale}"


@dataclasses.dataclass(frozen=True)
class Ran:
    """One command as it ran: the block, the folder (relative to home), the command line
    with what was appended, its exit code and seconds."""

    block: int
    folder: str
    line: str
    returncode: int | None
    seconds: float


def run_blocks(commands, plans, home: pathlib.Path, environment, ran: list[Ran]) -> None:
    """Run ``commands`` block by block, each block from ``home``, appending to ``ran``
    what ran.

    Raises AssertionError at the first command that ends with an exit code its plan does
    not expect, prints a traceback, or does not create what its plan says."""
    folder, block = home, None
    ci_script = (REPOSITORY / ".ci" / "run").read_text(encoding="utf-8")
    for command in commands:
        if command.block != block:
            folder, block = home, command.block
        relative = os.path.relpath(folder, home)
        if command.comment.startswith(ILLUSTRATIVE):
            ran.append(Ran(command.block, relative, f"{command.text}  (skipped: {command.comment})", None, 0.0))
            continue
        words = shlex.split(command.text)
        if words[0] == "cd":
            folder = (folder / words[1]).resolve()
            assert folder.is_dir(), f"`{command.text}`: no folder {folder}"
            continue
        plan = plans[command.text]
        if plan.by_ci:
            assert re.search(rf"^\s*{re.escape(command.text)}\b", ci_script, flags=re.MULTILINE), (
                f"`{command.text}` is left to .ci/run, which does not run it"
            )
            ran.append(Ran(command.block, relative, f"{command.text}  (run by .ci/run)", None, 0.0))
            continue
        line = " ".join([command.text, *map(shlex.quote, plan.append)])
        started = time.perf_counter()
        completed = run_in(["bash", "-c", line], environment, folder)
        ran.append(Ran(command.block, relative, line, completed.returncode, time.perf_counter() - started))
        check(completed, plan.expect, f"`{line}` in {folder} (expected exit {plan.expect})")
        if plan.creates:
            assert list(folder.glob(plan.creates)), f"`{line}` in {folder} made nothing matching {plan.creates}"


def _git(root, *arguments):
    return run(["git", *arguments], cwd=root).stdout.strip()


def make_your_project(home: pathlib.Path, pip_environment) -> pathlib.Path:
    """The reader's own project, as the gate and site sections assume it: a git checkout
    with an asv suite and a pytest-benchmark suite, its own ``.venv`` holding pytest, and
    an ``origin`` whose ``main`` lies one README-only commit behind."""
    root = home / "your-project"
    (root / "yourpkg").mkdir(parents=True)
    (root / "benchmarks").mkdir()
    (root / "tests" / "benchmarks").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "yourpkg"\nversion = "0.1"\n')
    (root / ".gitignore").write_text(".venv/\n")
    (root / "yourpkg" / "__init__.py").write_text("def work():\n    return sum(i * i for i in range(20_000))\n")
    (root / "benchmarks" / "bench_work.py").write_text("import yourpkg\n\n\ndef time_work():\n    yourpkg.work()\n")
    (root / "tests" / "benchmarks" / "test_work.py").write_text(
        "import yourpkg\n\n\ndef test_work(benchmark):\n    benchmark(yourpkg.work)\n"
    )
    (root / "README.md").write_text("# yourpkg\n")
    git_repository(root, "yourpkg")
    origin = home / "origin.git"
    _git(home, "init", "-q", "--bare", str(origin))
    _git(root, "remote", "add", "origin", str(origin))
    _git(root, "push", "-q", "origin", "main")
    (root / "README.md").write_text("# yourpkg\n\nNo code changed.\n")
    _git(root, "commit", "-q", "-am", "README only")
    run([sys.executable, "-m", "venv", str(root / ".venv")])
    run([str(root / ".venv" / "bin" / "python"), "-m", "pip", "install", "-q", "pytest"], env=pip_environment)
    return root


def write_sales(folder: pathlib.Path) -> None:
    """A long ``sales.csv`` (store, day, units) of the shape the README's panel example
    reads: eight stores of 60 to 130 days."""
    rows = ["store,day,units"]
    for store in range(1, 9):
        level = 100 + 10 * store
        for day in range(50 + 10 * store):
            rows.append(f"store {store},{day},{level + (7 * day * store) % 23}")
    (folder / "sales.csv").write_text("\n".join(rows) + "\n")


@pytest.fixture(scope="module")
def reader(wheel, tmp_path_factory):
    """(home, environment): an empty home holding the reader's project, and a shell
    environment whose first ``bin`` is a fresh virtual environment with nothing
    installed, whose ``pip install bootmark`` finds this checkout's wheel."""
    root = tmp_path_factory.mktemp("readme")
    home = root / "home"
    home.mkdir()
    venv = root / "venv"
    run([sys.executable, "-m", "venv", str(venv)])
    environment = user_environment(venv / "bin", home)
    environment["VIRTUAL_ENV"] = str(venv)
    # The wheel's folder beside any the machine's pip already looks in; pip's own cache
    # (not the empty home's) so the dependencies are not downloaded again.
    environment["PIP_FIND_LINKS"] = " ".join(filter(None, (os.environ.get("PIP_FIND_LINKS"), str(wheel.parent))))
    environment["PIP_CACHE_DIR"] = run([sys.executable, "-m", "pip", "cache", "dir"]).stdout.strip()
    make_your_project(home, environment)
    return home, environment


def _report(ran: list[Ran]) -> str:
    lines = ["README.md's commands, as this test ran them (block, folder, exit code, seconds):"]
    for item in ran:
        code = "-" if item.returncode is None else str(item.returncode)
        lines.append(f"  [{item.block}] {item.folder:<14} exit {code:>2} {item.seconds:7.1f} s  {item.line}")
    return "\n".join(lines)


def test_every_command_the_readme_shows_runs_from_the_wheel(reader, wheel, capsys):
    home, environment = reader
    text = README.read_text(encoding="utf-8")
    commands = shell_commands(text)
    check_plans(commands, PLANS)
    blocks = sorted({command.block for command in commands})
    script, shell_blocks_first = python_blocks(text)
    assert script and any(command.text.startswith("pip install") for command in commands)
    ran = []
    try:
        # In document order: the shell blocks before the Python ones (the install among
        # them), the Python blocks as one script, then the other shell blocks.
        run_blocks([c for c in commands if c.block < shell_blocks_first], PLANS, home, environment, ran)
        python = pathlib.Path(environment["VIRTUAL_ENV"]) / "bin" / "python"
        where = "import bootmark, os; print(os.path.dirname(os.path.dirname(bootmark.__file__)))"
        site_packages = pathlib.Path(run([str(python), "-c", where], cwd=home, env=environment).stdout.strip())
        (record,) = site_packages.glob("bootmark-*.dist-info/RECORD")
        # Every file of the wheel, with its hash, is what pip installed.
        with zipfile.ZipFile(wheel) as archive:
            shipped = set(archive.read(f"{record.parent.name}/RECORD").decode().splitlines())
        missing = shipped - set(record.read_text().splitlines()) - {f"{record.parent.name}/RECORD,,"}
        assert not missing, f"pip install bootmark did not install this checkout's wheel: {sorted(missing)[:5]}"
        snippets = home / "snippets"
        snippets.mkdir()
        write_sales(snippets)
        (snippets / "readme.py").write_text(script)
        started = time.perf_counter()
        done = run_in([python, "readme.py"], environment, snippets)
        ran.append(
            Ran(
                -1,
                "snippets",
                "python readme.py  (README.md's Python blocks)",
                done.returncode,
                time.perf_counter() - started,
            )
        )
        check(done, name="README.md's Python blocks")
        run_blocks([c for c in commands if c.block >= shell_blocks_first], PLANS, home, environment, ran)
        assert {item.block for item in ran if item.block >= 0} == set(blocks)
    finally:
        with capsys.disabled():
            print("\n" + _report(ran))


def test_negative_control_a_renamed_option_fails_the_run(reader):
    """The README and the CLI disagreeing about one option's name must fail the runner
    (``pip install bootmark`` first, a no-op once the test above has run)."""
    home, environment = reader
    broken = "bootmark study run S1 --profile reduced --no-writes"
    commands = shell_commands(f"```bash\npip install bootmark\n{broken}\n```\n")
    with pytest.raises(AssertionError, match="exited 2"):
        run_blocks(commands, {"pip install bootmark": Plan(), broken: Plan(expect=STUDY)}, home, environment, [])


def test_the_reader_parses_blocks_comments_continuations_and_chains():
    text = (
        "intro\n```bash\nmkdir a && cd a   # make it\nbootmark x --y '#1' \\\n  --z  # illustrative: no\n```\n"
        "```python\nprint('#')\n```\n```console\necho hi\n```\n"
    )
    commands = shell_commands(text)
    assert [(c.text, c.comment, c.block) for c in commands] == [
        ("mkdir a", "make it", 0),
        ("cd a", "make it", 0),
        ("bootmark x --y '#1' --z", "illustrative: no", 0),
        ("echo hi", "", 1),
    ]
    with pytest.raises(AssertionError, match="cannot run"):
        check_plans(commands, {"mkdir a": Plan()})
    with pytest.raises(AssertionError, match="no longer shows"):
        check_plans(commands, {"mkdir a": Plan(), "echo hi": Plan(), "gone": Plan()})
    check_plans(commands, {"mkdir a": Plan(), "echo hi": Plan()})
    assert python_blocks(text) == ("print('#')\n", 1)
