"""A study receipt as data: :func:`load` and a tidy table of its performance measures.

``bootmark.studies.load(path).to_frame()`` is a pandas DataFrame with one row per
(n, resampler, kind, measure): columns ``n``, ``resampler``, ``kind``, ``measure``,
``estimate`` and ``mc_se`` (the measures of docs/measures.md; kind ``"point"`` for the
measures of the point estimate and its SE; undefined figures are NaN). ``bootmark study
show --format csv|json`` prints the same table, ``--format markdown`` the study's coverage
table and verdicts before it. ``to_frame(per_series=True)`` gives every series' interval
instead (:data:`SERIES_COLUMNS`).

A receipt made before the performance measures were recorded gets them computed from its
per-series outcomes, with the same code, on load; a receipt that records them is read as
it is.

Examples
--------
>>> import os
>>> from bootmark.core import workspace
>>> folder = os.path.join(workspace.find().receipts, "studies")
>>> path = os.path.join(folder, "study-S1-v1-registered-intel-r-xeon-r-processor-20261203T072511Z-cb0fdf48bd.json")
>>> study = load(path)
>>> study.id, study.version
('S1', 1)
>>> frame = study.to_frame()
>>> list(frame.columns)
['n', 'resampler', 'kind', 'measure', 'estimate', 'mc_se']
>>> float(frame.query("resampler == 'engine.IID' and measure == 'coverage'")["estimate"].iloc[0])
0.5085
>>> relative = frame.query("resampler == 'engine.IID' and measure == 'relative_error_modse'")
>>> round(float(relative["estimate"].iloc[0]), 3)  # the i.i.d. SE: sqrt((1 - phi)/(1 + phi)) - 1 = -0.58
-0.574
"""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bootmark.core.receipts import ReceiptError, load_receipt

from .summary import performance, shown_once

if TYPE_CHECKING:
    from typing import Any

    import pandas

__all__ = ["COLUMNS", "FORECAST_SERIES_COLUMNS", "FORMATS", "SERIES_COLUMNS", "StudyReceipt", "load"]

COLUMNS = ("n", "resampler", "kind", "measure", "estimate", "mc_se")
# A forecast study's per-series frame: every step's interval beside the value realised.
FORECAST_SERIES_COLUMNS = (
    "n",
    "series",
    "resampler",
    "horizon",
    "lower",
    "upper",
    "covered",
    "point",
    "realised",
    "origin",
)
SERIES_COLUMNS = (
    "n",
    "series",
    "resampler",
    "kind",
    "lower",
    "upper",
    "covered",
    "point",
    "standard_error",
    "block_length",
    "truth",
)
FORMATS = ("text", "csv", "json", "markdown")


