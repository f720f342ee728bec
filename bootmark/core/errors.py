"""The errors and exit codes every verb shares.

It sits in the harness core, below every room, so each verb's module can raise
:class:`UsageError` and return the same exit codes without importing another's.

Exit codes of every ``bootmark`` verb:

* ``OK`` 0: done, and every check passed (``PASS`` for a verdict);
* ``FINDING`` 1: a finding: a speed regression (``REGRESSION``), a failed study
  criterion, a receipt that does not verify;
* ``USAGE`` 2: a user error, printed as one line; for a verdict, ``INCOMPARABLE``: the
  two sides could not be judged against each other;
* ``STOPPED`` 3: a run stopped by a tripwire or a failed worker;
* ``BUG`` 70: a bug in bootmark;
* ``INTERRUPTED`` 130: interrupted (Ctrl-C).
"""

__all__ = [
    "BUG",
    "FINDING",
    "INCOMPARABLE",
    "INTERRUPTED",
    "OK",
    "PASS",
    "REGRESSION",
    "STOPPED",
    "USAGE",
    "UsageError",
]

OK, FINDING, USAGE, STOPPED, BUG, INTERRUPTED = 0, 1, 2, 3, 70, 130
# The verdicts of `bootmark compare`, `versus` and `gate`, as exit codes.
PASS, REGRESSION, INCOMPARABLE = OK, FINDING, USAGE


class UsageError(Exception):
    """A user error the command line reports in one line, exit 2.

    Raised by the verbs of :mod:`bootmark.cli` for a wrong argument, a missing file or a
    combination of options that cannot run; its message is the line printed, and it
    should say what to do instead.

    Examples
    --------
    >>> from bootmark.core.errors import UsageError
    >>> raise UsageError("--tolerance must be above 1, got 0.9")
    Traceback (most recent call last):
        ...
    bootmark.core.errors.UsageError: --tolerance must be above 1, got 0.9
    """
