"""Head to head inside a project's own suite: a benchmark whose parameter names the
implementation (``[tool.bootmark.gate] implementation = "library"``) is measured with
every implementation interleaved round by round, in one worker, and each implementation
is set against the reference one (``reference = "mylib"``): its time over the reference's,
with a 95% interval, and a verdict. This is how a user publishes "my library against its
peers" from a suite of their own (``bootmark record`` measures it; ``bootmark site`` draws
the scoreboard).

One worker runs every implementation of a group (the same process, so no process's own
luck favours one side), preparing each cell in turn; the order rotates every round. The
ratio is the median of the per-round ratios with the moving-block bootstrap interval of
``bootmark.core.timing.median_ratio``. The verdict is the reference's: **win** when the
whole interval lies above ``tolerance`` (the other is slower by more than the tolerance),
**LOSS** when it lies wholly below ``1 / tolerance``, and **tie** otherwise.
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from bootmark.core import timing
from bootmark.gate.suite import Benchmark, Cell

__all__ = ["Group", "Matchup", "groups_of", "matchup_verdict", "measure_group"]


@dataclass(frozen=True)
class Group:
    """The cells of one benchmark that differ only in the implementation parameter.

    Attributes
    ----------
    benchmark : Benchmark
    parameter : str
        The parameter that names the implementation.
    others : tuple of (str, str)
        The other parameters' names and values (reprs), fixed in this group.
    cells : Mapping[str, Cell]
        Implementation (the parameter's value, unquoted) to its cell.
    """

    benchmark: Benchmark
    parameter: str
    others: tuple[tuple[str, str], ...]
    cells: Mapping[str, Cell]

    @property
    def label(self) -> str:
        """``benchmark(other=value, ...)``, the group's name on the scoreboard."""
        inside = ", ".join(f"{name}={value}" for name, value in self.others)
        return f"{self.benchmark.name}({inside})" if inside else self.benchmark.name


def _unquoted(value: str) -> str:
    """A parameter value's repr as a name: ``'arch'`` -> ``arch``."""
    return value[1:-1] if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"" else value


def groups_of(cells: Sequence[Cell], parameter: str) -> list[Group]:
    """The head-to-head groups among ``cells``: per benchmark with ``parameter``, per
    combination of its other parameters, the implementations' cells.

    Parameters
    ----------
    cells : sequence of Cell
        Selected cells (``bootmark.gate.suite.select_cells``).
    parameter : str
        The parameter naming the implementation.

    Returns
    -------
    list of Group
        Groups of at least two implementations, in the cells' order.

    Examples
    --------
    >>> from bootmark.gate.suite import Benchmark
    >>> bench = Benchmark("b.time_sum", "time", ("library", "n"), (("'a'", "'b'"), ("10", "20")), None, 60.0)
    >>> [(group.label, sorted(group.cells)) for group in groups_of(bench.cells(), "library")]
    [('b.time_sum(n=10)', ['a', 'b']), ('b.time_sum(n=20)', ['a', 'b'])]
    """
    found: dict[tuple[str, tuple], dict] = {}
    owners: dict[tuple[str, tuple], Benchmark] = {}
    for cell in cells:
        benchmark = cell.benchmark
        if parameter not in benchmark.param_names:
            continue
        values = list(itertools.product(*benchmark.params))[cell.index]
        at = benchmark.param_names.index(parameter)
        pairs = zip(benchmark.param_names, values, strict=True)
        others = tuple((name, value) for name, value in pairs if name != parameter)
        key = (benchmark.name, others)
        found.setdefault(key, {})[_unquoted(values[at])] = cell
        owners[key] = benchmark
    return [
        Group(owners[key], parameter, key[1], dict(implementations))
        for key, implementations in found.items()
        if len(implementations) >= 2
    ]


def matchup_verdict(ratio: Mapping[str, float], tolerance: float) -> str:
    """The reference's verdict on one other implementation, from other / reference.

    Parameters
    ----------
    ratio : Mapping
        ``{"median", "ci_low", "ci_high"}``: the other's time over the reference's.
    tolerance : float
        The factor within which a difference is a tie (the gate's tolerance, > 1).

    Returns
    -------
    str
        ``win`` (the whole interval above ``tolerance``), ``LOSS`` (wholly below
        ``1 / tolerance``) or ``tie``.

    Examples
    --------
    >>> matchup_verdict({"median": 1.5, "ci_low": 1.4, "ci_high": 1.6}, 1.1)
    'win'
    >>> matchup_verdict({"median": 0.7, "ci_low": 0.65, "ci_high": 0.75}, 1.1)
    'LOSS'
    >>> matchup_verdict({"median": 1.05, "ci_low": 1.02, "ci_high": 1.08}, 1.1)
    'tie'
    """
    if ratio["ci_low"] > tolerance:
        return "win"
    if ratio["ci_high"] < 1 / tolerance:
        return "LOSS"
    return "tie"


@dataclass(frozen=True)
class Matchup:
    """One group measured head to head.

    Attributes
    ----------
    group : Group
    reference : str
        The implementation every other is set against.
    samples : Mapping[str, tuple of float]
        Implementation to its seconds per call, paired by round.
    number : int
        Calls per sample (the same for every implementation: the reference's choice).
    tolerance : float
    """

    group: Group
    reference: str
    samples: Mapping[str, tuple[float, ...]]
    number: int
    tolerance: float

    def to_json(self) -> dict:
        """The receipt's form: per implementation its median and, for the others, the
        ratio to the reference with its interval and the reference's verdict."""
        rows = []
        for name, taken in self.samples.items():
            row = {"implementation": name, "median_s": statistics.median(taken), "ratio": None, "verdict": None}
            if name != self.reference:
                ratio = timing.median_ratio(taken, self.samples[self.reference])
                row["ratio"] = {key: ratio[key] for key in ("median", "ci_low", "ci_high")}
                row["verdict"] = matchup_verdict(ratio, self.tolerance)
            rows.append(row)
        return {
            "label": self.group.label,
            "benchmark": self.group.benchmark.name,
            "parameter": self.group.parameter,
            "others": [list(pair) for pair in self.group.others],
            "reference": self.reference,
            "tolerance": self.tolerance,
            "number": self.number,
            "rounds": len(self.samples[self.reference]),
            "rows": rows,
        }


def measure_group(
    group: Group,
    reference: str,
    tolerance: float,
    rounds: int,
    prepare: Callable[[Cell], None],
    sample: Callable[[int], float],
    choose_number: Callable[[Cell], int],
    tick: Callable[[], None] = lambda: None,
) -> Matchup:
    """Measure ``group`` interleaved: each round prepares and samples every implementation
    once, in an order that rotates every round.

    Parameters
    ----------
    group : Group
    reference : str
        An implementation of the group.
    tolerance : float
    rounds : int
    prepare : callable
        Sets a cell up in the worker (raises if it cannot run).
    sample : callable
        Seconds per call of ``number`` calls of the prepared cell.
    choose_number : callable
        Calls per sample for a cell (asked of the reference).
    tick : callable, optional
        Called after every round.

    Returns
    -------
    Matchup
    """
    names = list(group.cells)
    number = choose_number(group.cells[reference])
    samples: dict[str, list[float]] = {name: [] for name in names}
    for round_index in range(rounds):
        order = names[round_index % len(names) :] + names[: round_index % len(names)]
        for name in order:
            prepare(group.cells[name])
            sample(1)  # one call to warm the freshly prepared cell, not kept
            samples[name].append(sample(number))
        tick()
    return Matchup(group, reference, {name: tuple(samples[name]) for name in names}, number, tolerance)
