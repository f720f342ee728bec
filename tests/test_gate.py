"""The speed gate's negative control: a deliberately slowed engine must fail it.

The slow-down is a sleep in every kernel dispatch (engine/parallel.py), switched on by
an environment variable that nothing but this test sets. The gate's pass on an
unchanged tree is exercised by .ci/run itself.
"""

import os
import subprocess
import sys

import pytest

from bootmark import compare, gate
from engine.parallel import NEGATIVE_CONTROL_SLEEP


@pytest.mark.skipif(gate.baseline_path() is None, reason="no committed quick-profile bench receipt")
def test_a_slowed_engine_fails_the_gate():
    environment = dict(os.environ, **{NEGATIVE_CONTROL_SLEEP: "0.02"})
    completed = subprocess.run([sys.executable, "-m", "bootmark.cli", "gate", "--no-progress"], env=environment,
                               capture_output=True, text=True, timeout=1200)
    assert completed.returncode == compare.REGRESSION, completed.stdout + completed.stderr
    assert "REGRESSION" in completed.stdout
