"""The workspace: how it is found, what its config may say, what ``init`` writes, and how
its protocols join the shipped ones."""

import os
import pathlib
import shutil

import pytest

from bootmark.core import workspace
from bootmark.studies import protocol

TEST_PROTOCOL = pathlib.Path(__file__).parent / "protocols" / "CI-v1.toml"


@pytest.fixture
def unpinned(monkeypatch):
    """No BOOTMARK_WORKSPACE (conftest pins it to the repository for the other tests)."""
    monkeypatch.delenv(workspace.ENVIRONMENT_VARIABLE, raising=False)


def test_nearest_config_upward_wins_over_the_current_directory(tmp_path, unpinned):
    (tmp_path / "bootmark.toml").write_text("")
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    found = workspace.find(start=str(deep))
    assert found.root == str(tmp_path.resolve()) and found.config_file.endswith("bootmark.toml")
    assert found.receipt_directory("bench") == str(tmp_path.resolve() / "receipts" / "bench")


def test_a_pyproject_counts_only_with_a_tool_bootmark_table(tmp_path, unpinned):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "theirs"\n')
    inner = tmp_path / "inner"
    inner.mkdir()
    assert workspace.find(start=str(inner)).found_by == "current directory"
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "theirs"\n\n[tool.bootmark]\nruns = "scratch"\n')
    found = workspace.find(start=str(inner))
    assert found.root == str(tmp_path.resolve()) and found.runs == str(tmp_path.resolve() / "scratch")


def test_flag_beats_environment_beats_search(tmp_path, monkeypatch):
    for name in ("flag", "environment", "searched"):
        (tmp_path / name).mkdir()
    (tmp_path / "searched" / "bootmark.toml").write_text("")
    monkeypatch.setenv(workspace.ENVIRONMENT_VARIABLE, str(tmp_path / "environment"))
    assert workspace.find(str(tmp_path / "flag"), start=str(tmp_path / "searched")).found_by == "--workspace"
    found = workspace.find(start=str(tmp_path / "searched"))
    assert found.found_by == workspace.ENVIRONMENT_VARIABLE and found.root.endswith("environment")


def test_the_repository_is_its_own_workspace(unpinned):
    repository = pathlib.Path(__file__).resolve().parent.parent
    found = workspace.find(start=str(repository / "tests"))
    assert found.root == str(repository) and found.config_file == str(repository / "pyproject.toml")


@pytest.mark.parametrize(
    "text, words",
    [
        ('reciepts = "r"\n', "unknown key(s) reciepts"),
        ("receipts = 3\n", "receipts must be a folder path"),
        ("receipts = [\n", "is not valid TOML"),
    ],
)
def test_a_bad_config_is_refused_by_name(tmp_path, unpinned, text, words):
    (tmp_path / "bootmark.toml").write_text(text)
    with pytest.raises(workspace.WorkspaceError, match=words.replace("(", r"\(").replace(")", r"\)")):
        workspace.find(start=str(tmp_path))


def test_a_named_workspace_must_exist(tmp_path):
    with pytest.raises(workspace.WorkspaceError, match="is not a folder.*bootmark init"):
        workspace.find(str(tmp_path / "missing"))


def test_init_writes_a_skeleton_once(tmp_path, unpinned):
    target = tmp_path / "new"
    written = workspace.init(str(target))
    for path in ("bootmark.toml", "README.md", ".gitignore", "protocols", "receipts/bench", "receipts/studies"):
        assert (target / path).exists(), path
    assert any(p.endswith("bootmark.toml") for p in written)
    assert workspace.find(start=str(target)).config_file == str(target / "bootmark.toml")
    with pytest.raises(workspace.WorkspaceError, match="already a workspace"):
        workspace.init(str(target))


def test_workspace_protocols_join_the_shipped_ones(tmp_path, monkeypatch):
    workspace.init(str(tmp_path))
    monkeypatch.setenv(workspace.ENVIRONMENT_VARIABLE, str(tmp_path))
    shutil.copy(TEST_PROTOCOL, tmp_path / "protocols")
    ids = {found.id for found in protocol.registered()}
    assert {"CI", "S1", "S2", "S3", "S4"} <= ids
    assert protocol.find("CI").source_path == str(tmp_path / "protocols" / "CI-v1.toml")


def test_a_study_defined_twice_names_both_files(tmp_path, monkeypatch):
    workspace.init(str(tmp_path))
    monkeypatch.setenv(workspace.ENVIRONMENT_VARIABLE, str(tmp_path))
    shutil.copy(os.path.join(protocol.PROTOCOL_DIRECTORY, "S4-v1.toml"), tmp_path / "protocols")
    with pytest.raises(
        protocol.ProtocolError,
        match=r"S4-v1 is defined twice, in .*studies/protocols/S4-v1.toml "
        r"and in .*/protocols/S4-v1.toml",
    ):
        protocol.registered()


def test_a_protocol_file_runs_from_any_path(tmp_path):
    copied = tmp_path / "elsewhere" / "CI-v1.toml"
    copied.parent.mkdir()
    shutil.copy(TEST_PROTOCOL, copied)
    assert protocol.find(str(copied)).id == "CI"
