"""Panels: series s of a panel is, bit for bit, the single-series call with its seed
(and, for a panel seed, series_id = s), in both twins, fused or not, on 1 or 2 threads,
locally or split over a dask cluster; the two twins agree on a ragged panel.

Known answers come from outside the panel code: the single-series entry points (which
predate panels and are pinned by the stream goldens) and the reference twin.
"""

import numba
import numpy as np
import pandas as pd
import pytest

from bootmark import engine, reference

LENGTHS = (50, 203, 37, 8, 120, 64)  # ragged, one shorter than most block lengths' auto choice
B = 61
SEED = 2026


def _ragged(lengths=LENGTHS, seed=3):
    rng = np.random.default_rng(seed)
    # AR(1)-like series so block lengths chosen by "auto" differ between series
    out = []
    for n in lengths:
        shocks = rng.normal(size=n)
        x = np.empty(n)
        x[0] = shocks[0]
        for t in range(1, n):
            x[t] = 0.6 * x[t - 1] + shocks[t]
        out.append(x)
    return out


SERIES = _ragged()
RESAMPLING = [
    pytest.param(lambda t: t.IID(), id="iid"),
    pytest.param(lambda t: t.MovingBlock(5), id="moving"),
    pytest.param(lambda t: t.CircularBlock(4), id="circular"),
    pytest.param(lambda t: t.NonOverlappingBlock(3), id="nonoverlapping"),
    pytest.param(lambda t: t.StationaryBlock(6), id="stationary"),
    pytest.param(lambda t: t.StationaryBlock("auto"), id="stationary-auto"),
    pytest.param(lambda t: t.MovingBlock("auto"), id="moving-auto"),
    pytest.param(lambda t: t.TaperedBlock(4), id="tapered"),
]
STATISTICS = ["mean", "var", "std", "median", ("quantile", (0.1, 0.9)), ("quantile", 0.3)]


def _single(x, method, statistic, seed, series_id):
    return engine.bootstrap_reduce(x, method, statistic, B, seed=seed, series_id=series_id)


def _assert_series_equal_single_calls(result, method, statistic, seeds, series_ids):
    for s, x in enumerate(SERIES):
        one = _single(x, method, statistic, seeds[s], series_ids[s])
        assert np.array_equal(result.statistics[s], one.statistics), s
        assert np.array_equal(result[s].statistics, one.statistics), s
        assert np.array_equal(np.asarray(result.point[s]), np.asarray(one.point)), s
        assert result[s].method == one.method and result[s].series_id == one.series_id


@pytest.mark.parametrize("statistic", STATISTICS, ids=str)
@pytest.mark.parametrize("make_method", RESAMPLING)
def test_panel_seed_gives_each_series_its_single_call_with_series_id(make_method, statistic):
    method = make_method(engine)
    result = engine.bootstrap_reduce(engine.Panel.from_series(SERIES), method, statistic, B, seed=SEED)
    assert result.fused == (not isinstance(method, engine.TaperedBlock))
    count = len(SERIES)
    _assert_series_equal_single_calls(result, method, statistic, [SEED] * count, range(count))


@pytest.mark.parametrize("make_method", RESAMPLING)
def test_per_series_seeds_give_each_series_its_single_call(make_method):
    method = make_method(engine)
    seeds = [11 * s + 1 for s in range(len(SERIES))]
    result = engine.bootstrap_reduce(engine.Panel.from_series(SERIES), method, "mean", B, seed=seeds)
    _assert_series_equal_single_calls(result, method, "mean", seeds, [0] * len(SERIES))
    assert result.seed == tuple(seeds)


@pytest.mark.parametrize(
    "method",
    [
        engine.SieveAR(max_order=2),
        engine.ResidualBootstrap(engine.AR(1), engine.Wild()),
        engine.ResidualBootstrap(engine.AR(1), engine.IID(), design="fixed"),
    ],
    ids=["sieve", "residual-wild", "residual-fixed"],
)
def test_model_based_methods_run_series_by_series_with_the_same_bits(method):
    panel = engine.Panel.from_series(SERIES[:3] + SERIES[4:5])
    result = engine.bootstrap_reduce(panel, method, "mean", B, seed=SEED)
    assert not result.fused
    for s in range(len(panel)):
        one = engine.bootstrap_reduce(
            panel.values[panel.offsets[s] : panel.offsets[s + 1]], method, "mean", B, SEED, series_id=s
        )
        assert np.array_equal(result.statistics[s], one.statistics)


