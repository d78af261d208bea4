"""Errors of the app-server client, each saying what failed and what to do."""

from __future__ import annotations

from typing import Any

from ..errors import CodexNbError


class AppServerError(CodexNbError):
    """Base of every app-server client failure."""


class AppServerRpcError(AppServerError):
    """The server answered a request with a JSON-RPC error; the message quotes it."""

    def __init__(self, method: str, code: int, message: str, data: Any = None) -> None:
        self.method = method
        self.code = code
        self.server_message = message
        self.data = data
        super().__init__(f"codex app-server rejected {method}: {message} (JSON-RPC error {code})")


class AppServerTimeout(AppServerError):
    """A request got no answer in time."""


class AppServerExited(AppServerError):
    """The subprocess ended (crashed, was killed or closed); ``stderr_tail`` holds its last words."""

    def __init__(self, message: str, *, returncode: int | None, stderr_tail: str) -> None:
        self.returncode = returncode
        self.stderr_tail = stderr_tail
        tail = f"\n--- codex app-server stderr (last lines) ---\n{stderr_tail}" if stderr_tail else ""
        super().__init__(message + tail)


class AppServerProtocolError(AppServerError):
    """The server sent something that is not JSON-RPC 2.0 or breaks the schema (validate=True)."""
