"""``bootmark study new NAME``: a protocol and a contender module to start an audit from.

Writes, in the workspace,

* ``protocols/<NAME>-v1.toml``: a coverage study of the mean of an AR(1), every field
  commented, with a ``tiny`` profile that runs in seconds;
* ``contenders/<module>.py``: a contender of your own (a Newey-West normal interval for
  the mean) keeping the contract of :mod:`bootmark.studies.plugins`, which the protocol
  names by import path next to bootmark's moving-block bootstrap.

With ``forecast=True`` (``bootmark study new NAME --forecast``) the pair is a forecast
study instead: normal AR(1) prediction intervals 1 to 5 steps ahead beside the oracle
(:mod:`bootmark.studies.forecast`).

Nothing is overwritten: a file that exists is an error, and nothing is written.

Examples
--------
>>> import tempfile
>>> from bootmark.core import workspace
>>> with tempfile.TemporaryDirectory() as folder:
...     made = create("HAC", workspace.find(folder))
...     [os.path.relpath(path, folder) for path in made]
['protocols/HAC-v1.toml', 'contenders/hac.py']
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from .protocol import ProtocolError, protocol_paths

if TYPE_CHECKING:
    from bootmark.core.workspace import Workspace

__all__ = ["CONTENDER_FOLDER", "create", "module_name"]

CONTENDER_FOLDER = "contenders"
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")

_PROTOCOL = '''\
# A coverage study of your own (docs/protocols.md describes every field).
# Run it now:      bootmark study run {name} --profile tiny --no-write
# Run it for real: bootmark study run {name}
#   (writes receipts/studies/study-{name}-v1-registered-<machine>-<UTC time>-<commit>.json)
# Once a receipt of this version is committed, never edit this file: copy it to
# {name}-v2.toml and bump `version`.

id = "{name}"                    # the study's name; the file must be <id>-v<version>.toml
version = 1
registered = {today}             # the day the protocol was fixed, before any run
title = "My interval for the mean of an AR(1) against the moving-block bootstrap"
claim = """
What you set out to check, in words, before running it: for example, that a Newey-West
normal interval for the mean of an AR(1) with phi = 0.5 covers close to its nominal 90%
at n = 200, as the moving-block bootstrap does.
"""

[dgp]
name = "ar1"                     # a built-in process (ar1, ar3, arma11, student_t_ar1, garch_ar1, ...), or
                                 # callable = "package.module:Class" for a process of your own
parameters = {{ phi = 0.5, innovation_sd = 1.0, burn_in = 500 }}
true_se = "finite_n"             # the exact true SE at each n (mean, var); "large_n": sqrt(LRV / n), any statistic
truth = "Closed form: the process mean is 0; its SE is exact at each n (sum of the autocovariances)."

[design]
statistic = "mean"               # mean, median, var, std, quantile:q, acf:k, ar1_slope, or "package.module:function"
n = [50, 200]                    # series lengths, increasing
series = 1000                    # series per n (Monte Carlo repetitions)
n_bootstraps = 499               # B, replicates per interval
alpha = 0.10                     # two-sided tail: 90% intervals
root_seed = {seed}               # every series' data and bootstrap seeds derive from this
chunk_series = 50                # series per checkpoint
null = 0.0                       # optional: report how often each interval excludes this value

[[resamplers]]
name = "engine.MovingBlock(auto)"   # bootmark's moving-block bootstrap, automatic block length
engine = "MovingBlock"
block_length = "auto"
kinds = ["percentile"]

[[resamplers]]
name = "mine.newey-west"         # your contender, by import path (contenders/ is searched)
callable = "contenders.{module}:interval"
kinds = ["normal"]               # passed to your function as kind=
[resamplers.options]             # passed to your function as keyword arguments
lags = "auto"

[[criteria]]
id = "mine-covers"
test = "within"                  # within k MC SE of target; also at_least, at_most, exceeds, ...
measure = "coverage"             # any measure: bias, empirical_se, relative_error_modse, mse, ... (docs/measures.md)
resampler = "mine.newey-west"
kind = "normal"
target = 0.90
k = 3.0
rationale = "Why this bar, fixed before the run: the interval claims 90% coverage."

[profiles.tiny]                  # a small run to try things: bootmark study run {name} --profile tiny
series = 20
n = [50]
'''

_CONTENDER = '''\
"""A contender for bootmark's coverage studies: {name}'s own interval.