def test_the_fused_pass_does_not_depend_on_threads_or_cutting():
    panel = engine.Panel.from_series(SERIES)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = engine.bootstrap_reduce(panel, engine.StationaryBlock(4), ("quantile", (0.25, 0.5)), 400, seed=SEED)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = engine.bootstrap_reduce(panel, engine.StationaryBlock(4), ("quantile", (0.25, 0.5)), 400, seed=SEED)
    finally:
        numba.set_num_threads(before)
    assert np.array_equal(one.statistics, two.statistics)
    # one series alone (a panel of one is cut into PANEL_ITEMS replicate ranges)
    alone = engine.bootstrap_reduce(engine.Panel.from_series([SERIES[1]]), engine.StationaryBlock(4), "mean", 400, SEED)
    assert np.array_equal(
        alone.statistics[0], engine.bootstrap_reduce(SERIES[1], engine.StationaryBlock(4), "mean", 400, SEED).statistics
    )


def test_per_series_methods_and_auto_resolve_series_by_series():
    methods = [engine.MovingBlock("auto"), engine.IID(), engine.StationaryBlock(3)] * 2
    result = engine.bootstrap_reduce(engine.Panel.from_series(SERIES), methods, "mean", B, seed=SEED)
    for s, x in enumerate(SERIES):
        one = _single(x, methods[s], "mean", SEED, s)
        assert result.methods[s] == one.method
        assert np.array_equal(result.statistics[s], one.statistics)


@pytest.mark.parametrize("kind", ["percentile", "basic", "normal", "studentized"])
def test_panel_intervals_are_the_single_calls(kind):
    panel = engine.Panel.from_series({f"s{k}": x for k, x in enumerate(SERIES)})
    ci = engine.conf_int(panel, "mean", engine.MovingBlock(3), alpha=0.1, kind=kind, n_bootstraps=B, seed=SEED)
    lower, upper, point = ci
    for s, x in enumerate(SERIES):
        one = engine.conf_int(
            x, "mean", engine.MovingBlock(3), alpha=0.1, kind=kind, n_bootstraps=B, seed=SEED, series_id=s
        )
        assert (lower[s], upper[s], point[s]) == (one.lower, one.upper, one.point)
        assert ci[f"s{s}"] == one


def test_calibrated_panel_interval_is_the_single_calls():
    panel = engine.Panel.from_series(SERIES[:3])
    ci = engine.conf_int(
        panel, "median", engine.StationaryBlock(3), kind="calibrated", n_bootstraps=40, seed=SEED, inner_bootstraps=20
    )
    for s, x in enumerate(SERIES[:3]):
        one = engine.conf_int(
            x,
            "median",
            engine.StationaryBlock(3),
            kind="calibrated",
            n_bootstraps=40,
            seed=SEED,
            inner_bootstraps=20,
            series_id=s,
        )
        assert (ci.lower[s], ci.upper[s]) == (one.lower, one.upper)


def test_bootstrap_of_a_panel_gives_each_series_its_rows():
    panel = engine.Panel.from_series(SERIES)
    result = engine.bootstrap(panel, engine.CircularBlock(4), 7, seed=SEED)
    for s, x in enumerate(SERIES):
        assert np.array_equal(
            result[s].indices(), engine.bootstrap(x, engine.CircularBlock(4), 7, SEED, series_id=s).indices()
        )


