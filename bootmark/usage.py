"""The error a command line reports as the user's to fix.

It sits in the harness core, below every verb's module, so ``bootmark.cli`` and
``bootmark.studies.cli`` can both raise it without importing each other.
"""

__all__ = ["UsageError"]


class UsageError(Exception):
    """A user error the command line reports in one line, exit 2."""