bootmark calls ``interval`` once per series and interval kind, with the series and the
study's settings, and reads back the interval (docs/protocols.md, "Your own code").
"""

import math
from statistics import NormalDist

import numpy as np


def interval(series, *, statistic, alpha, kind, n_bootstraps, seed, lags="auto"):
    """A normal interval for the mean with a Newey-West (Bartlett) long-run variance.

    series: 1-D float64 array; statistic: the study's statistic (callable; here the mean);
    alpha: two-sided tail; kind: "normal"; n_bootstraps, seed: unused (no resampling);
    lags: "auto" (floor(4 (n/100)^(2/9))) or an int. Returns lower, upper and the SE.
    """
    x = np.asarray(series, dtype=float)
    n = x.shape[0]
    bandwidth = math.floor(4.0 * (n / 100.0) ** (2.0 / 9.0)) if lags == "auto" else int(lags)
    centred = x - x.mean()
    variance = centred @ centred / n
    for lag in range(1, bandwidth + 1):
        weight = 1.0 - lag / (bandwidth + 1.0)
        variance += 2.0 * weight * (centred[lag:] @ centred[:-lag]) / n
    se = math.sqrt(max(variance, 0.0) / n)
    point = float(statistic(x))
    z = NormalDist().inv_cdf(1.0 - alpha / 2.0)
    return {{"lower": point - z * se, "upper": point + z * se, "se": se}}


# Optional: bootmark refuses a protocol that asks for another kind or statistic.
interval.kinds = ("normal",)
interval.statistics = ("mean",)
'''


_FORECAST_PROTOCOL = '''\
# A forecast study of your own: prediction intervals judged against the values the
# process goes on to draw (docs/protocols.md, "Forecast studies").
# Run it now:      bootmark study run {name} --profile tiny --no-write
# Run it for real: bootmark study run {name}
#   (writes receipts/studies/study-{name}-v1-registered-<machine>-<UTC time>-<commit>.json)
# Once a receipt of this version is committed, never edit this file: copy it to
# {name}-v2.toml and bump `version`.

id = "{name}"                    # the study's name; the file must be <id>-v<version>.toml
version = 1
registered = {today}             # the day the protocol was fixed, before any run
title = "My prediction intervals for an AR(1), 1 to 5 steps ahead, beside the oracle"
claim = """
What you set out to check, in words, before running it: for example, that my 90%
prediction intervals cover close to 90% at every horizon from 1 to 5, as the oracle does.
"""

[dgp]
name = "ar1"                     # a built-in process (ar1 and ar3 have an oracle), or
                                 # callable = "package.module:Class" for a process of your own
parameters = {{ phi = 0.7, innovation_sd = 1.0, burn_in = 500 }}

[design]
target = "forecast"              # prediction intervals for the series' own next values
horizon = 5                      # steps ahead: your function answers h = 1..5
n = [50, 200]                    # history lengths, increasing
series = 1000                    # series per n (Monte Carlo repetitions)
alpha = 0.10                     # two-sided tail: 90% intervals at every horizon
root_seed = {seed}               # every series' data and seed derive from this
chunk_series = 50                # series per checkpoint

[[resamplers]]
name = "oracle"                  # the true conditional interval: covers exactly 90%
oracle = true

[[resamplers]]
name = "mine.ar1-normal"         # your forecaster, by import path (contenders/ is searched)
callable = "contenders.{module}:interval"
[resamplers.options]             # passed to your function as keyword arguments
mean = "estimated"

[[resamplers]]
name = "bootmark bootstrap"      # bootmark's own interval beside yours (an installed entry point);
contender = "bootmark.forecast_interval"   # options: method = "conformal" for its EnbPI

[[criteria]]
id = "mine-covers"
test = "within"                  # within k MC SE of target; also at_least, at_most
measure = "coverage"             # or mean_width, winkler, miss_below, miss_above, coverage_low, ...
resampler = "mine.ar1-normal"
target = 0.90                    # no `horizon`: required at every horizon
k = 3.0
rationale = "Why this bar, fixed before the run: the intervals claim 90% at every horizon."

[profiles.tiny]                  # a small run to try things: bootmark study run {name} --profile tiny
series = 40
n = [50]
'''

_FORECAST_CONTENDER = '''\
"""A forecaster for bootmark's forecast studies: {name}'s own prediction intervals.

