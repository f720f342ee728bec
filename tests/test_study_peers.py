"""The peer adapters of studies/peers.py: each answer is checked against the peer's own
replicates computed outside the adapter, and a deliberately mis-wired variant is shown to
fail the same check.

The arch tests take a few seconds. The tsbootstrap tests are marked slow: on a cold numba
cache the compiled backend's first call compiles for 50 to 110 s on this machine.
"""

import json
import math
import subprocess
import sys
from dataclasses import FrozenInstanceError
from statistics import NormalDist
from types import MappingProxyType

import numpy as np
import pytest

import bootmark.studies.peers as peers
from bootmark.reference.errors import (
    DataTypeError,
    ErrorCode,
    InvalidDataError,
    InvalidParameterError,
    ParameterTypeError,
)
from bootmark.studies.peers import PEER_RESAMPLERS, STUDENTIZE_REPS, PeerFailure, PeerNotInstalledError, peer_versions

arch_bootstrap = pytest.importorskip("arch.bootstrap")


def ar1(n, phi, seed, burn_in=500):
    """x_t = phi x_{t-1} + e_t, e ~ N(0, 1), x_0 = 0, first burn_in dropped (docs/published-figures.md, S1).
    Drawn here rather than by studies.dgp so these checks do not move when the DGPs do."""
    shocks = np.random.default_rng(seed).standard_normal(n + burn_in)
    path = np.empty(n + burn_in)
    previous = 0.0
    for t, shock in enumerate(shocks):
        previous = phi * previous + shock
        path[t] = previous
    return path[burn_in:]


X = ar1(200, 0.7, seed=42)
ALPHA = 0.10
B = 199  # small: these check wiring, not Monte Carlo accuracy
SEED = 7
ARCH_NAMES = ["arch.IIDBootstrap", "arch.MovingBlockBootstrap", "arch.StationaryBootstrap"]
ARCH_CLASSES = {
    "arch.IIDBootstrap": "IIDBootstrap",
    "arch.MovingBlockBootstrap": "MovingBlockBootstrap",
    "arch.StationaryBootstrap": "StationaryBootstrap",
}
FAST_KINDS = ["percentile", "basic", "normal", "bc", "bca"]
# np.quantile at alpha/2 against arch's np.percentile at 100 * (1 - size) / 2: the levels can
# differ in the last bit, which moves an interpolated quantile by far less than 1e-12 relative.
QUANTILE_RTOL = 1e-12


def call(name, kind="percentile", x=X, **overrides):
    arguments = dict(alpha=ALPHA, kind=kind, n_bootstraps=B, seed=SEED) | overrides
    return PEER_RESAMPLERS[name].interval(x, **arguments)


def bits(interval):
    return [
        float(v).hex() if v is not None else None
        for v in (interval.lower, interval.upper, interval.point, interval.standard_error, interval.block_length)
    ]


def arch_block_length(name, x=X):
    """The documented rule, computed here from arch's table, not through the adapter."""
    table = arch_bootstrap.optimal_block_length(x)
    if name == "arch.MovingBlockBootstrap":
        return min(max(math.ceil(table["circular"].iloc[0]), 1), len(x))
    if name == "arch.StationaryBootstrap":
        return max(float(table["stationary"].iloc[0]), 1.0)
    return None


def arch_resampler(name, x=X, seed=SEED):
    cls = getattr(arch_bootstrap, ARCH_CLASSES[name])
    length = arch_block_length(name, x)
    arguments = (x,) if length is None else (length, x)
    return cls(*arguments, seed=np.random.default_rng(seed))


def arch_replicates(name, x=X, seed=SEED):
    """B replicate means from arch's own apply() on a fresh generator from the seed."""
    return arch_resampler(name, x, seed).apply(lambda y: y.mean(), B)[:, 0]


def matches_percentile(lower, upper, replicates, alpha=ALPHA):
    expected = np.quantile(replicates, [alpha / 2, 1 - alpha / 2])
    return bool(np.allclose([lower, upper], expected, rtol=QUANTILE_RTOL, atol=0.0))


# ------------------------------------------------------------------------- registry


def test_registry_is_read_only_and_lists_every_peer():
    assert isinstance(PEER_RESAMPLERS, MappingProxyType)
    assert set(PEER_RESAMPLERS) == set(ARCH_NAMES) | {"tsbootstrap.MovingBlock"}
    with pytest.raises(TypeError):
        PEER_RESAMPLERS["x"] = None
    resampler = PEER_RESAMPLERS["arch.MovingBlockBootstrap"]
    with pytest.raises(FrozenInstanceError):
        resampler.kinds = ("percentile",)
    assert resampler.package == "arch" and resampler.name == "arch.MovingBlockBootstrap"
    assert set(resampler.kinds) == {"basic", "percentile", "normal", "bc", "bca", "studentized"}
    assert resampler.settings["studentize_reps"] == STUDENTIZE_REPS
    assert PEER_RESAMPLERS["tsbootstrap.MovingBlock"].kinds == ("percentile", "basic")
    with pytest.raises(FrozenInstanceError):
        call("arch.IIDBootstrap").lower = 0.0


