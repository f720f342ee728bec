"""The main job: the S1 single-series example."""

import math

from bootmark.cli.example import s1_rows
from bootmark.cli.main import main


def test_s1_analytic_standard_error_is_the_published_figure():
    phi, n = 0.7, 200
    process_sd = 1 / math.sqrt(1 - phi**2)
    expected = process_sd / math.sqrt(n) * math.sqrt((1 + phi) / (1 - phi))
    _, rows, analytic = s1_rows(n_bootstraps=99)
    assert analytic == expected and round(analytic, 2) == 0.24
    iid, *blocks = rows
    # The i.i.d. SE ignores the autocorrelation; every block method's SE is larger.
    assert all(block.standard_error > iid.standard_error for block in blocks)
    assert all(block.block_length > 1 for block in blocks)


def test_cli_prints_both_intervals_and_the_analytic_se(capsys):
    assert main(["example", "--n-bootstraps", "99"]) == 0
    out = capsys.readouterr().out
    assert "i.i.d." in out and "moving block" in out and "analytic SE of the mean: 0.2357" in out
    assert "90% percentile interval" in out
