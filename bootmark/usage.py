"""The error a command line reports as the user's to fix.

It sits in the harness core, below every verb's module, so ``bootmark.cli`` and
``bootmark.studies.cli`` can both raise it without importing each other.
"""

__all__ = ["UsageError"]


class UsageError(Exception):
    """A user error the command line reports in one line, exit 2.

    Raised by ``bootmark.cli`` and ``bootmark.studies.cli`` for a wrong argument, a
    missing file or a combination of options that cannot run; its message is the line
    printed, and it should say what to do instead.

    Examples
    --------
    >>> from bootmark.usage import UsageError
    >>> raise UsageError("--tolerance must be above 1, got 0.9")
    Traceback (most recent call last):
        ...
    bootmark.usage.UsageError: --tolerance must be above 1, got 0.9
    """