@pytest.mark.parametrize(
    "make_method",
    [
        pytest.param(lambda t: t.IID(), id="iid"),
        pytest.param(lambda t: t.MovingBlock(4), id="moving"),
        pytest.param(lambda t: t.StationaryBlock("auto"), id="stationary-auto"),
        pytest.param(lambda t: t.SieveAR(max_order=2), id="sieve"),
    ],
)
def test_the_twins_agree_on_a_ragged_panel(make_method):
    series = {f"id{k}": x for k, x in enumerate(SERIES)}
    panel = engine.Panel.from_series(series)
    twin_panel = reference.Panel.from_series({k: x.tolist() for k, x in series.items()})
    rows = engine.bootstrap(panel, make_method(engine), 5, seed=SEED)
    twin_rows = reference.bootstrap(twin_panel, make_method(reference), 5, seed=SEED)
    reduced = engine.bootstrap_reduce(panel, make_method(engine), "mean", B, seed=SEED)
    twin = reference.bootstrap_reduce(twin_panel, make_method(reference), "mean", B, seed=SEED)
    ci = engine.conf_int(panel, "median", make_method(engine), n_bootstraps=B, seed=SEED)
    twin_ci = reference.conf_int(twin_panel, "median", make_method(reference), n_bootstraps=B, seed=SEED)
    assert list(twin) == list(series)
    for s, name in enumerate(series):
        if not isinstance(make_method(engine), engine.SieveAR):
            assert rows[name].indices().tolist() == twin_rows[name].indices()
        assert reduced[name].method == twin[name].method
        np.testing.assert_allclose(reduced.statistics[s], twin[name].statistics, rtol=0, atol=1e-12)
        assert (ci.lower[s], ci.upper[s]) == pytest.approx((twin_ci[name].lower, twin_ci[name].upper), abs=1e-12)


def test_panel_split_over_a_local_dask_cluster_gives_the_same_bits():
    distributed = pytest.importorskip("distributed", reason="the cluster extra: pip install 'bootmark[cluster]'")
    panel = engine.Panel.from_series(SERIES)
    seeds = [7 * s + 3 for s in range(len(SERIES))]
    local = engine.bootstrap_reduce(panel, engine.StationaryBlock(5), "std", B, seed=SEED)
    local_ci = engine.conf_int(panel, "mean", engine.MovingBlock(3), n_bootstraps=B, seed=seeds)
    with (
        distributed.LocalCluster(n_workers=1, processes=False, dashboard_address=None) as cluster,
        distributed.Client(cluster) as client,
    ):
        remote = engine.bootstrap_reduce(panel, engine.StationaryBlock(5), "std", B, seed=SEED, scheduler=client)
        remote_ci = engine.conf_int(panel, "mean", engine.MovingBlock(3), n_bootstraps=B, seed=seeds, scheduler=client)
    assert np.array_equal(local.statistics, remote.statistics)
    assert np.array_equal(local.point, remote.point)
    assert np.array_equal(local[4].statistics, remote[4].statistics)
    assert np.array_equal(local_ci.lower, remote_ci.lower) and np.array_equal(local_ci.upper, remote_ci.upper)


def test_a_long_frame_makes_a_panel_and_pandas_comes_back():
    ids = ["north", "south", "east"]
    frame = pd.DataFrame(
        {
            "store": np.repeat(ids, [len(x) for x in SERIES[:3]]),
            "day": np.concatenate([np.arange(len(x))[::-1] for x in SERIES[:3]]),
            "units": np.concatenate([x[::-1] for x in SERIES[:3]]),
        }
    ).sample(frac=1.0, random_state=0)  # rows in any order: time sorts each series
    panel = engine.Panel.from_frame(frame, id="store", value="units", time="day")
    assert set(panel.ids) == set(ids)
    for name in ids:
        assert np.array_equal(panel.series(name), SERIES[ids.index(name)])
    result = engine.bootstrap_reduce(panel, engine.MovingBlock(4), "mean", B, seed=SEED)
    assert isinstance(result.point, pd.Series) and list(result.point.index) == list(panel.ids)
    table = result.to_frame()
    assert list(table.columns) == ["point", "standard_error"] and list(table.index) == list(panel.ids)
    ci = engine.conf_int(panel, ("quantile", (0.25, 0.75)), engine.IID(), n_bootstraps=B, seed=SEED)
    assert isinstance(ci.lower, pd.DataFrame) and list(ci.lower.columns) == [0.25, 0.75]
    assert ci.to_frame().shape == (3, 6)


def test_a_repeated_time_in_a_frame_is_refused_naming_the_series():
    frame = pd.DataFrame({"id": ["a", "a", "b", "b"], "t": [1, 1, 1, 2], "y": [1.0, 2.0, 3.0, 4.0]})
    with pytest.raises(engine.InvalidParameterError, match="repeats in series 'a'") as caught:
        engine.Panel.from_frame(frame, id="id", value="y", time="t")
    assert caught.value.code is engine.ErrorCode.PANEL


