"""Errors of the ACP client (each message says what went wrong and what to do)."""

from __future__ import annotations

from ..errors import CodexNbError


class AcpError(CodexNbError):
    """An ACP agent could not be started, refused a request, or is no longer running."""


class AcpAuthError(AcpError):
    """The agent demands authentication this client cannot provide."""
