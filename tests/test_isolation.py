"""The import namespace: ``import bootmark`` and ``import bootmark.reference`` load the
standard library and nothing else (the reference twin runs without numpy), and the old
top-level names ``engine``, ``reference`` and ``studies`` are gone."""

import subprocess
import sys

# Imported through the installed namespace, from a folder that holds no bootmark source.
PROGRAM = """
import sys
before = set(sys.modules)
{preamble}
import bootmark
import bootmark.reference
from bootmark import reference
x = [0.5, -1.0, 2.0, 0.25, 1.5, -0.75, 0.0, 1.0]
reference.conf_int(x, "mean", reference.StationaryBlock("auto"), n_bootstraps=50, seed=1)
reference.bootstrap(x, reference.TaperedBlock(3), n_bootstraps=5, seed=1).values()
loaded = set(sys.modules) - before
foreign = sorted(m for m in loaded if m.split(".")[0] not in sys.stdlib_module_names and m.split(".")[0] != "bootmark")
print(",".join(foreign))
"""


def probe(tmp_path, preamble=""):
    completed = subprocess.run(
        [sys.executable, "-I", "-c", PROGRAM.format(preamble=preamble)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    return completed.stdout.strip()


def test_bootmark_and_its_reference_twin_load_only_the_standard_library(tmp_path):
    assert probe(tmp_path) == ""


def test_negative_control_the_probe_sees_numpy_when_it_is_loaded(tmp_path):
    assert "numpy" in probe(tmp_path, "import bootmark.engine").split(",")


def test_the_old_top_level_names_are_not_importable(tmp_path):
    code = (
        "import importlib.util, sys\n"
        "print([name for name in ('engine', 'reference', 'studies') if importlib.util.find_spec(name)])"
    )
    completed = subprocess.run(
        [sys.executable, "-I", "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert completed.stdout.strip() == "[]"


def test_the_namespace_maps_the_repository_folders():
    import bootmark.engine
    import bootmark.reference
    import bootmark.studies

    for module, folder in (
        (bootmark.engine, "engine"),
        (bootmark.reference, "reference"),
        (bootmark.studies, "studies"),
    ):
        assert module.__name__ == f"bootmark.{folder}"
        assert module.__file__.endswith(f"{folder}/__init__.py")