def test_peer_versions_reports_installed_versions(monkeypatch):
    versions = peer_versions()
    assert versions["arch"] == "8.0.0"
    assert set(versions) == {"arch", "tsbootstrap", "statsmodels", "scikit-learn"}
    assert versions["scikit-learn"] == "1.9.1" and versions["statsmodels"] == "0.15.0"
    monkeypatch.setattr(peers, "package_version", lambda name: None if name == "tsbootstrap" else "8.0.0")
    assert peer_versions() == {"arch": "8.0.0", "tsbootstrap": None, "statsmodels": "8.0.0", "scikit-learn": "8.0.0"}


# ---------------------------------------------------------------------- determinism

SUBPROCESS_CASES = [(name, kind) for name in ARCH_NAMES for kind in FAST_KINDS] + [
    ("arch.MovingBlockBootstrap", "studentized")
]

PROGRAM = """
import json, sys
import numpy as np
from bootmark.studies.peers import PEER_RESAMPLERS
request = json.load(sys.stdin)
x = np.array([float.fromhex(v) for v in request["series"]])
out = []
for name, kind in request["cases"]:
    r = PEER_RESAMPLERS[name].interval(x, alpha={alpha}, kind=kind, n_bootstraps={b}, seed={seed})
    out.append([float(v).hex() if v is not None else None
                for v in (r.lower, r.upper, r.point, r.standard_error, r.block_length)])
print(json.dumps(out))
"""


def run_in_fresh_process(cases, tmp_path):
    request = json.dumps({"series": [float(v).hex() for v in X], "cases": cases})
    completed = subprocess.run(
        [sys.executable, "-c", PROGRAM.format(alpha=ALPHA, b=B, seed=SEED)],
        input=request,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=600,
    )
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout.strip().splitlines()[-1])


def test_arch_answers_are_the_same_bits_twice_and_in_a_fresh_process(tmp_path):
    here = [bits(call(name, kind)) for name, kind in SUBPROCESS_CASES]
    again = [bits(call(name, kind)) for name, kind in SUBPROCESS_CASES]
    assert here == again
    assert run_in_fresh_process(SUBPROCESS_CASES, tmp_path) == here


def test_the_seed_matters():
    assert call("arch.MovingBlockBootstrap").lower != call("arch.MovingBlockBootstrap", seed=SEED + 1).lower


# ------------------------------------------------------------- known answers (arch)


@pytest.mark.parametrize("name", ARCH_NAMES)
def test_arch_percentile_is_the_numpy_quantile_of_archs_own_replicates(name):
    replicates = arch_replicates(name)
    result = call(name, "percentile")
    assert matches_percentile(result.lower, result.upper, replicates)
    # SE: the replicates' standard deviation, divisor B, the same for every kind.
    assert result.standard_error == pytest.approx(np.std(replicates), rel=1e-12)
    assert result.point == np.mean(X)
    for kind in ("basic", "normal", "bc"):
        assert call(name, kind).standard_error == result.standard_error


@pytest.mark.parametrize("name", ARCH_NAMES)
def test_arch_block_length_follows_the_documented_rule(name):
    expected = arch_block_length(name)
    assert call(name).block_length == (None if expected is None else float(expected))


def test_block_length_rule_values_on_known_series():
    table = arch_bootstrap.optimal_block_length(X)
    assert call("arch.MovingBlockBootstrap").block_length == math.ceil(table["circular"].iloc[0]) == 10
    assert call("arch.StationaryBootstrap").block_length == table["stationary"].iloc[0]  # unrounded
    # White noise: arch's estimates fall below 1, so both floor at 1.
    noise = np.random.default_rng(5).standard_normal(200)
    assert arch_bootstrap.optimal_block_length(noise)["stationary"].iloc[0] < 1
    assert call("arch.StationaryBootstrap", x=noise).block_length == 1.0
    assert call("arch.MovingBlockBootstrap", x=noise).block_length == 1.0


