"""The library's error types.

Every error a user can provoke with bad input is one of these, with a message that names the
file, the line and what is wrong. The CLI turns them into a one-line message and exit code 2.
The warnings the library issues on purpose are `StreamtopicsWarning`s (the CLI prints them on
one line too).
"""

from __future__ import annotations

import os
import sys
import warnings


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


class ResourceError(StreamtopicsError, MemoryError):
    """An operation refused before it starts because it would need more memory than the
    machine has (`streamtopics.memory.check_memory`); the message names the estimate, the
    memory available and what to change."""


class StreamtopicsWarning(UserWarning):
    """Base class of the warnings the library issues on purpose."""


class MemoryWarning(StreamtopicsWarning):
    """An operation that will use more than a stated share of the available memory."""


class TopicCountWarning(StreamtopicsWarning):
    """A number of topics K out of proportion with the data: above the vocabulary size, or
    above a stated fraction of the documents."""


def warn(message: str, category: type[Warning]) -> None:
    """`warnings.warn` attributed to the first caller outside the package (the user's line),
    however deep inside the library the warning is raised."""
    package = os.path.dirname(os.path.abspath(__file__)) + os.sep
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level + 1)
