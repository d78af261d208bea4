"""Exceptions a programmer sees when they misuse the codex_nb API.

Failures the *model* must read are not exceptions: they are tool outputs with exact
spec text (see ``codex_nb.tools.errors``). Everything here is for the person at the
keyboard, and every message says what was wrong and what to do instead.

    CodexNbError
    ├── ConfigError            bad config TOML / values
    ├── ToolCollisionError     two sources register the same tool name
    ├── ToolDefinitionError    a Python function cannot become a tool
    ├── TurnError              misuse of turns (already running, not started, ...)
    ├── ScriptedModelError     the strict scripted model was over- or under-used
    ├── HookError              bad hook configuration or an untrusted hook
    ├── AnswerError            a frontend answer for an unknown/settled id, or malformed
    │                          (codex_nb.frontend.requests)
    └── AnswerPolicyError      a headless answer policy that cannot answer
                               (codex_nb.frontend.answer_policy)
"""

from __future__ import annotations


class CodexNbError(Exception):
    """Base class for every error codex_nb raises at its caller."""


class ConfigError(CodexNbError, ValueError):
    """A configuration value or TOML document is invalid."""


class ToolCollisionError(CodexNbError):
    """A tool name is already owned by another source."""


class ToolDefinitionError(CodexNbError, TypeError):
    """A Python object cannot be turned into a tool."""


class TurnError(CodexNbError, RuntimeError):
    """A turn was used in a way its state does not allow."""


class ScriptedModelError(CodexNbError, AssertionError):
    """The strict scripted model was asked for more responses than it has, or left some unused."""


class HookError(CodexNbError):
    """A hook definition is invalid or may not run yet."""
