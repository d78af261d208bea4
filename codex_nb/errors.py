"""Exceptions a programmer sees when they misuse the codex_nb API.

Failures the *model* must read are not exceptions: they are tool outputs with exact
spec text (see ``codex_nb.tools.tool_errors``). Everything here is for the person at the
keyboard, and every message says what was wrong and what to do instead.

    CodexNbError
    ├── ConfigError            bad config TOML / values
    ├── ToolCollisionError     two sources register the same tool name
    ├── ToolDefinitionError    a Python function cannot become a tool
    ├── TurnError              misuse of turns (already running, not started, ...)
    ├── TurnInterrupted        an awaited turn was stopped by the kernel's interrupt
    ├── ScriptedModelError     the strict scripted model was over- or under-used
    ├── HookError              bad hook configuration or an untrusted hook
    ├── AnswerError            a frontend answer for an unknown/settled id, or malformed
    │                          (codex_nb.answers)
    ├── AnswerPolicyError      a headless answer policy that cannot answer
    │                          (codex_nb.answers)
    ├── ModelError             a model provider failed (status, dropped stream, response.failed)
    └── CassetteError          a cassette file that cannot be read or written, or a request
                               it has no recording for
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "CassetteError",
    "CodexNbError",
    "ConfigError",
    "HookError",
    "ModelError",
    "ScriptedModelError",
    "ToolCallError",
    "ToolCollisionError",
    "ToolDefinitionError",
    "TurnError",
    "TurnInterrupted",
]


class CodexNbError(Exception):
    """Base class for every error codex_nb raises at its caller."""


class AnswerError(CodexNbError, ValueError):
    """An answer was rejected: unknown or settled id, or a malformed response.

    Public as ``codex_nb.errors.AnswerError``; defined here so that both the request broker and
    the answer checks (``frontend.normalize``, loaded with the first answer) can raise it."""


class ConfigError(CodexNbError, ValueError):
    """A configuration value or TOML document is invalid."""


class ToolCollisionError(CodexNbError):
    """A tool name is already owned by another source."""


class ToolDefinitionError(CodexNbError, TypeError):
    """A Python object cannot be turned into a tool."""


class TurnError(CodexNbError, RuntimeError):
    """A turn was used in a way its state does not allow."""


class ToolCallError(CodexNbError, TypeError):
    """``session.call_tool`` was given a tool name or arguments it cannot send."""


class ScriptedModelError(CodexNbError, AssertionError):
    """The strict scripted model was asked for more responses than it has, or left some unused."""


class HookError(CodexNbError):
    """A hook definition is invalid or may not run yet."""


class ModelError(CodexNbError):
    """A model provider failed the request (HTTP status, dropped or malformed stream, response.failed).

    ``retryable`` says whether Codex would retry it (5xx, 429, dropped or stalled streams);
    ``delay`` is the server's ``Retry-After`` in seconds, if it sent one. The message is
    what the turn shows; it never contains the API key.
    """

    def __init__(
        self, message: str, *, retryable: bool = False, delay: float | None = None, info: str | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.retryable = retryable
        self.delay = delay
        self.info = info
        """Codex's ``CodexErrorInfo`` name (unauthorized, rateLimitExceeded, ...), if known."""


class CassetteError(CodexNbError):
    """A cassette (a recorded session) cannot be used: a truncated, hand-edited, foreign or newer file,
    a file that cannot be written, or a request the cassette holds no recording for.

    ``path`` is the cassette file, ``line`` the 1-based line at fault (``None`` when the
    problem is the whole file or a request); the message says what to do.
    """

    def __init__(self, message: str, *, path: Any = None, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.path = path
        self.line = line


class TurnInterrupted(CodexNbError):
    """An awaited turn was stopped by the keyboard interrupt (the kernel's interrupt button).

    The turn itself ended as ``interrupted`` with every call paired; awaiting its handle
    again gives that result (``result``)."""

    def __init__(self, message: str, *, result: Any) -> None:
        super().__init__(message)
        self.result = result

    def _render_traceback_(self) -> list[str]:
        # IPython shows these lines instead of a traceback: the interrupt was the person's
        # own action, not a failure to debug.
        return [f"{type(self).__name__}: {self}"]
