"""``bootmark memory``: peak resident memory over B, each point in a fresh process.

For n = 2000 and the moving-block bootstrap (block length 10) it measures, for each B in
``REPLICATES``:

* ``engine_reduce``: engine.bootstrap_reduce(x, method, "mean", B);
* ``engine_materialize``: engine.bootstrap(x, method, B).values() (budget raised so the
  tensor is built);
* ``arch``: MovingBlockBootstrap(10, x).apply(np.mean, reps=B);

and once the materializing path under a 256 MiB budget, which must be refused with the
engine's MEMORY_BUDGET error rather than allocate.

Each point starts a new interpreter and warms the path on a tiny problem (so compiled
kernels and imports are in the baseline). On Linux it then resets the process's RSS
high-water mark to its current RSS (``/proc/self/clear_refs``), runs the request and
reads the high-water mark (VmHWM): the difference is the request's own peak, even when
start-up peaked higher. Elsewhere it falls back to the rise in ``ru_maxrss``, which can
read low; each point records which measure it used.
"""

from __future__ import annotations

import json
import subprocess
import sys

from tqdm import tqdm

from bootmark.bench.grid import BLOCK_LENGTH
from bootmark.core import provenance, receipts

__all__ = ["REFUSAL_BUDGET", "REPLICATES", "SIZE", "MemoryRunError", "measure", "render_table", "run_sweep"]

SIZE = 2000  # the series length n of every point
REPLICATES = (1000, 2000, 5000, 10000, 20000, 50000)  # the replicate counts B swept
REFUSAL_BUDGET = 256 * 2**20  # bytes: the budget the materializing path must be refused under

PROGRAM = """
import json, resource, sys
import numpy as np
path, n, B, budget = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
x = np.random.default_rng(0).standard_normal(n)
from bootmark.bench.grid import arch_path, engine_method  # the bench grid's own calls
if path == "arch":
    def run(reps):
        return arch_path("moving", x, reps)()
else:
    from bootmark import engine
    method = engine_method("moving")
    def run(reps):
        if path == "engine_reduce":
            return engine.bootstrap_reduce(x, method, "mean", reps, seed=1).statistics
        return engine.bootstrap(x, method, reps, seed=1, memory_budget=budget).values()
run(20)

def status_kib(field):
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])

try:  # Linux: reset the high-water mark to the current RSS, so the peak is the request's own
    with open("/proc/self/clear_refs", "w") as clear:
        clear.write("5")
    measure, before = "vmhwm_reset", status_kib("VmRSS")
except OSError:  # elsewhere: the process high-water mark (ru_maxrss: KiB on Linux, bytes on macOS)
    scale = 1024 if sys.platform == "darwin" else 1
    measure, before = "ru_maxrss", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / scale
outcome = "ok"
try:
    result = run(B)
except Exception as error:
    outcome = f"{type(error).__name__}: {error}"
if measure == "vmhwm_reset":
    after = status_kib("VmHWM")
else:
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / (1024 if sys.platform == "darwin" else 1)
print(json.dumps({"measure": measure, "baseline_mib": before / 1024, "peak_mib": after / 1024,
                  "added_mib": max(after - before, 0) / 1024, "outcome": outcome}))
"""


class MemoryRunError(RuntimeError):
    """A measuring subprocess failed; nothing is written.

    A ``RuntimeError``, raised by :func:`measure` (the subprocess exited with an error)
    and :func:`run_sweep` (an implausible outcome: a request failed that was not the
    budget refusal, or the refusal did not happen).
    """


def measure(path: str, n_bootstraps: int, budget: int = 16 * 2**30, n: int = SIZE) -> dict[str, object]:
    """One point: {"path", "n_bootstraps", "budget_bytes", "measure", "baseline_mib", "peak_mib", "added_mib",
    "outcome"}.

    Parameters
    ----------
    path : str
        ``"engine_reduce"``, ``"engine_materialize"`` or ``"arch"``.
    n_bootstraps : int
        The replicates B.
    budget : int, optional
        The engine's memory budget, in bytes (default 16 GiB).
    n : int, optional
        The series length (default :data:`SIZE`).

    Returns
    -------
    dict
        The point; memory in MiB, ``outcome`` ``"ok"`` or the error the request raised.

    Raises
    ------
    MemoryRunError
        The measuring subprocess failed.
    """
    completed = subprocess.run(
        [sys.executable, "-c", PROGRAM, path, str(n), str(n_bootstraps), str(budget)],
        capture_output=True,
        text=True,
        check=False,
    )
    if completed.returncode != 0:
        raise MemoryRunError(f"{path} at B={n_bootstraps} failed in its subprocess:\n{completed.stderr[-2000:]}")
    point = json.loads(completed.stdout.strip().splitlines()[-1])
    return {"path": path, "n_bootstraps": n_bootstraps, "budget_bytes": budget, **point}


