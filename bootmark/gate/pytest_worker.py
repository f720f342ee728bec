"""The pytest-benchmark side of a ``bootmark gate`` worker: a project's tests that use the
``benchmark`` fixture, collected by pytest itself and timed on request.

An adapter of :mod:`bootmark.gate.worker`, loaded by path, in the gated project's environment, which
must have pytest (a pytest-benchmark suite needs it anyway); standard library otherwise.

How a test becomes a cell. pytest collects the suite as it would (the project's
configuration, conftest files and plugins), and a test is a benchmark when it requests the
``benchmark`` fixture: pytest-benchmark's, or pytest-codspeed's of the same name. bootmark
registers a fixture of that name after every plugin, so it is the one the tests get (a
conftest's own ``benchmark`` fixture still wins, as it would over pytest-benchmark's). To
*prepare* a cell, the worker runs the test through pytest's own protocol (fixtures set up,
marks applied); when the test calls ``benchmark(function, *args, **kwargs)`` or
``benchmark.pedantic(...)``, the fixture replies "ready" and answers the parent's timing
requests on that function, inside the test, until another request comes. Then the test
gets the function's return value, as with pytest-benchmark, and its fixtures are torn
down.

A test marked ``@pytest.mark.benchmark`` that does not use the fixture is pytest-codspeed's
other form: its body, called with its fixtures' values, is the timed call (its fixtures
are set up before and torn down after, outside the timing). The marker is registered, so
a suite under ``--strict-markers`` collects with the timing plugins blocked.

``benchmark.weave`` (and the ``benchmark_weave`` fixture) replaces a function for the rest
of the test; its first call is the cell's timed call, as with pytest-benchmark, without
aspectlib. pytest-benchmark's own rounds, warm-up and calibration options are accepted and
unused (bootmark chooses its own, for both sides alike). pytest-xdist is turned off: the
worker is one process.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import inspect
import sys
import traceback

__all__ = ["serve"]

FIXTURE = "benchmark"
DEFAULT_TIMEOUT_S = 300.0  # seconds a test's setup and one timed call may take
EARLY_OUTPUT_CHARS = 20_000  # of pytest's output before its run-test loop, kept for the parent


class _Target:
    """The function a test hands to the fixture, and how to call it: with ``setup``
    before each call and ``teardown`` after it, outside the timing, as pytest-benchmark's
    ``pedantic`` does (``teardown`` gets the call's arguments)."""

    def __init__(self, function, args, kwargs, setup=None, teardown=None):
        self.function, self.args, self.kwargs = function, tuple(args), dict(kwargs or {})
        self.setup, self.teardown = setup, teardown

    def call(self):
        args, kwargs = self.arguments()
        result = self.function(*args, **kwargs)
        if self.teardown is not None:
            self.teardown(*args, **kwargs)
        return result

    def arguments(self):
        """The next call's ``(args, kwargs)``: what ``setup`` returns, else the test's own.
        As in pytest-benchmark, a setup that returns arguments cannot be combined with
        ``args`` or ``kwargs``."""
        made = self.setup() if self.setup is not None else None
        if not made:
            return self.args, self.kwargs
        if self.args or self.kwargs:
            raise TypeError("benchmark.pedantic: setup returned arguments, so args and kwargs must be empty")
        args, kwargs = made
        return tuple(args or ()), dict(kwargs or {})

    def timed(self, number, time_calls):
        if self.setup is not None or self.teardown is not None:
            return time_calls(self.function, number, setup=self.arguments, teardown=self.teardown)
        return time_calls(lambda: self.function(*self.args, **self.kwargs), number)


def _check_pedantic_counts(setup, rounds, warmup_rounds, iterations):
    """pytest-benchmark's own checks of ``pedantic``'s counts, so a test it refuses is
    refused here too (the counts themselves are bootmark's to choose)."""
    for name, value, least in (
        ("rounds", rounds, 1),
        ("warmup_rounds", warmup_rounds, 0),
        ("iterations", iterations, 1),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise ValueError(f"benchmark.pedantic: {name} must be an int of at least {least}, got {value!r}")
    if iterations > 1 and setup is not None:
        raise ValueError("benchmark.pedantic: iterations above 1 cannot go with a setup function (as pytest-benchmark)")


class _Fixture:
    """What a test gets as ``benchmark``: pytest-benchmark's calling conventions, answered
    by the gate's worker."""

    def __init__(self, session, nodeid, finalizers):
        self._session, self.name, self.fullname = session, nodeid.rsplit("::", 1)[-1], nodeid
        self._finalizers = finalizers
        self.extra_info, self.group, self.disabled = {}, None, False
        self.stats = None

    def __call__(self, function, *args, **kwargs):
        return self._session.serve_target(_Target(function, args, kwargs))

    def pedantic(
        self, target, args=(), kwargs=None, setup=None, teardown=None, rounds=1, warmup_rounds=0, iterations=1
    ):
        """pytest-benchmark's explicit form: ``setup`` before and ``teardown`` after every
        call, outside the timing. ``rounds``, ``warmup_rounds`` and ``iterations`` are
        checked as pytest-benchmark checks them, then left unused: the gate chooses its own
        rounds, the same for both sides."""
        _check_pedantic_counts(setup, rounds, warmup_rounds, iterations)
        return self._session.serve_target(_Target(target, args, kwargs, setup, teardown))

    def weave(self, target, **options):
        """pytest-benchmark's aspect form: ``target`` (a function, a method given as
        ``Class.method``, a bound method, or its dotted name ``"package.module.function"``)
        is replaced, for the rest of the test, by a wrapper whose first call is the cell's
        timed call, with that call's arguments (as pytest-benchmark's fixture, whose
        ``weave`` hands every call to ``benchmark(...)``). The original is put back when the
        test ends. ``options`` (aspectlib's, such as ``lazy=True``) are accepted and unused:
        the gate needs no aspectlib."""
        del options
        owner, name = _owner_of(target)
        raw = inspect.getattr_static(owner, name)
        kind = type(raw) if isinstance(raw, (staticmethod, classmethod)) else None
        original = raw.__func__ if kind is not None else raw
        session = self._session

        @functools.wraps(original)
        def woven(*args, **kwargs):
            if session.served:  # a later call: the cell was timed on the first
                return original(*args, **kwargs)
            return session.serve_target(_Target(original, args, kwargs))

        setattr(owner, name, kind(woven) if kind is not None else woven)
        self._finalizers(lambda: setattr(owner, name, raw))

    patch = weave  # pytest-benchmark's other name for it


def _owner_of(target):
    """The object that holds ``target`` as an attribute, and the attribute's name."""
    if isinstance(target, str):
        module_name, _, attribute = target.replace(":", ".").rpartition(".")
        if not module_name:
            raise ValueError(f"benchmark.weave: {target!r} names no module (write 'package.module.function')")
        path = []
        while module_name:
            try:
                owner = importlib.import_module(module_name)
                break
            except ImportError:
                module_name, _, part = module_name.rpartition(".")
                path.insert(0, part)
        else:
            raise ValueError(f"benchmark.weave: no module of {target!r} could be imported")
        for part in path:
            owner = getattr(owner, part)
        return owner, attribute
    if inspect.ismethod(target):
        return target.__self__, target.__name__
    qualified = getattr(target, "__qualname__", "")
    module = sys.modules.get(getattr(target, "__module__", None) or "")
    if module is None or not qualified or "<locals>" in qualified:
        raise ValueError(
            f"benchmark.weave: {target!r} is not reachable from its module (a function defined in a test "
            "cannot be woven: call benchmark(function, ...) instead)"
        )
    owner = module
    *path, name = qualified.split(".")
    for part in path:
        owner = getattr(owner, part)
    return owner, name


# The plugins that own a ``benchmark`` fixture: blocked (pytest-benchmark refuses a fixture
# of another type), but their command-line options and hooks are still declared, so a
# project's addopts and conftest hooks that name them keep working.
TIMING_PLUGINS = (("benchmark", "pytest_benchmark.plugin"), ("codspeed", "pytest_codspeed.plugin"))


class _Session:
    """The pytest plugin that collects the suite, replies with its benchmarks and serves
    the parent's requests from inside pytest's run-test loop."""

    def __init__(self, config, host):
        self.config, self.channel, self.problems, self.hello = config, host.channel, host.problems, host.hello
        self.versions, self.time_calls, self.time_cell = host.versions, host.time_calls, host.time_cell
        self.reports = []
        self.served = False
        self.whole_tests, self.current = set(), None

    # -- pytest hooks -------------------------------------------------------------------

    def pytest_addhooks(self, pluginmanager):
        for module in _timing_plugins():
            if hasattr(module, "pytest_addhooks"):
                module.pytest_addhooks(pluginmanager)

    def pytest_addoption(self, parser, pluginmanager):
        for module in _timing_plugins():
            if hasattr(module, "pytest_addoption"):
                try:
                    module.pytest_addoption(parser)
                except TypeError:  # a plugin whose hook also takes the plugin manager
                    module.pytest_addoption(parser, pluginmanager)

    def pytest_configure(self, config):
        # The timing plugins are blocked, so the marker they register is declared here:
        # under --strict-markers a suite that uses it would not collect otherwise.
        config.addinivalue_line(
            "markers", f"{FIXTURE}: a benchmark (pytest-benchmark's options, or pytest-codspeed's mark)"
        )

    def pytest_sessionstart(self, session):
        # registered now, after every plugin, so this fixture is the one tests get
        session.config.pluginmanager.register(_fixture_provider(self), "bootmark-gate-benchmark-fixture")

    def pytest_collectreport(self, report):
        if report.failed:
            self.problems["import_errors"][report.nodeid or "(collection)"] = report.longreprtext

    def pytest_runtest_logreport(self, report):
        self.reports.append(report)

    def pytest_runtestloop(self, session):
        items = {}
        for item in session.items:
            if FIXTURE in getattr(item, "fixturenames", ()):
                items[item.nodeid] = item
            elif item.get_closest_marker(FIXTURE) is not None and hasattr(item, "obj"):
                items[item.nodeid] = item  # pytest-codspeed's form: the test body is the timed call
                self.whole_tests.add(item.nodeid)
        self.hello["benchmarks"] = [self.time_cell(nodeid, nodeid, DEFAULT_TIMEOUT_S) for nodeid in sorted(items)]
        self.hello["distributions"] = self.versions()
        self.channel.reply(self.hello)
        while True:
            request = self.channel.next_request()
            if request["op"] == "stop":
                break
            if request["op"] == "control":
                self.channel.reply(self.channel.answer(request, None))
            elif request["op"] != "prepare":
                self.channel.reply({"error": f"request {request['op']!r} before any cell was prepared"})
            elif request["name"] not in items:
                self.channel.reply({"error": f"no benchmark test {request['name']!r} was collected"})
            else:
                self._run(items[request["name"]])
        return True

    # -- one cell -----------------------------------------------------------------------

    def pytest_pyfunc_call(self, pyfuncitem):
        """A test marked ``@pytest.mark.benchmark`` without the fixture: its body, called
        with its fixtures' values, is the cell's timed call, as pytest-codspeed times it (the
        fixtures are set up before and torn down after, outside the timing)."""
        if self.current is None or pyfuncitem.nodeid != self.current or self.current not in self.whole_tests:
            return None
        arguments = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}
        self.serve_target(_Target(pyfuncitem.obj, (), arguments))
        return True

    def _run(self, item):
        self.reports, self.served, self.current = [], False, item.nodeid
        if hasattr(item, "_initrequest"):  # a fresh fixture request, as a re-run needs
            item._initrequest()
        item.ihook.pytest_runtest_protocol(item=item, nextitem=None)
        if self.served:
            return
        skipped = [report for report in self.reports if report.skipped]
        failed = [report for report in self.reports if report.failed]
        if failed:
            self.channel.reply({"error": failed[0].longreprtext or f"{item.nodeid} failed"})
        elif skipped:
            self.channel.reply({"skip": _skip_reason(skipped[0])})
        else:
            self.channel.reply({"error": f"{item.nodeid} ran without calling its benchmark fixture"})

    def serve_target(self, target):
        if self.served:
            raise RuntimeError("the benchmark fixture can be called once per test (as in pytest-benchmark)")
        self.served = True
        self.channel.reply({"ok": True})
        self.channel.serve_cell(_Prepared(target, self.time_calls))
        return target.call()


class _Prepared:
    """A fixture's target as the channel's prepared cell (``call`` and ``timed``)."""

    def __init__(self, target, time_calls):
        self.target, self.time_calls = target, time_calls

    def call(self):
        return self.target.call()

    def timed(self, number):
        return self.target.timed(number, self.time_calls)


def _fixture_provider(session):
    """A plugin holding the ``benchmark`` fixture (pytest reads fixtures off a plugin's
    class, so the class is made here, around ``session``)."""
    import pytest  # late: this module is loaded only for pytest suites

    class FixtureProvider:
        @pytest.fixture(name=FIXTURE)
        def benchmark(self, request):
            return _Fixture(session, request.node.nodeid, request.addfinalizer)

        @pytest.fixture(name=f"{FIXTURE}_weave")
        def benchmark_weave(self, benchmark):
            return benchmark.weave

    return FixtureProvider()


def _timing_plugins():
    """The installed modules of :data:`TIMING_PLUGINS`."""
    found = []
    for _, name in TIMING_PLUGINS:
        try:
            found.append(importlib.import_module(name))
        except Exception:  # not installed (or broken): nothing of it to declare
            continue
    return found


class _EarlyOutput:
    """A text stream that writes through to ``stream`` and keeps a copy of what was
    written until ``done()`` (at most :data:`EARLY_OUTPUT_CHARS`, the newest kept)."""

    def __init__(self, stream, done):
        self.stream, self.done, self.kept = stream, done, []

    def write(self, text):
        if not self.done():
            self.kept.append(text)
            if sum(map(len, self.kept)) > 2 * EARLY_OUTPUT_CHARS:
                self.kept = [self.text()]
        return self.stream.write(text)

    def flush(self):
        self.stream.flush()

    def isatty(self):
        return False

    def text(self):
        return "".join(self.kept)[-EARLY_OUTPUT_CHARS:]

    def __getattr__(self, name):  # encoding, fileno and the rest: the stream's own
        return getattr(self.stream, name)


def _skip_reason(report):
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr)


