"""A child process spoken to one line at a time: the workers of ``bootmark versus`` and of
``bootmark gate``.

Each request is one line on the child's stdin and each reply one line on its stdout. A
reply that does not come within its timeout, or a child that exits, kills the child and
raises the caller's error type with the tail of the child's stderr, so that a hang or a
crash ends in a message instead of a blocked CI job. No signals are used (the harness
may run threads).
"""

from __future__ import annotations

import select
import subprocess
from collections.abc import Mapping, Sequence
from typing import IO

__all__ = ["LineProcess", "last_line"]


def last_line(text: str) -> str:
    """The last non-blank line of ``text``, stripped (an error's own message, after its
    traceback); ``""`` for blank text.

    >>> last_line("Traceback (most recent call last):\\n  ...\\nValueError: n must be positive\\n\\n")
    'ValueError: n must be positive'
    """
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else ""


class LineProcess:
    """A child process with a line protocol on its stdin and stdout.

    Parameters
    ----------
    command : sequence of str
        The child's command line.
    label : str
        How errors name it, e.g. ``"the baseline worker"``.
    log : file
        A readable and writable text file that receives the child's stderr; its tail goes
        into errors.
    error : type of Exception
        What a child that stops or hangs raises.
    environment : Mapping, optional
        The child's environment variables (default: this process's).
    cwd : str, optional
        The child's working directory.
    tail_chars : int, optional
        How much of the end of ``log`` an error quotes.
    """

    def __init__(
        self,
        command: Sequence[str],
        label: str,
        log: IO[str],
        error: type[Exception],
        environment: Mapping[str, str] | None = None,
        cwd: str | None = None,
        tail_chars: int = 3000,
    ) -> None:
        self.label, self.log, self.error, self.tail_chars = label, log, error, tail_chars
        self.process = subprocess.Popen(
            list(command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            env=None if environment is None else dict(environment),
            cwd=cwd,
            text=True,
            bufsize=1,
        )

    def send(self, line: str) -> None:
        """Write one request line (a newline is added); a dead child is reported by the
        next :meth:`read`, with its stderr."""
        try:
            self.process.stdin.write(line + "\n")
            self.process.stdin.flush()
        except OSError:
            pass

    def read(self, timeout: float) -> str:
        """The next reply line.

        Raises
        ------
        error
            The child exited, or sent nothing within ``timeout`` seconds (it is killed).
        """
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        line = self.process.stdout.readline() if ready else ""
        if line:
            return line
        self.process.kill()
        self.process.wait()
        self.log.seek(0)
        tail = self.log.read()[-self.tail_chars :]
        reason = f"no reply within {timeout:.0f} s" if not ready else f"exit code {self.process.returncode}"
        raise self.error(f"{self.label} stopped ({reason}):\n{tail}")

    def stop(self, last_request: str) -> None:
        """Send ``last_request`` (the child's cue to end), close its stdin and wait; a child
        that is already dead or hangs for a minute is killed."""
        try:
            if self.process.poll() is None:
                self.process.stdin.write(last_request + "\n")
                self.process.stdin.close()
                self.process.wait(timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()
        self.process.stdout.close()
