"""What ``bootmark gate`` decides, as records: its settings, a ratio's interval, each
cell's verdict and the whole gate's, with the exit code that follows from them (the rules:
:mod:`bootmark.gate.run`).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from bootmark.core.errors import INCOMPARABLE, PASS, REGRESSION
from bootmark.gate.sides import Side

INSTRUCTION_MODES = ("auto", "always", "never")

__all__ = ["INSTRUCTION_MODES", "CellVerdict", "GateError", "GateSettings", "GateVerdict", "Interval", "ProjectRecord"]


class GateError(RuntimeError):
    """The gate cannot judge at all (exit 2): the message names the cause and the fix."""


@dataclass(frozen=True)
class GateSettings:
    """How hard the gate measures.

    Attributes
    ----------
    min_rounds : int
        Interleaved rounds every time cell gets (at least 5).
    max_rounds : int
        Rounds after which an undecided cell stops getting more.
    batch : int
        Rounds added per pass to an undecided cell.
    warmups : int
        Samples per side discarded before the rounds (one at least is taken: whether it
        ran on one thread decides if both sides share a CPU, ``bootmark.core.cpus``).
    sample_target_s : float
        Seconds one sample should take; ``number`` is chosen to reach it.
    budget_s : float or None
        Seconds after which no rounds are added (every cell still gets ``min_rounds``,
        and slower cells are still measured a second time).
    control_tolerance : float
        The drift control's allowed factor either way.
    peakmem_pairs, track_pairs : int
        Interleaved pairs of samples for peakmem and track cells.
    instructions : str
        When instructions retired settle a time cell (:mod:`bootmark.gate.instructions`):
        ``auto`` (cells wall time left undecided, and on a busy runner the cells it
        flagged), ``always`` (every flagged or undecided cell) or ``never``.

    Examples
    --------
    >>> from bootmark.gate.verdicts import GateSettings
    >>> GateSettings(budget_s=120.0).min_rounds
    10
    >>> GateSettings(min_rounds=3)
    Traceback (most recent call last):
        ...
    bootmark.gate.verdicts.GateError: rounds must satisfy 5 <= min_rounds <= max_rounds and batch >= 1, ...
    """

    min_rounds: int = 10
    max_rounds: int = 40
    batch: int = 10
    warmups: int = 2
    sample_target_s: float = 0.02
    budget_s: float | None = None
    control_tolerance: float = 1.10
    peakmem_pairs: int = 3
    track_pairs: int = 3
    instructions: str = "auto"

    def __post_init__(self):
        if self.min_rounds < 5 or self.max_rounds < self.min_rounds or self.batch < 1:
            raise GateError(
                f"rounds must satisfy 5 <= min_rounds <= max_rounds and batch >= 1, got min_rounds="
                f"{self.min_rounds}, max_rounds={self.max_rounds}, batch={self.batch}"
            )
        if self.instructions not in INSTRUCTION_MODES:
            raise GateError(f"--instructions must be one of {', '.join(INSTRUCTION_MODES)}, got {self.instructions!r}")
        if self.budget_s is not None and not self.budget_s > 0:
            raise GateError(f"--budget must be a positive number of seconds, got {self.budget_s}")


@dataclass(frozen=True)
class Interval:
    """A current/baseline ratio: its median and the interval around it.

    Attributes
    ----------
    median, low, high : float
    method : str
        ``block bootstrap 95%`` (time cells) or ``range of pairs`` (peakmem, track).
    """

    median: float
    low: float
    high: float
    method: str

    def to_json(self) -> dict:
        """The receipt's form."""
        return {"median": self.median, "low": self.low, "high": self.high, "method": self.method}

    @classmethod
    def from_json(cls, data: Mapping | None) -> Interval | None:
        """The interval a receipt holds (None for None)."""
        return None if data is None else cls(data["median"], data["low"], data["high"], data["method"])