@dataclass(frozen=True)
class StudyReceipt:
    """A loaded coverage-study receipt and its performance measures.

    Attributes
    ----------
    path : str
        The receipt file.
    id : str
        The study id.
    version : int
        The protocol version.
    title : str
        The study's title.
    alpha : float
        Two-sided tail of its intervals (nominal coverage 1 - alpha).
    body : dict
        The receipt's body, as read (see docs/receipts.md).
    rows : tuple of dict
        The performance rows, ``{"n", "resampler", "kind", "measure", "estimate",
        "mc_se"}``, in cell, resampler, kind and measure order.
    """

    path: str
    id: str
    version: int
    title: str
    alpha: float
    body: dict = field(repr=False)
    rows: tuple = field(repr=False)

    def to_frame(self, per_series: bool = False) -> pandas.DataFrame:
        """The tidy table: one row per (n, resampler, kind, measure); or, with
        ``per_series``, one row per (n, series, resampler, kind): every interval the run
        judged.

        For a forecast study (``[design] target = "forecast"``) ``kind`` is the horizon,
        ``"h1"`` .. ``"hH"``, and the per-series frame has the columns
        :data:`FORECAST_SERIES_COLUMNS`: ``horizon`` (int, 1-based), each step's ``lower``
        and ``upper``, ``covered``, the forecaster's ``point`` (NaN when it gave none), the
        value the process ``realised`` and the last observed value ``origin`` (data units).

        Parameters
        ----------
        per_series : bool, default False
            Return the per-series outcomes instead of the measures.

        Returns
        -------
        pandas.DataFrame
            Measures: columns :data:`COLUMNS`; ``n`` int64, ``estimate`` and ``mc_se``
            float64 (NaN where undefined), the rest strings.
            Per series: columns :data:`SERIES_COLUMNS`; ``n`` and ``series`` (the
            series' index within its n, 0-based) int64; ``resampler`` and ``kind``
            strings; ``lower``, ``upper``, ``point``, ``standard_error`` and ``truth``
            float64 in data units, ``block_length`` float64 (NaN where a resampler
            reports none, as ``standard_error`` is where it gives none); ``covered``
            bool (``lower <= truth <= upper``, the coverage measure's own test).

        Examples
        --------
        >>> import os
        >>> from bootmark.core import workspace
        >>> folder = os.path.join(workspace.find().receipts, "studies")
        >>> name = "study-S1-v1-registered-intel-r-xeon-r-processor-20261203T072511Z-cb0fdf48bd.json"
        >>> series = load(os.path.join(folder, name)).to_frame(per_series=True)
        >>> list(series.columns) == list(SERIES_COLUMNS)
        True
        >>> iid = series.query("n == 200 and resampler == 'engine.IID' and kind == 'percentile'")
        >>> len(iid), float(iid["covered"].mean())
        (2000, 0.5085)
        """
        # late: pandas is needed only for a frame, and costs a third of a second to import
        import pandas

        if per_series:
            return self._series_frame(pandas)
        frame = pandas.DataFrame(list(self.rows), columns=list(COLUMNS))
        frame["n"] = frame["n"].astype("int64")
        for column in ("estimate", "mc_se"):
            frame[column] = frame[column].astype("float64")
        return frame

    def _series_frame(self, pandas):
        """:meth:`to_frame` with ``per_series``: the cells' columns, one row per interval."""
        if self.body["design"].get("target") == "forecast":
            return self._forecast_frame(pandas)
        parts = []
        for cell in self.body["results"]["cells"]:
            truth = cell["truth"]["value"]
            for resampler, columns in _in_profile_order(self.body, cell["resamplers"]):
                count = len(columns["point"])
                shared = {
                    "point": columns["point"],
                    "standard_error": columns["standard_error"],
                    "block_length": columns.get("block_length") or [None] * count,
                }
                for kind, bounds in columns["intervals"].items():
                    part = pandas.DataFrame(
                        {
                            "n": cell["n"],
                            "series": range(count),
                            "resampler": resampler,
                            "kind": kind,
                            "lower": bounds["lower"],
                            "upper": bounds["upper"],
                            **shared,
                            "truth": truth,
                        }
                    )
                    parts.append(part)
        frame = pandas.concat(parts, ignore_index=True)
        for column in ("lower", "upper", "point", "standard_error", "block_length", "truth"):
            frame[column] = frame[column].astype("float64")  # None (not reported) -> NaN
        frame["n"] = frame["n"].astype("int64")
        frame["series"] = frame["series"].astype("int64")
        frame.insert(6, "covered", (frame["lower"] <= frame["truth"]) & (frame["truth"] <= frame["upper"]))
        return frame[list(SERIES_COLUMNS)]

    def _forecast_frame(self, pandas):
        """:meth:`to_frame` with ``per_series`` for a forecast study: one row per (n,
        series, resampler, horizon)."""
        # late: the CLI imports this module to build its parser, which must not load numpy
        import numpy as np

        parts = []
        for cell in self.body["results"]["cells"]:
            future = np.asarray(cell["future"], dtype=np.float64)  # (series, horizon)
            count, horizon = future.shape
            for resampler, columns in _in_profile_order(self.body, cell["resamplers"]):
                lower = np.asarray(columns["lower"], dtype=np.float64)
                upper = np.asarray(columns["upper"], dtype=np.float64)
                point = np.array(
                    [[math.nan] * horizon if steps is None else steps for steps in columns["point"]], dtype=np.float64
                )
                parts.append(
                    pandas.DataFrame(
                        {
                            "n": cell["n"],
                            "series": np.repeat(np.arange(count), horizon),
                            "resampler": resampler,
                            "horizon": np.tile(np.arange(1, horizon + 1), count),
                            "lower": lower.ravel(),
                            "upper": upper.ravel(),
                            "covered": ((lower <= future) & (future <= upper)).ravel(),
                            "point": point.ravel(),
                            "realised": future.ravel(),
                            "origin": np.repeat(np.asarray(cell["origin"], dtype=np.float64), horizon),
                        }
                    )
                )
        frame = pandas.concat(parts, ignore_index=True)
        for column in ("n", "series", "horizon"):
            frame[column] = frame[column].astype("int64")
        return frame[list(FORECAST_SERIES_COLUMNS)]

    def to_csv(self) -> str:
        """The tidy table as CSV text (header :data:`COLUMNS`; floats written with ``repr``,
        so they read back to the same bits; an undefined figure is an empty field)."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(COLUMNS)
        for row in self.rows:
            writer.writerow(
                ["" if row[c] is None else repr(row[c]) if isinstance(row[c], float) else row[c] for c in COLUMNS]
            )
        return out.getvalue()

    def to_json(self) -> str:
        """The tidy table as a JSON array of row objects (undefined figures are null)."""
        return json.dumps([{column: row[column] for column in COLUMNS} for row in self.rows], indent=1)

    def to_markdown(self) -> str:
        """The tidy table as a markdown table: estimate and MC SE to four significant
        digits; the measures of the point estimate once for the resamplers that share them
        (:func:`~bootmark.studies.summary.shown_once`; the csv, json and frame keep a row
        per resampler)."""
        lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * 3 + "---|" + "---:|" * 2]
        for row in shown_once(self.rows):
            cells = [str(row["n"]), row["resampler"], row["kind"], row["measure"]]
            cells += ["" if row[c] is None else f"{row[c]:.4g}" for c in ("estimate", "mc_se")]
            lines.append("| " + " | ".join(cells) + " |")
        return "\n".join(lines)

    def render(self, form: str) -> str:
        """The table in ``form``, one of ``"csv"``, ``"json"`` or ``"markdown"``.

        Raises
        ------
        ValueError
            Another form.
        """
        writers = {"csv": self.to_csv, "json": self.to_json, "markdown": self.to_markdown}
        if form not in writers:
            raise ValueError(f"format must be one of {', '.join(writers)}, got {form!r}")
        return writers[form]()


def _in_profile_order(body, resamplers):
    """(name, columns) of a cell's resamplers in the protocol's order (a receipt's JSON
    keeps them sorted by name), as the measures' rows have them."""
    order = {name: index for index, name in enumerate(body["profile"]["resamplers"])}
    return sorted(resamplers.items(), key=lambda item: order.get(item[0], len(order)))