bootmark calls ``interval`` once per series with the history it may see and reads back an
interval for each of the next ``horizon`` values (docs/protocols.md, "Forecast studies").
"""

from statistics import NormalDist

import numpy as np


def interval(history, *, horizon, alpha, seed, mean="estimated"):
    """Normal prediction intervals from an AR(1) fitted by least squares (the parameter
    uncertainty ignored, as plug-in intervals do).

    history: 1-D float64 array (read-only); horizon: steps ahead; alpha: two-sided tail;
    seed: unused (nothing random); mean: "estimated" or "zero". Returns lower, upper and
    the point forecasts, ``horizon`` values each.
    """
    x = np.asarray(history, dtype=float)
    centre = x.mean() if mean == "estimated" else 0.0
    y = x - centre
    phi = float(y[1:] @ y[:-1] / (y[:-1] @ y[:-1]))
    sigma = float(np.std(y[1:] - phi * y[:-1]))
    steps = np.arange(1, horizon + 1)
    point = centre + y[-1] * phi**steps
    spread = NormalDist().inv_cdf(1.0 - alpha / 2.0) * sigma * np.sqrt(np.cumsum(phi ** (2 * (steps - 1))))
    return {{"lower": point - spread, "upper": point + spread, "point": point}}
'''


def module_name(name: str) -> str:
    """The contender module's name for study ``name``: lower case, ``-`` as ``_``.

    Examples
    --------
    >>> module_name("My-Audit")
    'my_audit'
    """
    return name.lower().replace("-", "_")


def create(name: str, where: Workspace, today: str | None = None, forecast: bool = False) -> list[str]:
    """Write the protocol and contender module of a new study ``name`` into ``where``.

    Parameters
    ----------
    name : str
        The study id: a letter, then letters, digits, ``_`` or ``-``.
    where : bootmark.core.workspace.Workspace
        The workspace (its ``protocols`` folder and root).
    today : str, optional
        The ``registered`` date (ISO); default today's date.
    forecast : bool, default False
        Scaffold a forecast study (prediction intervals 1 to 5 steps ahead beside the
        oracle) instead of a coverage study.

    Returns
    -------
    list of str
        The two paths written.

    Raises
    ------
    bootmark.studies.protocol.ProtocolError
        A bad name, a study id already registered (shipped or in the workspace), or a
        file that already exists (nothing is written).
    """
    if not isinstance(name, str) or not _NAME.match(name):
        raise ProtocolError(f"study name {name!r}: use a letter, then letters, digits, '_' or '-' (e.g. HAC-audit)")
    # late: only `study new` needs today's date, and it is the one wall-clock read here
    import datetime

    date = today or datetime.date.today().isoformat()
    module = module_name(name)
    protocol_path = os.path.join(where.protocols, f"{name}-v1.toml")
    contender_path = os.path.join(where.root, CONTENDER_FOLDER, f"{module}.py")
    taken = sorted(key for key in protocol_paths() if key.rsplit("-v", 1)[0] == name)
    if taken:
        raise ProtocolError(
            f"study {name!r} is already registered ({', '.join(taken)}); choose another name (nothing was written)"
        )
    existing = [path for path in (protocol_path, contender_path) if os.path.exists(path)]
    if existing:
        raise ProtocolError(f"{', '.join(existing)} already exist(s); choose another name (nothing was written)")
    seed = int.from_bytes(name.encode(), "big") % 2**31  # a fixed function of the name, not of the clock
    os.makedirs(os.path.dirname(protocol_path), exist_ok=True)
    os.makedirs(os.path.dirname(contender_path), exist_ok=True)
    protocol_text, contender_text = (_FORECAST_PROTOCOL, _FORECAST_CONTENDER) if forecast else (_PROTOCOL, _CONTENDER)
    texts = {
        protocol_path: protocol_text.format(name=name, module=module, today=date, seed=seed),
        contender_path: contender_text.format(name=name),
    }
    for path, text in texts.items():
        with open(path, "x", encoding="utf-8") as stream:  # "x": never overwrite, even in a race
            stream.write(text)
    return list(texts)