@dataclass(frozen=True)
class CellVerdict:
    """What the gate found for one cell.

    Attributes
    ----------
    label : str
        ``benchmark(params)``, as asv prints it.
    kind : str
        ``time``, ``peakmem``, ``track`` or ``mem``.
    status : str
        ``regression`` (slower, confirmed), ``unconfirmed`` (slower once, not again),
        ``improvement`` (faster beyond tolerance, seen twice), ``unconfirmed-improvement``
        (faster once, not again), ``same`` (decided, within tolerance), ``undecided`` (the
        interval straddles the tolerance, or the budget ran out first), ``incomparable``
        (slower, but the control moved), ``broken`` (fails on the current side), ``new`` (fails on the baseline only),
        ``skipped`` (setup raised NotImplementedError).
    tolerance : float
    unit : str
        ``s`` (seconds per call), ``bytes`` or the track's unit.
    baseline, current : tuple of float
        Each side's samples, in ``unit``, paired by round.
    ratio : Interval or None
        current / baseline.
    confirmation : Interval or None
        The second measurement of a slower or faster cell.
    decider : Interval or None
        The third measurement, taken when the second was undecided.
    number : int or None
        Calls per timed sample.
    note : str
        Why, for broken, new, skipped and budget-cut cells (a failure's whole traceback).
    pretty_name : str or None
        The benchmark's asv ``pretty_name``, when it has one (shown beside the label).
    instructions : Mapping or None
        Both sides' instructions per call, their ratio, the calls counted and the tool,
        when they settled the cell (:mod:`bootmark.gate.instructions`).
    """

    label: str
    kind: str
    status: str
    tolerance: float
    unit: str
    baseline: tuple[float, ...] = ()
    current: tuple[float, ...] = ()
    ratio: Interval | None = None
    confirmation: Interval | None = None
    decider: Interval | None = None
    number: int | None = None
    note: str = ""
    pretty_name: str | None = None
    instructions: Mapping | None = None

    @property
    def decided_by(self) -> str | None:
        """``instructions`` when instructions retired settled the cell, ``wall time`` for
        another time cell, None for the other kinds.

        Examples
        --------
        >>> from bootmark.gate.verdicts import CellVerdict
        >>> CellVerdict("b", "time", "same", 1.1, "s").decided_by
        'wall time'
        """
        if self.instructions:
            return "instructions"
        return "wall time" if self.kind == "time" else None

    def median_round(self) -> tuple[float, float] | None:
        """The baseline and current samples of the round whose ratio is the median (the
        lower one of an even count): the two values a table shows beside the ratio, so
        that they agree with it. None without samples.

        Examples
        --------
        >>> from bootmark.gate.verdicts import CellVerdict
        >>> cell = CellVerdict("b", "time", "same", 1.1, "s", baseline=(2.0, 4.0, 1.0), current=(2.2, 3.0, 1.0))
        >>> cell.median_round()
        (1.0, 1.0)
        """
        pairs = [(before, after) for before, after in zip(self.baseline, self.current, strict=True) if before > 0]
        if not pairs:
            return None
        ordered = sorted(pairs, key=lambda pair: pair[1] / pair[0])
        return ordered[(len(ordered) - 1) // 2]

    @classmethod
    def from_json(cls, data: Mapping) -> CellVerdict:
        """The cell verdict a gate receipt holds (``body.cells[i]``), the inverse of :meth:`to_json`.

        Examples
        --------
        >>> from bootmark.gate.verdicts import CellVerdict
        >>> cell = CellVerdict("b", "time", "same", 1.1, "s", baseline=(2.0,), current=(2.1,))
        >>> CellVerdict.from_json(cell.to_json()) == cell
        True
        """
        return cls(
            data["label"],
            data["kind"],
            data["status"],
            data["tolerance"],
            data["unit"],
            tuple(data["baseline"]),
            tuple(data["current"]),
            Interval.from_json(data["ratio"]),
            Interval.from_json(data["confirmation"]),
            Interval.from_json(data.get("decider")),
            data["number"],
            data["note"],
            data.get("pretty_name"),
            data.get("instructions"),
        )

    def to_json(self) -> dict:
        """The receipt's form."""
        return {
            "label": self.label,
            "kind": self.kind,
            "status": self.status,
            "tolerance": self.tolerance,
            "unit": self.unit,
            "baseline": list(self.baseline),
            "current": list(self.current),
            "ratio": self.ratio.to_json() if self.ratio else None,
            "confirmation": self.confirmation.to_json() if self.confirmation else None,
            "decider": self.decider.to_json() if self.decider else None,
            "number": self.number,
            "note": self.note,
        } | {
            key: value
            for key, value in (
                ("pretty_name", self.pretty_name),
                ("decided_by", self.decided_by),
                ("instructions", dict(self.instructions) if self.instructions else None),
            )
            if value is not None
        }


@dataclass(frozen=True)
class ProjectRecord:
    """The gated project, for the receipt: what was measured, not what measured it.

    Attributes
    ----------
    name : str or None
        The ``[project] name`` of its pyproject.toml (else the checkout folder's name).
    version : str or None
        Its installed or declared version, when known.
    commit : str or None
        The current side's commit.
    dirty : bool
    framework : str
        ``asv`` or ``pytest``.
    python : str
        The Python version of the workers.
    distributions : Mapping[str, str]
        The versions of what the current side's worker loaded (the suite's imports).
    """

    name: str | None
    version: str | None
    commit: str | None
    dirty: bool
    framework: str
    python: str
    distributions: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, config, side: Side, suite) -> ProjectRecord:
        """The record of ``config``'s project, gated on ``side`` whose worker found ``suite``."""
        name, version = _declared(config.config_file)
        name = name or os.path.basename(config.root)
        distributions = dict(suite.distributions or {})
        installed = next((distributions[key] for key in distributions if _normal(key) == _normal(name)), None)
        return cls(
            name=name,
            version=installed or version,
            commit=side.revision,
            dirty=side.dirty,
            framework=config.framework,
            python=suite.python,
            distributions=distributions,
        )

    def to_json(self) -> dict:
        """The receipt's form."""
        return {
            "name": self.name,
            "version": self.version,
            "commit": self.commit,
            "dirty": self.dirty,
            "framework": self.framework,
            "python": self.python,
            "distributions": dict(sorted(self.distributions.items())),
        }


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _declared(pyproject: str | None) -> tuple[str | None, str | None]:
    """``[project] name`` and ``version`` of ``pyproject`` (None where absent)."""
    if pyproject is None:
        return None, None
    with open(pyproject, "rb") as stream:
        project = tomllib.load(stream).get("project", {})
    version = project.get("version")
    return project.get("name"), version if isinstance(version, str) else None