def run_sweep(replicates: tuple[int, ...] = REPLICATES, show_progress: bool = True) -> dict:
    """Measure every point and return the sealed receipt (not yet written).

    Parameters
    ----------
    replicates : sequence of int, optional
        The replicate counts B (default :data:`REPLICATES`).
    show_progress : bool, optional
        Show a progress bar on stderr.

    Returns
    -------
    dict
        A sealed memory receipt (:func:`bootmark.core.receipts.seal`).

    Raises
    ------
    MemoryRunError
        A subprocess failed or an outcome is implausible.
    """
    started = provenance.collect()
    skipped = {}
    if provenance.package_version("arch") is None:
        skipped["arch"] = "arch is not installed (pip install arch==8.0.0)"
    paths = [p for p in ("engine_reduce", "engine_materialize", "arch") if p not in skipped]
    jobs = [(path, b, 16 * 2**30) for b in replicates for path in paths] + [
        ("engine_materialize", max(replicates), REFUSAL_BUDGET)
    ]
    points = []
    for path, b, budget in tqdm(jobs, desc="memory points", unit="process", file=sys.stderr, disable=not show_progress):
        points.append(measure(path, b, budget))
    for point in points:  # tripwires: a failed request that was not the budget refusal
        refused = point["budget_bytes"] == REFUSAL_BUDGET
        if (point["outcome"] == "ok") == refused or (
            refused and not point["outcome"].startswith("InvalidParameterError: memory_budget:")
        ):
            raise MemoryRunError(
                f"implausible outcome for {point['path']} at B={point['n_bootstraps']}: {point['outcome'][:300]}"
            )
    started["finished_utc"] = provenance.utc_now()
    body = {"n": SIZE, "method": "moving", "block_length": BLOCK_LENGTH, "skipped_paths": skipped, "points": points}
    return receipts.seal("memory", started, body)


def render_table(receipt: dict) -> str:
    """Markdown table: MiB added at peak per path and B, and the refusal line.

    Parameters
    ----------
    receipt : dict
        A memory receipt.

    Returns
    -------
    str
        The table, one row per B, then a line per refused request.

    Examples
    --------
    >>> import os
    >>> from bootmark.bench import memory
    >>> from bootmark.core import receipts, workspace
    >>> folder = os.path.join(workspace.find().root, "receipts", "memory")
    >>> receipt = receipts.load_receipt(os.path.join(folder, "memory-amd-epyc-20261202T162804Z-7c49df4750.json"))
    >>> print("\\n".join(memory.render_table(receipt).splitlines()[:3]))
    | B | engine_reduce (MiB) | engine_materialize (MiB) | arch (MiB) |
    |---:|---:|---:|---:|
    | 1000 | 0.0 | 16.0 | 0.0 |
    """
    body = receipt["body"]
    paths = sorted({p["path"] for p in body["points"]}, key=["engine_reduce", "engine_materialize", "arch"].index)
    grid = {(p["path"], p["n_bootstraps"]): p for p in body["points"] if p["outcome"] == "ok"}
    sizes = sorted({b for _, b in grid})
    lines = ["| B | " + " | ".join(f"{p} (MiB)" for p in paths) + " |", "|---:|" + "---:|" * len(paths)]
    for b in sizes:
        cells = [f"{grid[(p, b)]['added_mib']:.1f}" if (p, b) in grid else "n/a" for p in paths]
        lines.append(f"| {b} | " + " | ".join(cells) + " |")
    for point in body["points"]:
        if point["outcome"] != "ok":
            lines.append(
                f"\nWith a {point['budget_bytes'] / 2**20:.0f} MiB budget, {point['path']} at "
                f"B = {point['n_bootstraps']} is refused: `{point['outcome'][:200]}`"
            )
    return "\n".join(lines)