def test_a_2d_array_stays_one_multivariate_series():
    rows = np.column_stack([SERIES[0], SERIES[0] * 2])
    result = engine.bootstrap_reduce(rows, engine.IID(), "mean", B, seed=SEED)
    assert result.statistics.shape == (B, 2)
    assert not isinstance(result, engine.PanelReduceResult)


def test_scheduler_is_refused_for_one_series():
    with pytest.raises(engine.InvalidParameterError, match="scheduler") as caught:
        engine.bootstrap_reduce(SERIES[0], engine.IID(), "mean", B, seed=1, scheduler="tcp://nowhere:8786")
    assert caught.value.code is engine.ErrorCode.PANEL


def test_a_long_series_among_short_ones_takes_the_long_paths_from_shared_scratch():
    # n >= 8,192 streams the i.i.d. mean and chunks block algebra: run from the scratch a
    # thread allocated for the longest series and cut for each
    rng = np.random.default_rng(11)
    series = [rng.normal(size=n) for n in (30, 9000, 17, 12_500, 64)]
    panel = engine.Panel.from_series(series)
    for method in (engine.IID(), engine.MovingBlock(2), engine.StationaryBlock(3)):
        result = engine.bootstrap_reduce(panel, method, "mean", 40, seed=SEED)
        for s, x in enumerate(series):
            one = engine.bootstrap_reduce(x, method, "mean", 40, seed=SEED, series_id=s)
            assert np.array_equal(result.statistics[s], one.statistics), (method, s)


def test_typed_errors_survive_pickling_as_a_dask_worker_sends_them():
    import pickle

    with pytest.raises(engine.BootmarkError) as caught:
        engine.Panel.from_series({"a": [1.0, 2.0], "b": [1.0, float("nan")]})
    again = pickle.loads(pickle.dumps(caught.value))
    assert type(again) is type(caught.value) and str(again) == str(caught.value)
    assert (again.code, again.argument, again.problem, again.fix) == (
        caught.value.code,
        caught.value.argument,
        caught.value.problem,
        caught.value.fix,
    )


@pytest.mark.parametrize("twin", [engine, reference], ids=["engine", "reference"])
def test_a_bad_shared_method_is_named_method_not_a_series(twin):
    panel = twin.Panel.from_series([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    with pytest.raises(twin.BootmarkError) as caught:
        twin.bootstrap_reduce(panel, twin.MovingBlock, "mean", 10, seed=1)  # the class, not an instance
    assert caught.value.argument == "method"


@pytest.mark.parametrize("twin", [engine, reference], ids=["engine", "reference"])
def test_block_length_warnings_come_once_per_series_as_from_single_calls(twin):
    panel = twin.Panel.from_series([[float(v) for v in range(7)]] * 3 + [[float(v) for v in range(40)]])
    for method in (twin.NonOverlappingBlock(5), twin.TaperedBlock(7)):
        with pytest.warns(twin.BlockLengthWarning) as caught:
            twin.bootstrap_reduce(panel, method, "mean", 10, seed=1)
        assert len([w for w in caught if issubclass(w.category, twin.BlockLengthWarning)]) == 3, method


def test_tuple_ids_stay_one_index_level_in_pandas_output():
    frame = pd.DataFrame({"key": [("s1", "p1")] * 3 + [("s1", "p2")] * 3, "units": [1.0, 2.0, 4.0, 3.0, 5.0, 4.0]})
    panel = engine.Panel.from_frame(frame, id="key", value="units")
    result = engine.bootstrap_reduce(panel, engine.IID(), "mean", 20, seed=1)
    assert list(result.point.index) == [("s1", "p1"), ("s1", "p2")]
    assert list(result.to_frame().index) == [("s1", "p1"), ("s1", "p2")]


def test_missing_values_of_a_nullable_column_are_refused_naming_the_series():
    frame = pd.DataFrame({"id": ["a", "a", "b", "b", "b"], "y": pd.array([1.0, 2.0, 3.0, None, 5.0], dtype="Float64")})
    with pytest.raises(engine.InvalidDataError, match=r"panel\['b'\]") as caught:
        engine.Panel.from_frame(frame, id="id", value="y")
    assert caught.value.code is engine.ErrorCode.DATA_NOT_FINITE


def test_ragged_nested_values_are_a_typed_error():
    with pytest.raises(engine.DataTypeError) as caught:
        engine.Panel([[1.0, 2.0], [3.0]], offsets=[0, 3])
    assert caught.value.argument == "values"