@pytest.mark.parametrize("name", ARCH_NAMES)
def test_kind_mapping_normal_and_basic(name):
    percentile = call(name, "percentile")
    normal = call(name, "normal")
    z = NormalDist().inv_cdf(1 - ALPHA / 2)
    assert normal.lower == pytest.approx(normal.point - z * normal.standard_error, rel=1e-12)
    assert normal.upper == pytest.approx(normal.point + z * normal.standard_error, rel=1e-12)
    basic = call(name, "basic")
    assert basic.lower == pytest.approx(2 * basic.point - percentile.upper, rel=1e-12)
    assert basic.upper == pytest.approx(2 * basic.point - percentile.lower, rel=1e-12)


@pytest.mark.parametrize("kind, method", [("bc", "bc"), ("bca", "bca"), ("studentized", "studentized")])
def test_kind_mapping_matches_archs_own_conf_int(kind, method):
    name = "arch.MovingBlockBootstrap"
    extra = {"studentize_reps": STUDENTIZE_REPS} if method == "studentized" else {}
    expected = arch_resampler(name).conf_int(lambda y: y.mean(), B, method=method, size=1 - ALPHA, **extra)
    result = call(name, kind)
    assert [result.lower, result.upper] == list(np.asarray(expected).ravel())


# ------------------------------------------------------------------ negative controls


def test_negative_control_alpha_passed_as_size_fails_the_check():
    """A mistake easy to make with arch: conf_int's size is the coverage, not alpha."""
    name = "arch.MovingBlockBootstrap"
    replicates = arch_replicates(name)
    broken = arch_resampler(name).conf_int(lambda y: y.mean(), B, method="percentile", size=ALPHA)
    assert not matches_percentile(*np.asarray(broken).ravel(), replicates)
    right = call(name, "percentile")
    assert matches_percentile(right.lower, right.upper, replicates)


def test_negative_control_archs_default_method_is_not_percentile():
    name = "arch.MovingBlockBootstrap"
    replicates = arch_replicates(name)
    broken = arch_resampler(name).conf_int(lambda y: y.mean(), B, size=1 - ALPHA)  # method defaults to "basic"
    assert not matches_percentile(*np.asarray(broken).ravel(), replicates)


def test_negative_control_rounding_the_block_length_differently_changes_the_answer():
    name = "arch.MovingBlockBootstrap"
    floor_length = math.floor(arch_bootstrap.optimal_block_length(X)["circular"].iloc[0])
    assert floor_length != call(name).block_length
    other = arch_bootstrap.MovingBlockBootstrap(floor_length, X, seed=np.random.default_rng(SEED))
    result = call(name)
    assert not matches_percentile(result.lower, result.upper, other.apply(lambda y: y.mean(), B)[:, 0])


# ------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("name", list(PEER_RESAMPLERS))
def test_unknown_kind_names_kind_and_lists_the_supported_ones(name):
    with pytest.raises(InvalidParameterError) as caught:
        call(name, "hdi")
    assert caught.value.code is ErrorCode.INTERVAL_KIND and caught.value.argument == "kind"
    for kind in PEER_RESAMPLERS[name].kinds:
        assert repr(kind) in str(caught.value)
    with pytest.raises(ParameterTypeError):
        call(name, None)


def test_tsbootstrap_refuses_kinds_it_does_not_serve():
    with pytest.raises(InvalidParameterError, match="'percentile', 'basic'"):
        call("tsbootstrap.MovingBlock", "normal")


@pytest.mark.parametrize("name", list(PEER_RESAMPLERS))
@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_series_is_refused_before_any_peer_runs(name, bad):
    x = X.copy()
    x[17] = bad
    with pytest.raises(InvalidDataError) as caught:
        call(name, x=x)
    assert caught.value.code is ErrorCode.DATA_NOT_FINITE and "position 17" in str(caught.value)


@pytest.mark.parametrize(
    "overrides, error, code",
    [
        (dict(x=X.reshape(20, 10)), InvalidDataError, ErrorCode.DATA_SHAPE),
        (dict(x=np.array(["a", "b", "c"])), DataTypeError, ErrorCode.DATA_TYPE),
        (dict(x=np.array([1.0])), InvalidDataError, ErrorCode.DATA_TOO_SHORT),
        (dict(alpha=0.0), InvalidParameterError, ErrorCode.ALPHA),
        (dict(alpha=1.5), InvalidParameterError, ErrorCode.ALPHA),
        (dict(n_bootstraps=0), InvalidParameterError, ErrorCode.N_BOOTSTRAPS),
        (dict(n_bootstraps=99.0), ParameterTypeError, ErrorCode.N_BOOTSTRAPS),
        (dict(seed=-1), InvalidParameterError, ErrorCode.SEED),
        (dict(seed=None), ParameterTypeError, ErrorCode.SEED),
    ],
)
def test_bad_arguments_get_typed_errors(overrides, error, code):
    with pytest.raises(error) as caught:
        call("arch.MovingBlockBootstrap", **overrides)
    assert caught.value.code is code


