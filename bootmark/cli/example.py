"""The S1 single-series example (docs/published-figures.md), computed by the reference twin.

One AR(1) series (phi = 0.7, n = 200, burn-in 500, data seed 42); 90% percentile
intervals for its mean under the i.i.d. bootstrap and the block bootstraps with
automatic (Politis-White) block lengths, each with its bootstrap standard error, beside
the analytic standard error of the mean.
"""

from dataclasses import dataclass

from bootmark import reference
from bootmark.reference.intervals import bootstrap_standard_error
from bootmark.studies.dgp import ar1, ar1_mean_standard_error

S1_PHI = 0.7
S1_N = 200
S1_DATA_SEED = 42


@dataclass(frozen=True)
class ExampleRow:
    """One resampler's result: interval bounds and SE in the units of the data."""

    label: str
    block_length: object
    lower: float
    upper: float
    standard_error: float

    @property
    def width(self):
        return self.upper - self.lower


def s1_rows(n_bootstraps=999, seed=2026, alpha=0.10):
    """Rows of the S1 example and the analytic SE. ``seed`` seeds the bootstrap streams."""
    x = ar1(S1_N, S1_PHI, seed=S1_DATA_SEED).tolist()
    methods = [
        ("i.i.d.", reference.IID()),
        ("moving block", reference.MovingBlock("auto")),
        ("circular block", reference.CircularBlock("auto")),
        ("stationary", reference.StationaryBlock("auto")),
    ]
    rows = []
    for label, method in methods:
        result = reference.bootstrap_reduce(x, method, "mean", n_bootstraps, seed)
        low, high = result.quantile([alpha / 2, 1 - alpha / 2])
        length = getattr(result.method, "block_length", 1)
        rows.append(ExampleRow(label, length, low, high, bootstrap_standard_error(result.statistics)))
    sample_mean = sum(x) / len(x)
    return sample_mean, rows, ar1_mean_standard_error(S1_N, S1_PHI)


def render_s1(n_bootstraps=999, seed=2026, alpha=0.10):
    """The S1 example as printable text."""
    sample_mean, rows, analytic = s1_rows(n_bootstraps, seed, alpha)
    coverage = round(100 * (1 - alpha))
    lines = [
        f"S1: AR(1) phi={S1_PHI}, n={S1_N}, burn-in 500, data seed {S1_DATA_SEED}; "
        f"B={n_bootstraps}, bootstrap seed {seed}, reference twin",
        f"sample mean {sample_mean:+.4f} (true mean 0)",
        "",
        f"{'resampler':<16}{'block':>6}  {f'{coverage}% percentile interval':>26}"
        f"{'width':>8}{'SE':>8}{'SE/analytic':>13}",
    ]
    for row in rows:
        lines.append(
            f"{row.label:<16}{row.block_length:>6}  [{row.lower:+.4f}, {row.upper:+.4f}]"
            f"{'':>8}{row.width:>8.4f}{row.standard_error:>8.4f}{row.standard_error / analytic:>13.2f}"
        )
    lines += [
        "",
        f"analytic SE of the mean: {analytic:.4f}  (sigma/sqrt(n)) * sqrt((1+phi)/(1-phi)), sigma the process sd",
    ]
    return "\n".join(lines)
