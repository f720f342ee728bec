"""What ``bootmark gate`` decides, as records: its settings, a ratio's interval, each
cell's verdict and the whole gate's, with the exit code that follows from them (the rules:
:mod:`bootmark.gate.run`).
"""

from __future__ import annotations

from dataclasses import dataclass

from bootmark.core.errors import INCOMPARABLE, PASS, REGRESSION
from bootmark.gate.sides import Side

__all__ = ["CellVerdict", "GateError", "GateSettings", "GateVerdict", "Interval"]


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
        Samples per side discarded before the rounds.
    sample_target_s : float
        Seconds one sample should take; ``number`` is chosen to reach it.
    budget_s : float or None
        Seconds after which no rounds are added (every cell still gets ``min_rounds``,
        and slower cells are still measured a second time).
    control_tolerance : float
        The drift control's allowed factor either way.
    peakmem_pairs, track_pairs : int
        Interleaved pairs of samples for peakmem and track cells.

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

    def __post_init__(self):
        if self.min_rounds < 5 or self.max_rounds < self.min_rounds or self.batch < 1:
            raise GateError(
                f"rounds must satisfy 5 <= min_rounds <= max_rounds and batch >= 1, got min_rounds="
                f"{self.min_rounds}, max_rounds={self.max_rounds}, batch={self.batch}"
            )
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


@dataclass(frozen=True)
class CellVerdict:
    """What the gate found for one cell.

    Attributes
    ----------
    label : str
        ``benchmark(params)``, as asv prints it.
    kind : str
        ``time``, ``peakmem`` or ``track``.
    status : str
        ``regression`` (slower, confirmed), ``unconfirmed`` (slower once, not again),
        ``improvement``, ``same`` (decided, within tolerance), ``undecided`` (the interval
        straddles the tolerance), ``incomparable`` (slower, but the control moved),
        ``broken`` (fails on the current side), ``new`` (fails on the baseline only),
        ``skipped`` (setup raised NotImplementedError).
    tolerance : float
    unit : str
        ``s`` (seconds per call), ``bytes`` or the track's unit.
    baseline, current : tuple of float
        Each side's samples, in ``unit``.
    ratio : Interval or None
        current / baseline.
    confirmation : Interval or None
        The second measurement of a slower cell.
    decider : Interval or None
        The third measurement, taken when the second was undecided.
    number : int or None
        Calls per timed sample.
    note : str
        Why, for broken, new and skipped cells (the error's last line).
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
        }


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
