"""The extras table the command line names (bootmark.core.extras) agrees with the extras
pyproject.toml declares: the peers' exact pins, and each extra's packages."""

import pathlib
import re
import sys

from bootmark.core import extras

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent
DECLARED = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def _names(requirements):
    """{distribution name: the requirement's version text} of a list of requirements."""
    found = {}
    for requirement in requirements:
        name, rest = re.match(r"([A-Za-z0-9_.-]+)(?:\[[^\]]*\])?(.*)", requirement).groups()
        found[name.lower()] = rest.split(";")[0].strip()
    return found


def test_the_peer_pins_are_the_peers_extra():
    peers = _names(DECLARED["optional-dependencies"]["peers"])
    assert peers == {package: f"=={pin}" for package, pin in extras.PEER_PINS.items()}


def test_every_extra_named_to_users_is_declared_with_its_packages_and_all_holds_them():
    declared = DECLARED["optional-dependencies"]
    for extra, (_, packages) in extras.EXTRAS.items():
        names = set(_names(declared[extra]))
        distributions = {name: distribution for distribution, name in extras.IMPORT_NAMES.items()}
        distributions["distributed"] = "dask"  # dask[distributed]
        provided = {distributions.get(package, package) for package in packages}
        assert provided <= names, (extra, provided, names)
    assert set(extras.EXTRAS) == set(declared) - {"dev", "all"}
    assert declared["all"] == [f"bootmark[{','.join(sorted(extras.EXTRAS, key=list(declared).index))}]"]


def test_nothing_the_core_requires_is_pinned_exactly():
    assert not [requirement for requirement in DECLARED["dependencies"] if "==" in requirement]


def test_negative_control_a_changed_pin_is_seen():
    peers = _names(["arch==8.0.1", "tsbootstrap==0.7.3"])
    assert peers != {package: f"=={pin}" for package, pin in extras.PEER_PINS.items()}