@dataclass(frozen=True)
class GateVerdict:
    """The whole gate: both sides, every cell, the control and the problems.

    Attributes
    ----------
    baseline, current : Side
    cells : tuple of CellVerdict
    control : Interval or None
        The drift control's current / baseline ratio.
    problems : tuple of str
        What keeps the gate from judging (each makes the exit code 2).
    warnings : tuple of str
        What the reader should know but does not block a verdict.
    settings : GateSettings
    wall_seconds : float
    budget_spent : bool
        Whether the budget stopped rounds from being added.
    project : ProjectRecord or None
        The gated project.
    runner : Mapping or None
        How busy the runner was: ``other_cpus`` (other processes' CPUs while the cells
        were first measured; None where unknown), ``busy``, ``instructions`` (the mode)
        and ``counter`` (valgrind's version, or None).
    """

    baseline: Side
    current: Side
    cells: tuple[CellVerdict, ...]
    control: Interval | None
    problems: tuple[str, ...]
    warnings: tuple[str, ...]
    settings: GateSettings
    wall_seconds: float
    budget_spent: bool = False
    project: ProjectRecord | None = None
    runner: Mapping | None = None

    def with_status(self, status: str) -> list[CellVerdict]:
        """The cells whose status is ``status``."""
        return [cell for cell in self.cells if cell.status == status]

    @property
    def control_moved(self) -> bool:
        """Whether the drift control's interval lies wholly outside its tolerance."""
        limit = self.settings.control_tolerance
        return self.control is not None and (self.control.low > limit or self.control.high < 1 / limit)

    @property
    def exit_code(self) -> int:
        """0 pass, 1 a confirmed regression, 2 cannot judge."""
        if self.control_moved:
            return INCOMPARABLE
        if self.with_status("regression"):
            return REGRESSION
        judged = [cell for cell in self.cells if cell.status not in ("broken", "new", "skipped")]
        return INCOMPARABLE if self.problems or not judged else PASS
