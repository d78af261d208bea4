"""The real Codex as a source: ``codex app-server`` driven over JSON-RPC on stdio, and its errors.

``CodexAppServer`` is also ``cx.CodexAppServer``; the rest (threads, turn results, errors) lives here so
``import codex_nb as cx`` stays short. The implementation is ``codex_nb.sources.app_server``.
"""

from .sources.app_server import (
    AppServerError,
    AppServerExited,
    AppServerNotification,
    AppServerProtocolError,
    AppServerRpcError,
    AppServerTimeout,
    AppServerTurnHandle,
    AppServerTurnResult,
    CodexAppServer,
    CodexBinaryError,
    CodexThread,
    CodexVersionError,
    supported_range,
)

__all__ = [
    "AppServerError",
    "AppServerExited",
    "AppServerNotification",
    "AppServerProtocolError",
    "AppServerRpcError",
    "AppServerTimeout",
    "AppServerTurnHandle",
    "AppServerTurnResult",
    "CodexAppServer",
    "CodexBinaryError",
    "CodexThread",
    "CodexVersionError",
    "supported_range",
]