def _one_process(config):
    """pytest-xdist, when installed, runs in this one process: the worker is the process."""
    if hasattr(config.option, "numprocesses"):
        config.option.numprocesses = None
    if hasattr(config.option, "dist"):
        config.option.dist = "no"


def _xdist_off():
    """A plugin that keeps pytest-xdist, when installed, in this one process (the worker
    is the process that times), even when the project's addopts ask for workers."""
    import pytest  # late: this module is loaded only for pytest suites

    class XdistOff:
        @pytest.hookimpl(wrapper=True)
        def pytest_cmdline_main(self, config):
            _one_process(config)
            return (yield)

    return XdistOff()


def serve(host, config):
    """Collect the pytest-benchmark suite ``config`` names, reply with its benchmarks, then
    serve the parent's requests until ``stop`` (the adapter interface of
    :mod:`bootmark.gate.worker`).

    Parameters
    ----------
    host : bootmark.gate.worker.Host
        The channel, the first reply to complete, and the worker's shared tools.
    config : dict
        The worker's configuration (``benchmark_dir``, ``root``, ``select``: node ids).
    """
    channel, problems, hello, versions = host.channel, host.problems, host.hello, host.versions
    try:
        import pytest  # late: the project's environment must have it for a pytest suite
    except ImportError:
        problems["import_errors"]["(pytest)"] = (
            "ModuleNotFoundError: pytest is not installed in the environment the gate's workers run in; "
            "install it there (a pytest-benchmark suite needs it)"
        )
        hello.update(benchmarks=[], distributions=versions())
        channel.reply(hello)
        return
    root = config["root"]
    targets = [f"{root}/{nodeid}" for nodeid in config["select"]] if config.get("select") else [config["benchmark_dir"]]
    arguments = [
        *targets,
        f"--rootdir={root}",
        "-p",
        "no:cacheprovider",  # no .pytest_cache in the gated checkout
        *(argument for name, _ in TIMING_PLUGINS for argument in ("-p", f"no:{name}")),
        "-q",
        "-W",
        "ignore::pytest.PytestAssertRewriteWarning",
        *config.get("pytest_args", ()),  # the project's own, last, as it runs its suite
    ]
    session = _Session(config, host)
    # pytest's own words until its run-test loop starts, kept for the parent: a pytest that
    # stops early (a usage error in the project's addopts) says why only there.
    early = _EarlyOutput(sys.stderr, lambda: "benchmarks" in hello)
    try:
        with contextlib.redirect_stdout(early), contextlib.redirect_stderr(early):
            code = pytest.main(arguments, plugins=[session, _xdist_off()])
    except Exception:  # pytest itself could not start: the parent reports it
        problems["import_errors"]["(pytest)"] = traceback.format_exc(limit=-8)
        code = None
    if "benchmarks" not in hello:  # pytest stopped before its run-test loop (a usage error)
        output = early.text().rstrip()
        said = [line for line in output.splitlines() if line.strip()]
        said = [line for line in said if "error" in line.lower()] or said  # the line that says why
        problems["import_errors"].setdefault(
            "(pytest)",
            f"{output}\npytest stopped before running any test (exit code {code}): "
            + (said[-1].strip() if said else "it printed nothing"),
        )
        hello.update(benchmarks=[], distributions=versions())
        channel.reply(hello)
