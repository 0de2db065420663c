"""The library's error types.

Every error a user can provoke with bad input is one of these, with a message that names the
file, the line and what is wrong. The CLI turns them into a one-line message and exit code 2.
"""

from __future__ import annotations


class StreamtopicsError(Exception):
    """Base class of every error the library raises on purpose."""


class InputError(StreamtopicsError, ValueError):
    """Bad input data: a malformed file, an empty corpus, a missing field.

    ``path`` and ``line`` (1-based) locate the problem when it comes from a file.
    """

    def __init__(self, message: str, path: str | None = None, line: int | None = None):
        self.path = None if path is None else str(path)
        self.line = line
        self.problem = message
        where = ""
        if self.path is not None:
            where = self.path + (f", line {line}" if line is not None else "") + ": "
        super().__init__(where + message)


class ModelFileError(StreamtopicsError, ValueError):
    """A model file that cannot be loaded: truncated, corrupted, foreign or of a newer version."""