@pytest.mark.parametrize("x", [np.ones(200), X[:6]], ids=["constant", "too-short-for-the-estimate"])
def test_undefined_block_length_is_a_typed_error(x):
    with pytest.raises(InvalidDataError) as caught:
        call("arch.MovingBlockBootstrap", x=x)
    assert caught.value.code is ErrorCode.BLOCK_LENGTH_ESTIMATE


def test_undefined_bias_correction_is_a_peer_failure_not_a_nan():
    # A constant series: no replicate falls below the estimate, so arch's bias correction is undefined.
    with pytest.raises(PeerFailure):
        call("arch.IIDBootstrap", "bc", x=np.ones(50))
    flat = call("arch.IIDBootstrap", "percentile", x=np.ones(50))
    assert (flat.lower, flat.upper, flat.standard_error) == (1.0, 1.0, 0.0)


def test_missing_tsbootstrap_is_listed_but_raises_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "tsbootstrap", None)  # what an absent package looks like to import
    monkeypatch.setattr(peers, "package_version", lambda name: None if name == "tsbootstrap" else "8.0.0")
    assert "tsbootstrap.MovingBlock" in PEER_RESAMPLERS
    with pytest.raises(PeerNotInstalledError, match=r"pip install 'bootmark\[peers\]'") as caught:
        call("tsbootstrap.MovingBlock")
    assert isinstance(caught.value, ModuleNotFoundError) and caught.value.name == "tsbootstrap"
    assert peer_versions()["tsbootstrap"] is None


# ---------------------------------------------------------------------- tsbootstrap


@pytest.fixture(scope="module")
def tsbootstrap():
    if peer_versions()["tsbootstrap"] is None:
        pytest.skip("tsbootstrap is not installed (pip install 'bootmark[peers]')")
    import tsbootstrap

    return tsbootstrap


def tsbootstrap_replicates(tsbootstrap, block_length="auto"):
    return tsbootstrap.bootstrap_reduce(
        X,
        method=tsbootstrap.MovingBlock(block_length=block_length),
        statistic="mean",
        n_bootstraps=B,
        random_state=SEED,
        backend="compiled",
    ).statistics


@pytest.mark.slow
def test_tsbootstrap_percentile_and_block_length_are_its_own(tsbootstrap):
    result = call("tsbootstrap.MovingBlock", "percentile")
    replicates = tsbootstrap_replicates(tsbootstrap)
    # The block length recorded is the one "auto" uses: same replicates, bit for bit.
    assert np.array_equal(replicates, tsbootstrap_replicates(tsbootstrap, int(result.block_length)))
    assert result.block_length == 10.0
    assert matches_percentile(result.lower, result.upper, replicates)
    assert result.standard_error == pytest.approx(np.std(replicates), rel=1e-12)
    lower, upper, point = tsbootstrap.conf_int(
        X,
        "mean",
        method=tsbootstrap.MovingBlock(),
        kind="percentile",
        alpha=ALPHA,
        n_bootstraps=B,
        random_state=SEED,
        backend="compiled",
    )
    assert (result.lower, result.upper, result.point) == (float(lower), float(upper), float(point))
    basic = call("tsbootstrap.MovingBlock", "basic")
    lower, upper, _ = tsbootstrap.conf_int(
        X,
        "mean",
        method=tsbootstrap.MovingBlock(),
        kind="basic",
        alpha=ALPHA,
        n_bootstraps=B,
        random_state=SEED,
        backend="compiled",
    )
    assert (basic.lower, basic.upper) == (float(lower), float(upper))


@pytest.mark.slow
def test_tsbootstrap_negative_control_default_alpha_fails_the_check(tsbootstrap):
    lower, upper, _ = tsbootstrap.conf_int(
        X, "mean", method=tsbootstrap.MovingBlock(), n_bootstraps=B, random_state=SEED, backend="compiled"
    )  # alpha defaults to 0.05
    assert not matches_percentile(float(lower), float(upper), tsbootstrap_replicates(tsbootstrap))


@pytest.mark.slow
def test_tsbootstrap_is_the_same_bits_twice_and_in_a_fresh_process(tsbootstrap, tmp_path):
    cases = [("tsbootstrap.MovingBlock", "percentile"), ("tsbootstrap.MovingBlock", "basic")]
    here = [bits(call(name, kind)) for name, kind in cases]
    assert here == [bits(call(name, kind)) for name, kind in cases]
    assert run_in_fresh_process(cases, tmp_path) == here
