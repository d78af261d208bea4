"""The two ways a tool handler fails, as Codex's ``FunctionCallError``
(codex-rs/tools/src/function_call_error.rs).

``RespondToModel`` is a value the model reads verbatim; the turn goes on.
``Fatal`` aborts the turn with ``Fatal error: {msg}``.
"""

from __future__ import annotations


class FunctionCallError(Exception):
    """Base of handler failures; ``message`` is the exact text."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class RespondToModel(FunctionCallError):
    """The model receives ``message`` as the call output (success False)."""


class Fatal(FunctionCallError):
    """The turn aborts with ``Fatal error: {message}``."""
