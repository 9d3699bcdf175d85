"""The errors a user can cause, in one place.

The command line catches :class:`UsageError` (and only it): it prints the message as one line
and exits with status 2. Anything else is a bug and shows its traceback. Every class derives
from ``ValueError`` so that library callers can keep catching that.

Examples
--------
>>> from objsub_fast.runtime.errors import ParameterError, UsageError
>>> issubclass(ParameterError, UsageError) and issubclass(UsageError, ValueError)
True
"""
from __future__ import annotations

__all__ = ["UsageError", "ParameterError", "OutputError", "InterpretError", "TaskError",
           "VideoError"]


class UsageError(ValueError):
    """A problem with what the user asked for: reported as one line, exit status 2."""


class ParameterError(UsageError):
    """A parameter outside its allowed range; the message names both."""


class OutputError(UsageError):
    """An output folder that cannot be used: not a folder, not writable, or holding another
    dataset (the message says what to do)."""


class InterpretError(ValueError):
    """A prompt whose words do not fit the scene (``interpret_prompt`` refuses to guess)."""


class TaskError(UsageError):
    """A task (question) record the scorer cannot use; the message names the field and the
    allowed values. The scorer writes it into that task's result record and goes on."""


class VideoError(UsageError):
    """A model output the scorer cannot read or place on the canvas (missing, empty,
    undecodable, or not showing the task's first frame); written into that task's record."""