def load(path: str) -> StudyReceipt:
    """Load a coverage-study receipt as data.

    Parameters
    ----------
    path : str
        A study receipt (``receipts/studies/<ID>-v<N>-...json``).

    Returns
    -------
    StudyReceipt
        Its identity, body and performance rows (:meth:`StudyReceipt.to_frame`).

    Raises
    ------
    bootmark.core.receipts.ReceiptError
        The file is not a valid receipt, or is not a coverage-study receipt.
    """
    receipt = load_receipt(path)
    body = receipt["body"]
    if receipt["kind"] != "study" or "cells" not in body.get("results", {}):
        raise ReceiptError(
            f"{path} is a {receipt['kind']} receipt without per-series outcomes; name a coverage-study receipt"
        )
    results = body["results"]
    rows = results["performance"] if "performance" in results else performance(results["cells"])
    study = body["study"]
    _check_rows(rows, path)
    return StudyReceipt(path, study["id"], study["version"], study["title"], body["design"]["alpha"], body, tuple(rows))


def _check_rows(rows: list[dict[str, Any]], path: str) -> None:
    """A row with a non-finite figure cannot come from bootmark: refuse it by name."""
    for row in rows:
        for column in ("estimate", "mc_se"):
            value = row[column]
            if value is not None and not math.isfinite(value):
                raise ReceiptError(f"{path}: performance row {row} has a non-finite {column}")
